package gateway

import (
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// account is the API key's spend, the organisation's credits and the
// record of every generation.
type account struct {
	mu          sync.Mutex
	limit       float64 // 0: no limit
	usage       float64
	daily       float64
	credits     float64 // credits bought by the organisation (GET /credits)
	freeUsed    int     // requests to :free models today
	generations map[string]*generation
	delay       time.Duration
}

// generation is what GET /generation tells of one answer.
type generation struct {
	ID, Model, Provider, FinishReason string
	Created, Ended                    time.Time
	Cost, UpstreamCost                float64
	LatencyMS, GenerationMS           int64
	Streamed, Cancelled               bool
	TokensIn, TokensOut, Reasoning    int
	// What the request said of itself: the caller's user id, service
	// tier, User-Agent and HTTP-Referer ("" when not sent).
	User, ServiceTier, UserAgent, Referer string
	// Tried are the providers tried, when routing chose (routing.go).
	Tried []any
}

// BYOK (bring your own key) spend of the demo key, in dollars: seeded, and
// consistent (a day within its week, the week within its month, the month
// within all time).
const (
	byokDaily   = 0.0142
	byokWeekly  = 0.0871
	byokMonthly = 0.3125
	byokTotal   = 1.2044
)

// freeDailyLimit is how many requests to :free models a key may make a day.
const freeDailyLimit = 1000

func newAccount(o Options) *account {
	return &account{limit: o.KeyLimit, usage: o.KeyUsage, daily: o.KeyUsage, credits: o.Credits, generations: map[string]*generation{}, delay: o.GenerationDelay}
}

// exhausted reports whether the key's limit is used up.
func (a *account) exhausted() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit > 0 && a.usage >= a.limit
}

// LastGeneration is the id of the latest answer (tests).
func (g *Gateway) LastGeneration() string {
	a := g.account
	a.mu.Lock()
	defer a.mu.Unlock()
	var last *generation
	for _, gen := range a.generations {
		if last == nil || gen.Ended.After(last.Ended) || gen.Ended.Equal(last.Ended) && gen.ID > last.ID {
			last = gen
		}
	}
	if last == nil {
		return ""
	}
	return last.ID
}

// charge records a finished generation and adds its cost to the usage.
func (a *account) charge(gen *generation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.usage += gen.Cost
	a.daily += gen.Cost
	if strings.HasSuffix(gen.Model, ":free") {
		a.freeUsed++
	}
	a.generations[gen.ID] = gen
}

