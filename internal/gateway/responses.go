package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Models with scripted behaviour, for demos and tests.
const (
	ModelFailMidstream = "demo/fail-midstream" // response.failed after some text
	ModelDrop          = "demo/drop-connection"
	ModelRateLimited   = "demo/rate-limited" // 429 with Retry-After: 7
	ModelErrorEvent    = "demo/error-event"  // a flat error event mid-stream
	ModelRefusal       = "demo/refusal"      // a refusal instead of text
	ModelEscapes       = "demo/escapes"      // text full of terminal escape sequences
	// ModelFirehose streams exactly max_output_tokens tokens (default
	// 1000) and completes: the source of the benchmark streams.
	ModelFirehose = "demo/firehose"
	// ModelBulk streams max_output_tokens deltas (default 16) of 64 KiB of
	// text each: 16,384 of them make a 1 GiB answer. The gateway holds one
	// chunk, not the answer, and its final events do not repeat the text
	// (they would be as large as the answer). Streaming only.
	ModelBulk = "demo/bulk"
)

// BulkChunk is the text of every demo/bulk delta: 64 KiB of words in
// paragraphs.
var BulkChunk = func() string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		w := words[i%len(words)]
		if i%80 == 79 {
			w += ".\n\n"
		} else {
			w += " "
		}
		b.WriteString(w)
	}
	return b.String()[:64<<10]
}()

// DemoModels are suggested in the playground of `gwdash demo`.
var DemoModels = []string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4", "meta-llama/llama-3.1-70b-instruct",
	ModelFailMidstream, ModelDrop, ModelRateLimited, ModelErrorEvent, ModelRefusal, ModelEscapes}

var serviceTiers = map[string]bool{"auto": true, "default": true, "fast": true, "flex": true, "priority": true, "scale": true, "ultrafast": true}

// respRequest is the gateway's own reading of the request body.
type respRequest struct {
	raw             map[string]json.RawMessage
	Model           string
	Input           json.RawMessage
	Stream          bool
	Instructions    *string
	Metadata        map[string]string
	SessionID       string
	User            *string
	ServiceTier     *string
	MaxOutputTokens *int
	Reasoning       json.RawMessage
	Truncation      *string
	Temperature     *float64
	TopP            *float64
	prompt          string
	reasoningOn     bool
	routing         bool
	// userAgent and referer are the request's headers, for its record.
	userAgent, referer string
	// format is text.format; route where the request went (routing.go).
	format *textFormat
	route  *route
}

func badRequest(w http.ResponseWriter, msg string) { writeError(w, http.StatusBadRequest, msg) }

