package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strings"
)

// ErrorType is the canonical error type enumeration, stable across formats.
type ErrorType string

// ErrorTypes lists every canonical error type of the contract.
var ErrorTypes = []ErrorType{
	"context_length_exceeded", "max_tokens_exceeded", "token_limit_exceeded", "string_too_long",
	"authentication", "permission_denied", "payment_required", "rate_limit_exceeded",
	"provider_overloaded", "provider_unavailable", "invalid_request", "invalid_prompt", "not_found",
	"precondition_failed", "payload_too_large", "unprocessable", "content_policy_violation", "refusal",
	"invalid_image", "image_too_large", "image_too_small", "unsupported_image_format", "image_not_found",
	"image_download_failed", "server", "timeout", "unmapped",
}

// Known reports whether t is one of the canonical values.
func (t ErrorType) Known() bool {
	for _, k := range ErrorTypes {
		if k == t {
			return true
		}
	}
	return false
}

// BodyKind names the shape of a batch result body.
type BodyKind string

// The four body shapes, and a body that is none of them.
const (
	BodyChatCompletion BodyKind = "chat.completion"
	BodyResponse       BodyKind = "response"
	BodyMessage        BodyKind = "message"
	BodyEmbeddings     BodyKind = "embeddings"
	BodyUnknown        BodyKind = "unknown"
)

// Body is a decoded result body: exactly one of the pointers is set, per
// Kind; for BodyUnknown only Raw is.
type Body struct {
	Kind       BodyKind
	Chat       *ChatCompletion
	Response   *Response
	Message    *MessageResult
	Embeddings *EmbeddingList
	Raw        json.RawMessage
}

// bodyMarkers are the members that tell the shapes apart.
type bodyMarkers struct {
	Object string          `json:"object"`
	Type   string          `json:"type"`
	Role   string          `json:"role"`
	Data   json.RawMessage `json:"data"`
}

// KindOf tells a body's shape from its own markers: object
// "chat.completion", object "response", type "message" with role
// "assistant", or object "list" with data. Nothing is guessed.
func KindOf(raw json.RawMessage) BodyKind {
	var m bodyMarkers
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return BodyUnknown
	}
	return m.kind()
}

func (m bodyMarkers) kind() BodyKind {
	switch {
	case m.Object == "chat.completion":
		return BodyChatCompletion
	case m.Object == "response":
		return BodyResponse
	case m.Type == "message" && m.Role == "assistant":
		return BodyMessage
	case m.Object == "list" && len(m.Data) > 0 && m.Data[0] == '[':
		return BodyEmbeddings
	}
	return BodyUnknown
}

// DecodeBody decodes a result body into its shape.
func DecodeBody(raw json.RawMessage) (Body, error) {
	b := Body{Kind: KindOf(raw), Raw: raw}
	var err error
	switch b.Kind {
	case BodyChatCompletion:
		b.Chat = new(ChatCompletion)
		err = json.Unmarshal(raw, b.Chat)
	case BodyResponse:
		b.Response = new(Response)
		err = json.Unmarshal(raw, b.Response)
	case BodyMessage:
		b.Message = new(MessageResult)
		err = json.Unmarshal(raw, b.Message)
	case BodyEmbeddings:
		b.Embeddings = new(EmbeddingList)
		err = json.Unmarshal(raw, b.Embeddings)
	}
	return b, err
}

// ChatCompletion is the chat completion body.
type ChatCompletion struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Created           int64           `json:"created"`
	Object            string          `json:"object"`
	Choices           []ChatChoice    `json:"choices"`
	Provider          *string         `json:"provider,omitempty"`
	ServiceTier       *string         `json:"service_tier,omitempty"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	Usage             *Usage          `json:"usage,omitempty"`
	Debug             *DebugInfo      `json:"debug,omitempty"`
	Routing           json.RawMessage `json:"openrouter_metadata,omitempty"`
}

// DebugInfo is the chat completion's debug member.
type DebugInfo struct {
	EchoUpstreamBody json.RawMessage `json:"echo_upstream_body,omitempty"`
	Timings          *DebugTimings   `json:"timings,omitempty"`
}

// DebugTimings is one timing mark.
type DebugTimings struct {
	StartMS int64  `json:"start_ms"`
	Event   string `json:"event"`
	EpochMS int64  `json:"epoch_ms"`
}

// ChatChoice is one choice.
type ChatChoice struct {
	Index              int         `json:"index"`
	Message            ChatMessage `json:"message"`
	FinishReason       *string     `json:"finish_reason"`
	NativeFinishReason *string     `json:"native_finish_reason"`
	Logprobs           *Logprobs   `json:"logprobs"`
}

// ChatMessage is the assistant message of a choice.
type ChatMessage struct {
	Role             string            `json:"role"`
	Content          *string           `json:"content"`
	Refusal          *string           `json:"refusal"`
	Annotations      []Annotation      `json:"annotations,omitempty"`
	Images           []ImageRef        `json:"images,omitempty"`
	Reasoning        *string           `json:"reasoning,omitempty"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
	ToolCalls        []ToolCall        `json:"tool_calls,omitempty"`
}

// Annotation is one of the file, url_citation and web_search_citation
// variants, by Type.
type Annotation struct {
	Type              string             `json:"type"`
	File              *FileAnnotation    `json:"file,omitempty"`
	URLCitation       *URLCitation       `json:"url_citation,omitempty"`
	WebSearchCitation *WebSearchCitation `json:"web_search_citation,omitempty"`
}

// FileAnnotation is the file annotation payload.
type FileAnnotation struct {
	Hash    string            `json:"hash"`
	Name    *string           `json:"name,omitempty"`
	Content []FileContentItem `json:"content"`
}

