package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
)

// BatchStatus is the status of a batch.
type BatchStatus string

// The batch statuses of the contract.
const (
	BatchValidating BatchStatus = "validating"
	BatchInProgress BatchStatus = "in_progress"
	BatchFinalizing BatchStatus = "finalizing"
	BatchCompleted  BatchStatus = "completed"
	BatchFailed     BatchStatus = "failed"
	BatchExpired    BatchStatus = "expired"
	BatchCancelling BatchStatus = "cancelling"
	BatchCancelled  BatchStatus = "cancelled"
)

// BatchStatuses are the statuses of the contract, in their usual order.
var BatchStatuses = []BatchStatus{BatchValidating, BatchInProgress, BatchFinalizing, BatchCompleted, BatchFailed, BatchExpired, BatchCancelling, BatchCancelled}

// Terminal reports whether no further change will happen. An unknown
// status is not terminal: polling goes on.
func (s BatchStatus) Terminal() bool {
	switch s {
	case BatchCompleted, BatchFailed, BatchExpired, BatchCancelled:
		return true
	}
	return false
}

// Known reports whether s is one of the contract's statuses.
func (s BatchStatus) Known() bool { return slices.Contains(BatchStatuses, s) }

// Batch is the object GET /batches/{id} returns. Raw keeps the bytes the
// server sent, and MarshalJSON returns them, so that printing a decoded
// batch loses no member the types do not know.
type Batch struct {
	ID               string          `json:"id"`
	Object           string          `json:"object"`
	Endpoint         string          `json:"endpoint"`
	Model            string          `json:"model"`
	CompletionWindow string          `json:"completion_window"`
	Status           BatchStatus     `json:"status"`
	CreatedAt        int64           `json:"created_at"`
	FinalizedAt      *int64          `json:"finalized_at"`
	RequestCounts    RequestCounts   `json:"request_counts"`
	Usage            *BatchUsage     `json:"usage"`
	Results          []ResultItem    `json:"results"`
	Error            *BatchError     `json:"error"`
	Raw              json.RawMessage `json:"-"`
}

// RequestCounts are the batch's request counters.
type RequestCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// Done is completed plus failed, saturating instead of overflowing.
func (r RequestCounts) Done() int {
	if r.Completed > 0 && r.Failed > math.MaxInt-r.Completed {
		return math.MaxInt
	}
	if r.Completed < 0 && r.Failed < math.MinInt-r.Completed {
		return math.MinInt
	}
	return r.Completed + r.Failed
}

// Pending is total minus done, never negative.
func (r RequestCounts) Pending() int {
	if r.Total <= 0 {
		return 0
	}
	return max(0, r.Total-max(0, r.Done()))
}

// Problems describes what cannot be right in the counts (a server's
// numbers are checked, never trusted): negative counts, more done than
// total, or counts lower than in prev, the previous snapshot (nil when
// there is none). It is empty when the counts are consistent.
func (r RequestCounts) Problems(prev *RequestCounts) string {
	var out []string
	if r.Total < 0 || r.Completed < 0 || r.Failed < 0 {
		out = append(out, "negative counts")
	}
	if r.Completed > 0 && r.Failed > 0 && r.Failed > math.MaxInt-r.Completed {
		out = append(out, "counts overflow")
	} else if r.Total >= 0 && r.Done() > r.Total {
		out = append(out, "completed + failed exceeds total")
	}
	if prev != nil && (r.Completed < prev.Completed || r.Failed < prev.Failed) {
		out = append(out, "counts went down")
	}
	return strings.Join(out, ", ")
}

// BatchError is the batch-level error (a failed batch's reason, or the
// 402 explanation). Code is set on the 402 form only.
type BatchError struct {
	Code    json.RawMessage `json:"code,omitempty"`
	Message string          `json:"message"`
}

// Usage is the chat/batch usage object.
type Usage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	ServerToolUse           *ServerToolUse           `json:"server_tool_use,omitempty"`
	ServerToolUseDetails    *ServerToolUse           `json:"server_tool_use_details,omitempty"`
	Cost                    *float64                 `json:"cost,omitempty"`
	CostDetails             json.RawMessage          `json:"cost_details,omitempty"`
	IsBYOK                  *bool                    `json:"is_byok,omitempty"`
}

