package gateway

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/internal/jsonschema"
)

// post sends a POST /responses body over HTTP and returns status and body.
func post(t *testing.T, srv *Server, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func startDepth(t *testing.T) *Server {
	t.Helper()
	srv, err := Start("127.0.0.1:0", Options{GenerationDelay: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// ordinarySchemas are the kinds of schemas people send.
var ordinarySchemas = []string{
	`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":18,"maximum":99}},"required":["name","age"],"additionalProperties":false}`,
	`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":3},"minItems":3,"maxItems":5},"ok":{"type":"boolean"}},"required":["tags","ok"]}`,
	`{"type":"object","properties":{"when":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"},"kind":{"enum":["a","b","c"]},"v":{"const":7}},"required":["when","mail","kind","v"]}`,
	`{"$defs":{"pt":{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0},"y":{"type":"number"}},"required":["x","y"]}},"type":"object","properties":{"points":{"type":"array","items":{"$ref":"#/$defs/pt"}}},"required":["points"]}`,
	`{"type":"object","properties":{"note":{"type":["string","null"],"maxLength":5},"n":{"anyOf":[{"type":"integer"},{"type":"string"}]}},"required":["note","n"]}`,
	`{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]},"minItems":1}`,
	`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}]}`,
}

func TestJSONSchemaAnswersValidate(t *testing.T) {
	srv := startDepth(t)
	for i, schema := range ordinarySchemas {
		s, err := jsonschema.Compile([]byte(schema))
		if err != nil {
			t.Fatalf("schema %d: %v", i, err)
		}
		code, b := post(t, srv, `{"model":"openai/gpt-4o-mini","input":"a person","text":{"format":{"type":"json_schema","name":"thing","strict":true,"schema":`+schema+`}}}`)
		if code != 200 {
			t.Fatalf("schema %d: %d %s", i, code, b)
		}
		var r struct {
			OutputText string `json:"output_text"`
			Text       struct {
				Format map[string]any `json:"format"`
			} `json:"text"`
		}
		json.Unmarshal(b, &r)
		if err := s.Validate([]byte(r.OutputText)); err != nil {
			t.Errorf("schema %d: the answer does not validate: %v\n%s", i, err, r.OutputText)
		}
		if r.Text.Format["type"] != "json_schema" || r.Text.Format["name"] != "thing" {
			t.Errorf("schema %d: text.format not echoed: %v", i, r.Text.Format)
		}
	}
}

func TestJSONBrokenViolates(t *testing.T) {
	srv := startDepth(t)
	schema := ordinarySchemas[0]
	s, _ := jsonschema.Compile([]byte(schema))
	code, b := post(t, srv, `{"model":"demo/json-broken","input":"x","text":{"format":{"type":"json_schema","name":"p","schema":`+schema+`}}}`)
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	var r struct {
		OutputText string `json:"output_text"`
	}
	json.Unmarshal(b, &r)
	if err := s.Validate([]byte(r.OutputText)); err == nil {
		t.Fatalf("demo/json-broken answered valid JSON: %s", r.OutputText)
	}
}

func TestFormatAndToolsRefused(t *testing.T) {
	srv := startDepth(t)
	for _, c := range []struct{ body, want string }{
		{`"text":{"format":{"type":"yaml"}}`, "text.format.type"},
		{`"text":{"format":{"type":"json_schema","name":"a b","schema":{}}}`, "text.format.name"},
		{`"text":{"format":{"type":"json_schema","name":"ab"}}`, "text.format.schema"},
		{`"tools":[{"type":"function","name":"","parameters":null}]`, "tools[0].name"},
		{`"tools":[{"type":"function","name":"f","parameters":null}],"tool_choice":{"type":"function","name":"g"}`, "tool_choice.name"},
		{`"tool_choice":"sometimes"`, "tool_choice"},
		{`"provider":{"sort":"cheapest"}`, "provider.sort"},
		{`"provider":{"data_collection":"maybe"}`, "provider.data_collection"},
		{`"provider":{"quantizations":["fp3"]}`, "provider.quantizations"},
		{`"models":["nope"]`, "models"},
	} {
		code, b := post(t, srv, `{"model":"openai/gpt-4o-mini","input":"x",`+c.body+`}`)
		if code != 400 || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s", c.body, code, b)
		}
	}
}

// sseEvents reads a stream's data lines as decoded events.
func sseEvents(t *testing.T, srv *Server, body string) []map[string]any {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

const weatherTools = `[{"type":"function","name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city","unit"],"additionalProperties":false}},{"type":"function","name":"other","parameters":null}]`

func TestToolsModelStreamsACall(t *testing.T) {
	srv := startDepth(t)
	evs := sseEvents(t, srv, `{"model":"demo/tools","input":"weather in Oslo?","stream":true,"tools":`+weatherTools+`}`)
	var itemID, callID, args string
	var deltas int
	for _, ev := range evs {
		switch ev["type"] {
		case "response.output_item.added":
			it := ev["item"].(map[string]any)
			itemID, callID = it["id"].(string), it["call_id"].(string)
			if it["type"] != "function_call" || it["name"] != "get_weather" || it["arguments"] != "" {
				t.Fatalf("added item %v", it)
			}
		case "response.function_call_arguments.delta":
			if ev["item_id"] != itemID {
				t.Fatalf("delta item_id %v, want %s", ev["item_id"], itemID)
			}
			args += ev["delta"].(string)
			deltas++
		case "response.function_call_arguments.done":
			if ev["arguments"] != args || ev["name"] != "get_weather" {
				t.Fatalf("done %v vs %q", ev, args)
			}
		case "response.completed":
			r := ev["response"].(map[string]any)
			out := r["output"].([]any)[0].(map[string]any)
			if out["call_id"] != callID || out["arguments"] != args || r["tool_choice"] == nil {
				t.Fatalf("final %v", r)
			}
		}
	}
	if deltas < 2 || callID == "" {
		t.Fatalf("arguments not streamed in pieces (%d deltas), call_id %q", deltas, callID)
	}
	var tools []struct {
		Parameters json.RawMessage `json:"parameters"`
	}
	json.Unmarshal([]byte(weatherTools), &tools)
	s, _ := jsonschema.Compile(tools[0].Parameters)
	if err := s.Validate([]byte(args)); err != nil {
		t.Fatalf("arguments do not fit the parameters: %v (%s)", err, args)
	}
	// the second turn answers from the tool output
	second := `{"model":"demo/tools","input":[{"role":"user","content":"weather in Oslo?"},` +
		`{"type":"function_call","id":"` + itemID + `","call_id":"` + callID + `","name":"get_weather","arguments":` + show(args) + `,"status":"completed"},` +
		`{"type":"function_call_output","call_id":"` + callID + `","output":"{\"temp\":-3}"}],"tools":` + weatherTools + `}`
	code, b := post(t, srv, second)
	if code != 200 || !strings.Contains(string(b), `The get_weather tool answered: {\"temp\":-3}`) {
		t.Fatalf("second turn: %d %s", code, b)
	}
}

func TestToolChoiceNamesTheTool(t *testing.T) {
	srv := startDepth(t)
	code, b := post(t, srv, `{"model":"demo/tools","input":"x","tools":`+weatherTools+`,"tool_choice":{"type":"function","name":"other"}}`)
	if code != 200 || !strings.Contains(string(b), `"name":"other"`) || !strings.Contains(string(b), `"arguments":"{}"`) {
		t.Fatalf("%d %s", code, b)
	}
	code, b = post(t, srv, `{"model":"demo/tools","input":"x","tools":`+weatherTools+`,"tool_choice":"none"}`)
	if code != 200 || strings.Contains(string(b), "function_call") {
		t.Fatalf("tool_choice none still called: %s", b)
	}
}

func generationOf(t *testing.T, srv *Server, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
	req.Header.Set("X-OpenRouter-Metadata", "enabled")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	id := resp.Header.Get("X-Generation-Id")
	var v any
	waitFor(t, func() bool {
		req, _ := http.NewRequest("GET", srv.URL+"/generation?id="+id, nil)
		req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer r.Body.Close()
		if r.StatusCode != 200 {
			return false
		}
		json.NewDecoder(r.Body).Decode(&v)
		return true
	})
	var rr map[string]any
	json.Unmarshal(b, &rr)
	return map[string]any{"response": rr, "generation": v.(map[string]any)["data"]}
}

func TestProviderOrderFallsBackPastADownProvider(t *testing.T) {
	srv := startDepth(t)
	got := generationOf(t, srv, `{"model":"meta-llama/llama-3.1-70b-instruct","input":"x","provider":{"order":["Lambda","Together"]}}`)
	gen := got["generation"].(map[string]any)
	if gen["provider_name"] != "Together" {
		t.Fatalf("served by %v", gen["provider_name"])
	}
	tried := gen["provider_responses"].([]any)
	if len(tried) != 2 || tried[0].(map[string]any)["provider_name"] != "Lambda" || tried[0].(map[string]any)["status"].(float64) != 503 {
		t.Fatalf("attempts %v", tried)
	}
	md := got["response"].(map[string]any)["openrouter_metadata"].(map[string]any)
	if md["attempt"].(float64) != 2 || !strings.Contains(md["summary"].(string), "Together") {
		t.Fatalf("metadata %v", md)
	}
	// without fallbacks the down provider is all there is: 503
	code, b := post(t, srv, `{"model":"meta-llama/llama-3.1-70b-instruct","input":"x","provider":{"order":["Lambda"],"allow_fallbacks":false}}`)
	if code != 503 || !strings.Contains(string(b), "Lambda") {
		t.Fatalf("no fallbacks: %d %s", code, b)
	}
	// nothing left after the filters: 404
	code, b = post(t, srv, `{"model":"openai/gpt-4o-mini","input":"x","provider":{"only":["Together"]}}`)
	if code != 404 {
		t.Fatalf("only an absent provider: %d %s", code, b)
	}
}

func TestProviderSortAndFallbackModels(t *testing.T) {
	srv := startDepth(t)
	eps := endpointsOf("deepseek/deepseek-chat-v3-0324")
	cheapest := eps[0]
	for _, e := range eps {
		if price(e.in)+price(e.out) < price(cheapest.in)+price(cheapest.out) {
			cheapest = e
		}
	}
	got := generationOf(t, srv, `{"model":"deepseek/deepseek-chat-v3-0324","input":"x","provider":{"sort":"price"}}`)
	if p := got["generation"].(map[string]any)["provider_name"]; p != cheapest.provider {
		t.Fatalf("sort price served by %v, cheapest is %s", p, cheapest.provider)
	}
	got = generationOf(t, srv, `{"model":"meta-llama/llama-3.1-70b-instruct","models":["openai/gpt-4o-mini"],"input":"x","provider":{"only":["Lambda","OpenAI"]}}`)
	r := got["response"].(map[string]any)
	if r["model"] != "openai/gpt-4o-mini" || r["openrouter_metadata"].(map[string]any)["strategy"] != "fallback" {
		t.Fatalf("fallback model: %v %v", r["model"], r["openrouter_metadata"])
	}
	if got["generation"].(map[string]any)["provider_name"] != "OpenAI" {
		t.Fatalf("fallback provider %v", got["generation"])
	}
}

// endpointMembers are what the SDK requires of the endpoints answer
// (service-facts.md, "Model endpoints").
var endpointMembers = `data object
data.id string
data.name string
data.created integer
data.description string
data.architecture object
data.architecture.input_modalities array
data.architecture.output_modalities array
data.architecture.modality string|null
data.architecture.tokenizer string|null
data.architecture.instruct_type string|null
data.endpoints array
data.endpoints[].name string
data.endpoints[].model_id string
data.endpoints[].model_name string
data.endpoints[].provider_name string
data.endpoints[].tag string
data.endpoints[].context_length integer
data.endpoints[].max_completion_tokens integer|null
data.endpoints[].max_prompt_tokens integer|null
data.endpoints[].pricing object
data.endpoints[].pricing.prompt decimal
data.endpoints[].pricing.completion decimal
data.endpoints[].quantization enum(int4,int8,fp4,mxfp4,nvfp4,fp6,fp8,mxfp8,fp16,bf16,fp32,unknown)|null
data.endpoints[].supported_parameters array
data.endpoints[].supports_implicit_caching boolean
data.endpoints[].supports_tool_choice object
data.endpoints[].supports_tool_choice.auto boolean
data.endpoints[].supports_tool_choice.function boolean
data.endpoints[].supports_tool_choice.none boolean
data.endpoints[].supports_tool_choice.required boolean
data.endpoints[].status? integer
data.endpoints[].uptime_last_5m number|null
data.endpoints[].uptime_last_30m number|null
data.endpoints[].uptime_last_1d number|null
data.endpoints[].latency_last_30m object|null
data.endpoints[].latency_last_30m.p50 number
data.endpoints[].latency_last_30m.p75 number
data.endpoints[].latency_last_30m.p90 number
data.endpoints[].latency_last_30m.p99 number
data.endpoints[].throughput_last_30m object|null
data.endpoints[].throughput_last_30m.p50 number
data.endpoints[].throughput_last_30m.p75 number
data.endpoints[].throughput_last_30m.p90 number
data.endpoints[].throughput_last_30m.p99 number`

func TestEndpointsRouteSDKShape(t *testing.T) {
	srv := startDepth(t)
	var members []sdkMember
	for i, line := range strings.Split(endpointMembers, "\n") {
		fs := strings.Fields(line)
		m := sdkMember{line: i + 1, types: strings.Split(fs[1], "|")}
		p, opt := strings.CutSuffix(fs[0], "?")
		m.path, m.optional = strings.Split(p, "."), opt
		members = append(members, m)
	}
	for _, c := range []struct{ model, key string }{
		{"meta-llama/llama-3.1-70b-instruct", DemoAPIKey}, {"meta-llama/llama-3.1-70b-instruct", ""},
		{"openai/gpt-4o-mini", DemoAPIKey}, {"google/gemma-3-27b-it:free", ""}, {"demo/tools", DemoAPIKey},
	} {
		v := getJSON(t, srv, "/models/"+c.model+"/endpoints", c.key)
		var errs []string
		for _, m := range members {
			checkMember(v, m, m.path, "", &errs)
		}
		for _, e := range errs {
			t.Errorf("%s: %s", c.model, e)
		}
		eps := v.(map[string]any)["data"].(map[string]any)["endpoints"].([]any)
		first := eps[0].(map[string]any)
		if (first["latency_last_30m"] != nil) != (c.key != "") {
			t.Errorf("%s: latency stats with key %q: %v", c.model, c.key, first["latency_last_30m"])
		}
	}
	v := getJSON(t, srv, "/models/meta-llama/llama-3.1-70b-instruct/endpoints", DemoAPIKey)
	eps := v.(map[string]any)["data"].(map[string]any)["endpoints"].([]any)
	if len(eps) != 4 {
		t.Fatalf("llama endpoints %d", len(eps))
	}
	last := eps[3].(map[string]any)
	if last["provider_name"] != DownProvider || last["status"] != json.Number("-10") {
		t.Fatalf("the down provider is not last with status -10: %v", last)
	}
	resp, err := http.Get(srv.URL + "/models/nobody/nothing/endpoints")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown model: %d", resp.StatusCode)
	}
}

// TestHostileSchemaBounded: a schema asking for a billion items, a billion
// characters, or an endless $ref cycle gets a small answer, not an
// exhausted gateway.
func TestHostileSchemaBounded(t *testing.T) {
	srv := startDepth(t)
	for _, schema := range []string{
		`{"type":"array","minItems":1000000000,"items":{"type":"array","minItems":1000000000,"items":{"type":"string","minLength":1000000000}}}`,
		`{"$defs":{"a":{"type":"array","minItems":50,"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1e300}},"required":["n"]}`,
	} {
		code, b := post(t, srv, `{"model":"openai/gpt-4o-mini","input":"x","text":{"format":{"type":"json_schema","name":"h","schema":`+schema+`}}}`)
		if code != 200 || len(b) > 2<<20 {
			t.Fatalf("%s: %d, %d bytes", schema, code, len(b))
		}
	}
}

func TestJSONAnswerHonoursMaxOutputTokens(t *testing.T) {
	srv := startDepth(t)
	code, b := post(t, srv, `{"model":"openai/gpt-4o-mini","input":"x","max_output_tokens":3,"text":{"format":{"type":"json_schema","name":"p","schema":`+ordinarySchemas[0]+`}}}`)
	var r struct {
		Status     string `json:"status"`
		OutputText string `json:"output_text"`
	}
	json.Unmarshal(b, &r)
	if code != 200 || r.Status != "incomplete" || json.Valid([]byte(r.OutputText)) {
		t.Fatalf("%d %s %q", code, r.Status, r.OutputText)
	}
}
