package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Bounds of a model's endpoints answer.
const (
	MaxEndpointsBytes = 4 << 20
	MaxEndpoints      = 256
)

// Percentiles are the p50/p75/p90/p99 of a provider's recent latency (ms
// to the first token) or throughput (tokens per second).
type Percentiles struct {
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// ToolChoiceSupport says which tool_choice forms an endpoint honours.
type ToolChoiceSupport struct {
	Auto     bool `json:"auto"`
	Function bool `json:"function"`
	None     bool `json:"none"`
	Required bool `json:"required"`
}

// Endpoint is one provider's endpoint of a model.
type Endpoint struct {
	Name                    string             `json:"name"`
	ModelID                 string             `json:"model_id"`
	ModelName               string             `json:"model_name"`
	ProviderName            string             `json:"provider_name"`
	Tag                     string             `json:"tag"`
	ContextLength           int64              `json:"context_length"`
	MaxCompletionTokens     *int64             `json:"max_completion_tokens"`
	MaxPromptTokens         *int64             `json:"max_prompt_tokens"`
	Pricing                 map[string]string  `json:"pricing"`
	Quantization            *string            `json:"quantization"`
	SupportedParameters     []string           `json:"supported_parameters"`
	SupportsImplicitCaching bool               `json:"supports_implicit_caching"`
	SupportsToolChoice      *ToolChoiceSupport `json:"supports_tool_choice"`
	Status                  *int               `json:"status"`
	UptimeLast5m            *float64           `json:"uptime_last_5m"`
	UptimeLast30m           *float64           `json:"uptime_last_30m"`
	UptimeLast1d            *float64           `json:"uptime_last_1d"`
	LatencyLast30m          *Percentiles       `json:"latency_last_30m"`
	ThroughputLast30m       *Percentiles       `json:"throughput_last_30m"`
}

// Endpoint statuses: 0 is normal, lower is worse.
const EndpointNormal = 0

// StatusWord says an endpoint's status in a word.
func (e *Endpoint) StatusWord() string {
	if e.Status == nil {
		return "unknown"
	}
	switch s := *e.Status; {
	case s == EndpointNormal:
		return "ok"
	case s >= -2:
		return "degraded"
	case s >= -5:
		return "unstable"
	default:
		return "down"
	}
}

// PriceOf reads one pricing member in dollars per million tokens, as a
// model's (see Model.PriceOf).
func (e *Endpoint) PriceOf(kind string) Price {
	m := Model{Pricing: e.Pricing}
	return m.PriceOf(kind)
}

// ModelEndpoints is GET /models/{author}/{slug}/endpoints.
type ModelEndpoints struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Created      int64           `json:"created"`
	Description  string          `json:"description"`
	Architecture json.RawMessage `json:"architecture"`
	Endpoints    []Endpoint      `json:"endpoints"`
	// Truncated is set when the answer listed more than MaxEndpoints.
	Truncated bool `json:"-"`
}

// ModelEndpoints lists the providers serving a model. No key is needed,
// but the API key is sent when there is one: the service gives latency
// and throughput only to callers with a key. The model is checked before
// any request. A 404 is an *APIError.
func (c *Client) ModelEndpoints(ctx context.Context, model string) (*ModelEndpoints, error) {
	if err := ValidateModel(model); err != nil {
		return nil, err
	}
	author, slug, _ := strings.Cut(model, "/")
	var out struct {
		Data ModelEndpoints `json:"data"`
	}
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/models/" + url.PathEscape(author) + "/" + url.PathEscape(slug) + "/endpoints",
		limit: MaxEndpointsBytes, op: "GET /models/{author}/{slug}/endpoints", resource: "model"}, &out)
	if err != nil {
		return nil, err
	}
	if len(out.Data.Endpoints) > MaxEndpoints {
		out.Data.Endpoints = out.Data.Endpoints[:MaxEndpoints]
		out.Data.Truncated = true
	}
	return &out.Data, nil
}
