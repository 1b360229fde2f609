package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// ResponseStatus is the status of a response.
type ResponseStatus string

// The response statuses of the contract.
const (
	ResponseCompleted  ResponseStatus = "completed"
	ResponseIncomplete ResponseStatus = "incomplete"
	ResponseInProgress ResponseStatus = "in_progress"
	ResponseFailed     ResponseStatus = "failed"
	ResponseCancelled  ResponseStatus = "cancelled"
	ResponseQueued     ResponseStatus = "queued"
)

// Response is the Response object of POST /responses. Raw keeps the bytes
// the server sent and MarshalJSON returns them.
type Response struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	CreatedAt          int64             `json:"created_at"`
	CompletedAt        *int64            `json:"completed_at"`
	Model              string            `json:"model"`
	Status             ResponseStatus    `json:"status"`
	Output             []OutputItem      `json:"output"`
	Error              *ResponseError    `json:"error"`
	IncompleteDetails  *IncompleteReason `json:"incomplete_details"`
	Instructions       json.RawMessage   `json:"instructions"`
	Metadata           map[string]string `json:"metadata"`
	Tools              []json.RawMessage `json:"tools"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls  bool              `json:"parallel_tool_calls"`
	Temperature        *float64          `json:"temperature"`
	TopP               *float64          `json:"top_p"`
	PresencePenalty    *float64          `json:"presence_penalty"`
	FrequencyPenalty   *float64          `json:"frequency_penalty"`
	OutputText         *string           `json:"output_text,omitempty"`
	Usage              *ResponseUsage    `json:"usage,omitempty"`
	ServiceTier        *string           `json:"service_tier,omitempty"`
	Store              *bool             `json:"store,omitempty"`
	Reasoning          json.RawMessage   `json:"reasoning,omitempty"`
	Text               json.RawMessage   `json:"text,omitempty"`
	Truncation         *string           `json:"truncation,omitempty"`
	User               *string           `json:"user,omitempty"`
	ErrorType          *ErrorType        `json:"error_type,omitempty"`
	OpenRouterMetadata *RoutingMetadata  `json:"openrouter_metadata,omitempty"`
	Alignment          json.RawMessage   `json:"alignment,omitempty"`
	Raw                json.RawMessage   `json:"-"`
	// GenerationID is the X-Generation-Id header of the answer.
	GenerationID string `json:"-"`
}

// UnmarshalJSON keeps the raw bytes.
func (r *Response) UnmarshalJSON(b []byte) error {
	return decodeKeeping(b, (*plainResponse)(r), &r.Raw, json.Unmarshal)
}

// MarshalJSON returns the bytes the server sent, when there are some.
func (r Response) MarshalJSON() ([]byte, error) { return encodeKept(r.Raw, plainResponse(r)) }

// OutputItem is an output item. Message items fill Role, Status and
// Content; reasoning items Summary and Content; function calls Name,
// Arguments and CallID. Raw keeps the item (292 variants exist).
type OutputItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`
	Status    string          `json:"status,omitempty"`
	Content   []OutputContent `json:"content,omitempty"`
	Summary   []OutputContent `json:"summary,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw bytes.
func (o *OutputItem) UnmarshalJSON(b []byte) error {
	return decodeKeeping(b, (*plainOutputItem)(o), &o.Raw, json.Unmarshal)
}

// MarshalJSON returns the bytes the server sent, when there are some.
func (o OutputItem) MarshalJSON() ([]byte, error) { return encodeKept(o.Raw, plainOutputItem(o)) }

// OutputContent is a content part: output_text (Text), refusal (Refusal),
// reasoning_text or summary_text (Text).
type OutputContent struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Refusal     string            `json:"refusal,omitempty"`
	Annotations []json.RawMessage `json:"annotations,omitempty"`
}

// ResponseError is a failed response's error.
type ResponseError struct {
	Code     string          `json:"code"`
	Message  string          `json:"message"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// UnmarshalJSON accepts a string or a number as the code.
