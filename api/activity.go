package api

import (
	"context"
	"net/http"
	"net/url"
)

// ActivityItem is one item of GET /activity: what a UTC day cost for one
// model and provider.
type ActivityItem struct {
	Date               string  `json:"date"`
	Model              string  `json:"model"`
	ModelPermaslug     string  `json:"model_permaslug"`
	EndpointID         string  `json:"endpoint_id"`
	ProviderName       string  `json:"provider_name"`
	Usage              float64 `json:"usage"`
	BYOKUsageInference float64 `json:"byok_usage_inference"`
	Requests           int64   `json:"requests"`
	PromptTokens       int64   `json:"prompt_tokens"`
	CompletionTokens   int64   `json:"completion_tokens"`
	ReasoningTokens    int64   `json:"reasoning_tokens"`
	WorkspaceID        *string `json:"workspace_id,omitempty"`
}

// Activity is GET /activity (management key): spend per day, model and
// provider for the last 30 completed UTC days; date (YYYY-MM-DD) asks for
// one day, "" for all.
func (c *Client) Activity(ctx context.Context, date string) ([]ActivityItem, error) {
	if c.creds.managementKey == "" {
		return nil, &MissingKeyError{Op: "GET /activity", Key: "management key"}
	}
	q := url.Values{}
	if date != "" {
		q.Set("date", date)
	}
	items, _, err := callData[[]ActivityItem](ctx, c, request{method: http.MethodGet, path: "/activity", query: q, key: managementKey, limit: maxPageBytes, resource: "activity"}, http.StatusOK)
	if err != nil {
		return nil, optional("GET /activity", err)
	}
	return *items, nil
}
