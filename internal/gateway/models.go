package gateway

import (
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// catalogModel is one model of the demo catalogue. Prices are decimal
// strings, as the service writes them, and stay decimals until they are
// written: dollars per million tokens for in, out, inputCacheRead and
// internalReason; dollars per request for requestPrice; dollars per
// thousand searches for webSearch. "-1" means "depends on the routed
// model"; "" is no price.
type catalogModel struct {
	id, name, desc  string
	ctx             int
	in, out         string
	maxOut          int // 0: null, as the real catalogue often sends
	input           []string
	output          []string
	params          []string
	created         int64
	cutoff          string // "" is null
	moderated       bool
	descNull        bool // the description is left out (the SDK takes a string or nothing)
	inputCacheRead  string
	internalReason  string
	requestPrice    string
	webSearch       string
	perRequestLimit bool
}

var textParams = []string{"max_tokens", "temperature", "top_p", "stop", "frequency_penalty", "presence_penalty", "seed", "response_format", "structured_outputs"}

func params(extra ...string) []string { return append(append([]string(nil), textParams...), extra...) }

// catalogue is the demo gateway's model list: several providers, free
// variants, a router whose prices are negative, an embedding model (only
// listed when asked for), nulls where the real one has them, and the
// scripted demo models.
var catalogue = []catalogModel{
	{id: "openai/gpt-4o-mini", name: "OpenAI: GPT-4o-mini", desc: "A small, fast, cheap multimodal model.", ctx: 128000, in: "0.15", out: "0.60", maxOut: 16384, input: []string{"text", "image", "file"}, output: []string{"text"}, params: params("tools", "tool_choice", "logprobs", "top_logprobs"), created: 1721260800, cutoff: "2023-10", inputCacheRead: "0.075", moderated: true},
	{id: "openai/gpt-4o", name: "OpenAI: GPT-4o", desc: "OpenAI's flagship multimodal model.", ctx: 128000, in: "2.5", out: "10", maxOut: 16384, input: []string{"text", "image", "file"}, output: []string{"text"}, params: params("tools", "tool_choice", "logprobs", "top_logprobs"), created: 1715558400, cutoff: "2023-10", inputCacheRead: "1.25", moderated: true},
	{id: "openai/gpt-4.1", name: "OpenAI: GPT-4.1", desc: "Long-context flagship for coding and instructions.", ctx: 1047576, in: "2", out: "8", maxOut: 32768, input: []string{"text", "image", "file"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1744588800, cutoff: "2024-06", inputCacheRead: "0.5", moderated: true},
	{id: "openai/gpt-4.1-nano", name: "OpenAI: GPT-4.1 nano", desc: "The fastest, cheapest GPT-4.1.", ctx: 1047576, in: "0.1", out: "0.4", maxOut: 32768, input: []string{"text", "image"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1744588800, cutoff: "2024-06", moderated: true},
	{id: "openai/o4-mini", name: "OpenAI: o4 Mini", desc: "A small reasoning model.", ctx: 200000, in: "1.1", out: "4.4", maxOut: 100000, input: []string{"text", "image"}, output: []string{"text"}, params: []string{"max_tokens", "reasoning", "include_reasoning", "tools", "tool_choice", "seed", "structured_outputs"}, created: 1744761600, internalReason: "4.4", moderated: true},
	{id: "openai/gpt-image-1", name: "OpenAI: GPT Image 1", desc: "Text and image in, image out.", ctx: 32000, in: "5", out: "40", input: []string{"text", "image"}, output: []string{"text", "image"}, params: []string{"max_tokens"}, created: 1745366400, moderated: true, perRequestLimit: true},
	{id: "openai/text-embedding-3-small", name: "OpenAI: Text Embedding 3 Small", desc: "Embeddings.", ctx: 8192, in: "0.02", out: "0", input: []string{"text"}, output: []string{"embeddings"}, params: []string{}, created: 1706140800},
	{id: "anthropic/claude-sonnet-4", name: "Anthropic: Claude Sonnet 4", desc: "Balanced intelligence and speed.", ctx: 200000, in: "3", out: "15", maxOut: 64000, input: []string{"text", "image", "file"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "top_k", "stop", "reasoning", "include_reasoning", "tools", "tool_choice"}, created: 1747872000, cutoff: "2025-03", inputCacheRead: "0.3"},
	{id: "anthropic/claude-opus-4", name: "Anthropic: Claude Opus 4", desc: "The most capable Claude.", ctx: 200000, in: "15", out: "75", maxOut: 32000, input: []string{"text", "image", "file"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "top_k", "stop", "reasoning", "include_reasoning", "tools", "tool_choice"}, created: 1747872000, cutoff: "2025-03", inputCacheRead: "1.5"},
	{id: "anthropic/claude-3.5-haiku", name: "Anthropic: Claude 3.5 Haiku", desc: "Fast and light.", ctx: 200000, in: "0.8", out: "4", maxOut: 8192, input: []string{"text", "image"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "top_k", "stop", "tools", "tool_choice"}, created: 1730678400, cutoff: "2024-07", moderated: true},
	{id: "google/gemini-2.5-pro", name: "Google: Gemini 2.5 Pro", desc: "Google's thinking model for complex work.", ctx: 1048576, in: "1.25", out: "10", maxOut: 65536, input: []string{"text", "image", "file", "audio", "video"}, output: []string{"text"}, params: params("tools", "tool_choice", "reasoning", "include_reasoning"), created: 1750118400, cutoff: "2025-01", inputCacheRead: "0.31"},
	{id: "google/gemini-2.5-flash", name: "Google: Gemini 2.5 Flash", desc: "Fast, with thinking on demand.", ctx: 1048576, in: "0.3", out: "2.5", maxOut: 65535, input: []string{"text", "image", "file", "audio", "video"}, output: []string{"text"}, params: params("tools", "tool_choice", "reasoning", "include_reasoning"), created: 1750118400, cutoff: "2025-01", inputCacheRead: "0.075"},
	{id: "google/gemini-2.0-flash-001", name: "Google: Gemini 2.0 Flash", desc: "", ctx: 1048576, in: "0.1", out: "0.4", maxOut: 8192, input: []string{"text", "image", "file", "audio", "video"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1738713600, descNull: true},
	{id: "google/gemma-3-27b-it:free", name: "Google: Gemma 3 27B (free)", desc: "Open weights, free variant with rate limits.", ctx: 96000, in: "0", out: "0", maxOut: 8192, input: []string{"text", "image"}, output: []string{"text"}, params: params(), created: 1741737600},
	{id: "google/gemma-3-27b-it", name: "Google: Gemma 3 27B", desc: "Open weights.", ctx: 131072, in: "0.09", out: "0.17", maxOut: 16384, input: []string{"text", "image"}, output: []string{"text"}, params: params(), created: 1741737600},
	{id: "meta-llama/llama-3.1-70b-instruct", name: "Meta: Llama 3.1 70B Instruct", desc: "Open weights, strong general model.", ctx: 131072, in: "0.4", out: "0.4", input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice", "top_k", "repetition_penalty", "min_p"), created: 1721692800, cutoff: "2023-12"},
	{id: "meta-llama/llama-3.1-8b-instruct", name: "Meta: Llama 3.1 8B Instruct", desc: "Small and quick.", ctx: 131072, in: "0.02", out: "0.03", maxOut: 16384, input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice", "top_k"), created: 1721692800, cutoff: "2023-12"},
	{id: "meta-llama/llama-3.3-70b-instruct:free", name: "Meta: Llama 3.3 70B Instruct (free)", desc: "Free variant; rate limited.", ctx: 65536, in: "0", out: "0", input: []string{"text"}, output: []string{"text"}, params: params("tools"), created: 1733443200},
	{id: "meta-llama/llama-4-maverick", name: "Meta: Llama 4 Maverick", desc: "Mixture-of-experts, multimodal.", ctx: 1048576, in: "0.15", out: "0.6", maxOut: 16384, input: []string{"text", "image"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1743897600, cutoff: "2024-08"},
	{id: "mistralai/mistral-large", name: "Mistral: Mistral Large", desc: "Mistral's flagship.", ctx: 128000, in: "2", out: "6", input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1708905600},
	{id: "mistralai/mistral-small-3.2-24b-instruct", name: "Mistral: Mistral Small 3.2 24B", desc: "Small and capable.", ctx: 131072, in: "0.05", out: "0.1", input: []string{"text", "image"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1750291200},
	{id: "mistralai/codestral-2508", name: "Mistral: Codestral 2508", desc: "Code completion and generation.", ctx: 256000, in: "0.3", out: "0.9", input: []string{"text"}, output: []string{"text"}, params: params("tools"), created: 1754006400},
	{id: "deepseek/deepseek-chat-v3-0324", name: "DeepSeek: DeepSeek V3 0324", desc: "Mixture-of-experts chat model.", ctx: 163840, in: "0.25", out: "0.85", maxOut: 163840, input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice", "top_k"), created: 1742774400},
	{id: "deepseek/deepseek-chat-v3-0324:free", name: "DeepSeek: DeepSeek V3 0324 (free)", desc: "Free variant; rate limited.", ctx: 163840, in: "0", out: "0", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1742774400},
	{id: "deepseek/deepseek-r1", name: "DeepSeek: R1", desc: "Open reasoning model.", ctx: 163840, in: "0.4", out: "2", input: []string{"text"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "reasoning", "include_reasoning", "stop", "seed"}, created: 1737331200},
	{id: "qwen/qwen3-235b-a22b", name: "Qwen: Qwen3 235B A22B", desc: "Mixture-of-experts with thinking modes.", ctx: 131072, in: "0.13", out: "0.6", input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice", "reasoning", "include_reasoning"), created: 1745884800},
	{id: "qwen/qwen3-coder", name: "Qwen: Qwen3 Coder", desc: "Agentic coding model.", ctx: 262144, in: "0.2", out: "0.8", input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1753142400},
	{id: "x-ai/grok-4", name: "xAI: Grok 4", desc: "xAI's reasoning model.", ctx: 256000, in: "3", out: "15", input: []string{"text", "image"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "reasoning", "include_reasoning", "tools", "tool_choice", "structured_outputs"}, created: 1752192000, webSearch: "25"},
	{id: "x-ai/grok-3-mini", name: "xAI: Grok 3 Mini", desc: "Light reasoning.", ctx: 131072, in: "0.3", out: "0.5", input: []string{"text"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "reasoning", "tools"}, created: 1744070400},
	{id: "cohere/command-r-plus-08-2024", name: "Cohere: Command R+ (08-2024)", desc: "Retrieval-augmented generation.", ctx: 128000, in: "2.5", out: "10", maxOut: 4000, input: []string{"text"}, output: []string{"text"}, params: params("tools"), created: 1724976000},
	{id: "perplexity/sonar", name: "Perplexity: Sonar", desc: "Web-grounded answers with citations.", ctx: 127072, in: "1", out: "1", input: []string{"text", "image"}, output: []string{"text"}, params: []string{"max_tokens", "temperature", "top_p", "web_search_options"}, created: 1738022400, requestPrice: "0.005"},
	{id: "openrouter/auto", name: "Auto Router", desc: "Routes each prompt to a model chosen for it; the price is that model's.", ctx: 2000000, in: "-1", out: "-1", input: []string{"text", "image", "file"}, output: []string{"text", "image"}, params: params("tools", "tool_choice", "reasoning"), created: 1699401600},
	{id: ModelFirehose, name: "Demo: firehose", desc: "Streams exactly max_output_tokens tokens (benchmarks).", ctx: 1000000, in: "0", out: "0", input: []string{"text"}, output: []string{"text"}, params: []string{"max_tokens"}, created: 1760000000},
	{id: ModelBulk, name: "Demo: bulk", desc: "Streams max_output_tokens deltas of 64 KiB each (benchmarks of large answers).", ctx: 1000000, in: "0", out: "0", input: []string{"text"}, output: []string{"text"}, params: []string{"max_tokens"}, created: 1760000000},
	{id: ModelFailMidstream, name: "Demo: fails mid-stream", desc: "response.failed after some text.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1760000000},
	{id: ModelDrop, name: "Demo: drops the connection", desc: "The connection closes mid-answer.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1760000000},
	{id: ModelRateLimited, name: "Demo: rate limited", desc: "429 with Retry-After: 7.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1760000000},
	{id: ModelErrorEvent, name: "Demo: error event", desc: "A flat error event mid-stream.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1760000000},
	{id: ModelRefusal, name: "Demo: refuses", desc: "A refusal instead of text.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1760000000},
	{id: ModelEscapes, name: "Demo: escape sequences", desc: "Text full of terminal escape sequences.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params(), created: 1760000000},
}

// modelCategories are the catalogue's categories (GET /models?category=)
// and the models each holds.
var modelCategories = map[string][]string{
	"programming": {"anthropic/claude-sonnet-4", "anthropic/claude-opus-4", "openai/gpt-4.1", "openai/o4-mini", "mistralai/codestral-2508", "qwen/qwen3-coder", "deepseek/deepseek-chat-v3-0324", "x-ai/grok-4", "google/gemini-2.5-pro"},
	"roleplay":    {"meta-llama/llama-3.3-70b-instruct:free", "deepseek/deepseek-chat-v3-0324", "deepseek/deepseek-chat-v3-0324:free", "mistralai/mistral-small-3.2-24b-instruct", "google/gemma-3-27b-it"},
	"translation": {"google/gemini-2.5-flash", "google/gemini-2.0-flash-001", "openai/gpt-4o-mini", "mistralai/mistral-large", "qwen/qwen3-235b-a22b"},
	"science":     {"openai/o4-mini", "deepseek/deepseek-r1", "google/gemini-2.5-pro", "anthropic/claude-opus-4", "x-ai/grok-4"},
	"trivia":      {"perplexity/sonar", "openai/gpt-4o", "meta-llama/llama-3.1-70b-instruct"},
	"legal":       {"anthropic/claude-sonnet-4", "openai/gpt-4.1", "cohere/command-r-plus-08-2024"},
	"marketing":   {"openai/gpt-4o", "anthropic/claude-3.5-haiku", "mistralai/mistral-large"},
	"finance":     {"openai/gpt-4.1", "x-ai/grok-3-mini", "google/gemini-2.5-pro"},
}

// modalityNames are the modalities a filter may name.
var modalityNames = []string{"text", "image", "file", "audio", "video", "embeddings"}

// priceOf returns a model's price per million tokens (input, output); a
// model not in the catalogue costs 1 and 2. The cost of an answer is a
// number on the wire, so float arithmetic is fine from here on.
func priceOf(model string) (in, out float64) {
	for i := range catalogue {
		if catalogue[i].id == model {
			in, _ = strconv.ParseFloat(catalogue[i].in, 64)
			out, _ = strconv.ParseFloat(catalogue[i].out, 64)
			return in, out
		}
	}
	return 1, 2
}

// decimalDiv divides a decimal string by div exactly and writes the
// quotient as a plain decimal string ("0.4" / 1e6 is "0.0000004", never
// "0.00000040000000000000003"). A negative price stays "-1" (a router's).
func decimalDiv(dec string, div int64) string {
	if dec == "" {
		return "0"
	}
	if strings.HasPrefix(dec, "-") {
		return "-1"
	}
	r, ok := new(big.Rat).SetString(dec)
	if !ok {
		panic("gateway: catalogue price " + strconv.Quote(dec) + " is not a decimal")
	}
	r.Quo(r, big.NewRat(div, 1))
	s := strings.TrimRight(r.FloatString(24), "0")
	s = strings.TrimSuffix(s, ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}

// slug is the model's id without a variant suffix (":free").
func (m *catalogModel) slug() string {
	s, _, _ := strings.Cut(m.id, ":")
	return s
}

// wire is the model as GET /models sends it; base is the gateway's
// absolute base URL (for the model's links).
func (m *catalogModel) wire(base string) map[string]any {
	var maxOut any
	if m.maxOut > 0 {
		maxOut = m.maxOut
	}
	var cutoff any
	if m.cutoff != "" {
		cutoff = m.cutoff
	}
	var limits any
	if m.perRequestLimit {
		limits = map[string]any{"prompt_tokens": 32000, "completion_tokens": 4096}
	}
	pricing := map[string]any{"prompt": decimalDiv(m.in, 1e6), "completion": decimalDiv(m.out, 1e6),
		"request": decimalDiv(m.requestPrice, 1), "image": "0",
		"web_search": decimalDiv(m.webSearch, 1000), "internal_reasoning": decimalDiv(m.internalReason, 1e6)}
	if m.inputCacheRead != "" {
		pricing["input_cache_read"] = decimalDiv(m.inputCacheRead, 1e6)
	}
	modality := strings.Join(m.input, "+") + "->" + strings.Join(m.output, "+")
	out := map[string]any{
		"id": m.id, "canonical_slug": m.slug(), "name": m.name, "created": m.created,
		"context_length": m.ctx,
		"architecture": map[string]any{"modality": modality, "input_modalities": m.input, "output_modalities": m.output,
			"tokenizer": tokenizerOf(m.id), "instruct_type": nil},
		"pricing":              pricing,
		"top_provider":         map[string]any{"context_length": m.ctx, "max_completion_tokens": maxOut, "is_moderated": m.moderated},
		"per_request_limits":   limits,
		"supported_parameters": m.params,
		"default_parameters":   map[string]any{"temperature": nil, "top_p": nil, "frequency_penalty": nil},
		"supported_voices":     nil,
		"expiration_date":      nil,
		"knowledge_cutoff":     cutoff,
		"links":                map[string]any{"details": base + "/models/" + m.slug() + "/endpoints"},
	}
	if !m.descNull {
		out["description"] = m.desc
	}
	return out
}

// modelFilter is what a GET /models query asks for.
type modelFilter struct {
	offset, limit int // limit 0: no limit
	category      string
	params        []string // every one supported
	inputs        []string // every one accepted
	outputs       []string // any one produced; nil: every model
	minContext    int
	words         []string // each in the id, name or description
}

// parseModelFilter reads the query; an invalid parameter is an error that
// names it. Parameters gwdash does not filter on (sort, prices,
// providers...) are accepted and ignored.
func parseModelFilter(q url.Values) (modelFilter, error) {
	f := modelFilter{outputs: []string{"text"}} // the default list: text output
	num := func(name string, min int) (int, error) {
		v := strings.TrimSpace(q.Get(name))
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < min {
			return 0, fmt.Errorf("%s: must be an integer of at least %d", name, min)
		}
		return n, nil
	}
	var err error
	if f.offset, err = num("offset", 0); err != nil {
		return f, err
	}
	if q.Has("limit") {
		if f.limit, err = num("limit", 1); err != nil {
			return f, err
		}
		if f.limit == 0 {
			return f, fmt.Errorf("limit: must be an integer of at least 1")
		}
	}
	if f.minContext, err = num("context", 0); err != nil {
		return f, err
	}
	list := func(name string) []string {
		var out []string
		for _, v := range strings.Split(q.Get(name), ",") {
			if v = strings.ToLower(strings.TrimSpace(v)); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	f.category = strings.ToLower(strings.TrimSpace(q.Get("category")))
	f.params = list("supported_parameters")
	f.inputs = list("input_modalities")
	if outs := list("output_modalities"); len(outs) > 0 {
		f.outputs = outs
		if slices.Contains(outs, "all") {
			f.outputs = nil
		}
	}
	for name, vals := range map[string][]string{"input_modalities": f.inputs, "output_modalities": f.outputs} {
		for _, v := range vals {
			if !slices.Contains(modalityNames, v) {
				return f, fmt.Errorf("%s: unknown modality %q (one of %s, or all for output_modalities)", name, v, strings.Join(modalityNames, ", "))
			}
		}
	}
	f.words = strings.Fields(strings.ToLower(q.Get("q")))
	return f, nil
}

// keeps reports whether the filter keeps a model.
func (f *modelFilter) keeps(m *catalogModel) bool {
	if f.category != "" && !slices.Contains(modelCategories[f.category], m.id) {
		return false
	}
	for _, p := range f.params {
		if !slices.Contains(m.params, p) {
			return false
		}
	}
	for _, in := range f.inputs {
		if !slices.Contains(m.input, in) {
			return false
		}
	}
	if f.outputs != nil && !slices.ContainsFunc(f.outputs, func(o string) bool { return slices.Contains(m.output, o) }) {
		return false
	}
	if m.ctx < f.minContext {
		return false
	}
	hay := strings.ToLower(m.id + " " + m.name + " " + m.desc)
	for _, w := range f.words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// baseURL is the gateway's absolute base URL as the client reached it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/api/v1"
}

// listModels answers GET /models (no key needed): the models the query
// keeps, from offset, at most limit of them, with total_count (all that
// match) and links.next (the next page, or null).
func (g *Gateway) listModels(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := parseModelFilter(q)
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	var match []*catalogModel
	for i := range catalogue {
		if f.keeps(&catalogue[i]) {
			match = append(match, &catalogue[i])
		}
	}
	total := len(match)
	from, to := min(f.offset, total), total
	if f.limit > 0 {
		to = min(total, from+f.limit)
	}
	base := baseURL(r)
	data := make([]any, 0, to-from)
	for _, m := range match[from:to] {
		data = append(data, m.wire(base))
	}
	var next any
	if f.limit > 0 && to < total {
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("offset", strconv.Itoa(to))
		nq.Set("limit", strconv.Itoa(f.limit))
		next = base + "/models?" + nq.Encode()
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "links": map[string]any{"next": next}, "total_count": total})
}
