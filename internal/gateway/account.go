package gateway

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"
)

// account is the API key's spend and the record of every generation.
type account struct {
	mu          sync.Mutex
	limit       float64 // 0: no limit
	usage       float64
	daily       float64
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
}

func newAccount(o Options) *account {
	return &account{limit: o.KeyLimit, usage: o.KeyUsage, daily: o.KeyUsage, generations: map[string]*generation{}, delay: o.GenerationDelay}
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
	a.generations[gen.ID] = gen
}

// getKey answers GET /key.
func (g *Gateway) getKey(w http.ResponseWriter, r *http.Request) {
	a := g.account
	a.mu.Lock()
	var limit, remaining, reset any
	if a.limit > 0 {
		limit, remaining, reset = a.limit, round6(math.Max(0, a.limit-a.usage)), "monthly"
	}
	data := map[string]any{
		"label": "gw-demo-…0000", "limit": limit, "limit_remaining": remaining, "limit_reset": reset,
		"usage": round6(a.usage), "usage_daily": round6(a.daily), "usage_weekly": round6(a.usage), "usage_monthly": round6(a.usage),
		"byok_usage": 0, "is_free_tier": false, "is_management_key": g.keyKind(r.Header.Get("Authorization")) == "management",
		"expires_at": nil, "rate_limit": map[string]any{"requests": 240, "interval": "10s"},
	}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// getGeneration answers GET /generation?id=: 404 until a moment after the
// answer ended, then the record.
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
	var finish any
	if gen.FinishReason != "" {
		finish = gen.FinishReason
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"id": gen.ID, "model": gen.Model, "provider_name": gen.Provider, "created_at": gen.Created.UTC().Format(time.RFC3339),
		"total_cost": round6(gen.Cost), "cache_discount": nil, "upstream_inference_cost": round6(gen.UpstreamCost),
		"latency": gen.LatencyMS, "moderation_latency": nil, "generation_time": gen.GenerationMS,
		"streamed": gen.Streamed, "cancelled": gen.Cancelled, "finish_reason": finish, "native_finish_reason": finish,
		"tokens_prompt": gen.TokensIn, "tokens_completion": gen.TokensOut, "native_tokens_prompt": gen.TokensIn + 3,
		"native_tokens_completion": gen.TokensOut, "native_tokens_reasoning": gen.Reasoning, "native_tokens_cached": 0,
		"is_byok": false, "router": nil, "api_type": "responses", "origin": "", "usage": round6(gen.Cost),
	}})
}

// providerOf names the upstream a model is routed to.
func providerOf(model string) string {
	p, _, _ := strings.Cut(model, "/")
	switch p {
	case "openai":
		return "OpenAI"
	case "anthropic":
		return "Anthropic"
	case "google":
		return "Google AI Studio"
	case "meta-llama":
		return "DeepInfra"
	case "mistralai":
		return "Mistral"
	case "openrouter":
		return "OpenAI" // the router sends the demo's prompts to gpt-4o-mini
	case "demo":
		return "Demo"
	}
	return strings.ToUpper(p[:1]) + p[1:]
}

// newGenerationID makes the id of one answer.
func (g *Gateway) newGenerationID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprintf("gen-%d-%08x", g.now().Unix(), g.rng.Uint32())
}
