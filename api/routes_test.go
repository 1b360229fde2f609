package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func TestListAndDeleteBatches(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{PurgeAfter: time.Hour})
	page, err := c.ListBatches(ctx(t), api.BatchListOptions{Limit: 4})
	if err != nil || len(page.Data) != 4 || !page.HasMore || page.Data[0].Results != nil {
		t.Fatalf("page: %v %+v", err, page)
	}
	var ids []string
	for b, err := range c.AllBatches(ctx(t), api.BatchListOptions{Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
	}
	if len(ids) != 18 || len(srv.RequestsTo("GET", "/api/v1/batches")) < 4 {
		t.Fatalf("all: %d", len(ids))
	}
	for b, err := range c.AllBatches(ctx(t), api.BatchListOptions{Status: api.BatchFailed, Limit: 100}) {
		if err != nil || b.Status != api.BatchFailed {
			t.Fatalf("status filter: %v %s", err, b.Status)
		}
	}
	before := len(srv.Requests())
	if _, err := c.ListBatches(ctx(t), api.BatchListOptions{Limit: 101}); !api.IsValidation(err) {
		t.Fatalf("limit 101: %v", err)
	}
	if _, err := c.ListBatches(ctx(t), api.BatchListOptions{Status: "done"}); !api.IsValidation(err) {
		t.Fatalf("status done: %v", err)
	}
	if len(srv.Requests()) != before {
		t.Fatal("refused options were sent")
	}
	// Delete: 409 in flight (said why, not retried), then a settled one.
	err = c.DeleteBatch(ctx(t), srv.SeedID(gateway.SeedValidating))
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 409 || len(srv.RequestsTo("DELETE", "/api/v1/batches/")) != 1 {
		t.Fatalf("in flight: %v", err)
	}
	if err := c.DeleteBatch(ctx(t), srv.SeedID(gateway.SeedChat)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetBatch(ctx(t), srv.SeedID(gateway.SeedChat)); api.StatusOf(err) != 404 {
		t.Fatalf("deleted: %v", err)
	}
	if err := c.DeleteBatch(ctx(t), "batch-0-none"); api.StatusOf(err) != 404 {
		t.Fatalf("unknown: %v", err)
	}

	// A server without listing: not offered, not a failure.
	_, c2 := startGateway(t, gateway.Options{NoBatchList: true})
	if _, err := c2.ListBatches(ctx(t), api.BatchListOptions{}); !api.IsNotOffered(err) {
		t.Fatalf("no listing: %v", err)
	}
	// A server whose cursor goes nowhere: the walk stops and says so.
	stuck, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"a","object":"batch","status":"completed"}],"last_id":"a","has_more":true}`)
	})
	var stop *api.PagingStoppedError
	for _, err := range newClient(t, stuck.URL, "k", "").AllBatches(ctx(t), api.BatchListOptions{}) {
		if err != nil && !errors.As(err, &stop) {
			t.Fatal(err)
		}
	}
	if stop == nil || n.Load() > 3 {
		t.Fatalf("a cursor that goes nowhere must stop the walk: %v after %d requests", stop, n.Load())
	}
}

func TestModelsCatalogueAndCache(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	cat, err := c.Models(ctx(t))
	if err != nil || len(cat.Data) < 30 {
		t.Fatalf("%v %d", err, len(cat.Data))
	}
	if got := srv.RequestsTo("GET", "/api/v1/models"); got[0].Key != "none" {
		t.Fatalf("the catalogue is read without a key: %s", got[0].Key)
	}
	mini := cat.Find("openai/gpt-4o-mini")
	if p := mini.PriceOf("prompt"); !p.Known || p.PerMillion < 0.1499 || p.PerMillion > 0.1501 || mini.Free() || mini.Router() || !mini.Supports("temperature") {
		t.Fatalf("mini: %+v", p)
	}
	if !cat.Find("meta-llama/llama-3.3-70b-instruct:free").Free() || !cat.Find("openrouter/auto").Router() {
		t.Fatal("free and router models")
	}
	if e := api.EstimateCost(mini, strings.Repeat("x", 4000), 1000); e.InputTokens != 1000 || !e.InputKnown || !e.MaxOutputKnown || e.MaxOutput < 0.00059 || e.MaxOutput > 0.00061 {
		t.Fatalf("estimate: %+v", e)
	}
	temp := 0.5
	if u := api.Unsupported(cat.Find("openai/o4-mini"), &api.ResponseRequest{Temperature: &temp}); len(u) != 1 || u[0] != "temperature" {
		t.Fatalf("unsupported: %v", u)
	}
	// The cache: a second read within the hour does not ask the server.
	path := filepath.Join(t.TempDir(), "models.json")
	if _, err := c.CachedModels(ctx(t), path, false); err != nil {
		t.Fatal(err)
	}
	n := len(srv.RequestsTo("GET", "/api/v1/models"))
	if _, err := c.CachedModels(ctx(t), path, false); err != nil || len(srv.RequestsTo("GET", "/api/v1/models")) != n {
		t.Fatalf("cache not used: %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("cache mode %v", st.Mode())
	}
	if _, err := c.CachedModels(ctx(t), path, true); err != nil || len(srv.RequestsTo("GET", "/api/v1/models")) != n+1 {
		t.Fatalf("refresh: %v", err)
	}
	// Without the route: not offered.
	bare, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	if _, err := newClient(t, bare.URL, "k", "").Models(ctx(t)); !api.IsNotOffered(err) {
		t.Fatalf("no catalogue: %v", err)
	}
}

func TestKeyAndGeneration(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{GenerationDelay: 300 * time.Millisecond, KeyLimit: 10})
	k, _, err := c.Key(ctx(t))
	if err != nil || k.Limit == nil || *k.Limit != 10 || k.Usage != 0 {
		t.Fatalf("key: %v %+v", err, k)
	}
	s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "hello"}, Model: "openai/gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(t, s); err != io.EOF {
		t.Fatal(err)
	}
	gen := s.Outcome().GenerationID
	if !strings.HasPrefix(gen, "gen-") {
		t.Fatalf("generation id %q", gen)
	}
	real, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
	g, err := real.WaitGeneration(ctx(t), gen)
	if err != nil || g.ID != gen || g.ProviderName == nil || *g.ProviderName != "OpenAI" || g.TotalCost == nil || *g.Streamed != true {
		t.Fatalf("record: %v %+v", err, g)
	}
	if k2, _, _ := c.Key(ctx(t)); k2.Usage <= k.Usage {
		t.Fatal("usage did not grow")
	}
	// Plain answers carry the id too.
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "openai/gpt-4o-mini"})
	if err != nil || r.GenerationID == "" || api.OutcomeOf("m", r, nil, time.Now(), time.Now()).GenerationID != r.GenerationID {
		t.Fatalf("plain: %v", err)
	}
	// A server without records: the wait gives up, bounded.
	bare, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"code":404,"message":"nope"}}`)
	})
	rec := &sleepRecorder{}
	bc, _ := api.New(api.Options{BaseURL: bare.URL, APIKey: "k", Sleep: rec.sleep})
	if _, err := bc.WaitGeneration(ctx(t), "gen-x"); !api.IsNotOffered(err) || n.Load() > 20 || len(rec.all()) == 0 {
		t.Fatalf("no records: %v after %d tries", err, n.Load())
	}
	if _, _, err := bc.Key(ctx(t)); !api.IsNotOffered(err) {
		t.Fatalf("no /key: %v", err)
	}
}