// CompletionTokensDetails break completion tokens down.
type CompletionTokensDetails struct {
	AudioTokens     *int `json:"audio_tokens,omitempty"`
	ImageTokens     *int `json:"image_tokens,omitempty"`
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
}

// PromptTokensDetails break prompt tokens down.
type PromptTokensDetails struct {
	AudioTokens      *int `json:"audio_tokens,omitempty"`
	CacheWriteTokens *int `json:"cache_write_tokens,omitempty"`
	CachedTokens     *int `json:"cached_tokens,omitempty"`
	FileTokens       *int `json:"file_tokens,omitempty"`
	VideoTokens      *int `json:"video_tokens,omitempty"`
}

// ServerToolUse counts server-side tool use. WebSearchRequests and
// ToolCallsRequested overlap and must not be summed.
type ServerToolUse struct {
	ToolCallsExecuted  *int `json:"tool_calls_executed,omitempty"`
	ToolCallsRequested *int `json:"tool_calls_requested,omitempty"`
	WebSearchRequests  *int `json:"web_search_requests,omitempty"`
}

// BatchUsage is the batch-level usage: the three token counts plus cost and
// billing members.
type BatchUsage struct {
	Usage
	Iterations    json.RawMessage `json:"iterations,omitempty"`
	ServiceTier   *string         `json:"service_tier,omitempty"`
	Speed         json.RawMessage `json:"speed,omitempty"`
	CacheCreation json.RawMessage `json:"cache_creation,omitempty"`
}

// ResultItem is one element of a batch's results. Exactly one of Response
// and Error is set on the real service.
type ResultItem struct {
	ID       string          `json:"id"`
	CustomID string          `json:"custom_id"`
	Response *ResultResponse `json:"response"`
	Error    *ItemError      `json:"error"`
	Raw      json.RawMessage `json:"-"`
}

// ResultResponse is the upstream answer of one batch request.
type ResultResponse struct {
	StatusCode int             `json:"status_code"`
	RequestID  *string         `json:"request_id"`
	Body       json.RawMessage `json:"body"`
}

// ItemError is why one batch request failed.
type ItemError struct {
	Type      string     `json:"type"`
	Message   string     `json:"message"`
	Param     *string    `json:"param"`
	ErrorType *ErrorType `json:"error_type,omitempty"`
}

// Failed reports whether the item failed: an error, or a non-2xx answer.
func (r *ResultItem) Failed() bool {
	if r.Error != nil {
		return true
	}
	return r.Response == nil || r.Response.StatusCode < 200 || r.Response.StatusCode > 299
}

// ErrorTypeName is the item's canonical error type, its error's type, or "".
func (r *ResultItem) ErrorTypeName() string {
	if r.Error == nil {
		return ""
	}
	if r.Error.ErrorType != nil && *r.Error.ErrorType != "" {
		return string(*r.Error.ErrorType)
	}
	return r.Error.Type
}

// UnmarshalJSON keeps the raw bytes of the item.
func (r *ResultItem) UnmarshalJSON(b []byte) error {
	return decodeKeeping(b, (*plainResultItem)(r), &r.Raw, decode)
}

// MarshalJSON returns the bytes the server sent, when there are some.
func (r ResultItem) MarshalJSON() ([]byte, error) { return encodeKept(r.Raw, plainResultItem(r)) }

// UnmarshalJSON keeps the raw bytes of the batch.
func (b *Batch) UnmarshalJSON(data []byte) error {
	return decodeKeeping(data, (*plainBatch)(b), &b.Raw, json.Unmarshal)
}

// MarshalJSON returns the bytes the server sent, when there are some.
func (b Batch) MarshalJSON() ([]byte, error) { return encodeKept(b.Raw, plainBatch(b)) }

// CreatedTime converts created_at, which the service sends in seconds or
// milliseconds: a value above 10^11 is milliseconds.
func (b *Batch) CreatedTime() time.Time { return UnixAuto(b.CreatedAt) }

// FinalizedTime is finalized_at as a time, zero when null.
func (b *Batch) FinalizedTime() time.Time {
	if b.FinalizedAt == nil {
		return time.Time{}
	}
	return UnixAuto(*b.FinalizedAt)
}

// UnixAuto reads a timestamp in seconds or milliseconds by its magnitude.
func UnixAuto(v int64) time.Time {
	if v > 1e11 || v < -1e11 {
		return time.UnixMilli(v)
	}
	return time.Unix(v, 0)
}

