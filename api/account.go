package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// KeyInfo is GET /key: the key's limit, what remains and what it used.
// The key itself is never part of it.
type KeyInfo struct {
	Label           string   `json:"label"`
	Limit           *float64 `json:"limit"`
	LimitRemaining  *float64 `json:"limit_remaining"`
	LimitReset      *string  `json:"limit_reset"`
	Usage           float64  `json:"usage"`
	UsageDaily      *float64 `json:"usage_daily"`
	UsageWeekly     *float64 `json:"usage_weekly"`
	UsageMonthly    *float64 `json:"usage_monthly"`
	IsFreeTier      bool     `json:"is_free_tier"`
	IsManagementKey bool     `json:"is_management_key"`
	ExpiresAt       *string  `json:"expires_at"`

	// BYOK (bring your own key) spend: what the key's requests cost on
	// the user's own provider keys, and whether the limit counts it.
	BYOKUsage          *float64 `json:"byok_usage"`
	BYOKUsageDaily     *float64 `json:"byok_usage_daily"`
	BYOKUsageWeekly    *float64 `json:"byok_usage_weekly"`
	BYOKUsageMonthly   *float64 `json:"byok_usage_monthly"`
	IncludeBYOKInLimit bool     `json:"include_byok_in_limit"`
	// RateLimit is the key's request rate; its Note is the service's own
	// words about it.
	RateLimit *KeyRateLimit `json:"rate_limit"`
	// FreeModelDailyRequests counts today's requests to :free models.
	FreeModelDailyRequests *FreeRequests `json:"free_model_daily_requests"`
	AllowedDataRegions     []string      `json:"allowed_data_regions"`
	IsProvisioningKey      bool          `json:"is_provisioning_key"`
	WorkspaceID            *string       `json:"workspace_id"`
	OrganizationID         *string       `json:"organization_id"`
	CreatorUserID          *string       `json:"creator_user_id"`
}

// KeyRateLimit is a key's request rate: Requests per Interval ("10s").
type KeyRateLimit struct {
	Requests *float64 `json:"requests"`
	Interval string   `json:"interval"`
	Note     string   `json:"note"`
}

// FreeRequests is a key's daily allowance of requests to free models.
type FreeRequests struct {
	Limit     *float64 `json:"limit"`
	Remaining *float64 `json:"remaining"`
	Used      *float64 `json:"used"`
}

// Credits is GET /credits: what the organisation bought and used, in
// dollars.
type Credits struct {
	TotalCredits float64 `json:"total_credits"`
	TotalUsage   float64 `json:"total_usage"`
}

// Balance is what is left: bought minus used.
func (c *Credits) Balance() float64 { return c.TotalCredits - c.TotalUsage }

// Credits fetches the organisation's credits (management key only). A
// server without the route gives a *NotOfferedError.
func (c *Client) Credits(ctx context.Context) (*Credits, []byte, error) {
	cr, raw, err := callData[Credits](ctx, c, request{method: http.MethodGet, path: "/credits", key: managementKey, limit: maxPageBytes, resource: "credits"}, http.StatusOK)
	return cr, raw, optional("GET /credits", err)
}

// Key fetches the key's limits and usage (with the API key, or the
// management key when there is no API key). A server without the route
// gives a *NotOfferedError.
func (c *Client) Key(ctx context.Context) (*KeyInfo, []byte, error) {
	k := inferenceKey
	if c.creds.apiKey == "" {
		k = managementKey
	}
	info, raw, err := callData[KeyInfo](ctx, c, request{method: http.MethodGet, path: "/key", key: k, limit: maxPageBytes, resource: "key"}, http.StatusOK)
	return info, raw, optional("GET /key", err)
}

