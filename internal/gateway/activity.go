package gateway

import (
	"hash/fnv"
	"net/http"
	"time"
)

// activityItem is one item of GET /activity: a UTC day, a model and a
// provider.
type activityItem struct {
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
}

// activityModels are the models the demo's account used, with their
// provider and price per 1k prompt and completion tokens.
var activityModels = []struct {
	model, provider string
	in, out         float64
}{
	{"openai/gpt-4o-mini", "OpenAI", 0.00015, 0.0006},
	{"anthropic/claude-sonnet-4", "Anthropic", 0.003, 0.015},
	{"meta-llama/llama-3.1-70b-instruct", "DeepInfra", 0.0004, 0.0004},
}

// getActivity serves GET /activity (management key): spend per day,
// model and provider over the last 30 completed UTC days (today is not
// included), or one day with ?date=YYYY-MM-DD. The figures are made up
// from the day and the model, the same on every call.
func (g *Gateway) getActivity(w http.ResponseWriter, r *http.Request) {
	today := g.now().UTC().Truncate(24 * time.Hour)
	only := r.URL.Query().Get("date")
	if only != "" {
		d, err := time.Parse(time.DateOnly, only)
		if err != nil {
			writeError(w, http.StatusBadRequest, "date must be YYYY-MM-DD")
			return
		}
		if !d.Before(today) || d.Before(today.Add(-30*24*time.Hour)) {
			writeJSON(w, http.StatusOK, map[string]any{"data": []activityItem{}})
			return
		}
	}
	items := []activityItem{}
	for back := 30; back >= 1; back-- {
		day := today.Add(-time.Duration(back) * 24 * time.Hour).Format(time.DateOnly)
		if only != "" && day != only {
			continue
		}
		for _, m := range activityModels {
			h := fnv.New64a()
			h.Write([]byte(day + m.model))
			n := h.Sum64()
			if n%4 == 0 { // not every model every day
				continue
			}
			reqs := int64(n%40) + 1
			prompt := reqs * int64(200+n%900)
			completion := reqs * int64(100+(n>>8)%700)
			items = append(items, activityItem{Date: day, Model: m.model, ModelPermaslug: m.model + "-2025", EndpointID: "ep-" + m.provider,
				ProviderName: m.provider, Usage: float64(prompt)/1000*m.in + float64(completion)/1000*m.out, Requests: reqs,
				PromptTokens: prompt, CompletionTokens: completion})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": items})
}