// ErrorTypeCounts counts failed results per error type ("" for failures
// without one, such as a non-2xx response).
func (b *Batch) ErrorTypeCounts() map[string]int {
	m := map[string]int{}
	for i := range b.Results {
		if b.Results[i].Failed() {
			m[b.Results[i].ErrorTypeName()]++
		}
	}
	return m
}

// GetBatch fetches a batch. On a 402 it returns an *APIError whose Batch
// holds the metadata the server sent.
func (c *Client) GetBatch(ctx context.Context, id string) (*Batch, error) {
	b, _, err := c.GetBatchRaw(ctx, id)
	return b, err
}

// GetBatchRaw is GetBatch that also returns the body exactly as sent.
func (c *Client) GetBatchRaw(ctx context.Context, id string) (*Batch, []byte, error) {
	if id == "" {
		return nil, nil, &ValidationError{Field: "id", Rule: "is required (minimum length 1)"}
	}
	var b Batch
	type plain Batch // decoded without Batch.UnmarshalJSON: the body is kept once, below
	raw, err := c.call(ctx, batchRequest(id), (*plain)(&b))
	if err != nil {
		return nil, raw, withPaymentBatch(err)
	}
	b.Raw = raw
	return &b, raw, nil
}

// GetBatchBody fetches a batch and returns its body exactly as sent,
// checking only its metadata: the results are scanned, not decoded. It is
// the fast path for printing a batch as JSON. A 402 is an *APIError with
// the metadata in Batch, as with GetBatch.
func (c *Client) GetBatchBody(ctx context.Context, id string) ([]byte, error) {
	if id == "" {
		return nil, &ValidationError{Field: "id", Rule: "is required (minimum length 1)"}
	}
	var meta struct {
		ID     string      `json:"id"`
		Object string      `json:"object"`
		Status BatchStatus `json:"status"`
	}
	raw, err := c.call(ctx, batchRequest(id), &meta)
	if err != nil {
		return raw, withPaymentBatch(err)
	}
	if meta.ID == "" || meta.Object != "batch" {
		return raw, &DecodeError{Op: "GET /batches/" + id, Status: 200, Err: errors.New("not a batch object")}
	}
	return raw, nil
}

func batchRequest(id string) request {
	return request{method: http.MethodGet, path: "/batches/" + pathID(id), op: "GET /batches/{id}", resource: "batch"}
}

// withPaymentBatch attaches a 402's batch metadata to its error.
func withPaymentBatch(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusPaymentRequired && len(ae.Body) > 0 {
		var meta Batch
		if json.Unmarshal(ae.Body, &meta) == nil && meta.ID != "" {
			ae.Batch = &meta
		}
	}
	return err
}

// BatchRequest is one line of a batch submission.
type BatchRequest struct {
	CustomID string          `json:"custom_id"`
	Body     json.RawMessage `json:"body"`
	// Line is the request's 1-based line in the file it was read from (0:
	// not read from a file); problems name it.
	Line int `json:"-"`
}

// BatchEndpoints are the endpoints a batch may target.
var BatchEndpoints = []string{"/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/embeddings"}

