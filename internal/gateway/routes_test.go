package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// clock is a settable time for the gateway.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func decodeBody(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

type listPage struct {
	Object  string           `json:"object"`
	Data    []map[string]any `json:"data"`
	FirstID *string          `json:"first_id"`
	LastID  *string          `json:"last_id"`
	HasMore bool             `json:"has_more"`
}

func TestListBatches(t *testing.T) {
	ck := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	g := New(Options{Now: ck.now, BatchDuration: time.Minute})
	rec := do(t, g, "GET", "/api/v1/batches", DemoAPIKey, "")
	var p listPage
	decodeBody(t, rec.Body.Bytes(), &p)
	if rec.Code != 200 || p.Object != "list" || len(p.Data) != 18 || p.HasMore || *p.FirstID != p.Data[0]["id"] || *p.LastID != p.Data[17]["id"] {
		t.Fatalf("first page: %d %+v", rec.Code, p)
	}
	var prev float64 = 1 << 62
	seen := map[string]bool{}
	for _, b := range p.Data {
		if b["results"] != nil || b["object"] != "batch" {
			t.Fatalf("list items carry no results: %v", b)
		}
		c := b["created_at"].(float64)
		if c > 1e11 {
			c /= 1000
		}
		if c > prev {
			t.Fatalf("not newest first")
		}
		prev = c
		seen[b["id"].(string)] = true
	}
	// Paging with after, and the status filter.
	var all []string
	after := ""
	for i := 0; ; i++ {
		path := "/api/v1/batches?limit=5"
		if after != "" {
			path += "&after=" + after
		}
		decodeBody(t, do(t, g, "GET", path, DemoAPIKey, "").Body.Bytes(), &p)
		for _, b := range p.Data {
			all = append(all, b["id"].(string))
		}
		if !p.HasMore {
			break
		}
		after = *p.LastID
	}
	if len(all) != 18 {
		t.Fatalf("paged %d", len(all))
	}
	decodeBody(t, do(t, g, "GET", "/api/v1/batches?status=completed&limit=100", DemoAPIKey, "").Body.Bytes(), &p)
	for _, b := range p.Data {
		if b["status"] != "completed" {
			t.Fatalf("status filter let %v through", b["status"])
		}
	}
	for _, bad := range []string{"limit=0", "limit=101", "status=done", "after=batch-nope"} {
		if rec := do(t, g, "GET", "/api/v1/batches?"+bad, DemoAPIKey, ""); rec.Code != 400 {
			t.Fatalf("%s: %d", bad, rec.Code)
		}
	}
	// A submitted batch appears once visible, at the top.
	ck.t = ck.t.Add(time.Second)
	rec = do(t, g, "POST", "/api/v1/batches", DemoAPIKey, `{"endpoint":"/v1/chat/completions","model":"openai/gpt-4o-mini","requests":[{"custom_id":"a","body":{}}]}`)
	var sub map[string]any
	decodeBody(t, rec.Body.Bytes(), &sub)
	ck.t = ck.t.Add(3 * time.Second)
	decodeBody(t, do(t, g, "GET", "/api/v1/batches?limit=1", DemoAPIKey, "").Body.Bytes(), &p)
	if p.Data[0]["id"] != sub["id"] {
		t.Fatalf("the new batch is not first: %v", p.Data[0]["id"])
	}
	// A server without listing.
	if rec := do(t, New(Options{NoBatchList: true}), "GET", "/api/v1/batches", DemoAPIKey, ""); rec.Code != 404 {
		t.Fatalf("NoBatchList: %d", rec.Code)
	}
}

func TestDeleteBatch(t *testing.T) {
	ck := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	g := New(Options{Now: ck.now})
	done, running := g.SeedID(SeedChat), g.SeedID(SeedValidating)
	if rec := do(t, g, "DELETE", "/api/v1/batches/"+running, DemoAPIKey, ""); rec.Code != 409 || !strings.Contains(rec.Body.String(), "settled") {
		t.Fatalf("in flight: %d %s", rec.Code, rec.Body)
	}
	rec := do(t, g, "DELETE", "/api/v1/batches/"+done, DemoAPIKey, "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"deleted":true`) {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if rec := do(t, g, "GET", "/api/v1/batches/"+done, DemoAPIKey, ""); rec.Code != 404 {
		t.Fatalf("a deleted batch answers 404: %d", rec.Code)
	}
	if strings.Contains(do(t, g, "GET", "/api/v1/batches?limit=100", DemoAPIKey, "").Body.String(), done) {
		t.Fatal("a deleted batch left the list")
	}
	// A repeated delete resumes the tombstone; once purged, 404.
	if rec := do(t, g, "DELETE", "/api/v1/batches/"+done, DemoAPIKey, ""); rec.Code != 200 {
		t.Fatalf("repeat: %d", rec.Code)
	}
	ck.t = ck.t.Add(3 * time.Second)
	if rec := do(t, g, "DELETE", "/api/v1/batches/"+done, DemoAPIKey, ""); rec.Code != 404 {
		t.Fatalf("after purge: %d", rec.Code)
	}
	if rec := do(t, g, "DELETE", "/api/v1/batches/"+done, DemoManagementKey, ""); rec.Code != 403 {
		t.Fatalf("a management key cannot delete batches: %d", rec.Code)
	}
}

