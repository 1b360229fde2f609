package gateway

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func do(t *testing.T, h http.Handler, method, path, key, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// alwaysPresent are the Response members the real SDK requires.
var alwaysPresent = []string{"id", "object", "created_at", "completed_at", "model", "status", "output", "error", "incomplete_details",
	"instructions", "metadata", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p", "presence_penalty", "frequency_penalty"}

func checkResponse(t *testing.T, raw json.RawMessage, status string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range alwaysPresent {
		if _, ok := m[k]; !ok {
			t.Fatalf("response lacks %q: %s", k, raw)
		}
	}
	if string(m["object"]) != `"response"` || string(m["status"]) != `"`+status+`"` {
		t.Fatalf("object/status %s %s", m["object"], m["status"])
	}
	if status == "in_progress" {
		if string(m["output"]) != "[]" {
			t.Fatalf("in_progress output must be empty")
		}
		return
	}
	var u struct {
		InputDetails  map[string]json.RawMessage `json:"input_tokens_details"`
		OutputDetails map[string]json.RawMessage `json:"output_tokens_details"`
		CostDetails   map[string]json.RawMessage `json:"cost_details"`
	}
	json.Unmarshal(m["usage"], &u)
	if string(u.InputDetails["cached_tokens"]) == "" || string(u.OutputDetails["reasoning_tokens"]) == "" {
		t.Fatalf("usage details must be integers: %s", m["usage"])
	}
	for _, k := range []string{"upstream_inference_input_cost", "upstream_inference_output_cost"} {
		if v := string(u.CostDetails[k]); v == "" || v == "null" {
			t.Fatalf("cost_details.%s must be a number", k)
		}
	}
	var out []struct {
		Type    string `json:"type"`
		Status  string `json:"status"`
		Content []struct {
			Type        string            `json:"type"`
			Annotations []json.RawMessage `json:"annotations"`
		} `json:"content"`
	}
	json.Unmarshal(m["output"], &out)
	for _, it := range out {
		if it.Type == "message" {
			if it.Status != "completed" && it.Status != "incomplete" && it.Status != "in_progress" {
				t.Fatalf("message status %q", it.Status)
			}
			for _, c := range it.Content {
				if c.Type == "output_text" && c.Annotations == nil {
					t.Fatalf("output_text needs annotations: []")
				}
			}
		}
	}
}

func TestResponseShapeAndContentTypes(t *testing.T) {
	g := New(Options{})
	rec := do(t, g, "POST", "/api/v1/responses", DemoAPIKey, `{"model":"a/b","input":"hi","stream":false,"store":false,"service_tier":"auto"}`)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	checkResponse(t, rec.Body.Bytes(), "completed")

	rec = do(t, g, "POST", "/api/v1/responses", DemoAPIKey, `{"model":"a/b","input":"hi","stream":true,"reasoning":{"effort":"low"}}`, "X-OpenRouter-Metadata", "enabled")
	if rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream content type %s", rec.Header().Get("Content-Type"))
	}
	sc := bufio.NewScanner(rec.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var types []string
	seq := -1
	sawComment, sawDone := false, false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			sawComment = true
		case line == "data: [DONE]":
			sawDone = true
		case strings.HasPrefix(line, "data: "):
			var ev struct {
				Type     string          `json:"type"`
				Seq      int             `json:"sequence_number"`
				Response json.RawMessage `json:"response"`
			}
			json.Unmarshal([]byte(line[6:]), &ev)
			if ev.Seq <= seq {
				t.Fatalf("sequence numbers must increase")
			}
			seq = ev.Seq
			types = append(types, ev.Type)
			switch ev.Type {
			case "response.created", "response.in_progress":
				checkResponse(t, ev.Response, "in_progress")
			case "response.completed":
				checkResponse(t, ev.Response, "completed")
				if !strings.Contains(string(ev.Response), "openrouter_metadata") {
					t.Fatalf("routing metadata missing on the last event")
				}
			}
		}
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"response.created response.in_progress", "response.reasoning_text.delta", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("event sequence lacks %s: %s", want, joined)
		}
	}
	if !sawComment || !sawDone || types[len(types)-1] != "response.completed" {
		t.Fatalf("comment %v done %v last %s", sawComment, sawDone, types[len(types)-1])
	}
}