// parseRespRequest validates the body; it writes a 400 and returns false
// when it is refused.
func parseRespRequest(w http.ResponseWriter, r *http.Request) (*respRequest, bool) {
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		badRequest(w, "Invalid JSON body")
		return nil, false
	}
	q := &respRequest{raw: raw, userAgent: r.Header.Get("User-Agent"), referer: r.Header.Get("HTTP-Referer")}
	get := func(k string, v any) error {
		if b, ok := raw[k]; ok && string(b) != "null" {
			if err := json.Unmarshal(b, v); err != nil {
				return fmt.Errorf("%s: wrong type", k)
			}
		}
		return nil
	}
	var md map[string]any
	var maxTools *int
	var stop []json.RawMessage
	var store *bool
	for _, e := range []error{get("model", &q.Model), get("stream", &q.Stream), get("instructions", &q.Instructions),
		get("metadata", &md), get("session_id", &q.SessionID), get("user", &q.User), get("service_tier", &q.ServiceTier),
		get("max_output_tokens", &q.MaxOutputTokens), get("max_tool_calls", &maxTools), get("stop_server_tools_when", &stop),
		get("truncation", &q.Truncation), get("temperature", &q.Temperature), get("top_p", &q.TopP), get("store", &store)} {
		if e != nil {
			badRequest(w, e.Error())
			return nil, false
		}
	}
	q.Input = raw["input"]
	q.Reasoning = raw["reasoning"]
	switch {
	case !validModel(q.Model):
		badRequest(w, "model: must be <provider>/<model>")
	case len(q.Input) == 0 || string(q.Input) == "null" || string(q.Input) == `""` || string(q.Input) == "[]":
		badRequest(w, "input: is required")
	case raw["previous_response_id"] != nil && string(raw["previous_response_id"]) != "null":
		badRequest(w, "previous_response_id: not supported; no response is stored, send the full history in input")
	case store != nil && *store:
		badRequest(w, "store: must be false; responses are not stored")
	case len(md) > 16:
		badRequest(w, "metadata: at most 16 pairs")
	case q.SessionID != "" && utf8.RuneCountInString(q.SessionID) > 256:
		badRequest(w, "session_id: at most 256 characters")
	case q.User != nil && utf8.RuneCountInString(*q.User) > 256:
		badRequest(w, "user: at most 256 characters")
	case maxTools != nil && (*maxTools < 0 || *maxTools > 30):
		badRequest(w, "max_tool_calls: at most 30")
	case raw["stop_server_tools_when"] != nil && string(raw["stop_server_tools_when"]) != "null" && len(stop) == 0:
		badRequest(w, "stop_server_tools_when: at least 1 condition")
	case q.ServiceTier != nil && !serviceTiers[*q.ServiceTier]:
		badRequest(w, "service_tier: must be one of auto, default, fast, flex, priority, scale, ultrafast")
	case q.MaxOutputTokens != nil && *q.MaxOutputTokens < 1:
		badRequest(w, "max_output_tokens: must be at least 1")
	case q.Truncation != nil && *q.Truncation != "auto" && *q.Truncation != "disabled":
		badRequest(w, "truncation: must be auto or disabled")
	default:
		q.Metadata = map[string]string{}
		for k, v := range md {
			s, ok := v.(string)
			switch {
			case !ok:
				badRequest(w, "metadata."+k+": values must be strings")
				return nil, false
			case utf8.RuneCountInString(k) > 64 || strings.ContainsAny(k, "[]"):
				badRequest(w, "metadata: keys at most 64 characters, without brackets")
				return nil, false
			case utf8.RuneCountInString(s) > 512:
				badRequest(w, "metadata."+k+": values at most 512 characters")
				return nil, false
			}
			q.Metadata[k] = s
		}
		q.prompt = promptText(q.Input)
		if len(q.Reasoning) > 0 && string(q.Reasoning) != "null" {
			var rs struct {
				Effort  string `json:"effort"`
				Enabled *bool  `json:"enabled"`
			}
			json.Unmarshal(q.Reasoning, &rs)
			q.reasoningOn = (rs.Effort != "" && rs.Effort != "none") || (rs.Enabled != nil && *rs.Enabled)
		}
		for _, h := range []string{"X-OpenRouter-Metadata", "X-OpenRouter-Experimental-Metadata"} {
			if strings.EqualFold(r.Header.Get(h), "enabled") {
				q.routing = true
			}
		}
		return q, true
	}
	return nil, false
}

// promptText flattens the input for deterministic generation.
func promptText(in json.RawMessage) string {
	var s string
	if json.Unmarshal(in, &s) == nil {
		return s
	}
	var items []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(in, &items)
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.Role + ": ")
		var c string
		if json.Unmarshal(it.Content, &c) == nil {
			b.WriteString(c)
		} else {
			b.Write(it.Content)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// plan is what the gateway will answer to one request.
type plan struct {
	id        string
	created   int64
	tokens    []string
	reasoning []string
	status    string // completed, incomplete, failed
	inTokens  int
	refusal   bool
	bulk      bool // demo/bulk: the text is not kept nor repeated
}

func (g *Gateway) planFor(q *respRequest) plan {
	seed := q.Model + "\x00" + q.prompt
	r := seededRand(seed)
	n := 120 + r.IntN(220)
	p := plan{id: g.newGenerationID(), created: g.now().Unix(), status: "completed", inTokens: countTokens(q.prompt)}
	if q.Instructions != nil {
		p.inTokens += countTokens(*q.Instructions)
	}
	p.tokens = genTokens(seed, n)
	switch q.Model {
	case ModelRefusal:
		p.refusal = true
		p.tokens = strings.SplitAfter("I can't help with that request, but I can explain how the gateway routes requests.", " ")
	case ModelEscapes:
		p.tokens = []string{"Plain start. ", "\x1b]0;pwned-title\x07", "\x1b[31mred?\x1b[0m ", "\x1b]52;c;ZXZpbA==\x07", "clip ",
			"\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ ", "\x1b[2J", "\u202egnirts desrever\u202c ", "\x9b31m", "bell\x07 ", "end."}
	}
	if q.Model == ModelBulk {
		n = 16
		if q.MaxOutputTokens != nil {
			n = *q.MaxOutputTokens
		}
		p.tokens = make([]string, n)
		for i := range p.tokens {
			p.tokens[i] = BulkChunk // one string shared: the answer is never held
		}
		p.bulk = true
		return p
	}
	if q.Model == ModelFirehose {
		n = 1000
		if q.MaxOutputTokens != nil {
			n = *q.MaxOutputTokens
		}
		p.tokens = firehose(n)
		return p
	}
	if q.MaxOutputTokens != nil && *q.MaxOutputTokens < len(p.tokens) {
		p.tokens = p.tokens[:*q.MaxOutputTokens]
		p.status = "incomplete"
	}
	if q.reasoningOn {
		p.reasoning = genTokens("reason:"+seed, 40+r.IntN(40))
	}
	return p
}

// fullResponse builds a Response object with every always-present member.
func fullResponse(id, model string, created int64, status, text string, in, out, reasoningTokens int) map[string]any {
	var completed any
	if status != "in_progress" && status != "queued" {
		completed = created + 2
	}
	total, inCost, outCost := costOf(model, in, out)
	output := []any{}
	if status != "in_progress" {
		output = append(output, messageItem("msg-"+id, text, itemStatus(status)))
	}
	r := map[string]any{
		"id": id, "object": "response", "created_at": created, "completed_at": completed, "model": model, "status": status,
		"output": output, "error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]string{},
		"tools": []any{}, "tool_choice": "auto", "parallel_tool_calls": true, "temperature": nil, "top_p": nil,
		"presence_penalty": nil, "frequency_penalty": nil, "store": false, "service_tier": "default", "truncation": "disabled",
		"user": nil, "reasoning": nil, "text": map[string]any{"format": map[string]any{"type": "text"}},
	}
	if status != "in_progress" {
		r["output_text"] = text
		r["usage"] = map[string]any{
			"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": reasoningTokens},
			"total_tokens": in + out, "cost": round6(total), "is_byok": false,
			"cost_details": map[string]any{"upstream_inference_cost": nil, "upstream_inference_input_cost": round6(inCost), "upstream_inference_output_cost": round6(outCost)},
		}
	}
	return r
}