// FileContentItem is a text or image_url item of a file annotation.
type FileContentItem struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// URLCitation is the url_citation payload.
type URLCitation struct {
	URL        string  `json:"url"`
	StartIndex int     `json:"start_index"`
	EndIndex   int     `json:"end_index"`
	Title      string  `json:"title"`
	Content    *string `json:"content,omitempty"`
}

// WebSearchCitation is the web_search_citation payload.
type WebSearchCitation struct {
	URL            string  `json:"url"`
	Title          *string `json:"title"`
	CitedText      *string `json:"cited_text,omitempty"`
	EncryptedIndex *string `json:"encrypted_index,omitempty"`
}

// ImageRef is an image in a chat message.
type ImageRef struct {
	Type     string   `json:"type"`
	ImageURL ImageURL `json:"image_url"`
}

// ImageURL holds an image address (often a data: URL).
type ImageURL struct {
	URL string `json:"url"`
}

// ToolCall is one function call the model asked for.
type ToolCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and its JSON arguments (as a string).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Logprobs are a choice's token log probabilities.
type Logprobs struct {
	Content []LogprobEntry `json:"content"`
	Refusal []LogprobEntry `json:"refusal,omitempty"`
}

// LogprobEntry is one token's log probability.
type LogprobEntry struct {
	Token       string         `json:"token"`
	Bytes       []int          `json:"bytes"`
	Logprob     float64        `json:"logprob"`
	TopLogprobs []LogprobEntry `json:"top_logprobs,omitempty"`
}

// MessageResult is the messages-format body.
type MessageResult struct {
	ID                   string          `json:"id"`
	Type                 string          `json:"type"`
	Role                 string          `json:"role"`
	Container            json.RawMessage `json:"container"`
	Content              []ContentBlock  `json:"content"`
	Model                string          `json:"model"`
	StopReason           *string         `json:"stop_reason"`
	StopDetails          json.RawMessage `json:"stop_details"`
	StopSequence         *string         `json:"stop_sequence"`
	Usage                MessageUsage    `json:"usage"`
	InputTransformations json.RawMessage `json:"input_transformations,omitempty"`
}

// ContentBlock is a messages-format content block. Text is set for text
// blocks, Thinking for thinking blocks, Name and Input for tool use; Raw
// keeps the block as sent.
type ContentBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	Thinking string          `json:"thinking,omitempty"`
	Name     string          `json:"name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Raw      json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the block's raw bytes.
func (c *ContentBlock) UnmarshalJSON(b []byte) error {
	return decodeKeeping(b, (*plainContentBlock)(c), &c.Raw, json.Unmarshal)
}

// MessageUsage is the messages-format usage.
type MessageUsage struct {
	InputTokens  int             `json:"input_tokens"`
	OutputTokens int             `json:"output_tokens"`
	Iterations   json.RawMessage `json:"iterations,omitempty"`
	Speed        json.RawMessage `json:"speed,omitempty"`
}

// EmbeddingList is the embeddings body.
type EmbeddingList struct {
	Object string          `json:"object"`
	Data   []Embedding     `json:"data"`
	Model  string          `json:"model"`
	ID     *string         `json:"id,omitempty"`
	Usage  *EmbeddingUsage `json:"usage,omitempty"`
}

// Embedding is one vector, as a JSON array of numbers or a base64 string
// of little-endian float32 values.
type Embedding struct {
	Object    string          `json:"object"`
	Embedding json.RawMessage `json:"embedding"`
	Index     *int            `json:"index,omitempty"`
}

// Vector decodes the embedding whichever form it was sent in.
func (e *Embedding) Vector() ([]float64, error) {
	raw := strings.TrimSpace(string(e.Embedding))
	if strings.HasPrefix(raw, "[") {
		var v []float64
		err := json.Unmarshal(e.Embedding, &v)
		return v, err
	}
	var s string
	if err := json.Unmarshal(e.Embedding, &s); err != nil {
		return nil, errors.New("embedding is neither an array nor a base64 string")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if len(b)%4 != 0 {
		return nil, errors.New("base64 embedding is not a whole number of float32 values")
	}
	v := make([]float64, len(b)/4)
	for i := range v {
		bits := uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
		v[i] = float64(math.Float32frombits(bits))
	}
	return v, nil
}

// EmbeddingUsage is the embeddings usage.
type EmbeddingUsage struct {
	PromptTokens        int             `json:"prompt_tokens"`
	TotalTokens         int             `json:"total_tokens"`
	Cost                *float64        `json:"cost,omitempty"`
	CostDetails         json.RawMessage `json:"cost_details,omitempty"`
	IsBYOK              *bool           `json:"is_byok,omitempty"`
	PromptTokensDetails map[string]int  `json:"prompt_tokens_details,omitempty"`
}

// BodySummary is what a results table shows of one body, decoded without
// the whole body.
type BodySummary struct {
	Kind         BodyKind
	Model        string
	Tokens       int
	FinishReason string
}

type summaryWire struct {
	bodyMarkers
	Model   string `json:"model"`
	Status  string `json:"status"`
	Choices []struct {
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	StopReason *string `json:"stop_reason"`
	Usage      *struct {
		TotalTokens  *int `json:"total_tokens"`
		InputTokens  *int `json:"input_tokens"`
		OutputTokens *int `json:"output_tokens"`
	} `json:"usage"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// Summarize decodes the members a table shows: model, tokens and the
// finish reason (stop_reason, or the response status).
func Summarize(raw json.RawMessage) BodySummary {
	var w summaryWire
	if len(raw) == 0 || decode(raw, &w) != nil {
		return BodySummary{Kind: BodyUnknown}
	}
	return w.summary()
}