func TestModelsCatalogue(t *testing.T) {
	g := New(Options{})
	rec := do(t, g, "GET", "/api/v1/models", "", "") // no key needed
	var cat struct {
		Data []map[string]any `json:"data"`
	}
	decodeBody(t, rec.Body.Bytes(), &cat)
	providers := map[string]bool{}
	var free, router, nullDesc, nullMax bool
	for _, m := range cat.Data {
		id := m["id"].(string)
		providers[strings.SplitN(id, "/", 2)[0]] = true
		free = free || strings.HasSuffix(id, ":free")
		p := m["pricing"].(map[string]any)
		router = router || p["prompt"] == "-1"
		nullDesc = nullDesc || m["description"] == nil
		nullMax = nullMax || m["top_provider"].(map[string]any)["max_completion_tokens"] == nil
		for _, k := range []string{"id", "canonical_slug", "name", "created", "context_length", "architecture", "pricing", "top_provider", "per_request_limits", "supported_parameters"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("%s lacks %s", id, k)
			}
		}
	}
	if rec.Code != 200 || len(cat.Data) < 30 || len(providers) < 6 || !free || !router || !nullDesc || !nullMax || !providers["demo"] {
		t.Fatalf("catalogue: %d models, providers %v, free %v router %v nulls %v %v", len(cat.Data), providers, free, router, nullDesc, nullMax)
	}
}

func TestKeyUsageGenerationAndLimit(t *testing.T) {
	ck := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	g := New(Options{Now: ck.now, KeyLimit: 0.001, GenerationDelay: time.Second})
	key := func() map[string]any {
		var k struct {
			Data map[string]any `json:"data"`
		}
		decodeBody(t, do(t, g, "GET", "/api/v1/key", DemoAPIKey, "").Body.Bytes(), &k)
		return k.Data
	}
	k := key()
	if k["usage"].(float64) != 0 || k["limit"].(float64) != 0.001 || k["is_management_key"] != false {
		t.Fatalf("key: %v", k)
	}
	rec := do(t, g, "POST", "/api/v1/responses", DemoAPIKey, `{"model":"openai/gpt-4o","input":"hello there","stream":false}`)
	gen := rec.Header().Get("X-Generation-Id")
	if rec.Code != 200 || !strings.HasPrefix(gen, "gen-") {
		t.Fatalf("answer: %d %q", rec.Code, gen)
	}
	if key()["usage"].(float64) <= 0 {
		t.Fatal("usage must grow with each answer")
	}
	// The record: 404 for a moment, then there.
	if rec := do(t, g, "GET", "/api/v1/generation?id="+gen, DemoAPIKey, ""); rec.Code != 404 {
		t.Fatalf("early: %d", rec.Code)
	}
	ck.t = ck.t.Add(2 * time.Second)
	var rec2 struct {
		Data map[string]any `json:"data"`
	}
	decodeBody(t, do(t, g, "GET", "/api/v1/generation?id="+gen, DemoAPIKey, "").Body.Bytes(), &rec2)
	if rec2.Data["id"] != gen || rec2.Data["provider_name"] != "OpenAI" || rec2.Data["total_cost"].(float64) <= 0 || rec2.Data["streamed"] != false {
		t.Fatalf("record: %v", rec2.Data)
	}
	// The limit is used up: 402 until it is raised.
	rec = do(t, g, "POST", "/api/v1/responses", DemoAPIKey, `{"model":"openai/gpt-4o","input":"again","stream":true}`)
	if rec.Code != 402 || key()["limit_remaining"].(float64) != 0 {
		t.Fatalf("over the limit: %d %v", rec.Code, key())
	}
	// Streams carry the header too, and are recorded as streamed.
	g2 := New(Options{Now: ck.now})
	rec = do(t, g2, "POST", "/api/v1/responses", DemoAPIKey, `{"model":"openai/gpt-4o-mini","input":"hi","stream":true}`)
	if rec.Header().Get("X-Generation-Id") == "" {
		t.Fatal("a stream without X-Generation-Id")
	}
	// A management key reads /key too.
	if k := do(t, g2, "GET", "/api/v1/key", DemoManagementKey, ""); k.Code != 200 || !strings.Contains(k.Body.String(), `"is_management_key":true`) {
		t.Fatalf("management /key: %d", k.Code)
	}
	if rec := do(t, g2, "GET", "/api/v1/generation", DemoAPIKey, ""); rec.Code != 400 {
		t.Fatalf("no id: %d", rec.Code)
	}
}

