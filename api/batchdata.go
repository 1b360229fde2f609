package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// BatchData is a batch read for showing: its metadata decoded, its body
// kept exactly as sent, and one compact row per result. A result's full
// detail is decoded only when asked for (Item), so a 100,000-result batch
// costs about its own size in memory, not several times it.
type BatchData struct {
	// Batch is the metadata; its Results is nil (see Rows and Item).
	Batch *Batch
	// Raw is the body as sent.
	Raw []byte
	// Rows has one entry per result, in order; nil when results is null.
	Rows []ResultRow
	// Words holds the distinct models, error types and finish reasons the
	// rows refer to by index.
	Words []string
	// escaped holds the custom_ids that are not their own bytes in Raw
	// (JSON escapes), by row.
	escaped map[int][]byte
}

// ResultRow is what a table shows of one result. Its custom_id is not a
// string of its own: it is read from Raw (CustomID), so a million rows
// cost no million strings.
type ResultRow struct {
	Off int64  // the item's first byte in Raw
	Len uint32 // its length
	// cidOff and cidLen place the custom_id within the item (cidOff 0:
	// see BatchData.escaped).
	cidOff, cidLen uint32
	// Status is response.status_code (0 without a response).
	Status int32
	// Tokens is the body's total tokens (or input + output).
	Tokens int32
	// ErrType, Model and Finish index Words (0 is "").
	ErrType, Model, Finish uint16
	Failed                 bool
	Kind                   BodyKind
}

// CustomIDBytes returns result i's custom_id without a copy (do not
// change it).
func (d *BatchData) CustomIDBytes(i int) []byte {
	r := &d.Rows[i]
	if r.cidOff == 0 {
		return d.escaped[i]
	}
	at := r.Off + int64(r.cidOff)
	return d.Raw[at : at+int64(r.cidLen)]
}

// CustomID returns result i's custom_id.
func (d *BatchData) CustomID(i int) string { return string(d.CustomIDBytes(i)) }

// placeCustomID finds the custom_id's own bytes in an item, when they are
// the decoded value (no escapes): the member name is looked for, and the
// string after it must equal what the decoder read, so a nested
// "custom_id" is never taken for it.
func placeCustomID(item []byte, want string) (off, n uint32, ok bool) {
	key := []byte(`"custom_id"`)
	for from := 0; ; {
		i := bytes.Index(item[from:], key)
		if i < 0 {
			return 0, 0, false
		}
		j := from + i + len(key)
		for j < len(item) && (item[j] == ' ' || item[j] == '\t' || item[j] == '\n' || item[j] == '\r' || item[j] == ':') {
			j++
		}
		if j < len(item) && item[j] == '"' {
			k := bytes.IndexByte(item[j+1:], '"')
			if k >= 0 && bytes.IndexByte(item[j+1:j+1+k], '\\') < 0 && string(item[j+1:j+1+k]) == want {
				return uint32(j + 1), uint32(k), true
			}
		}
		from = j
	}
}

// Word returns the string a row's index refers to.
func (d *BatchData) Word(i uint16) string {
	if int(i) < len(d.Words) {
		return d.Words[i]
	}
	return ""
}

// ItemBytes returns result i as sent.
func (d *BatchData) ItemBytes(i int) []byte {
	r := d.Rows[i]
	return d.Raw[r.Off : r.Off+int64(r.Len)]
}

// Item decodes result i in full.
func (d *BatchData) Item(i int) (*ResultItem, error) {
	var it ResultItem
	if err := it.UnmarshalJSON(d.ItemBytes(i)); err != nil {
		return nil, err
	}
	return &it, nil
}

// ErrorTypeCounts counts failed results per error type ("" for failures
// without one).
func (d *BatchData) ErrorTypeCounts() map[string]int {
	m := map[string]int{}
	for i := range d.Rows {
		if d.Rows[i].Failed {
			m[d.Word(d.Rows[i].ErrType)]++
		}
	}
	return m
}

