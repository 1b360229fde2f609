package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ErrNoResults is the error of reading the results of a batch that has
// none yet (results null: not settled, or settlement pending).
var ErrNoResults = errors.New("the batch has no results yet")

// EachResult fetches a batch and hands each of its results to each, as
// sent, while the body arrives: only the result being read is held, so
// memory stays flat whatever the batch's size (GetBatchData keeps the
// whole body). item is valid only until each returns. The body is capped
// at MaxBodyBytes as any batch is (a larger Content-Length is refused
// before reading). It returns the batch's metadata (Results nil); a batch
// whose results are null (not settled, or settlement pending) returns
// the metadata and ErrNoResults. An error from each stops the reading and
// is returned as it is. On a 402 it returns an *APIError whose Batch
// holds the metadata, as GetBatch does.
func (c *Client) EachResult(ctx context.Context, id string, each func(item []byte) error) (*Batch, error) {
	if id == "" {
		return nil, &ValidationError{Field: "id", Rule: "is required (minimum length 1)"}
	}
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	r := batchRequest(id)
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, withPaymentBatch(err)
	}
	defer resp.Body.Close()
	if n := resp.ContentLength; n > c.maxBody {
		return nil, &TooLargeError{What: "response body", Limit: c.maxBody, Size: n, Settable: true}
	}
	src := &cappedReader{r: resp.Body, left: c.maxBody}
	b, err := eachResult(src, each)
	var eachErr *eachError
	switch {
	case errors.As(err, &eachErr):
		return b, eachErr.err
	case err == nil || errors.Is(err, ErrNoResults):
		return b, err
	case src.over:
		return nil, &TooLargeError{What: "response body", Limit: c.maxBody, Settable: true}
	case errors.Is(ctx.Err(), context.Canceled):
		return nil, ctx.Err()
	case ctx.Err() != nil:
		return nil, &TransportError{Op: r.opName(), Err: fmt.Errorf("no complete answer within %s", c.timeout)}
	case src.err != nil:
		return nil, &TransportError{Op: r.opName(), Err: src.err}
	}
	return nil, &DecodeError{Op: r.opName(), Status: http.StatusOK, Err: err}
}

// eachError carries an error of the caller's function out of the walk.
type eachError struct{ err error }

func (e *eachError) Error() string { return e.err.Error() }

// eachResult walks a batch body: the metadata is kept (a small object
// rebuilt without the results), each result is handed on as it is read.
func eachResult(src io.Reader, each func([]byte) error) (*Batch, error) {
	dec := jsontext.NewDecoder(src, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errors.New("the body is not a JSON object")
	}
	meta := []byte{'{'}
	hasResults := false
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String()
		if name != "results" {
			val, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			meta = appendMember(meta, name, val)
			continue
		}
		switch dec.PeekKind() {
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return nil, err
			}
			continue
		case '[':
		default:
			return nil, errors.New("results is neither an array nor null")
		}
		hasResults = true
		dec.ReadToken()
		for n := 0; dec.PeekKind() != ']'; n++ {
			val, err := dec.ReadValue()
			if err != nil {
				return nil, fmt.Errorf("result %d: %w", n, err)
			}
			if err := each(val); err != nil {
				return nil, &eachError{err}
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	meta = append(meta, '}')
	var b Batch
	type plain Batch
	if err := jsonv2.Unmarshal(meta, (*plain)(&b), lenient); err != nil {
		return nil, err
	}
	b.Results, b.Raw = nil, meta
	if !hasResults {
		return &b, ErrNoResults
	}
	return &b, nil
}

// cappedReader reads at most left bytes and fails beyond them; it keeps
// the reader's own error for the message.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

func (c *cappedReader) Read(p []byte) (int, error) {
	// one byte past the cap tells a body that ends at it from a longer one
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		c.over = true
		return 0, errors.New("body over the cap")
	}
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// appendMember appends "name":val to the members of a JSON object being
// built in meta (which starts with its '{').
func appendMember(meta []byte, name string, val jsontext.Value) []byte {
	if len(meta) > 1 {
		meta = append(meta, ',')
	}
	meta, _ = jsontext.AppendQuote(meta, name)
	meta = append(meta, ':')
	return append(meta, val...)
}