func TestDestinationsAlwaysCarryEveryMember(t *testing.T) {
	g := New(Options{})
	rec := do(t, g, "GET", "/api/v1/observability/destinations?limit=100", DemoManagementKey, "")
	var page struct {
		Data  []map[string]json.RawMessage `json:"data"`
		Total int                          `json:"total_count"`
	}
	json.Unmarshal(rec.Body.Bytes(), &page)
	members := []string{"id", "workspace_id", "name", "type", "enabled", "config", "api_key_hashes", "broadcast_generation_cost",
		"broadcast_generation_cost_allocation", "broadcast_generation_identity", "broadcast_generation_request_context",
		"filter_rules", "privacy_mode", "regions", "sampling_rate", "created_at", "updated_at"}
	types := map[string]bool{}
	nullName := false
	for _, d := range page.Data {
		for _, k := range members {
			if _, ok := d[k]; !ok {
				t.Fatalf("destination lacks %s", k)
			}
		}
		var typ string
		json.Unmarshal(d["type"], &typ)
		types[typ] = true
		nullName = nullName || string(d["name"]) == "null"
		if strings.Contains(string(d["config"]), "x7Kqx7Kq") {
			t.Fatalf("a secret was returned whole: %s", d["config"])
		}
	}
	if len(types) < 10 || !nullName || page.Total != len(page.Data) || page.Total < 30 {
		t.Fatalf("seed variety: %d types, null name %v, %d/%d", len(types), nullName, len(page.Data), page.Total)
	}
}

func TestConcurrentPatches(t *testing.T) {
	g := New(Options{})
	id := g.DestinationID("prod-langfuse")
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := `{"enabled":` + map[bool]string{true: "true", false: "false"}[i%2 == 0] + `}`
			if rec := do(t, g, "PATCH", "/api/v1/observability/destinations/"+id, DemoManagementKey, body); rec.Code != 200 {
				t.Errorf("PATCH %d", rec.Code)
			}
			do(t, g, "GET", "/api/v1/observability/destinations", DemoManagementKey, "")
		}(i)
	}
	wg.Wait()
}

func TestAuthRows(t *testing.T) {
	g := New(Options{})
	for _, tc := range []struct {
		method, path, key string
		code              int
		msg               string
	}{
		{"GET", "/api/v1/batches/x", "", 401, "No auth credentials found"},
		{"GET", "/api/v1/observability/destinations", "", 401, "Missing Authentication header"},
		{"GET", "/api/v1/batches/x", "nope", 401, "Invalid"},
		{"PATCH", "/api/v1/observability/destinations/x", DemoAPIKey, 403, "Only management keys"},
		{"POST", "/api/v1/responses", DemoManagementKey, 403, "Management keys cannot"},
	} {
		rec := do(t, g, tc.method, tc.path, tc.key, `{}`)
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tc.code || !strings.Contains(string(body), tc.msg) || !strings.Contains(string(body), `"code":`) {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, rec.Code, body)
		}
	}
}

func TestFaultOptions(t *testing.T) {
	g := New(Options{ErrorRate: 1})
	rec := do(t, g, "GET", "/api/v1/batches/"+g.SeedID(SeedChat), DemoAPIKey, "")
	if rec.Code < 500 {
		t.Fatalf("error rate 1 answered %d", rec.Code)
	}
	if rec.Code == 503 && rec.Header().Get("Retry-After") == "" {
		t.Fatalf("503 without Retry-After")
	}
}

