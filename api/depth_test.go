package api_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`

const weatherTools = `[{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city","unit"]}}]`

// streamTurn reads a whole streamed answer: its text, its calls, its
// outcome.
func streamTurn(t *testing.T, c *api.Client, req api.ResponseRequest) (string, []api.Call, api.Outcome) {
	t.Helper()
	s, err := c.StreamResponse(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var text strings.Builder
	var calls api.Calls
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		calls.Apply(ev)
		if ev.Type == api.EventOutputTextDelta {
			text.WriteString(ev.Delta)
		}
	}
	return text.String(), calls.List(), s.Outcome()
}

func TestStructuredOutputOverHTTP(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	f, err := api.SchemaFormat("person", []byte(personSchema), true)
	if err != nil {
		t.Fatal(err)
	}
	req := api.ResponseRequest{Input: api.Input{Text: "a person"}, Model: "openai/gpt-4o-mini", Text: &api.TextConfig{Format: f}}
	text, _, o := streamTurn(t, c, req)
	if !o.OK() {
		t.Fatalf("outcome %v", o.State)
	}
	chk, err := api.CheckAnswer(f, text)
	if err != nil || !chk.Valid {
		t.Fatalf("valid answer judged %+v %v: %s", chk, err, text)
	}
	var body struct {
		Text struct {
			Format map[string]any `json:"format"`
		} `json:"text"`
	}
	json.Unmarshal(srv.RequestsTo("POST", "/api/v1/responses")[0].Body, &body)
	ff := body.Text.Format
	if ff["type"] != "json_schema" || ff["name"] != "person" || ff["strict"] != true || ff["schema"] == nil {
		t.Fatalf("text.format sent: %v", ff)
	}

	req.Model = gateway.ModelJSONBroken
	text, _, _ = streamTurn(t, c, req)
	chk, err = api.CheckAnswer(f, text)
	if err != nil || chk.Valid || len(chk.Problems) < 2 {
		t.Fatalf("broken answer judged %+v %v: %s", chk, err, text)
	}
	ptrs := map[string]bool{}
	for _, p := range chk.Problems {
		ptrs[p.Pointer] = true
	}
	if !ptrs["/age"] || !ptrs[""] {
		t.Fatalf("pointers %v", chk.Problems)
	}
}

func TestJSONObjectFormat(t *testing.T) {
	_, c := startGateway(t, gateway.Options{})
	f := &api.TextFormat{Type: api.FormatJSONObject}
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "openai/gpt-4o", Text: &api.TextConfig{Format: f}})
	if err != nil {
		t.Fatal(err)
	}
	if chk, _ := api.CheckAnswer(f, r.OutputTextAll()); !chk.Valid {
		t.Fatalf("json_object answer %q: %+v", r.OutputTextAll(), chk)
	}
	if chk, _ := api.CheckAnswer(f, `{"a":`); chk.Valid || chk.NotJSON == "" {
		t.Fatalf("cut JSON judged %+v", chk)
	}
}