// SubmitBatch sends POST /batches with the requests inline. It checks the
// endpoint, the model form, and that every custom_id is present and unique
// before sending.
func (c *Client) SubmitBatch(ctx context.Context, endpoint, model string, reqs []BatchRequest) (*Batch, error) {
	if err := ValidateBatchSubmission(endpoint, model, reqs); err != nil {
		return nil, err
	}
	var body bytes.Buffer
	// endpoint and model come before requests, as the service documents.
	body.WriteString(`{"endpoint":`)
	writeJSON(&body, endpoint)
	body.WriteString(`,"model":`)
	writeJSON(&body, model)
	body.WriteString(`,"requests":`)
	writeJSON(&body, reqs)
	body.WriteString(`}`)
	var b Batch
	if _, err := c.call(ctx, request{method: http.MethodPost, path: "/batches", body: body.Bytes(), resource: "batches"}, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

func writeJSON(buf *bytes.Buffer, v any) {
	b, _ := json.Marshal(v)
	buf.Write(b)
}

// LineError is a problem of one line of a JSON Lines submission.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// MaxLineErrors bounds how many problems ReadBatchRequests reports.
const MaxLineErrors = 100

// ReadBatchRequests reads JSON Lines of {"custom_id": ..., "body": {...}}
// and returns the requests and every problem by line number (a line that
// is not a JSON object, a missing or repeated custom_id, a body that is
// not an object), up to MaxLineErrors. Blank lines are skipped.
func ReadBatchRequests(r io.Reader) ([]BatchRequest, []*LineError) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var reqs []BatchRequest
	var errs []*LineError
	add := func(line int, format string, a ...any) {
		if len(errs) < MaxLineErrors {
			errs = append(errs, &LineError{Line: line, Msg: fmt.Sprintf(format, a...)})
		}
	}
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rq struct {
			CustomID *string         `json:"custom_id"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(text, &rq); err != nil {
			add(line, "%s", lineJSONProblem(err))
			continue
		}
		switch {
		case rq.CustomID == nil || *rq.CustomID == "":
			add(line, "custom_id is required")
			continue
		case len(rq.Body) == 0 || rq.Body[0] != '{':
			add(line, "body must be a JSON object")
			continue
		}
		if prev, dup := seen[*rq.CustomID]; dup {
			add(line, "custom_id %q repeats line %d", *rq.CustomID, prev)
			continue
		}
		seen[*rq.CustomID] = line
		reqs = append(reqs, BatchRequest{CustomID: *rq.CustomID, Body: append(json.RawMessage(nil), rq.Body...), Line: line})
	}
	if err := sc.Err(); err != nil {
		add(line+1, "reading: %v", err)
	}
	if len(reqs) == 0 && len(errs) == 0 {
		add(0, "the file holds no requests")
	}
	return reqs, errs
}

// lineJSONProblem words why a line is not a request, without Go's
// decoder text: where the JSON breaks, or which member has which wrong
// type.
func lineJSONProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON (breaks at character %d); each line is one {\"custom_id\": \"…\", \"body\": {…}}", syn.Offset)
	case errors.As(err, &typ) && typ.Field == "custom_id":
		return "custom_id must be a string, not " + typ.Value
	case errors.As(err, &typ) && typ.Field == "":
		return "not a JSON object: each line is one {\"custom_id\": \"…\", \"body\": {…}}"
	case errors.As(err, &typ):
		return typ.Field + " has the wrong type (" + typ.Value + ")"
	}
	return "not a JSON object"
}

// ValidateBatchSubmission checks a submission without sending it.
func ValidateBatchSubmission(endpoint, model string, reqs []BatchRequest) error {
	ok := false
	for _, e := range BatchEndpoints {
		ok = ok || e == endpoint
	}
	if !ok {
		return &ValidationError{Field: "endpoint", Rule: fmt.Sprintf("must be one of %v", BatchEndpoints)}
	}
	if err := ValidateModel(model); err != nil {
		return err
	}
	if len(reqs) == 0 {
		return &ValidationError{Field: "requests", Rule: "at least one request is required"}
	}
	// A request read from a file is named by its 1-based line.
	at := func(i int, member string) string {
		if reqs[i].Line > 0 {
			return fmt.Sprintf("line %d: %s", reqs[i].Line, member)
		}
		return fmt.Sprintf("requests[%d].%s", i, member)
	}
	seen := make(map[string]int, len(reqs))
	for i, r := range reqs {
		if r.CustomID == "" {
			return &ValidationError{Field: at(i, "custom_id"), Rule: "is required"}
		}
		if j, dup := seen[r.CustomID]; dup {
			first := fmt.Sprintf("requests[%d]", j)
			if reqs[j].Line > 0 {
				first = fmt.Sprintf("line %d", reqs[j].Line)
			}
			return &ValidationError{Field: at(i, "custom_id"), Rule: fmt.Sprintf("must be unique (%q repeats %s)", r.CustomID, first)}
		}
		seen[r.CustomID] = i
		var m struct {
			Model *string `json:"model"`
		}
		if len(r.Body) == 0 || json.Unmarshal(r.Body, &m) != nil {
			return &ValidationError{Field: at(i, "body"), Rule: "must be a JSON object"}
		}
		if m.Model != nil && *m.Model != model {
			return &ValidationError{Field: at(i, "body.model"), Rule: "must equal the batch model " + model}
		}
	}
	return nil
}