func TestLargeBatchSize(t *testing.T) {
	g := New(Options{LargeBatchSize: 1234})
	rec := do(t, g, "GET", "/api/v1/batches/"+g.SeedID(SeedLarge), DemoAPIKey, "")
	var b struct {
		Results []json.RawMessage   `json:"results"`
		Counts  struct{ Total int } `json:"request_counts"`
	}
	json.Unmarshal(rec.Body.Bytes(), &b)
	if len(b.Results) != 1234 || b.Counts.Total != 1234 {
		t.Fatalf("large batch %d/%d", len(b.Results), b.Counts.Total)
	}
}

func TestSubmissionRows(t *testing.T) {
	g := New(Options{SubmitVisibleAfter: time.Hour})
	for body, want := range map[string]string{
		`{"endpoint":"/v1/chat/completions","model":"a/b","requests":[{"body":{}}]}`:                                             "custom_id is required",
		`{"endpoint":"/v1/chat/completions","model":"a/b","requests":[{"custom_id":"x","body":{}},{"custom_id":"x","body":{}}]}`: "not unique",
		`{"endpoint":"/v1/images","model":"a/b","requests":[{"custom_id":"x","body":{}}]}`:                                       "endpoint",
		`{"endpoint":"/v1/chat/completions","model":"a/b","requests":[{"custom_id":"x","body":{"model":"c/d"}}]}`:                "batch model",
	} {
		rec := do(t, g, "POST", "/api/v1/batches", DemoAPIKey, body)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), want) {
			t.Fatalf("%s: %d %s", body, rec.Code, rec.Body.String())
		}
	}
	rec := do(t, g, "POST", "/api/v1/batches", DemoAPIKey, `{"endpoint":"/v1/embeddings","model":"a/b","requests":[{"custom_id":"x","body":{"input":"hi"}}]}`)
	var b struct{ ID, Status string }
	json.Unmarshal(rec.Body.Bytes(), &b)
	if rec.Code != 202 || b.Status != "validating" || !strings.HasPrefix(b.ID, "batch-") {
		t.Fatalf("submit: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(t, g, "GET", "/api/v1/batches/"+b.ID, DemoAPIKey, ""); rec.Code != 404 {
		t.Fatalf("a just-submitted batch should be invisible for a moment, got %d", rec.Code)
	}
}

func TestActivityIsCompletedDaysForAManagementKey(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	g := New(Options{Now: func() time.Time { return now }})
	if r := do(t, g, "GET", "/api/v1/activity", DemoAPIKey, ""); r.Code != 403 {
		t.Fatalf("an inference key: %d", r.Code)
	}
	r := do(t, g, "GET", "/api/v1/activity", DemoManagementKey, "")
	var out struct {
		Data []map[string]any `json:"data"`
	}
	decodeBody(t, r.Body.Bytes(), &out)
	if r.Code != 200 || len(out.Data) < 30 {
		t.Fatalf("%d, %d items", r.Code, len(out.Data))
	}
	for _, it := range out.Data {
		d := it["date"].(string)
		if d >= "2026-11-25" || d < "2026-10-26" {
			t.Fatalf("day %s outside the 30 completed days", d)
		}
		for _, k := range []string{"model", "model_permaslug", "endpoint_id", "provider_name", "usage", "byok_usage_inference", "requests", "prompt_tokens", "completion_tokens", "reasoning_tokens"} {
			if _, ok := it[k]; !ok {
				t.Fatalf("item lacks %s: %v", k, it)
			}
		}
	}
	again := do(t, g, "GET", "/api/v1/activity?date=2026-11-24", DemoManagementKey, "")
	decodeBody(t, again.Body.Bytes(), &out)
	for _, it := range out.Data {
		if it["date"] != "2026-11-24" {
			t.Fatalf("?date: %v", it)
		}
	}
	if bad := do(t, g, "GET", "/api/v1/activity?date=yesterday", DemoManagementKey, ""); bad.Code != 400 {
		t.Fatalf("a bad date: %d", bad.Code)
	}
}