// TestRefusedBeforeAnyRequest: each bad member is refused by Validate,
// naming the field and the rule, and nothing reaches the server.
func TestRefusedBeforeAnyRequest(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	tools, err := api.ParseTools([]byte(weatherTools))
	if err != nil {
		t.Fatal(err)
	}
	base := func() api.ResponseRequest {
		return api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "openai/gpt-4o-mini"}
	}
	for _, tc := range []struct {
		name, field string
		edit        func(r *api.ResponseRequest)
	}{
		{"format type", "text.format.type", func(r *api.ResponseRequest) { r.Text = &api.TextConfig{Format: &api.TextFormat{Type: "yaml"}} }},
		{"schema name", "text.format.name", func(r *api.ResponseRequest) {
			r.Text = &api.TextConfig{Format: &api.TextFormat{Type: api.FormatJSONSchema, Name: "has space", Schema: json.RawMessage(personSchema)}}
		}},
		{"bad schema", "text.format.schema", func(r *api.ResponseRequest) {
			r.Text = &api.TextConfig{Format: &api.TextFormat{Type: api.FormatJSONSchema, Name: "p", Schema: json.RawMessage(`{"type":"objekt"}`)}}
		}},
		{"tool choice names no tool", "tool_choice.name", func(r *api.ResponseRequest) {
			r.SetTools(tools, api.ToolChoice{Function: "nope"})
		}},
		{"required without tools", "tool_choice", func(r *api.ResponseRequest) { r.ToolChoice = json.RawMessage(`"required"`) }},
		{"duplicate tools", "tools[1].name", func(r *api.ResponseRequest) { r.SetTools(append(tools, tools...), api.ToolChoice{}) }},
		{"provider sort", "provider.sort", func(r *api.ResponseRequest) { r.Provider = &api.ProviderPreferences{Sort: "cheapest"} }},
		{"data collection", "provider.data_collection", func(r *api.ResponseRequest) { r.Provider = &api.ProviderPreferences{DataCollection: "sometimes"} }},
		{"quantization", "provider.quantizations[1]", func(r *api.ResponseRequest) {
			r.Provider = &api.ProviderPreferences{Quantizations: []string{"fp8", "fp3"}}
		}},
		{"max price", "provider.max_price.prompt", func(r *api.ResponseRequest) {
			r.Provider = &api.ProviderPreferences{MaxPrice: &api.MaxPrice{Prompt: "-1"}}
		}},
		{"order and ignore", "provider.order", func(r *api.ResponseRequest) {
			r.Provider = &api.ProviderPreferences{Order: []string{"Together"}, Ignore: []string{"together"}}
		}},
		{"empty provider name", "provider.only[0]", func(r *api.ResponseRequest) { r.Provider = &api.ProviderPreferences{Only: []string{" "}} }},
		{"fallback model", "models[1]", func(r *api.ResponseRequest) { r.Models = []string{"openai/gpt-4o", "gpt4"} }},
	} {
		r := base()
		tc.edit(&r)
		_, err := c.CreateResponse(ctx(t), r)
		var ve *api.ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || ve.Rule == "" {
			t.Errorf("%s: got %v, want a refusal of %s", tc.name, err, tc.field)
		}
	}
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
}

func TestSchemaErrorsSayWhere(t *testing.T) {
	_, err := api.SchemaFormat("p", []byte("{\n  \"type\": \"object\",\n  \"properties\": {\"a\": {\"minimum\": \"x\"}}\n}"), false)
	if err == nil || !strings.Contains(err.Error(), "/properties/a/minimum") {
		t.Fatalf("no location: %v", err)
	}
	_, err = api.SchemaFormat("p", []byte("{\n  \"type\": \"object\",\n}"), false)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("no line: %v", err)
	}
}

// TestToolLoopOverHTTP runs the SDK's tool loop against demo/tools: a
// streamed call, its arguments checked, the result sent back, the answer
// from it.
func TestToolLoopOverHTTP(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	tools, _ := api.ParseTools([]byte(weatherTools))
	req := api.ResponseRequest{Input: api.Input{Text: "weather in Oslo?"}, Model: gateway.ModelTools, ParallelToolCalls: ptr(false)}
	if err := req.SetTools(tools, api.ToolChoice{Mode: api.ToolChoiceRequired}); err != nil {
		t.Fatal(err)
	}
	_, calls, o := streamTurn(t, c, req)
	if !o.OK() || len(calls) != 1 {
		t.Fatalf("outcome %v, calls %+v", o.State, calls)
	}
	call := calls[0]
	if call.Name != "get_weather" || call.CallID == "" || !call.Done {
		t.Fatalf("call %+v", call)
	}
	if err := api.CheckArguments(call, tools); err != nil {
		t.Fatalf("arguments %s: %v", call.Arguments, err)
	}
	results, _ := api.ParseToolResults([]byte(`{"get_weather":{"temp_c":-3}}`))
	outputs, missing := api.AnswerCalls(calls, results)
	if len(missing) != 0 {
		t.Fatalf("missing %v", missing)
	}
	in, err := api.ContinueWith(req.Input, o.Final.Output, outputs)
	if err != nil {
		t.Fatal(err)
	}
	req.Input = in
	text, calls2, o2 := streamTurn(t, c, req)
	if !o2.OK() || len(calls2) != 0 || !strings.Contains(text, `{"temp_c":-3}`) {
		t.Fatalf("second turn %q %+v", text, calls2)
	}
	sent := srv.RequestsTo("POST", "/api/v1/responses")
	var second struct {
		Input []map[string]any `json:"input"`
		Tools []map[string]any `json:"tools"`
		PTC   *bool            `json:"parallel_tool_calls"`
		TC    any              `json:"tool_choice"`
	}
	json.Unmarshal(sent[1].Body, &second)
	if len(second.Input) != 3 || second.Input[0]["role"] != "user" || second.Input[1]["type"] != "function_call" ||
		second.Input[2]["type"] != "function_call_output" || second.Input[2]["call_id"] != call.CallID {
		t.Fatalf("second input %v", second.Input)
	}
	if second.Tools[0]["type"] != "function" || second.PTC == nil || *second.PTC || second.TC != "required" {
		t.Fatalf("tools sent %v ptc %v tc %v", second.Tools, second.PTC, second.TC)
	}
}