// Generation is GET /generation: what one answer cost and how it was
// served. Most members may be null.
type Generation struct {
	ID                     string   `json:"id"`
	Model                  string   `json:"model"`
	ProviderName           *string  `json:"provider_name"`
	CreatedAt              string   `json:"created_at"`
	TotalCost              *float64 `json:"total_cost"`
	CacheDiscount          *float64 `json:"cache_discount"`
	UpstreamInferenceCost  *float64 `json:"upstream_inference_cost"`
	Latency                *float64 `json:"latency"`
	ModerationLatency      *float64 `json:"moderation_latency"`
	GenerationTime         *float64 `json:"generation_time"`
	Streamed               *bool    `json:"streamed"`
	Cancelled              *bool    `json:"cancelled"`
	FinishReason           *string  `json:"finish_reason"`
	NativeFinishReason     *string  `json:"native_finish_reason"`
	TokensPrompt           *int64   `json:"tokens_prompt"`
	TokensCompletion       *int64   `json:"tokens_completion"`
	NativeTokensPrompt     *int64   `json:"native_tokens_prompt"`
	NativeTokensCompletion *int64   `json:"native_tokens_completion"`
	NativeTokensReasoning  *int64   `json:"native_tokens_reasoning"`
	NativeTokensCached     *int64   `json:"native_tokens_cached"`
	IsBYOK                 *bool    `json:"is_byok"`
	Router                 *string  `json:"router"`
	APIType                *string  `json:"api_type"`

	// DataRegion is where the request was processed (global, europe, us).
	DataRegion *string `json:"data_region"`
	// ProviderResponses are the providers tried, in order, with their
	// status: a fallback shows as a failed attempt before the one that
	// served.
	ProviderResponses []ProviderResponse `json:"provider_responses"`
	ServiceTier       *string            `json:"service_tier"`
	Usage             *float64           `json:"usage"`
	NumSearchResults  *int64             `json:"num_search_results"`
	Origin            *string            `json:"origin"`
	ExternalUser      *string            `json:"external_user"`
	UpstreamID        *string            `json:"upstream_id"`
	WorkspaceID       *string            `json:"workspace_id"`
}

// ProviderResponse is one provider tried for a generation.
type ProviderResponse struct {
	Status         *float64 `json:"status"`
	ProviderName   *string  `json:"provider_name"`
	Latency        *float64 `json:"latency"`
	IsBYOK         *bool    `json:"is_byok"`
	EndpointID     *string  `json:"endpoint_id"`
	ModelPermaslug *string  `json:"model_permaslug"`
}

// GetGeneration fetches a generation's record. Right after an answer the
// record is not there yet (404, an *APIError); a server without the route
// gives a *NotOfferedError... which is also a 404: callers that just got
// an answer use WaitGeneration.
func (c *Client) GetGeneration(ctx context.Context, id string) (*Generation, []byte, error) {
	if id == "" {
		return nil, nil, &ValidationError{Field: "id", Rule: "is required"}
	}
	q := url.Values{"id": {id}}
	g, raw, err := callData[Generation](ctx, c, request{method: http.MethodGet, path: "/generation", query: q, limit: maxPageBytes, op: "GET /generation", resource: "generation"}, http.StatusOK)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusMethodNotAllowed {
		return nil, raw, &NotOfferedError{Op: "GET /generation", Err: ae}
	}
	return g, raw, err
}

// GenerationWait is how long WaitGeneration retries the early 404.
const GenerationWait = 6 * time.Second

// WaitGeneration fetches the record of an answer that just ended,
// retrying the 404 the service answers for a few seconds (every 500ms, at
// most GenerationWait). After that a 404 means the server keeps no such
// records: a *NotOfferedError.
func (c *Client) WaitGeneration(ctx context.Context, id string) (*Generation, error) {
	const every = 500 * time.Millisecond
	for attempt := 0; ; attempt++ {
		g, _, err := c.GetGeneration(ctx, id)
		if err == nil || StatusOf(err) != http.StatusNotFound {
			return g, err
		}
		if time.Duration(attempt)*every >= GenerationWait {
			return nil, &NotOfferedError{Op: "GET /generation (no record within " + GenerationWait.String() + ")", Err: asAPIError(err)}
		}
		if serr := c.sleep(ctx, every); serr != nil {
			return nil, serr
		}
	}
}

func asAPIError(err error) *APIError {
	var ae *APIError
	errors.As(err, &ae)
	return ae
}

// probeBytes is the most a probe of the models route reads.
const probeBytes = 64 << 10

// probeModels asks whether the server has a models route, reading at most
// one model (limit=1) and at most probeBytes: the catalogue itself is not
// fetched to word an error. Only the status matters.
func (c *Client) probeModels(ctx context.Context) error {
	_, err := c.callWith(ctx, request{method: http.MethodGet, path: "/models", query: url.Values{"limit": {"1"}}, noAuth: true,
		limit: probeBytes, op: "GET /models", resource: "models"}, func([]byte) error { return nil })
	return optional("GET /models", err)
}

// Explain404 looks closer at a 404: when the server also answers 404 on
// /models and /key, the base URL is likely wrong, and the error's hint
// says so instead of blaming the id. Other errors are returned as they
// are. The error given is not changed.
func (c *Client) Explain404(ctx context.Context, err error) error {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		return err
	}
	merr := c.probeModels(ctx)
	_, _, kerr := c.Key(ctx)
	if IsNotOffered(merr) && IsNotOffered(kerr) {
		// A copy: the error given may be on a screen, read meanwhile.
		cp := *ae
		cp.Everywhere = true
		return &cp
	}
	return err
}