func itemStatus(s string) string {
	if s == "completed" || s == "in_progress" {
		return s
	}
	return "incomplete"
}

func messageItem(id, text, status string) map[string]any {
	return map[string]any{"type": "message", "id": id, "role": "assistant", "status": status,
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// respond fills the echoed request settings into a Response object.
func (q *respRequest) echo(r map[string]any) {
	if q.Instructions != nil {
		r["instructions"] = *q.Instructions
	}
	r["metadata"] = q.Metadata
	if q.User != nil {
		r["user"] = *q.User
	}
	if q.ServiceTier != nil {
		tier := *q.ServiceTier
		switch tier {
		case "fast":
			tier = "priority"
		case "auto":
			tier = "default"
		}
		r["service_tier"] = tier
	}
	if q.Truncation != nil {
		r["truncation"] = *q.Truncation
	}
	if q.Temperature != nil {
		r["temperature"] = *q.Temperature
	}
	if q.TopP != nil {
		r["top_p"] = *q.TopP
	}
	if len(q.Reasoning) > 0 && string(q.Reasoning) != "null" {
		r["reasoning"] = q.Reasoning
	}
	for _, k := range []string{"tools", "tool_choice", "text", "parallel_tool_calls"} {
		if v, ok := q.raw[k]; ok && string(v) != "null" {
			r[k] = v
		}
	}
}

func (q *respRequest) routingMetadata(elapsed time.Duration) map[string]any {
	if q.route != nil && q.route.served != nil && q.route.explicit {
		return q.route.metadata(elapsed)
	}
	provider := strings.SplitN(q.Model, "/", 2)[0]
	return map[string]any{"attempt": 1, "strategy": "direct", "requested": q.Model, "region": "us", "is_byok": false,
		"generation_time": elapsed.Milliseconds(), "summary": "routed to " + provider + " (lowest latency)",
		"endpoints": map[string]any{"total": 2, "available": []any{
			map[string]any{"model": q.Model, "provider": provider, "selected": true},
			map[string]any{"model": q.Model, "provider": "fallback-" + provider, "selected": false},
		}}}
}

func (g *Gateway) finalResponse(q *respRequest, p plan, text string, elapsed time.Duration) map[string]any {
	status := p.status
	r := fullResponse(p.id, q.Model, p.created, status, text, p.inTokens, len(p.tokens)+len(p.reasoning), len(p.reasoning))
	q.echo(r)
	if status == "incomplete" {
		r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	if p.refusal {
		item := r["output"].([]any)[0].(map[string]any)
		item["content"] = []any{map[string]any{"type": "refusal", "refusal": text}}
		r["output_text"] = ""
	}
	if len(p.reasoning) > 0 {
		r["output"] = append([]any{reasoningItem(p.id, strings.Join(p.reasoning, ""))}, r["output"].([]any)...)
	}
	if q.routing {
		r["openrouter_metadata"] = q.routingMetadata(elapsed)
	}
	return r
}

func reasoningItem(id, text string) map[string]any {
	return map[string]any{"type": "reasoning", "id": "rs-" + id, "status": "completed", "summary": []any{},
		"content": []any{map[string]any{"type": "reasoning_text", "text": text}}}
}

func (g *Gateway) createResponse(w http.ResponseWriter, r *http.Request) {
	q, ok := parseRespRequest(w, r)
	if !ok || !g.prepareDepth(w, q) {
		return
	}
	if g.account.exhausted() {
		writeError(w, http.StatusPaymentRequired, "Insufficient credits: this key's spending limit is used up. Add credits or raise the key's limit, then try again.")
		return
	}
	if q.Model == ModelRateLimited {
		w.Header().Set("Retry-After", "7")
		w.Header().Set("X-RateLimit-Limit", "20")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(g.now().Add(7*time.Second).UnixMilli(), 10))
		writeError(w, http.StatusTooManyRequests, "Rate limit exceeded: 20 requests per minute for "+q.Model)
		return
	}
	if q.Model == ModelBulk && !q.Stream {
		badRequest(w, "demo/bulk streams only: send stream: true")
		return
	}
	p := g.planFor(q)
	g.shapePlan(q, &p)
	w.Header().Set("X-Generation-Id", p.id)
	if g.answerToolCall(w, r, q, p) {
		return
	}
	start := g.now()
	if q.Stream {
		g.stream(w, r, q, p)
		return
	}
	if q.Model == ModelDrop {
		g.charge(q, p, start, len(p.tokens)/2, "", false, true)
		dropConnection(w)
		return
	}
	if !g.pace(r, len(p.tokens)+len(p.reasoning)) {
		g.charge(q, p, start, 0, "", false, true)
		return
	}
	text := strings.Join(p.tokens, "")
	resp := g.finalResponse(q, p, text, g.now().Sub(start))
	finish := "stop"
	if p.status == "incomplete" {
		finish = "length"
	}
	if q.Model == ModelFailMidstream || q.Model == ModelErrorEvent {
		resp["status"] = "failed"
		resp["error"] = map[string]any{"code": "server_error", "message": "The upstream provider disconnected mid-generation"}
		resp["error_type"] = "provider_unavailable"
		finish = "error"
	}
	g.charge(q, p, start, len(p.tokens)+len(p.reasoning), finish, false, false)
	writeJSON(w, http.StatusOK, resp)
}

// charge records a generation of out output tokens and bills it to the key.
func (g *Gateway) charge(q *respRequest, p plan, start time.Time, out int, finish string, streamed, cancelled bool) {
	now := g.now()
	cost, _, _ := costOf(q.Model, p.inTokens, out)
	gen := &generation{ID: p.id, Model: q.Model, Provider: q.provider(), FinishReason: finish, Created: start, Ended: now,
		Cost: cost, UpstreamCost: cost * 0.95, LatencyMS: max(1, g.opts.ThinkTime.Milliseconds()), GenerationMS: max(1, now.Sub(start).Milliseconds()),
		Streamed: streamed, Cancelled: cancelled, TokensIn: p.inTokens, TokensOut: out, Reasoning: len(p.reasoning),
		UserAgent: q.userAgent, Referer: q.referer}
	if q.User != nil {
		gen.User = *q.User
	}
	if q.ServiceTier != nil {
		gen.ServiceTier = *q.ServiceTier
	}
	if q.route != nil && q.Model != "openrouter/auto" {
		gen.Tried = q.route.tried(gen.LatencyMS)
	}
	g.account.charge(gen)
}

// pace waits as long as generating n tokens takes; false if the client left.
func (g *Gateway) pace(r *http.Request, n int) bool {
	if g.opts.TokensPerSecond <= 0 && g.opts.ThinkTime <= 0 {
		return true
	}
	d := g.opts.ThinkTime
	if g.opts.TokensPerSecond > 0 {
		d += time.Duration(float64(n) / g.opts.TokensPerSecond * float64(time.Second))
	}
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

// dropConnection closes the TCP connection without an answer.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// firehose is n short tokens of text with a paragraph break now and then.
func firehose(n int) []string {
	toks := make([]string, n)
	for i := range toks {
		toks[i] = " " + words[i%len(words)]
		if i%60 == 59 {
			toks[i] += ".\n\n"
		}
	}
	return toks
}