func TestCreateGetDeleteDestination(t *testing.T) {
	g := New(Options{})
	post := func(body string) (int, map[string]any, string) {
		rec := do(t, g, "POST", "/api/v1/observability/destinations", DemoManagementKey, body)
		var env struct {
			Data map[string]any `json:"data"`
		}
		json.Unmarshal(rec.Body.Bytes(), &env)
		return rec.Code, env.Data, rec.Body.String()
	}
	// Every type's required members are named when missing.
	for typ, spec := range typeSpecs {
		code, _, body := post(fmt.Sprintf(`{"type":%q,"name":"x","config":{}}`, typ))
		if code != 400 {
			t.Fatalf("%s without members: %d", typ, code)
		}
		for _, m := range spec.required {
			if !strings.Contains(body, "config."+m) {
				t.Fatalf("%s: the 400 does not name %s: %s", typ, m, body)
			}
		}
	}
	code, d, _ := post(`{"type":"langfuse","name":"new-lf","config":{"publicKey":"pk-lf-1","secretKey":"sk-lf-abcdefghijklmnop","baseUrl":"https://x"},"sampling_rate":0.5,"regions":["eu"],"enabled":true}`)
	if code != 201 || d["name"] != "new-lf" || d["sampling_rate"] != 0.5 || fmt.Sprint(d["regions"]) != "[europe]" || !strings.Contains(d["config"].(map[string]any)["secretKey"].(string), "...") {
		t.Fatalf("create: %d %v", code, d)
	}
	id := d["id"].(string)
	if rec := do(t, g, "GET", "/api/v1/observability/destinations/"+id, DemoManagementKey, ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "new-lf") {
		t.Fatalf("get: %d", rec.Code)
	}
	// At most five of a type per workspace.
	n := strings.Count(do(t, g, "GET", "/api/v1/observability/destinations?limit=100", DemoManagementKey, "").Body.String(), `"type":"langfuse"`)
	for i := n; i < maxPerType; i++ {
		if code, _, body := post(fmt.Sprintf(`{"type":"langfuse","name":"lf-%d","config":{"publicKey":"p","secretKey":"s"}}`, i)); code != 201 {
			t.Fatalf("create %d: %d %s", i+1, code, body)
		}
	}
	if code, _, body := post(`{"type":"langfuse","name":"sixth","config":{"publicKey":"p","secretKey":"s"}}`); code != 400 || !strings.Contains(body, "at most 5") {
		t.Fatalf("sixth: %d %s", code, body)
	}
	// Values some members must take; unknown types are generic.
	if code, _, _ := post(`{"type":"webhook","name":"w","config":{"url":"https://h","method":"GET"}}`); code != 400 {
		t.Fatalf("webhook GET: %d", code)
	}
	if code, _, _ := post(`{"type":"acme-traces","name":"future","config":{"collectorUrl":"https://a"}}`); code != 201 {
		t.Fatalf("future type: %d", code)
	}
	// Delete is soft: 404 afterwards and gone from the list.
	rec := do(t, g, "DELETE", "/api/v1/observability/destinations/"+id, DemoManagementKey, "")
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"deleted":true}` {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		if rec := do(t, g, m, "/api/v1/observability/destinations/"+id, DemoManagementKey, `{"enabled":true}`); rec.Code != 404 {
			t.Fatalf("%s after delete: %d", m, rec.Code)
		}
	}
	if strings.Contains(do(t, g, "GET", "/api/v1/observability/destinations?limit=100", DemoManagementKey, "").Body.String(), id) {
		t.Fatal("a deleted destination is still listed")
	}
	if rec := do(t, g, "POST", "/api/v1/observability/destinations", DemoAPIKey, `{}`); rec.Code != http.StatusForbidden {
		t.Fatalf("an API key cannot create: %d", rec.Code)
	}
}
