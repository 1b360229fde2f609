package gateway

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
)

// Failure patterns: two of every 25 items fail, with varied error types.
var failureTypes = []struct{ typ, errorType, msg string }{
	{"invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens; the request has 131072"},
	{"rate_limit_error", "rate_limit_exceeded", "Upstream rate limit reached for this provider"},
	{"server_error", "provider_overloaded", "The provider is overloaded; try again later"},
	{"invalid_request_error", "content_policy_violation", "The request was flagged by the provider's content policy"},
	{"timeout_error", "timeout", "The upstream provider did not answer in time"},
}

func failsAt(i int) bool { return i%25 == 7 || i%25 == 19 }

func countFailures(n int) int {
	c := 0
	for i := 0; i < n; i++ {
		if failsAt(i) {
			c++
		}
	}
	return c
}

// submittedFailures are what the rows of a submitted batch fail with, as
// a real batch's do: mostly passing trouble that a retry gets past (rate
// limit, an overloaded provider, a timeout, a server error), and some
// that a retry meets again. weight is each kind's share of the failures,
// in percent.
var submittedFailures = []struct {
	typ, errorType, msg string
	param               any
	weight              uint64
}{
	{"rate_limit_error", "rate_limit_exceeded", "Upstream rate limit reached for this provider", nil, 30},
	{"server_error", "provider_overloaded", "The provider is overloaded; try again later", nil, 20},
	{"timeout_error", "timeout", "The upstream provider did not answer in time", nil, 15},
	{"server_error", "server", "Internal error while processing the request", nil, 10},
	{"invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens; the request has 131072", "messages", 12},
	{"invalid_request_error", "content_policy_violation", "The request was flagged by the provider's content policy", nil, 8},
	{"invalid_request_error", "invalid_request", "Invalid value for 'temperature': must be between 0 and 2", "temperature", 5},
}

// failurePlan decides which rows of a submitted batch fail, and how: from
// the batch's seed and each row's custom_id, never from the clock or the
// order of requests. The same batch answers the same way on every read;
// another batch (a retry of the same rows) meets other failures. A batch
// fails between 5% and 15% of its rows.
type failurePlan struct {
	seed  string
	share uint64 // failures per 10,000 rows
}

func newFailurePlan(seed string) failurePlan {
	return failurePlan{seed: seed, share: 500 + hash64(seed)%1001}
}

// failure returns the index in submittedFailures of the way the row
// fails, or -1 when it succeeds.
func (p failurePlan) failure(cid string) int {
	h := hash64(p.seed + "\x00" + cid)
	if h%10000 >= p.share {
		return -1
	}
	pick := (h / 10000) % 100
	for i, f := range submittedFailures {
		if pick < f.weight {
			return i
		}
		pick -= f.weight
	}
	return 0
}

// variant is 0 for a row whose answer is the same in every batch, and
// 1 to 5 for one of the eighth of rows whose answer (text and length)
// depends on the batch: two batches of the same rows differ in about a
// quarter of their answers.
func (p failurePlan) variant(cid string) int {
	h := hash64(p.seed + "\x01" + cid)
	if h%100 >= 13 {
		return 0
	}
	return 1 + int(h/100%5)
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	// fnv's low bits vary little between near strings: mix them.
	v := h.Sum64()
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	return v
}

func customID(seed string, i int) string { return fmt.Sprintf("%s-req-%05d", seed, i) }

// item wraps a body (or a failure) as a result item of a seeded batch,
// which fails by position (failsAt).
func item(cid string, i int, body any) map[string]any {
	if failsAt(i) {
		f := failureTypes[(i/25+i)%len(failureTypes)]
		var param any
		if f.errorType == "context_length_exceeded" {
			param = "messages"
		}
		return failedItem(cid, f.typ, f.errorType, f.msg, param)
	}
	return okItem(cid, i, body)
}

