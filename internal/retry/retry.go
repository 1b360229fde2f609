// Package retry builds the retry of a settled batch's failed rows: which
// rows (grouped by error type, the retryable ones chosen by default),
// their request bodies (kept by the request log when the batch was
// submitted from gwdash, or read from the original JSON Lines), the model
// they go to and what they may cost. It also follows a batch's lineage
// (the retries made from this machine) to its effective results: the
// latest attempt of each custom_id.
//
// The package imports no UI: `gwdash batch retry` and the inspector's R
// use the same plan, rules and words.
package retry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// RetryableTypes are the canonical error types of passing trouble, that a
// retry may get past: the provider's rate limit, an overloaded provider,
// a timeout, a server error. They are chosen by default; every other type
// is shown, flagged, and retried only when named. The one home of the
// rule.
var RetryableTypes = []string{"rate_limit_exceeded", "provider_overloaded", "timeout", "server"}

// Retryable reports whether failures of an error type are retried by
// default.
func Retryable(errorType string) bool { return slices.Contains(RetryableTypes, errorType) }

// NoType names the group of failures that carry no error type.
const NoType = "(no error type)"

// Problems of a retry, each with its own words.
var (
	// ErrNothingFailed: every row succeeded.
	ErrNothingFailed = errors.New("nothing failed: every row of the batch succeeded, there is nothing to retry")
)

// NotSettledError is a batch that is still running (or has no results).
type NotSettledError struct {
	ID     string
	Status api.BatchStatus
}

func (e *NotSettledError) Error() string {
	if e.Status.Terminal() {
		return fmt.Sprintf("batch %s is %s without per-request results: there are no failed rows to retry", e.ID, e.Status)
	}
	return fmt.Sprintf("batch %s is %s: only a settled batch can be retried (gwdash batch watch %s waits for it)", e.ID, e.Status, e.ID)
}

// NoInputError is a retry without the bodies of the rows to send: the
// requests were not kept here (Missing empty), or some of them were not
// (Missing names how many).
type NoInputError struct {
	ID string
	// Missing is how many chosen rows have no body; Of is how many were
	// chosen (0: no input at all).
	Missing, Of int
	// Source says where the bodies were looked for.
	Source string
	// Truncated: the log kept only part of the batch's requests.
	Truncated bool
}

func (e *NoInputError) Error() string {
	if e.Of == 0 {
		return fmt.Sprintf("the requests of batch %s were not kept on this machine (it was not submitted from gwdash here, or the request log was off or pruned): pass --input FILE with the original JSON Lines", e.ID)
	}
	why := ""
	if e.Truncated {
		why = fmt.Sprintf(" (the log keeps a batch's requests up to %d MiB)", reqlog.MaxRequestBytes>>20)
	}
	return fmt.Sprintf("%s of the %s to retry have no request in %s%s: pass --input FILE with the original JSON Lines",
		format.Int(e.Missing), format.Plural(e.Of, "row", "rows"), e.Source, why)
}

// InputError is an --input file that does not fit the batch: not JSON
// Lines, a wrong shape, or a custom_id the batch does not have.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// UnknownTypeError is an --error-type that names no failed row.
type UnknownTypeError struct {
	Type   string
	Groups []Group
}

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("--error-type %s: no failed row has this error type; the failures are %s", e.Type, GroupList(e.Groups))
}

// NothingChosenError is a batch whose failures are all of types not
// retried by default, with none named.
type NothingChosenError struct{ Groups []Group }

func (e *NothingChosenError) Error() string {
	return fmt.Sprintf("no failed row is of a retryable type (%s); the failures are %s: name the types to retry with --error-type",
		strings.Join(RetryableTypes, ", "), GroupList(e.Groups))
}

// GroupList is "rate_limit_exceeded 3 · timeout 1".
func GroupList(gs []Group) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = g.Type + " " + format.Int(g.Rows)
	}
	return strings.Join(parts, " · ")
}