func TestBadArgumentsAreNamed(t *testing.T) {
	tools, _ := api.ParseTools([]byte(weatherTools))
	err := api.CheckArguments(api.Call{Name: "get_weather", Arguments: `{"city":3,"unit":"k"}`}, tools)
	if err == nil || !strings.Contains(err.Error(), "/city") || !strings.Contains(err.Error(), "/unit") {
		t.Fatalf("violations not named: %v", err)
	}
	if err := api.CheckArguments(api.Call{Name: "launch", Arguments: `{}`}, tools); err == nil {
		t.Fatal("a call of an unknown tool passed")
	}
	if _, err := api.ContinueWith(api.Input{Text: "x"}, nil, []api.ToolOutput{{CallID: "call_x", Output: "1"}}); err == nil {
		t.Fatal("a result for no call was accepted")
	}
}

// TestCallsFromHandMadeStream: deltas join their call by item_id even when
// two calls interleave, arguments are bounded, and unknown events pass.
func TestCallsFromHandMadeStream(t *testing.T) {
	big := strings.Repeat("x", api.MaxArgumentBytes+1)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s) }
		ev(`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_a","name":"one","arguments":""}}`)
		ev(`{"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"type":"function_call","id":"fc_2","call_id":"call_b","name":"two","arguments":""}}`)
		ev(`{"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_2","output_index":1,"delta":"{\"b\":"}`)
		ev(`{"type":"response.function_call_arguments.delta","sequence_number":4,"item_id":"fc_1","output_index":0,"delta":"{\"a\":1}"}`)
		ev(`{"type":"response.custom_tool_call_input.delta","sequence_number":5,"item_id":"x","delta":"?"}`)
		ev(`{"type":"response.function_call_arguments.delta","sequence_number":6,"item_id":"fc_2","output_index":1,"delta":"2}"}`)
		ev(`{"type":"response.function_call_arguments.delta","sequence_number":7,"item_id":"fc_3","output_index":2,"delta":"` + big + `"}`)
		ev(`{"type":"response.completed","sequence_number":8,"response":{"id":"r","object":"response","status":"completed","output":[]}}`)
	})
	c := newClient(t, srv.URL, "k", "")
	s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var calls api.Calls
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		calls.Apply(ev)
	}
	l := calls.List()
	if len(l) != 3 || l[0].Arguments != `{"a":1}` || l[1].Arguments != `{"b":2}` || l[1].CallID != "call_b" {
		t.Fatalf("calls %+v", l)
	}
	if !l[2].Truncated || l[2].Arguments != "" {
		t.Fatalf("oversized arguments kept: truncated %v, %d bytes", l[2].Truncated, len(l[2].Arguments))
	}
}

func TestProviderRoutingOverHTTP(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{GenerationDelay: 1})
	req := api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "meta-llama/llama-3.1-70b-instruct", RoutingMetadata: true,
		Provider: &api.ProviderPreferences{Order: []string{gateway.DownProvider, "Together"}, Sort: "price", DataCollection: "allow"},
		Models:   []string{"openai/gpt-4o-mini"}}
	r, err := c.CreateResponse(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.OpenRouterMetadata.SelectedProvider(); got != "Together" || *r.OpenRouterMetadata.Attempt != 2 {
		t.Fatalf("selected %q attempt %v", got, r.OpenRouterMetadata.Attempt)
	}
	var sent map[string]json.RawMessage
	json.Unmarshal(srv.RequestsTo("POST", "/api/v1/responses")[0].Body, &sent)
	if string(sent["provider"]) != `{"order":["Lambda","Together"],"data_collection":"allow","sort":"price"}` || string(sent["models"]) != `["openai/gpt-4o-mini"]` {
		t.Fatalf("sent provider %s models %s", sent["provider"], sent["models"])
	}
	g, err := c.WaitGeneration(ctx(t), r.GenerationID)
	if err != nil {
		t.Fatal(err)
	}
	if g.ProviderName == nil || *g.ProviderName != "Together" {
		t.Fatalf("generation provider %v", g.ProviderName)
	}
	no := false
	req.Provider = &api.ProviderPreferences{Order: []string{gateway.DownProvider}, AllowFallbacks: &no}
	req.Models = nil
	_, err = c.CreateResponse(ctx(t), req)
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 503 {
		t.Fatalf("no fallbacks: %v", err)
	}
}

