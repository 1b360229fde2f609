package api_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func TestCreateResponse(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{
		Input: api.Input{Text: "How does routing work?"}, Model: "openai/gpt-4o-mini",
		Metadata: map[string]string{"team": "infra"}, ServiceTier: "fast", RoutingMetadata: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Object != "response" || r.Status != api.ResponseCompleted || r.OutputTextAll() == "" || r.CompletedAt == nil {
		t.Fatalf("response %+v", r)
	}
	if r.Metadata["team"] != "infra" || r.ServiceTier == nil || *r.ServiceTier != "priority" {
		t.Fatalf("echo: metadata %v tier %v", r.Metadata, r.ServiceTier)
	}
	u := r.Usage
	if u == nil || u.TotalTokens != u.InputTokens+u.OutputTokens || u.Cost == nil || u.CostDetails == nil {
		t.Fatalf("usage %+v", u)
	}
	if r.OpenRouterMetadata == nil || r.OpenRouterMetadata.SelectedProvider() != "openai" {
		t.Fatalf("routing metadata missing")
	}
	sent := srv.RequestsTo("POST", "/api/v1/responses")[0]
	var body map[string]any
	json.Unmarshal(sent.Body, &body)
	if body["stream"] != false || body["store"] != false || body["service_tier"] != "fast" || sent.Header.Get("X-OpenRouter-Metadata") != "enabled" {
		t.Fatalf("request sent %s %v", sent.Body, sent.Header)
	}
	if sent.Header.Get("Accept") != "application/json" || sent.Key != "api" {
		t.Fatalf("accept %q key %q", sent.Header.Get("Accept"), sent.Key)
	}
	// Without the opt-in there is no routing metadata; the default tier is auto.
	r, err = c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "openai/gpt-4o-mini"})
	if err != nil || r.OpenRouterMetadata != nil {
		t.Fatalf("unexpected metadata %v", err)
	}
	json.Unmarshal(srv.RequestsTo("POST", "/api/v1/responses")[1].Body, &body)
	if body["service_tier"] != "auto" {
		t.Fatalf("service_tier default %v", body["service_tier"])
	}
}

func TestCreateResponseOutcomes(t *testing.T) {
	_, c := startGateway(t, gateway.Options{})
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "long"}, Model: "openai/gpt-4o", MaxOutputTokens: ptr(5)})
	if err != nil || r.Status != api.ResponseIncomplete || r.IncompleteDetails == nil || r.IncompleteDetails.Reason != "max_output_tokens" {
		t.Fatalf("incomplete: %+v %v", r, err)
	}
	r, err = c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: gateway.ModelFailMidstream})
	if err != nil || r.Status != api.ResponseFailed || r.Error == nil || r.Error.Code == "" || r.ErrorType == nil {
		t.Fatalf("failed: %+v %v", r, err)
	}
	_, err = c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: gateway.ModelRateLimited})
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 429 || ae.RetryAfter != 7*time.Second {
		t.Fatalf("rate limited: %v", err)
	}
	_, err = c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: gateway.ModelDrop})
	var te *api.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("dropped connection: %T %v", err, err)
	}
}

func TestConversationInput(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	in := api.Input{Messages: []api.InputMessage{
		{Type: "message", Role: "user", Content: "first"},
		{Type: "message", Role: "assistant", Content: "answer one"},
		{Type: "message", Role: "user", Content: "second"},
	}}
	if _, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: in, Model: "a/b"}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Input []api.InputMessage `json:"input"`
	}
	json.Unmarshal(srv.RequestsTo("POST", "/api/v1/responses")[0].Body, &body)
	if len(body.Input) != 3 || body.Input[1].Content != "answer one" {
		t.Fatalf("history sent: %+v", body.Input)
	}
}