// Input is the request bodies of a batch, by custom_id.
type Input struct {
	Endpoint, Model string
	Bodies          map[string]json.RawMessage
	// Source says where they came from ("the request log", a file name).
	Source    string
	Truncated bool
}

// FromKept is the input the request log kept.
func FromKept(k *reqlog.KeptBatch) *Input {
	in := &Input{Endpoint: k.Endpoint, Model: k.Model, Bodies: make(map[string]json.RawMessage, len(k.Requests)), Source: "the request log",
		Truncated: k.Truncated}
	for _, r := range k.Requests {
		in.Bodies[r.CustomID] = r.Body
	}
	return in
}

// ReadInput reads the original JSON Lines ({"custom_id", "body"} per
// line); every problem is named by its line.
func ReadInput(r io.Reader, name string) (*Input, error) {
	reqs, errs := api.ReadBatchRequests(r)
	if len(errs) > 0 {
		if len(errs) == 1 && errs[0].Line == 0 {
			return nil, &InputError{Msg: fmt.Sprintf("--input %s holds no requests", name)}
		}
		parts := make([]string, 0, len(errs))
		for _, e := range errs {
			parts = append(parts, e.Error())
		}
		return nil, &InputError{Msg: fmt.Sprintf("--input %s is not the batch's JSON Lines: %s", name, strings.Join(parts, "; "))}
	}
	in := &Input{Bodies: make(map[string]json.RawMessage, len(reqs)), Source: name}
	for _, r := range reqs {
		in.Bodies[r.CustomID] = r.Body
	}
	return in, nil
}

// Group is the failed rows of one error type.
type Group struct {
	Type      string `json:"error_type"`
	Rows      int    `json:"rows"`
	Retryable bool   `json:"retryable"`
	Chosen    bool   `json:"chosen"`
}

// Options choose what a plan retries.
type Options struct {
	// Types are the error types to retry (none: the retryable ones).
	Types []string
	// Model is the model to send them to ("": the batch's).
	Model string
}

// Plan is a retry ready to send.
type Plan struct {
	Parent   string `json:"parent"`
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	// Groups are every failure type of the parent, most rows first.
	Groups []Group `json:"groups"`
	// Requests are the chosen rows, custom_ids unchanged, bodies as kept
	// (their model changed when the plan's model differs).
	Requests []api.BatchRequest `json:"-"`
	Source   string             `json:"source"`
	Estimate Estimate           `json:"estimate"`
	// completionAvg is the parent's average completion tokens per
	// succeeded row (0: none succeeded).
	completionAvg float64
}

// Chosen is how many rows the plan sends.
func (p *Plan) Chosen() int { return len(p.Requests) }

// FailedTypes groups a batch's failed rows by error type (the canonical
// type, else the error's type, else NoType), most rows first.
func FailedTypes(d *api.BatchData) (map[string][]int, []Group) {
	rows := map[string][]int{}
	for i := range d.Rows {
		if !d.Rows[i].Failed {
			continue
		}
		t := d.Word(d.Rows[i].ErrType)
		if t == "" {
			t = NoType
		}
		rows[t] = append(rows[t], i)
	}
	groups := make([]Group, 0, len(rows))
	for t, rs := range rows {
		groups = append(groups, Group{Type: t, Rows: len(rs), Retryable: Retryable(t)})
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].Rows != groups[j].Rows {
			return groups[i].Rows > groups[j].Rows
		}
		return groups[i].Type < groups[j].Type
	})
	return rows, groups
}