func TestModelEndpointsOverHTTP(t *testing.T) {
	_, c := startGateway(t, gateway.Options{})
	me, err := c.ModelEndpoints(ctx(t), "meta-llama/llama-3.1-70b-instruct")
	if err != nil {
		t.Fatal(err)
	}
	if me.ID != "meta-llama/llama-3.1-70b-instruct" || len(me.Endpoints) != 4 {
		t.Fatalf("%s: %d endpoints", me.ID, len(me.Endpoints))
	}
	e := me.Endpoints[0]
	if e.ProviderName == "" || !e.PriceOf("prompt").Known || e.ContextLength == 0 || e.LatencyLast30m == nil || e.StatusWord() != "ok" {
		t.Fatalf("endpoint %+v", e)
	}
	if last := me.Endpoints[3]; last.ProviderName != gateway.DownProvider || last.StatusWord() != "down" {
		t.Fatalf("down endpoint %+v", last)
	}
	_, err = c.ModelEndpoints(ctx(t), "nobody/nothing")
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("unknown model: %v", err)
	}
	if _, err := c.ModelEndpoints(ctx(t), "no-slash"); !api.IsValidation(err) {
		t.Fatalf("bad model not refused: %v", err)
	}
}

func TestEndpointsBounded(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/models/a/b/endpoints" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		eps := make([]string, api.MaxEndpoints+50)
		for i := range eps {
			eps[i] = fmt.Sprintf(`{"provider_name":"P%d","context_length":1,"pricing":{"prompt":"0","completion":"0"},"latency_last_30m":null,"status":-3}`, i)
		}
		fmt.Fprintf(w, `{"data":{"id":"a/b","name":"B","created":1,"description":"","architecture":{},"endpoints":[%s]}}`, strings.Join(eps, ","))
	})
	me, err := newClient(t, srv.URL, "", "").ModelEndpoints(ctx(t), "a/b")
	if err != nil {
		t.Fatal(err)
	}
	if len(me.Endpoints) != api.MaxEndpoints || !me.Truncated || me.Endpoints[0].StatusWord() != "unstable" {
		t.Fatalf("%d endpoints, truncated %v", len(me.Endpoints), me.Truncated)
	}
}

func TestPrettyPartialJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":[1,2]}`:  "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}",
		`{"a":{"b":"x,{y"`:   "{\n  \"a\": {\n    \"b\": \"x,{y\"",
		`{"e":{},"f":[]}`:    "{\n  \"e\": {},\n  \"f\": []\n}",
		`{"s":"q\"uo,te"}`:   "{\n  \"s\": \"q\\\"uo,te\"\n}",
		"{\n  \"a\" : true ": "{\n  \"a\": true",
	} {
		if got := api.PrettyPartialJSON(in); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestCallOnlyInFinalEvent: a server that sends the call only in its
// terminal event (no item events) still yields the call.
func TestCallOnlyInFinalEvent(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"type":"response.completed","sequence_number":1,"response":{"id":"r","object":"response","status":"completed","output":[`+
			`{"type":"function_call","id":"fc_9","call_id":"call_9","name":"lookup","arguments":"{\"q\":\"x\"}","status":"completed"}]}}`+"\n\n")
	})
	c := newClient(t, srv.URL, "k", "")
	_, calls, o := streamTurn(t, c, api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
	if !o.OK() || len(calls) != 1 || calls[0].CallID != "call_9" || calls[0].Arguments != `{"q":"x"}` || !calls[0].Done {
		t.Fatalf("calls %+v", calls)
	}
}

// TestPrettyJSONInPieces: fed piece by piece (cut anywhere, as a stream
// cuts it), the pieces join to the indentation of the whole.
func TestPrettyJSONInPieces(t *testing.T) {
	in := `{"a": {}, "b" : [1, {"c":"x,\"{y"}], "d":[ ], "e":{"f":null}}`
	want := api.PrettyPartialJSON(in)
	for size := 1; size <= len(in); size++ {
		var p api.PrettyJSON
		var got strings.Builder
		for s := in; len(s) > 0; {
			n := min(size, len(s))
			got.WriteString(p.Feed(s[:n]))
			s = s[n:]
		}
		if got.String() != want {
			t.Fatalf("pieces of %d: %q, want %q", size, got.String(), want)
		}
	}
}