// failedItem is a result item that failed: no response, an error.
func failedItem(cid, typ, errorType, msg string, param any) map[string]any {
	return map[string]any{"id": fmt.Sprintf("gen-batch-%s", strings.ReplaceAll(cid, "-", "")), "custom_id": cid, "response": nil,
		"error": map[string]any{"type": typ, "message": msg, "param": param, "error_type": errorType}}
}

// okItem is a result item that succeeded with body.
func okItem(cid string, i int, body any) map[string]any {
	it := map[string]any{"id": fmt.Sprintf("gen-batch-%s", strings.ReplaceAll(cid, "-", "")), "custom_id": cid}
	rid := fmt.Sprintf("req_%08x", uint32(i*2654435761))
	it["response"] = map[string]any{"status_code": 200, "request_id": rid, "body": body}
	it["error"] = nil
	return it
}

// results makes n result items of one body shape.
func results(seed string, n int, body func(cid string, i int) map[string]any) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		cid := customID(seed, i)
		out[i] = mustJSON(item(cid, i, body(cid, i)))
	}
	return out
}

func chatResults(seed, model string, n int, rich bool) []json.RawMessage {
	return results(seed, n, func(cid string, i int) map[string]any { return chatBody(cid, model, i, rich) })
}

func responsesResults(seed, model string, n int) []json.RawMessage {
	return results(seed, n, func(cid string, i int) map[string]any { return responseBody(cid, model, i) })
}

func messagesResults(seed, model string, n int) []json.RawMessage {
	return results(seed, n, func(cid string, i int) map[string]any { return messageBody(cid, model, i) })
}

func embeddingResults(seed, model string, n int) []json.RawMessage {
	return results(seed, n, func(cid string, i int) map[string]any { return embeddingBody(cid, model, i) })
}

func textOf(seed string, n int) string { return strings.Join(genTokens(seed, n), "") }