// itemSummary is what a row needs of one result item; every other member
// is skipped while decoding.
type itemSummary struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int         `json:"status_code"`
		Body       summaryWire `json:"body"`
	} `json:"response"`
	Error *struct {
		Type      string `json:"type"`
		ErrorType string `json:"error_type"`
	} `json:"error"`
}

// ReadBatchData decodes a batch body into BatchData: one pass over the
// body finds each result's bytes and the few members a row shows.
func ReadBatchData(raw []byte) (*BatchData, error) { return readBatchData(raw, bytes.NewReader(raw)) }

// readBatchData decodes raw read through src, which yields raw's bytes in
// order (as they arrive, when the body is still downloading): offsets are
// positions in raw, and raw is whole by the time it is returned.
func readBatchData(raw []byte, src io.Reader) (*BatchData, error) {
	d := &BatchData{Raw: raw, Words: []string{""}}
	words := map[string]uint16{"": 0}
	intern := func(s string) uint16 {
		if i, ok := words[s]; ok {
			return i
		}
		if len(d.Words) >= 1<<16-1 {
			return 0 // more distinct words than a table can name
		}
		i := uint16(len(d.Words))
		d.Words = append(d.Words, s)
		words[s] = i
		return i
	}
	hint := 0
	dec := jsontext.NewDecoder(src, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, emptyOr(raw, err)
	}
	if tok.Kind() != '{' {
		return nil, errors.New("the body is not a JSON object")
	}
	// The metadata is rebuilt as a small object without the results.
	meta := []byte{'{'}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // a token is valid only until the next read
		if name != "results" {
			val, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			if name == "request_counts" { // how many rows to make room for
				var rc struct {
					Total int64 `json:"total"`
				}
				if jsonv2.Unmarshal(val, &rc, lenient) == nil && rc.Total > 0 {
					hint = int(min(rc.Total, int64(len(raw)/16))) // an item is more than 16 bytes
				}
			}
			meta = appendMember(meta, name, val)
			continue
		}
		if dec.PeekKind() == 'n' {
			dec.ReadToken()
			continue
		}
		if dec.PeekKind() != '[' {
			return nil, errors.New("results is neither an array nor null")
		}
		dec.ReadToken()
		d.Rows = make([]ResultRow, 0, hint)
		// Two stages on two cores: this loop finds each result's bytes, a
		// worker reads the few members a row shows. The worker reads raw
		// only below what the decoder has consumed (so it is filled).
		spans := make(chan []itemSpan, 16)
		done := make(chan error, 1)
		go func() { done <- d.summarize(spans, intern) }()
		batch := make([]itemSpan, 0, 512)
		var scanErr error
		for n := 0; dec.PeekKind() != ']'; n++ {
			val, err := dec.ReadValue()
			if err != nil {
				scanErr = fmt.Errorf("result %d: %w", n, err)
				break
			}
			if len(val) > 1<<32-1 {
				scanErr = fmt.Errorf("result %d is larger than 4 GiB", n)
				break
			}
			end := dec.InputOffset()
			batch = append(batch, itemSpan{off: end - int64(len(val)), n: uint32(len(val))})
			if len(batch) == cap(batch) {
				spans <- batch
				batch = make([]itemSpan, 0, 512)
			}
		}
		if len(batch) > 0 {
			spans <- batch
		}
		close(spans)
		if err := <-done; scanErr == nil && err != nil {
			scanErr = err
		}
		if scanErr != nil {
			return nil, scanErr
		}
		dec.ReadToken()
	}
	meta = append(meta, '}')
	var b Batch
	type plain Batch
	if err := jsonv2.Unmarshal(meta, (*plain)(&b), lenient); err != nil {
		return nil, err
	}
	b.Results = nil
	b.Raw = raw
	d.Batch = &b
	return d, nil
}

// itemSpan is where one result is in the body.
type itemSpan struct {
	off int64
	n   uint32
}