// getKey answers GET /key with every member the official SDK requires.
func (g *Gateway) getKey(w http.ResponseWriter, r *http.Request) {
	mgmt := g.keyKind(r.Header.Get("Authorization")) == "management"
	a := g.account
	a.mu.Lock()
	var limit, remaining, reset any
	if a.limit > 0 {
		limit, remaining, reset = a.limit, round6(math.Max(0, a.limit-a.usage)), "monthly"
	}
	label := "gw-demo-api-key-…0000"
	if mgmt {
		label = "gw-demo-mgmt-key-…0000"
	}
	data := map[string]any{
		"label": label, "limit": limit, "limit_remaining": remaining, "limit_reset": reset,
		"usage": round6(a.usage), "usage_daily": round6(a.daily), "usage_weekly": round6(a.usage), "usage_monthly": round6(a.usage),
		"byok_usage": byokTotal, "byok_usage_daily": byokDaily, "byok_usage_weekly": byokWeekly, "byok_usage_monthly": byokMonthly,
		"include_byok_in_limit": false, "is_free_tier": false, "is_management_key": mgmt, "is_provisioning_key": mgmt,
		"expires_at": nil, "allowed_data_regions": slices.Clone(Regions),
		"creator_user_id": demoUserID, "organization_id": nil, "workspace_id": DefaultWorkspace,
		"free_model_daily_requests": map[string]any{"limit": freeDailyLimit, "used": a.freeUsed, "remaining": max(0, freeDailyLimit-a.freeUsed)},
		"rate_limit": map[string]any{"requests": 240, "interval": "10s",
			"note": "240 requests per 10 seconds for this key; :free models also count toward the daily free-model requests"},
	}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// demoUserID is the user who created the demo keys.
const demoUserID = "user_2demo7Gq1T8wXkPz3fRb9LmN0aE"

// getCredits answers GET /credits (management key): what the organisation
// bought and what it used, in dollars.
func (g *Gateway) getCredits(w http.ResponseWriter, r *http.Request) {
	a := g.account
	a.mu.Lock()
	data := map[string]any{"total_credits": round6(a.credits), "total_usage": round6(a.usage)}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// getGeneration answers GET /generation?id=: 404 until a moment after the
// answer ended, then the record, with every member the official SDK
// requires.
func (g *Gateway) getGeneration(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		badRequest(w, "id: is required")
		return
	}
	a := g.account
	a.mu.Lock()
	gen := a.generations[id]
	a.mu.Unlock()
	if gen == nil || g.now().Sub(gen.Ended) < a.delay {
		writeError(w, http.StatusNotFound, "Generation "+id+" not found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": gen.wire()})
}

// orNull is s, or null when it is empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// wire is the generation as GET /generation sends it. The native token
// counts are the answer's usage (input, output with reasoning, reasoning).
func (gen *generation) wire() map[string]any {
	origin := ""
	if u, err := url.Parse(gen.Referer); err == nil && u.Scheme != "" && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
	}
	tier := gen.ServiceTier
	if tier == "" || tier == "auto" {
		tier = "default"
	}
	slug, _, _ := strings.Cut(gen.Model, ":")
	return map[string]any{
		"id": gen.ID, "model": gen.Model, "provider_name": gen.Provider, "created_at": gen.Created.UTC().Format(time.RFC3339),
		"total_cost": round6(gen.Cost), "cache_discount": nil, "upstream_inference_cost": round6(gen.UpstreamCost),
		"latency": gen.LatencyMS, "moderation_latency": nil, "generation_time": gen.GenerationMS,
		"streamed": gen.Streamed, "cancelled": gen.Cancelled, "finish_reason": orNull(gen.FinishReason), "native_finish_reason": orNull(gen.FinishReason),
		"tokens_prompt": gen.TokensIn, "tokens_completion": gen.TokensOut, "native_tokens_prompt": gen.TokensIn,
		"native_tokens_completion": gen.TokensOut, "native_tokens_reasoning": gen.Reasoning, "native_tokens_cached": 0,
		"native_tokens_completion_images": 0, "num_fetches": 0, "num_input_audio_prompt": 0,
		"num_media_completion": 0, "num_media_prompt": 0, "num_search_results": 0,
		"is_byok": false, "router": routerOf(gen.Model), "api_type": "responses", "origin": origin, "usage": round6(gen.Cost),
		"app_id": nil, "data_region": "global", "external_user": orNull(gen.User), "http_referer": orNull(gen.Referer),
		"preset_id": nil, "provider_responses": gen.attempts(slug), "service_tier": tier,
		"upstream_id": "chatcmpl-" + strings.TrimPrefix(gen.ID, "gen-"), "user_agent": orNull(gen.UserAgent),
		"web_search_engine": nil, "workspace_id": DefaultWorkspace,
	}
}

// routerOf names the router that picked the model, or null.
func routerOf(model string) any {
	if model == "openrouter/auto" {
		return "openrouter/auto"
	}
	return nil
}

// attempts are the providers tried for a generation, in order: the auto
// router's first pick is rate limited, so it falls back; every other
// model is served by its first provider.
func (gen *generation) attempts(slug string) []any {
	attempt := func(provider, permaslug string, status int, latency int64) map[string]any {
		return map[string]any{"status": status, "provider_name": provider, "latency": latency, "is_byok": false,
			"endpoint_id": endpointID(permaslug + "@" + provider), "model_permaslug": permaslug}
	}
	if len(gen.Tried) > 0 {
		return gen.Tried
	}
	if gen.Model == "openrouter/auto" {
		return []any{attempt("Azure", "openai/gpt-4o-mini", http.StatusTooManyRequests, 41),
			attempt(gen.Provider, "openai/gpt-4o-mini", http.StatusOK, gen.LatencyMS)}
	}
	return []any{attempt(gen.Provider, slug, http.StatusOK, gen.LatencyMS)}
}

// endpointID is a stable UUID-shaped id of one provider's endpoint of a
// model.
func endpointID(key string) string {
	h := fnv.New128a()
	h.Write([]byte(key))
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newGenerationID makes the id of one answer.
func (g *Gateway) newGenerationID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprintf("gen-%d-%08x", g.now().Unix(), g.rng.Uint32())
}