func chatBody(cid, model string, i int, rich bool) map[string]any {
	nOut := 60 + (i*37)%140
	nIn := 25 + (i*13)%80
	content := textOf(cid, nOut)
	msg := map[string]any{"role": "assistant", "content": content, "refusal": nil}
	finish := "stop"
	var logprobs any
	if rich {
		switch i % 8 {
		case 1:
			finish = "tool_calls"
			msg["content"] = nil
			msg["tool_calls"] = []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris","unit":"celsius","days":3}`}}}
		case 2:
			msg["annotations"] = []any{
				map[string]any{"type": "url_citation", "url_citation": map[string]any{"url": "https://example.com/routing", "start_index": 0, "end_index": 24, "title": "How routing works", "content": "Requests are routed by price and latency."}},
				map[string]any{"type": "web_search_citation", "web_search_citation": map[string]any{"url": "https://example.org/latency", "title": nil, "cited_text": "p50 latency fell by 30%"}},
			}
		case 3:
			msg["images"] = []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://images.example.com/generated/" + cid + ".png"}}}
		case 4:
			msg["reasoning"] = "The user asks about routing. First consider latency, then cost; the cheapest healthy endpoint wins."
			msg["reasoning_details"] = []any{map[string]any{"type": "reasoning.summary", "summary": "Weighed latency against cost."}}
		case 5:
			logprobs = map[string]any{"content": []any{
				map[string]any{"token": "The", "bytes": []int{84, 104, 101}, "logprob": -0.012, "top_logprobs": []any{map[string]any{"token": "A", "bytes": []int{65}, "logprob": -4.6, "top_logprobs": []any{}}}},
				map[string]any{"token": " gateway", "bytes": nil, "logprob": -0.31, "top_logprobs": []any{}},
			}, "refusal": nil}
		case 6:
			msg["content"] = nil
			msg["refusal"] = "I can't help with that request."
			finish = "content_filter"
		case 7:
			msg["annotations"] = []any{map[string]any{"type": "file", "file": map[string]any{"hash": "sha256:9f2c" + fmt.Sprint(i), "name": "pricing.pdf",
				"content": []any{map[string]any{"type": "text", "text": "Prices per million tokens."}, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://files.example.com/p1.png"}}}}}}
		}
	}
	cost, _, _ := costOf(model, nIn, nOut)
	return map[string]any{
		"id": "gen-batch-" + strings.ReplaceAll(cid, "-", ""), "object": "chat.completion", "created": 1763700000 + int64(i), "model": model,
		"provider": "OpenAI", "system_fingerprint": nil, "service_tier": nil,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "native_finish_reason": finish, "logprobs": logprobs}},
		"usage": map[string]any{"prompt_tokens": nIn, "completion_tokens": nOut, "total_tokens": nIn + nOut, "cost": round6(cost),
			"prompt_tokens_details":     map[string]any{"cached_tokens": (i % 3) * 8, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": map[bool]int{true: 24}[rich && i%8 == 4]}},
	}
}

func responseBody(cid, model string, i int) map[string]any {
	nOut := 50 + (i*29)%120
	nIn := 20 + (i*11)%60
	text := textOf(cid, nOut)
	status := "completed"
	var incomplete any
	if i%5 == 3 {
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	r := fullResponse("resp-"+cid, model, 1763700000+int64(i), status, text, nIn, nOut, 0)
	r["incomplete_details"] = incomplete
	return r
}

func messageBody(cid, model string, i int) map[string]any {
	nOut := 40 + (i*23)%100
	nIn := 30 + (i*7)%50
	content := []any{}
	if i%3 == 0 {
		content = append(content, map[string]any{"type": "thinking", "thinking": "Compare the providers by latency first.", "signature": "sig-" + cid})
	}
	content = append(content, map[string]any{"type": "text", "text": textOf(cid, nOut)})
	stop := "end_turn"
	if i%4 == 2 {
		stop = "tool_use"
		content = append(content, map[string]any{"type": "tool_use", "id": "toolu_" + cid, "name": "lookup_price", "input": map[string]any{"model": "openai/gpt-4o"}})
	}
	return map[string]any{"id": "msg_" + strings.ReplaceAll(cid, "-", ""), "type": "message", "role": "assistant", "container": nil,
		"content": content, "model": model, "stop_reason": stop, "stop_details": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": nIn, "output_tokens": nOut}}
}

func embeddingBody(cid, model string, i int) map[string]any {
	const dims = 256
	r := seededRand(cid)
	vec := make([]float64, dims)
	for k := range vec {
		vec[k] = math.Round((r.Float64()*2-1)*1e6) / 1e6
	}
	var emb any = vec
	if i%2 == 1 { // base64 of little-endian float32
		buf := make([]byte, 4*dims)
		for k, v := range vec {
			binary.LittleEndian.PutUint32(buf[4*k:], math.Float32bits(float32(v)))
		}
		emb = base64.StdEncoding.EncodeToString(buf)
	}
	n := 8 + i%20
	cost, _, _ := costOf(model, n, 0)
	return map[string]any{"object": "list", "id": "emb-" + cid, "model": model,
		"data":  []any{map[string]any{"object": "embedding", "index": 0, "embedding": emb}},
		"usage": map[string]any{"prompt_tokens": n, "total_tokens": n, "cost": round6(cost), "is_byok": false}}
}

// sumUsage adds up the items' usage into the batch usage.
func sumUsage(items []json.RawMessage, model string) map[string]any {
	in, out := 0, 0
	for _, raw := range items {
		var it struct {
			Response *struct {
				Body struct {
					Usage map[string]any `json:"usage"`
				} `json:"body"`
			} `json:"response"`
		}
		if json.Unmarshal(raw, &it) != nil || it.Response == nil {
			continue
		}
		u := it.Response.Body.Usage
		in += num(u["prompt_tokens"]) + num(u["input_tokens"])
		out += num(u["completion_tokens"]) + num(u["output_tokens"])
	}
	cost, _, _ := costOf(model, in, out)
	return map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out, "cost": round6(cost), "is_byok": false,
		"cost_details": map[string]any{"upstream_inference_cost": nil}, "service_tier": "default"}
}

func num(v any) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return 0
}