func TestResponseValidationBoundaries(t *testing.T) {
	srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"r","object":"response","created_at":1,"completed_at":2,"model":"a/b","status":"completed","output":[],"error":null,"incomplete_details":null,"instructions":null,"metadata":null,"tools":[],"tool_choice":"auto","parallel_tool_calls":true,"temperature":null,"top_p":null,"presence_penalty":null,"frequency_penalty":null}`))
	})
	c := newClient(t, srv.URL, "k", "")
	meta := func(n int) map[string]string {
		m := map[string]string{}
		for i := 0; i < n; i++ {
			m[strings.Repeat("k", 1)+string(rune('a'+i))] = "v"
		}
		return m
	}
	base := func() api.ResponseRequest {
		return api.ResponseRequest{Input: api.Input{Text: "hi"}, Model: "openai/gpt-4o"}
	}
	type tc struct {
		name  string
		mod   func(*api.ResponseRequest)
		field string // "" means accepted
	}
	cases := []tc{
		{"16 pairs", func(r *api.ResponseRequest) { r.Metadata = meta(16) }, ""},
		{"17 pairs", func(r *api.ResponseRequest) { r.Metadata = meta(17) }, "metadata"},
		{"key 64", func(r *api.ResponseRequest) { r.Metadata = map[string]string{strings.Repeat("k", 64): "v"} }, ""},
		{"key 65", func(r *api.ResponseRequest) { r.Metadata = map[string]string{strings.Repeat("k", 65): "v"} }, "metadata." + strings.Repeat("k", 65)},
		{"key bracket", func(r *api.ResponseRequest) { r.Metadata = map[string]string{"a[0]": "v"} }, "metadata.a[0]"},
		{"value 512", func(r *api.ResponseRequest) { r.Metadata = map[string]string{"k": strings.Repeat("é", 512)} }, ""},
		{"value 513", func(r *api.ResponseRequest) { r.Metadata = map[string]string{"k": strings.Repeat("v", 513)} }, "metadata.k"},
		{"session 256", func(r *api.ResponseRequest) { r.SessionID = strings.Repeat("s", 256) }, ""},
		{"session 257", func(r *api.ResponseRequest) { r.SessionID = strings.Repeat("s", 257) }, "session_id"},
		{"user 256", func(r *api.ResponseRequest) { r.User = strings.Repeat("u", 256) }, ""},
		{"user 257", func(r *api.ResponseRequest) { r.User = strings.Repeat("u", 257) }, "user"},
		{"tools 30", func(r *api.ResponseRequest) { r.MaxToolCalls = ptr(30) }, ""},
		{"tools 0", func(r *api.ResponseRequest) { r.MaxToolCalls = ptr(0) }, ""},
		{"tools 31", func(r *api.ResponseRequest) { r.MaxToolCalls = ptr(31) }, "max_tool_calls"},
		{"tools -1", func(r *api.ResponseRequest) { r.MaxToolCalls = ptr(-1) }, "max_tool_calls"},
		{"stop 1", func(r *api.ResponseRequest) {
			r.StopServerToolsWhen = []api.StopCondition{{Type: "step_count_is", StepCount: ptr(3)}}
		}, ""},
		{"stop cost", func(r *api.ResponseRequest) {
			r.StopServerToolsWhen = []api.StopCondition{{Type: "max_cost", MaxCostInDollars: ptr(0.5)}}
		}, ""},
		{"stop empty", func(r *api.ResponseRequest) { r.StopServerToolsWhen = []api.StopCondition{} }, "stop_server_tools_when"},
		{"stop empty flag", func(r *api.ResponseRequest) { r.StopConditionsSet = true }, "stop_server_tools_when"},
		{"previous id", func(r *api.ResponseRequest) { r.PreviousResponseID = ptr("resp_1") }, "previous_response_id"},
		{"tier fast", func(r *api.ResponseRequest) { r.ServiceTier = "fast" }, ""},
		{"tier ultrafast", func(r *api.ResponseRequest) { r.ServiceTier = "ultrafast" }, ""},
		{"tier bad", func(r *api.ResponseRequest) { r.ServiceTier = "turbo" }, "service_tier"},
		{"model form", func(r *api.ResponseRequest) { r.Model = "gpt-4o" }, "model"},
		{"model empty provider", func(r *api.ResponseRequest) { r.Model = "/gpt" }, "model"},
		{"input empty", func(r *api.ResponseRequest) { r.Input = api.Input{} }, "input"},
		{"effort", func(r *api.ResponseRequest) { r.Reasoning = &api.Reasoning{Effort: "extreme"} }, "reasoning.effort"},
		{"truncation", func(r *api.ResponseRequest) { r.Truncation = "sometimes" }, "truncation"},
	}
	for _, tc := range cases {
		r := base()
		tc.mod(&r)
		before := n.Load()
		_, err := c.CreateResponse(ctx(t), r)
		sent := n.Load() - before
		if tc.field == "" {
			if err != nil || sent != 1 {
				t.Errorf("%s: want accepted and sent, got %v (sent %d)", tc.name, err, sent)
			}
			continue
		}
		var ve *api.ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || ve.Rule == "" {
			t.Errorf("%s: want refusal of %s, got %v", tc.name, tc.field, err)
		}
		if sent != 0 {
			t.Errorf("%s: a refused request was sent", tc.name)
		}
		if _, err := c.StreamResponse(ctx(t), r); !api.IsValidation(err) || n.Load() != before {
			t.Errorf("%s: stream not refused locally: %v", tc.name, err)
		}
	}
}

func TestGatewayRefusesWhatTheContractForbids(t *testing.T) {
	srv, _ := startGateway(t, gateway.Options{})
	post := func(body string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/responses", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+gateway.DemoAPIKey)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	for body, want := range map[string]string{
		`{"model":"a/b","input":"x","previous_response_id":"r1"}`: "previous_response_id",
		`{"model":"a/b","input":"x","store":true}`:                "store",
		`{"model":"ab","input":"x"}`:                              "model",
		`{"model":"a/b","input":"x","max_tool_calls":31}`:         "max_tool_calls",
		`{"model":"a/b","input":"x","stop_server_tools_when":[]}`: "stop_server_tools_when",
		`{"model":"a/b","input":"x","service_tier":"turbo"}`:      "service_tier",
	} {
		code, text := post(body, nil)
		if code != 400 || !strings.Contains(text, want) || !strings.Contains(text, `"code":400`) {
			t.Errorf("%s: %d %s", body, code, text)
		}
	}
	// The legacy routing header is honoured too.
	code, text := post(`{"model":"a/b","input":"x","stream":false}`, map[string]string{"X-OpenRouter-Experimental-Metadata": "enabled"})
	if code != 200 || !strings.Contains(text, "openrouter_metadata") {
		t.Fatalf("legacy header: %d", code)
	}
	// A management key cannot call inference endpoints.
	c := newClient(t, srv.URL, gateway.DemoManagementKey, "")
	if _, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"}); api.StatusOf(err) != 403 {
		t.Fatalf("management key on inference: %v", err)
	}
}