func TestCreateGetDeleteDestination(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	// Every known type: the missing required members are all named, and
	// nothing is sent.
	before := len(srv.Requests())
	for _, spec := range api.DestinationTypeSpecs {
		err := api.DestinationCreate{Type: spec.Name, Name: "x"}.Validate()
		var fe api.FieldErrors
		if !errors.As(err, &fe) || len(fe) != len(spec.Required) {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		for _, m := range spec.Required {
			if fe.Field("config."+m) == nil {
				t.Fatalf("%s: %s not named in %v", spec.Name, m, err)
			}
		}
		if _, err := c.CreateDestination(ctx(t), api.DestinationCreate{Type: spec.Name, Name: "x"}); !api.IsValidation(err) {
			t.Fatalf("%s sent: %v", spec.Name, err)
		}
	}
	if len(srv.Requests()) != before {
		t.Fatal("refused creates were sent")
	}
	on := true
	d, err := c.CreateDestination(ctx(t), api.DestinationCreate{Type: "webhook", Name: "hook", Config: map[string]any{"url": "https://h.example/x", "method": "PUT"}, Enabled: &on})
	if err != nil || d.Name == nil || *d.Name != "hook" || !d.Enabled || d.ID == "" {
		t.Fatalf("create: %v %+v", err, d)
	}
	got, err := c.GetDestination(ctx(t), d.ID)
	if err != nil || got.ID != d.ID || len(api.DiffDestinations(d, got)) != 0 {
		t.Fatalf("get: %v %v", err, api.DiffDestinations(d, got))
	}
	// Someone else edits it: the diff shows the fields and updated_at.
	srv.EditDestination(d.ID, func(name *string, rate *float64) { *name, *rate = "theirs", 0.5 })
	now, _ := c.GetDestination(ctx(t), d.ID)
	fields := fmt.Sprint(api.DiffDestinations(got, now))
	if !strings.Contains(fields, "name hook theirs") || !strings.Contains(fields, "sampling_rate 1 0.5") || !strings.Contains(fields, "updated_at") {
		t.Fatalf("diff: %s", fields)
	}
	if err := c.DeleteDestination(ctx(t), d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetDestination(ctx(t), d.ID); api.StatusOf(err) != 404 {
		t.Fatalf("after delete: %v", err)
	}
	if err := c.DeleteDestination(ctx(t), d.ID); api.StatusOf(err) != 404 {
		t.Fatalf("delete twice: %v", err)
	}
	// The sixth of a type is refused by the server.
	var lastErr error
	for i := 0; i < 6; i++ {
		_, lastErr = c.CreateDestination(ctx(t), api.DestinationCreate{Type: "sentry", Name: fmt.Sprint("s", i), Config: map[string]any{"dsn": "https://k@o.example/1", "otlpEndpoint": "https://o.example"}})
	}
	var ae *api.APIError
	if !errors.As(lastErr, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "at most 5") {
		t.Fatalf("sixth: %v", lastErr)
	}
	// No management key: refused before sending.
	if _, err := newClient(t, srv.URL, gateway.DemoAPIKey, "").GetDestination(ctx(t), d.ID); err == nil || !strings.Contains(err.Error(), "management key") {
		t.Fatalf("no management key: %v", err)
	}
}

func TestParsersShared(t *testing.T) {
	for in, want := range map[string]float64{"0.25": 0.25, "25%": 0.25, " 1 ": 1, "0.01%": 0.0001} {
		if got, err := api.ParseSamplingRate(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"2", "0", "x", "200%"} {
		if _, err := api.ParseSamplingRate(bad); !api.IsValidation(err) {
			t.Errorf("%q accepted", bad)
		}
	}
	if rs, err := api.ParseRegions("EU, us"); err != nil || fmt.Sprint(rs) != "[eu us]" {
		t.Fatalf("regions %v %v", rs, err)
	}
	if _, err := api.ParseRegions("asia"); !api.IsValidation(err) {
		t.Fatal("asia")
	}
	if md, err := api.ParseMetadata([]string{"a=1, b=2", "c=3"}); err != nil || len(md) != 3 {
		t.Fatalf("metadata %v %v", md, err)
	}
	if v, err := api.ParseMemberValue("headers", `{"X":"1"}`, map[string]any{}); err != nil || fmt.Sprint(v) != "map[X:1]" {
		t.Fatalf("member %v %v", v, err)
	}
	if _, err := api.ParseMemberValue("headers", `{`, map[string]any{}); !api.IsValidation(err) {
		t.Fatal("bad JSON accepted")
	}
	_ = context.Background
}

// A 404 blames the id, unless the server answers 404 everywhere.
func TestExplain404(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	_, err := c.GetBatch(ctx(t), "batch-0-typo")
	err = c.Explain404(ctx(t), err)
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Everywhere || !strings.Contains(ae.Hint(), "no batch has that id") {
		t.Fatalf("a real 404: %v / %q", err, ae.Hint())
	}
	wrong := newClient(t, strings.TrimSuffix(srv.URL, "/api/v1")+"/api/v2", gateway.DemoAPIKey, gateway.DemoManagementKey)
	_, err = wrong.GetBatch(ctx(t), srv.SeedID(gateway.SeedChat))
	err = wrong.Explain404(ctx(t), err)
	if !errors.As(err, &ae) || !ae.Everywhere || !strings.Contains(ae.Hint(), "check the base URL") || strings.Contains(ae.Hint(), "no batch") {
		t.Fatalf("a wrong base URL: %v / %q", err, ae.Hint())
	}
	_, err = wrong.ListDestinations(ctx(t), api.ListOptions{})
	if !strings.Contains(fmt.Sprint(err), "404") || !strings.Contains(asHint(err), "base URL") {
		t.Fatalf("a collection route 404s: %q", asHint(err))
	}
}

func asHint(err error) string {
	var ae *api.APIError
	if errors.As(err, &ae) {
		return ae.Hint()
	}
	return ""
}
