package gateway

import (
	"math/big"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// endpointSpec is one provider's endpoint of a catalogue model: seeded
// from the model and the provider, so that every run lists the same
// prices and stats.
type endpointSpec struct {
	model        *catalogModel
	provider     string
	in, out      string // dollars per million tokens, decimal strings
	quantization string // "" is null (closed weights)
	ctx          int
	maxOut       int
	status       int     // 0 normal; -10 down (requests to it fail with 503)
	uptime5m     float64 // percent
	uptime30m    float64
	uptime1d     float64
	latencyP50   float64 // ms to the first token
	throughput50 float64 // tokens per second
	trainsOnData bool    // the provider may train on prompts (data_collection: deny excludes it)
	params       []string
}

// DownProvider is the provider whose endpoints are down (status -10):
// requests routed to it fail with 503 and fall back when fallbacks are
// allowed.
const DownProvider = "Lambda"

// authorFacts is what the demo says of one author's models: the provider
// that serves them by default ("": the author's name capitalised), the
// providers after it, their tokenizer family ("": Other) and whether
// several hosts run their open weights quantized.
type authorFacts struct {
	provider    string
	others      []string
	tokenizer   string
	openWeights bool
}

// authors are the model authors the demo knows, one row each.
var authors = map[string]authorFacts{
	"openai":     {provider: "OpenAI", others: []string{"Azure"}, tokenizer: "GPT"},
	"anthropic":  {provider: "Anthropic", others: []string{"Amazon Bedrock", "Google Vertex"}, tokenizer: "Claude"},
	"google":     {provider: "Google AI Studio", others: []string{"Google Vertex"}, tokenizer: "Gemini"},
	"meta-llama": {provider: "DeepInfra", others: []string{"Together", "Fireworks", DownProvider}, tokenizer: "Llama3", openWeights: true}, // Llama4 for llama-4
	"mistralai":  {provider: "Mistral", others: []string{"Together"}, tokenizer: "Mistral", openWeights: true},
	"deepseek":   {others: []string{"DeepInfra", "Together", "Fireworks"}, tokenizer: "DeepSeek", openWeights: true},
	"qwen":       {others: []string{"DeepInfra", "Together", "Fireworks"}, tokenizer: "Qwen3", openWeights: true},
	"x-ai":       {tokenizer: "Grok"},
	"cohere":     {tokenizer: "Cohere"},
	"perplexity": {},
	// the router sends the demo's prompts to gpt-4o-mini
	"openrouter": {provider: "OpenAI", tokenizer: "Router"},
	"demo":       {provider: "Demo", others: []string{"Demo Backup"}},
}

// providerOf names the upstream a model is routed to.
func providerOf(model string) string {
	p, _, _ := strings.Cut(model, "/")
	if a := authors[p].provider; a != "" {
		return a
	}
	return strings.ToUpper(p[:1]) + p[1:]
}

// tokenizerOf names the tokenizer family of a model's author.
func tokenizerOf(id string) string {
	author, _, _ := strings.Cut(id, "/")
	switch t := authors[author].tokenizer; {
	case author == "meta-llama" && strings.Contains(id, "llama-4"):
		return "Llama4"
	case t != "":
		return t
	}
	return "Other"
}

// endpointsOf lists a model's endpoints; nil when the model is unknown.
func endpointsOf(model string) []endpointSpec {
	var m *catalogModel
	for _, list := range [][]catalogModel{catalogue, scriptedCatalogue} {
		for i := range list {
			if list[i].id == model {
				m = &list[i]
			}
		}
	}
	if m == nil {
		return nil
	}
	author, _, _ := strings.Cut(m.id, "/")
	names := append([]string{providerOf(m.id)}, authors[author].others...)
	if strings.HasSuffix(m.id, ":free") {
		names = names[:1]
	}
	out := make([]endpointSpec, 0, len(names))
	for i, name := range names {
		r := seededRand(m.id + "@" + name)
		e := endpointSpec{model: m, provider: name, in: m.in, out: m.out, ctx: m.ctx, maxOut: m.maxOut, params: m.params,
			uptime5m: 100, uptime30m: 99.9, uptime1d: 99.5 + float64(r.IntN(50))/100}
		if i > 0 {
			// other hosts charge from 20% less to 30% more, in whole percents
			pct := int64(80 + r.IntN(51))
			e.in, e.out = scaleDecimal(m.in, pct), scaleDecimal(m.out, pct)
			e.uptime5m = 97 + float64(r.IntN(300))/100
			e.uptime30m = 96 + float64(r.IntN(400))/100
			e.uptime1d = 95 + float64(r.IntN(500))/100
			if m.ctx > 32768 && r.IntN(2) == 0 {
				e.ctx = m.ctx / 2
			}
			e.trainsOnData = r.IntN(3) == 0
		}
		if authors[author].openWeights {
			e.quantization = []string{"fp8", "bf16", "fp16", "int8"}[r.IntN(4)]
			if i == 0 {
				e.quantization = "bf16"
			}
		}
		e.latencyP50 = float64(180 + r.IntN(700))
		e.throughput50 = float64(25 + r.IntN(180))
		if name == DownProvider {
			e.status, e.uptime5m, e.uptime30m, e.uptime1d = -10, 0, 12.5, 61.3
		}
		out = append(out, e)
	}
	return out
}

// scaleDecimal multiplies a decimal price by pct percent, exactly.
func scaleDecimal(dec string, pct int64) string {
	if dec == "" || strings.HasPrefix(dec, "-") {
		return dec
	}
	r, ok := new(big.Rat).SetString(dec)
	if !ok {
		return dec
	}
	r.Mul(r, big.NewRat(pct, 100))
	s := strings.TrimRight(r.FloatString(12), "0")
	return strings.TrimSuffix(s, ".")
}

// price reads a decimal price (per million tokens) as a float, for sorting
// and comparing with max_price.
func price(dec string) float64 {
	f, _ := strconv.ParseFloat(dec, 64)
	return f
}

func percentiles(p50 float64, spread ...float64) map[string]any {
	return map[string]any{"p50": p50, "p75": round1(p50 * spread[0]), "p90": round1(p50 * spread[1]), "p99": round1(p50 * spread[2])}
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// wire is the endpoint as GET /models/{author}/{slug}/endpoints sends it;
// latency stats go to callers with a key only, as the service does.
func (e *endpointSpec) wire(withStats bool) map[string]any {
	var maxOut, quant any
	if e.maxOut > 0 {
		maxOut = e.maxOut
	}
	if e.quantization != "" {
		quant = e.quantization
	}
	tag := strings.ToLower(strings.ReplaceAll(e.provider, " ", "-"))
	if e.quantization != "" {
		tag += "/" + e.quantization
	}
	tools := hasParam(e.params, "tool_choice")
	out := map[string]any{
		"name": e.provider + " | " + e.model.id, "model_id": e.model.id, "model_name": e.model.name, "provider_name": e.provider,
		"tag": tag, "context_length": e.ctx, "max_completion_tokens": maxOut, "max_prompt_tokens": nil,
		"pricing":      map[string]any{"prompt": decimalDiv(e.in, 1e6), "completion": decimalDiv(e.out, 1e6), "request": "0", "image": "0"},
		"quantization": quant, "supported_parameters": e.params, "supports_implicit_caching": e.model.inputCacheRead != "",
		"supports_tool_choice": map[string]any{"auto": tools, "function": tools, "none": tools, "required": tools},
		"status":               e.status,
		"uptime_last_5m":       e.uptime5m, "uptime_last_30m": e.uptime30m, "uptime_last_1d": e.uptime1d,
		"latency_last_30m": nil, "throughput_last_30m": nil,
	}
	if withStats && e.status > -10 {
		out["latency_last_30m"] = percentiles(e.latencyP50, 1.4, 2.1, 4.5)
		out["throughput_last_30m"] = percentiles(e.throughput50, 0.85, 0.7, 0.45)
	}
	return out
}

func hasParam(params []string, p string) bool {
	for _, x := range params {
		if x == p {
			return true
		}
	}
	return false
}

// getEndpoints answers GET /models/{author}/{slug}/endpoints.
func (g *Gateway) getEndpoints(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("author") + "/" + r.PathValue("slug")
	eps := endpointsOf(id)
	if eps == nil {
		writeError(w, http.StatusNotFound, "Model not found: "+id)
		return
	}
	kind := g.keyKind(r.Header.Get("Authorization"))
	withStats := kind == "api" || kind == "management"
	m := eps[0].model
	list := make([]any, 0, len(eps))
	sorted := append([]endpointSpec(nil), eps...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].status > sorted[j].status })
	for i := range sorted {
		list = append(list, sorted[i].wire(withStats))
	}
	wm := m.wire(baseURL(r))
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"id": m.id, "name": m.name, "created": m.created, "description": m.desc,
		"architecture": wm["architecture"], "endpoints": list,
	}})
}