// Build plans the retry of a settled batch's failed rows with the bodies
// of in (nil: none kept).
func Build(d *api.BatchData, in *Input, o Options) (*Plan, error) {
	b := d.Batch
	if d.Rows == nil || !b.Status.Terminal() || len(d.Rows) == 0 && b.RequestCounts.Failed > 0 {
		// (a batch that failed as a whole has failures and no rows)
		return nil, &NotSettledError{ID: b.ID, Status: b.Status}
	}
	byType, groups := FailedTypes(d)
	if len(groups) == 0 {
		return nil, ErrNothingFailed
	}
	for _, t := range o.Types {
		if _, ok := byType[t]; !ok {
			return nil, &UnknownTypeError{Type: t, Groups: groups}
		}
	}
	for i := range groups {
		g := &groups[i]
		g.Chosen = len(o.Types) == 0 && g.Retryable || slices.Contains(o.Types, g.Type)
	}
	var chosen []int
	for _, g := range groups {
		if g.Chosen {
			chosen = append(chosen, byType[g.Type]...)
		}
	}
	if len(chosen) == 0 {
		return nil, &NothingChosenError{Groups: groups}
	}
	sort.Ints(chosen) // in the parent's order
	if in == nil || len(in.Bodies) == 0 {
		return nil, &NoInputError{ID: b.ID}
	}
	if in.Source != "the request log" {
		// A file must be the batch's: every custom_id one of its rows.
		ids := make(map[string]bool, len(d.Rows))
		for i := range d.Rows {
			ids[d.CustomID(i)] = true
		}
		var strays []string
		for id := range in.Bodies {
			if !ids[id] {
				strays = append(strays, id)
			}
		}
		if len(strays) > 0 {
			sort.Strings(strays)
			verb, more := plural(len(strays), "is not a row", "are not rows"), ""
			if len(strays) > 3 {
				more = fmt.Sprintf(" and %s more", format.Int(len(strays)-3))
				strays = strays[:3]
			}
			return nil, &InputError{Msg: fmt.Sprintf("--input %s is not this batch's: custom_id %s%s %s of batch %s",
				in.Source, quoteAll(strays), more, verb, b.ID)}
		}
	}
	p := &Plan{Parent: b.ID, Endpoint: b.Endpoint, Model: b.Model, Groups: groups, Source: in.Source}
	if p.Endpoint == "" {
		p.Endpoint = in.Endpoint
	}
	if p.Model == "" {
		p.Model = in.Model
	}
	if o.Model != "" {
		p.Model = o.Model
	}
	missing := 0
	for _, i := range chosen {
		id := d.CustomID(i)
		body, ok := in.Bodies[id]
		if !ok {
			missing++
			continue
		}
		body, err := withModel(body, p.Model)
		if err != nil {
			return nil, &InputError{Msg: fmt.Sprintf("the request of %s cannot be read: its body is not a JSON object", id)}
		}
		p.Requests = append(p.Requests, api.BatchRequest{CustomID: id, Body: body})
	}
	if missing > 0 {
		return nil, &NoInputError{ID: b.ID, Missing: missing, Of: len(chosen), Source: in.Source, Truncated: in.Truncated}
	}
	if err := api.ValidateBatchSubmission(p.Endpoint, p.Model, p.Requests); err != nil {
		return nil, err
	}
	p.completionAvg = completionAverage(d)
	return p, nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// withModel sets a body's model to model when it names another one (a
// body's model must equal the batch's); a body without one is kept as
// it is.
func withModel(body json.RawMessage, model string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, errors.New("not an object")
	}
	raw, ok := m["model"]
	if !ok {
		return body, nil
	}
	var cur string
	if json.Unmarshal(raw, &cur) == nil && cur == model {
		return body, nil
	}
	m["model"], _ = json.Marshal(model)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// completionSample bounds the succeeded rows read for the average.
const completionSample = 2000

// completionAverage is the average completion tokens of the batch's
// succeeded rows (a sample of the first completionSample).
func completionAverage(d *api.BatchData) float64 {
	var sum, n int64
	for i := range d.Rows {
		if d.Rows[i].Failed {
			continue
		}
		f, err := api.FactsOf(d.ItemBytes(i))
		if err != nil || f.CompletionTokens == nil || *f.CompletionTokens < 0 {
			continue
		}
		sum += int64(*f.CompletionTokens)
		if n++; n >= completionSample {
			break
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

// WriteJSONL writes the requests the plan sends, one {"custom_id",
// "body"} per line: exactly what is submitted.
func (p *Plan) WriteJSONL(w io.Writer) error {
	for _, r := range p.Requests {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