func (e *ResponseError) UnmarshalJSON(b []byte) error {
	var w struct {
		Code     json.RawMessage `json:"code"`
		Message  string          `json:"message"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.Code, e.Message, e.Metadata = rawCode(w.Code), w.Message, w.Metadata
	return nil
}

// IncompleteReason says why a response is incomplete.
type IncompleteReason struct {
	Reason string `json:"reason"`
}

// ResponseUsage is the usage of a response.
type ResponseUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens     int  `json:"cached_tokens"`
		CacheWriteTokens *int `json:"cache_write_tokens,omitempty"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens          int             `json:"total_tokens"`
	Cost                 *float64        `json:"cost"`
	CostDetails          *CostDetails    `json:"cost_details,omitempty"`
	IsBYOK               *bool           `json:"is_byok,omitempty"`
	ServerToolUseDetails json.RawMessage `json:"server_tool_use_details,omitempty"`
}

// CostDetails split a cost into its upstream parts.
type CostDetails struct {
	UpstreamInferenceCost       *float64 `json:"upstream_inference_cost"`
	UpstreamInferenceInputCost  float64  `json:"upstream_inference_input_cost"`
	UpstreamInferenceOutputCost float64  `json:"upstream_inference_output_cost"`
}

// RoutingMetadata is openrouter_metadata, sent when opted in by header.
type RoutingMetadata struct {
	Attempt   *int `json:"attempt,omitempty"`
	Endpoints *struct {
		Available []struct {
			Model    string `json:"model"`
			Provider string `json:"provider"`
			Selected bool   `json:"selected"`
		} `json:"available"`
		Total int `json:"total"`
	} `json:"endpoints,omitempty"`
	GenerationTime *float64 `json:"generation_time,omitempty"`
	IsBYOK         *bool    `json:"is_byok,omitempty"`
	Region         *string  `json:"region,omitempty"`
	Requested      *string  `json:"requested,omitempty"`
	Strategy       *string  `json:"strategy,omitempty"`
	Summary        *string  `json:"summary,omitempty"`
}

// SelectedProvider is the provider of the selected endpoint, or "".
func (m *RoutingMetadata) SelectedProvider() string {
	if m == nil || m.Endpoints == nil {
		return ""
	}
	for _, e := range m.Endpoints.Available {
		if e.Selected {
			return e.Provider
		}
	}
	return ""
}

// OutputText joins the text of every output_text part of every message
// item (output_text when the server sent it).
func (r *Response) OutputTextAll() string {
	if r.OutputText != nil {
		return *r.OutputText
	}
	return r.joinParts("output_text", func(c *OutputContent) string { return c.Text })
}

// RefusalText joins the refusal parts of every message item.
func (r *Response) RefusalText() string {
	return r.joinParts("refusal", func(c *OutputContent) string { return c.Refusal })
}

// joinParts joins, in order, one member of the message content parts of
// one type.
func (r *Response) joinParts(typ string, member func(*OutputContent) string) string {
	var b strings.Builder
	for _, it := range r.Output {
		if it.Type != "message" {
			continue
		}
		for i := range it.Content {
			if c := &it.Content[i]; c.Type == typ {
				b.WriteString(member(c))
			}
		}
	}
	return b.String()
}

// ---- request ----

// ServiceTiers are the accepted service tiers; fast is an alias of
// priority.
var ServiceTiers = []string{"auto", "default", "fast", "flex", "priority", "scale", "ultrafast"}

// ReasoningEfforts and ReasoningSummaries are the values the service takes.
var (
	ReasoningEfforts   = []string{"none", "minimal", "low", "medium", "high", "xhigh"}
	ReasoningSummaries = []string{"auto", "concise", "detailed"}
)

// Limits of the contract.
const (
	MaxMetadataPairs    = 16
	MaxMetadataKeyLen   = 64
	MaxMetadataValueLen = 512
	MaxSessionIDLen     = 256
	MaxUserLen          = 256
	MaxToolCallsLimit   = 30
)

// InputMessage is one message of a conversation sent as input.
type InputMessage struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Input is a plain string, a list of messages, or a list of input items
// (messages, function calls and their outputs: see ContinueWith).
type Input struct {
	Text     string
	Messages []InputMessage
	Items    []json.RawMessage
}

// MarshalJSON sends a string when there are no messages.
func (in Input) MarshalJSON() ([]byte, error) {
	if in.Items != nil {
		return json.Marshal(in.Items)
	}
	if in.Messages != nil {
		return json.Marshal(in.Messages)
	}
	return json.Marshal(in.Text)
}

// Empty reports whether there is nothing to send.
func (in Input) Empty() bool {
	if in.Items != nil {
		return len(in.Items) == 0
	}
	if in.Messages != nil {
		return len(in.Messages) == 0
	}
	return strings.TrimSpace(in.Text) == ""
}

// StopCondition is one stop_server_tools_when condition; Raw sends a
// variant the client does not model.
type StopCondition struct {
	Type             string          `json:"type"`
	StepCount        *int            `json:"step_count,omitempty"`
	MaxCostInDollars *float64        `json:"max_cost_in_dollars,omitempty"`
	Raw              json.RawMessage `json:"-"`
}

// MarshalJSON sends Raw when set.
func (s StopCondition) MarshalJSON() ([]byte, error) {
	return encodeKept(s.Raw, plainStopCondition(s))
}

// Reasoning is the reasoning configuration.
type Reasoning struct {
	Effort    string `json:"effort,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Enabled   *bool  `json:"enabled,omitempty"`
	MaxTokens *int   `json:"max_tokens,omitempty"`
}

// Trace is the observability trace metadata; Extra keys pass through.
type Trace struct {
	TraceID        string            `json:"trace_id,omitempty"`
	TraceName      string            `json:"trace_name,omitempty"`
	SpanName       string            `json:"span_name,omitempty"`
	GenerationName string            `json:"generation_name,omitempty"`
	ParentSpanID   string            `json:"parent_span_id,omitempty"`
	Extra          map[string]string `json:"-"`
}

// MarshalJSON merges Extra into the known keys.
func (t Trace) MarshalJSON() ([]byte, error) {
	m := map[string]string{}
	for k, v := range t.Extra {
		m[k] = v
	}
	for k, v := range map[string]string{"trace_id": t.TraceID, "trace_name": t.TraceName, "span_name": t.SpanName, "generation_name": t.GenerationName, "parent_span_id": t.ParentSpanID} {
		if v != "" {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// ResponseRequest is the body of POST /responses. Stream is set by Stream
// and Create; store is always sent as false and service_tier as "auto"
// unless set.
type ResponseRequest struct {
	Input               Input                      `json:"input"`
	Model               string                     `json:"model"`
	Instructions        string                     `json:"instructions,omitempty"`
	Metadata            map[string]string          `json:"metadata,omitempty"`
	SessionID           string                     `json:"session_id,omitempty"`
	User                string                     `json:"user,omitempty"`
	ServiceTier         string                     `json:"service_tier,omitempty"`
	MaxOutputTokens     *int                       `json:"max_output_tokens,omitempty"`
	MaxToolCalls        *int                       `json:"max_tool_calls,omitempty"`
	StopServerToolsWhen []StopCondition            `json:"stop_server_tools_when,omitempty"`
	Temperature         *float64                   `json:"temperature,omitempty"`
	TopP                *float64                   `json:"top_p,omitempty"`
	Reasoning           *Reasoning                 `json:"reasoning,omitempty"`
	Trace               *Trace                     `json:"trace,omitempty"`
	Truncation          string                     `json:"truncation,omitempty"`
	Tools               []json.RawMessage          `json:"tools,omitempty"`
	ToolChoice          json.RawMessage            `json:"tool_choice,omitempty"`
	PreviousResponseID  *string                    `json:"previous_response_id,omitempty"`
	Text                *TextConfig                `json:"text,omitempty"`
	ParallelToolCalls   *bool                      `json:"parallel_tool_calls,omitempty"`
	Provider            *ProviderPreferences       `json:"provider,omitempty"`
	Models              []string                   `json:"models,omitempty"`
	Extra               map[string]json.RawMessage `json:"-"`
	// StopConditionsSet sends stop_server_tools_when even when empty, so
	// that validation refuses it (an empty list is not "absent").
	StopConditionsSet bool `json:"-"`
	// RoutingMetadata asks for openrouter_metadata via the
	// X-OpenRouter-Metadata header.
	RoutingMetadata bool `json:"-"`
}

func (r ResponseRequest) body(stream bool) ([]byte, error) {
	type plain ResponseRequest
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, known := m[k]; !known {
			m[k] = v
		}
	}
	m["stream"] = json.RawMessage(fmt.Sprint(stream))
	m["store"] = json.RawMessage("false")
	if r.ServiceTier == "" {
		m["service_tier"] = json.RawMessage(`"auto"`)
	}
	return json.Marshal(m)
}

// ValidateModel checks the <provider>/<model> form.
func ValidateModel(model string) error {
	p, m, ok := strings.Cut(model, "/")
	if !ok || p == "" || m == "" || strings.ContainsAny(model, " \t\r\n") {
		return &ValidationError{Field: "model", Rule: "must be <provider>/<model>, e.g. openai/gpt-4o-mini"}
	}
	return nil
}

func oneOf(v string, list []string) bool { return slices.Contains(list, v) }

// ValidateMetadata checks the metadata limits of the contract.
func ValidateMetadata(md map[string]string) error {
	if len(md) > MaxMetadataPairs {
		return &ValidationError{Field: "metadata", Rule: fmt.Sprintf("at most %d pairs (got %d)", MaxMetadataPairs, len(md))}
	}
	for k, v := range md {
		if k == "" {
			return &ValidationError{Field: "metadata", Rule: "keys must not be empty"}
		}
		if n := utf8.RuneCountInString(k); n > MaxMetadataKeyLen {
			return &ValidationError{Field: "metadata." + k, Rule: fmt.Sprintf("key at most %d characters (got %d)", MaxMetadataKeyLen, n)}
		}
		if strings.ContainsAny(k, "[]") {
			return &ValidationError{Field: "metadata." + k, Rule: "key must not contain [ or ]"}
		}
		if n := utf8.RuneCountInString(v); n > MaxMetadataValueLen {
			return &ValidationError{Field: "metadata." + k, Rule: fmt.Sprintf("value at most %d characters (got %d)", MaxMetadataValueLen, n)}
		}
	}
	return nil
}

// Validate checks the request against the contract's rules.
func (r *ResponseRequest) Validate() error {
	if r.Input.Empty() {
		return &ValidationError{Field: "input", Rule: "is required"}
	}
	if err := ValidateModel(r.Model); err != nil {
		return err
	}
	if err := ValidateMetadata(r.Metadata); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(r.SessionID); n > MaxSessionIDLen {
		return &ValidationError{Field: "session_id", Rule: fmt.Sprintf("at most %d characters (got %d)", MaxSessionIDLen, n)}
	}
	if n := utf8.RuneCountInString(r.User); n > MaxUserLen {
		return &ValidationError{Field: "user", Rule: fmt.Sprintf("at most %d characters (got %d)", MaxUserLen, n)}
	}
	if r.MaxToolCalls != nil && (*r.MaxToolCalls < 0 || *r.MaxToolCalls > MaxToolCallsLimit) {
		return &ValidationError{Field: "max_tool_calls", Rule: fmt.Sprintf("must be 0 to %d (got %d)", MaxToolCallsLimit, *r.MaxToolCalls)}
	}
	if r.MaxOutputTokens != nil && *r.MaxOutputTokens < 1 {
		return &ValidationError{Field: "max_output_tokens", Rule: "must be at least 1"}
	}
	if (r.StopConditionsSet || r.StopServerToolsWhen != nil) && len(r.StopServerToolsWhen) == 0 {
		return &ValidationError{Field: "stop_server_tools_when", Rule: "needs at least 1 condition when present"}
	}
	for i, c := range r.StopServerToolsWhen {
		f := fmt.Sprintf("stop_server_tools_when[%d]", i)
		if len(c.Raw) > 0 {
			continue
		}
		switch c.Type {
		case "step_count_is":
			if c.StepCount == nil || *c.StepCount < 1 {
				return &ValidationError{Field: f + ".step_count", Rule: "must be a whole number of at least 1"}
			}
		case "max_cost":
			if c.MaxCostInDollars == nil || *c.MaxCostInDollars <= 0 {
				return &ValidationError{Field: f + ".max_cost_in_dollars", Rule: "must be a positive number"}
			}
		default:
			return &ValidationError{Field: f + ".type", Rule: "must be step_count_is or max_cost"}
		}
	}
	if r.PreviousResponseID != nil {
		return &ValidationError{Field: "previous_response_id", Rule: "is not supported (no response is stored): send the full history in input"}
	}
	if _, set := r.Extra["previous_response_id"]; set && string(r.Extra["previous_response_id"]) != "null" {
		return &ValidationError{Field: "previous_response_id", Rule: "is not supported (no response is stored): send the full history in input"}
	}
	if r.ServiceTier != "" && !oneOf(r.ServiceTier, ServiceTiers) {
		return &ValidationError{Field: "service_tier", Rule: "must be one of " + strings.Join(ServiceTiers, ", ") + " (fast means priority)"}
	}
	if r.Temperature != nil && (*r.Temperature < 0 || *r.Temperature > 2) {
		return &ValidationError{Field: "temperature", Rule: "must be 0 to 2"}
	}
	if r.TopP != nil && (*r.TopP < 0 || *r.TopP > 1) {
		return &ValidationError{Field: "top_p", Rule: "must be 0 to 1"}
	}
	if rs := r.Reasoning; rs != nil {
		if rs.Effort != "" && !oneOf(rs.Effort, ReasoningEfforts) {
			return &ValidationError{Field: "reasoning.effort", Rule: "must be one of " + strings.Join(ReasoningEfforts, ", ")}
		}
		if rs.Summary != "" && !oneOf(rs.Summary, ReasoningSummaries) {
			return &ValidationError{Field: "reasoning.summary", Rule: "must be one of " + strings.Join(ReasoningSummaries, ", ")}
		}
	}
	if r.Truncation != "" && r.Truncation != "auto" && r.Truncation != "disabled" {
		return &ValidationError{Field: "truncation", Rule: "must be auto or disabled"}
	}
	return r.validateDepth()
}

func (r *ResponseRequest) httpRequest(stream bool) (request, error) {
	if err := r.Validate(); err != nil {
		return request{}, err
	}
	body, err := r.body(stream)
	if err != nil {
		return request{}, fmt.Errorf("encoding request: %w", err)
	}
	h := http.Header{}
	if r.RoutingMetadata {
		h.Set("X-OpenRouter-Metadata", "enabled")
	}
	accept := "application/json"
	if stream {
		accept = "text/event-stream"
	}
	return request{method: http.MethodPost, path: "/responses", body: body, accept: accept, header: h, resource: "responses"}, nil
}

// CreateResponse sends one non-streaming request. It is never retried: a
// second POST is a second paid generation.
func (c *Client) CreateResponse(ctx context.Context, req ResponseRequest) (*Response, error) {
	hr, err := req.httpRequest(false)
	if err != nil {
		return nil, err
	}
	var out Response
	hr.limit = maxResponseBytes
	var gen string
	hr.onHeader = func(h http.Header) { gen = h.Get("X-Generation-Id") }
	if _, err := c.call(ctx, hr, &out); err != nil {
		return nil, err
	}
	out.GenerationID = gen
	return &out, nil
}