// summarize reads the rows of the results it is sent, in order; after an
// error it drains what is still sent and returns the error.
func (d *BatchData) summarize(spans <-chan []itemSpan, intern func(string) uint16) error {
	var failed error
	var sum itemSummary
	for batch := range spans {
		if failed != nil {
			continue
		}
		for _, sp := range batch {
			val := d.Raw[sp.off : sp.off+int64(sp.n)]
			sum = itemSummary{}
			if err := jsonv2.Unmarshal(val, &sum, lenient); err != nil {
				failed = fmt.Errorf("result %d: %w", len(d.Rows), err)
				break
			}
			row := ResultRow{Off: sp.off, Len: sp.n}
			if off, n, ok := placeCustomID(val, sum.CustomID); ok {
				row.cidOff, row.cidLen = off, n
			} else if sum.CustomID != "" {
				if d.escaped == nil {
					d.escaped = map[int][]byte{}
				}
				d.escaped[len(d.Rows)] = []byte(sum.CustomID)
			}
			if e := sum.Error; e != nil {
				row.Failed = true
				et := e.ErrorType
				if et == "" {
					et = e.Type
				}
				row.ErrType = intern(et)
			}
			if r := sum.Response; r != nil {
				row.Status = int32(max(-1, min(r.StatusCode, 1<<30)))
				if r.StatusCode < 200 || r.StatusCode > 299 {
					row.Failed = true
				}
				s := r.Body.summary()
				row.Kind, row.Model, row.Finish = s.Kind, intern(s.Model), intern(s.FinishReason)
				row.Tokens = int32(max(-1<<31, min(s.Tokens, 1<<31-1)))
			} else if sum.Error == nil {
				row.Failed = true // neither a response nor an error
			}
			d.Rows = append(d.Rows, row)
		}
	}
	return failed
}

func emptyOr(raw []byte, err error) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return errors.New("empty body where JSON was expected")
	}
	return err
}

// GetBatchData fetches a batch for showing (see BatchData). On a 402 it
// returns an *APIError whose Batch holds the metadata, as GetBatch does.
func (c *Client) GetBatchData(ctx context.Context, id string) (*BatchData, error) {
	if id == "" {
		return nil, &ValidationError{Field: "id", Rule: "is required (minimum length 1)"}
	}
	var d *BatchData
	var decodeErr error
	r := batchRequest(id)
	_, err := c.callRead(ctx, r, true, func(raw []byte, src io.Reader) error {
		d, decodeErr = readBatchData(raw, src)
		return decodeErr
	})
	if err != nil {
		return nil, withPaymentBatch(err)
	}
	return d, nil
}

// summary reads a body summary from its decoded wire form.
func (w summaryWire) summary() BodySummary {
	s := BodySummary{Kind: w.kind(), Model: w.Model}
	if u := w.Usage; u != nil {
		switch {
		case u.TotalTokens != nil:
			s.Tokens = *u.TotalTokens
		default:
			if u.InputTokens != nil {
				s.Tokens += *u.InputTokens
			}
			if u.OutputTokens != nil {
				s.Tokens += *u.OutputTokens
			}
		}
	}
	switch s.Kind {
	case BodyChatCompletion:
		if len(w.Choices) > 0 && w.Choices[0].FinishReason != nil {
			s.FinishReason = *w.Choices[0].FinishReason
		}
	case BodyMessage:
		if w.StopReason != nil {
			s.FinishReason = *w.StopReason
		}
	case BodyResponse:
		s.FinishReason = w.Status
		if w.IncompleteDetails != nil && w.IncompleteDetails.Reason != "" {
			s.FinishReason += ": " + w.IncompleteDetails.Reason
		}
	case BodyEmbeddings:
		s.FinishReason = "embedding"
	}
	return s
}

// WriteItems writes the results for which keep reports true, as sent, one
// per line, each through write (which may escape them).
func (d *BatchData) WriteItems(w io.Writer, keep func(ResultRow) bool, write func(io.Writer, []byte) error) error {
	for i := range d.Rows {
		if keep != nil && !keep(d.Rows[i]) {
			continue
		}
		if err := write(w, d.ItemBytes(i)); err != nil {
			return err
		}
		if _, err := w.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	return nil
}

// ErrorTypeNames are the error types present, sorted.
func (d *BatchData) ErrorTypeNames() []string {
	var out []string
	for k := range d.ErrorTypeCounts() {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, strings.Compare)
	return out
}
