package api_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func TestListAndIterateDestinations(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	page, err := c.ListDestinations(ctx(t), api.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 10 || page.TotalCount <= 10 {
		t.Fatalf("page: %d of %d", len(page.Data), page.TotalCount)
	}
	for _, d := range page.Data {
		if !api.IsUUID(d.ID) || d.WorkspaceID != gateway.DefaultWorkspace || len(d.Regions) == 0 || d.Config == nil {
			t.Fatalf("destination %+v", d)
		}
		for k, v := range d.Config {
			if s, ok := v.(string); ok && api.IsSecretMember(k) && k != "publicKey" && k != "accessKeyId" && !api.IsMasked(s) {
				t.Fatalf("secret %s not masked: %q", k, s)
			}
		}
		if d.Type == "future-tracer" {
			t.Fatalf("non-stable types must not be listed")
		}
	}
	seen := map[string]bool{}
	for d, err := range c.AllDestinations(ctx(t), "", 7) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[d.ID] {
			t.Fatalf("%s yielded twice", d.ID)
		}
		seen[d.ID] = true
	}
	if len(seen) != page.TotalCount {
		t.Fatalf("iterated %d of %d", len(seen), page.TotalCount)
	}
	gets := srv.RequestsTo("GET", "/api/v1/observability/destinations")
	if len(gets) != 1+(page.TotalCount+6)/7 || gets[1].Key != "management" {
		t.Fatalf("%d list requests", len(gets))
	}
	// The second workspace.
	p2, err := c.ListDestinations(ctx(t), api.ListOptions{WorkspaceID: gateway.SecondWorkspace, Limit: 100})
	if err != nil || p2.TotalCount == 0 || p2.Data[0].WorkspaceID != gateway.SecondWorkspace {
		t.Fatalf("second workspace: %v", err)
	}
}

func TestIterateCopesWithChangingTotal(t *testing.T) {
	// Page 1 says 4 in all; by page 2 a destination was inserted at the
	// front, so page 2 repeats one and the total is 5.
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		ids := []string{"a", "b", "c", "d"}
		if off > 0 {
			ids = []string{"n", "a", "b", "c", "d"}
		}
		var data []string
		for i := off; i < len(ids) && i < off+2; i++ {
			data = append(data, fmt.Sprintf(`{"id":%q,"regions":["global"],"config":{}}`, ids[i]))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":[%s],"total_count":%d}`, strings.Join(data, ","), len(ids))
	})
	c := newClient(t, srv.URL, "k", "m")
	var got []string
	var changed *api.ListChangedError
	for d, err := range c.AllDestinations(ctx(t), "", 2) {
		if err != nil {
			if !errors.As(err, &changed) {
				t.Fatal(err)
			}
			continue
		}
		got = append(got, d.ID)
	}
	if strings.Join(got, "") != "abcd" {
		t.Fatalf("got %v: each destination once", got)
	}
	// "n" was never seen: the walk says so instead of losing it silently.
	if changed == nil || changed.Before != 4 || changed.After != 5 || !strings.Contains(changed.Error(), "the list changed while loading") {
		t.Fatalf("a list that changed while paging must be reported: %v", changed)
	}
}

func TestListValidation(t *testing.T) {
	srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[],"total_count":0}`))
	})
	c := newClient(t, srv.URL, "k", "m")
	for _, tc := range []struct {
		o     api.ListOptions
		field string
	}{
		{api.ListOptions{Limit: 1}, ""}, {api.ListOptions{Limit: 100}, ""}, {api.ListOptions{Offset: 0}, ""},
		{api.ListOptions{Limit: 101}, "limit"}, {api.ListOptions{Limit: -1}, "limit"}, {api.ListOptions{Offset: -1}, "offset"},
		{api.ListOptions{WorkspaceID: "nope"}, "workspace_id"},
	} {
		before := n.Load()
		_, err := c.ListDestinations(ctx(t), tc.o)
		var ve *api.ValidationError
		if tc.field == "" && (err != nil || n.Load() != before+1) {
			t.Fatalf("%+v refused: %v", tc.o, err)
		}
		if tc.field != "" && (!errors.As(err, &ve) || ve.Field != tc.field || n.Load() != before) {
			t.Fatalf("%+v: %v", tc.o, err)
		}
	}
}

func TestUpdateDestinationSendsOnlyChanges(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	page, _ := c.ListDestinations(ctx(t), api.ListOptions{Limit: 100})
	var lf api.Destination
	for _, d := range page.Data {
		if d.Type == "langfuse" && d.DisplayName() != gateway.ConflictDestination {
			lf = d
			break
		}
	}
	secretBefore := srv.DestinationSecret(lf.ID, "secretKey")
	p := api.DestinationPatch{
		SamplingRate: ptr(0.25),
		Regions:      []string{"eu", "us"},
		APIKeyHashes: api.Null[[]string](),
		Config:       map[string]any{"secretKey": lf.Config["secretKey"], "baseUrl": "https://eu.langfuse.example"},
	}
	got, err := c.UpdateDestination(ctx(t), lf.ID, p)
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.RequestsTo("PATCH", "/api/v1/observability/destinations/")
	var body map[string]json.RawMessage
	json.Unmarshal(sent[len(sent)-1].Body, &body)
	if len(body) != 4 || string(body["sampling_rate"]) != "0.25" || string(body["regions"]) != `["eu","us"]` || string(body["api_key_hashes"]) != "null" {
		t.Fatalf("PATCH body %s", sent[len(sent)-1].Body)
	}
	if string(body["config"]) != `{"baseUrl":"https://eu.langfuse.example"}` {
		t.Fatalf("a masked value was sent: %s", body["config"])
	}
	if got.SamplingRate != 0.25 || fmt.Sprint(got.Regions) != "[europe us]" || got.APIKeyHashes != nil || got.Config["baseUrl"] != "https://eu.langfuse.example" {
		t.Fatalf("updated %+v", got)
	}
	if srv.DestinationSecret(lf.ID, "secretKey") != secretBefore {
		t.Fatalf("the secret changed without a new value")
	}
	// A new secret is sent and stored.
	if _, err := c.UpdateDestination(ctx(t), lf.ID, api.DestinationPatch{Config: map[string]any{"secretKey": "sk-lf-new-value-123456"}}); err != nil {
		t.Fatal(err)
	}
	if srv.DestinationSecret(lf.ID, "secretKey") != "sk-lf-new-value-123456" {
		t.Fatalf("new secret not stored")
	}
	// Omitted keeps; a value sets; null clears filter rules.
	rules := &api.FilterRules{Enabled: true, Groups: []api.FilterGroup{{Logic: "or", Rules: []api.FilterRule{{Field: "model", Operator: "equals", Value: "a/b"}}}}}
	got, err = c.UpdateDestination(ctx(t), lf.ID, api.DestinationPatch{FilterRules: api.Value(rules), Enabled: ptr(false)})
	if err != nil || got.FilterRules == nil || got.Enabled || got.SamplingRate != 0.25 {
		t.Fatalf("filter set: %+v %v", got, err)
	}
	got, err = c.UpdateDestination(ctx(t), lf.ID, api.DestinationPatch{FilterRules: api.Null[*api.FilterRules]()})
	if err != nil || got.FilterRules != nil {
		t.Fatalf("filter cleared: %v", err)
	}
}

func TestUpdateDestinationValidation(t *testing.T) {
	srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"id":"x","regions":["global"]}}`))
	})
	c := newClient(t, srv.URL, "k", "m")
	cases := []struct {
		name  string
		p     api.DestinationPatch
		field string
	}{
		{"rate min", api.DestinationPatch{SamplingRate: ptr(0.0001)}, ""},
		{"rate max", api.DestinationPatch{SamplingRate: ptr(1.0)}, ""},
		{"rate low", api.DestinationPatch{SamplingRate: ptr(0.00009)}, "sampling_rate"},
		{"rate high", api.DestinationPatch{SamplingRate: ptr(1.0001)}, "sampling_rate"},
		{"regions eu", api.DestinationPatch{Regions: []string{"eu"}}, ""},
		{"regions empty", api.DestinationPatch{Regions: []string{}}, "regions"},
		{"regions bad", api.DestinationPatch{Regions: []string{"asia"}}, "regions"},
		{"hashes one", api.DestinationPatch{APIKeyHashes: api.Value([]string{"h"})}, ""},
		{"hashes empty", api.DestinationPatch{APIKeyHashes: api.Value([]string{})}, "api_key_hashes"},
		{"rule op", api.DestinationPatch{FilterRules: api.Value(&api.FilterRules{Groups: []api.FilterGroup{{Logic: "and", Rules: []api.FilterRule{{Field: "model", Operator: "like"}}}}})}, "filter_rules.groups[0].rules[0].operator"},
		{"nothing", api.DestinationPatch{}, "patch"},
		{"only masked", api.DestinationPatch{Config: map[string]any{"apiKey": "abc...wxyz"}}, "patch"},
	}
	for _, tc := range cases {
		before := n.Load()
		_, err := c.UpdateDestination(ctx(t), "x", tc.p)
		var ve *api.ValidationError
		if tc.field == "" {
			if err != nil || n.Load() != before+1 {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else if !errors.As(err, &ve) || ve.Field != tc.field || n.Load() != before {
			t.Errorf("%s: want %s refused, got %v", tc.name, tc.field, err)
		}
	}
}

func TestDestinationErrorRows(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	cx := ctx(t)
	// 409 once, retried.
	id := srv.DestinationID(gateway.ConflictDestination)
	d, err := c.UpdateDestination(cx, id, api.DestinationPatch{Enabled: ptr(false)})
	if err != nil || d.Enabled || len(srv.RequestsTo("PATCH", "/api/v1/observability/destinations/"+id)) != 2 {
		t.Fatalf("409 retry: %v", err)
	}
	// 500 is not retried (the PATCH may have applied).
	bid := srv.DestinationID(gateway.BrokenDestination)
	if _, err := c.UpdateDestination(cx, bid, api.DestinationPatch{Enabled: ptr(true)}); api.StatusOf(err) != 500 || len(srv.RequestsTo("PATCH", "/api/v1/observability/destinations/"+bid)) != 1 {
		t.Fatalf("500: %v", err)
	}
	// 404
	if _, err := c.UpdateDestination(cx, "11111111-2222-4333-8444-555555555555", api.DestinationPatch{Enabled: ptr(true)}); api.StatusOf(err) != 404 {
		t.Fatalf("404: %v", err)
	}
	// Without a management key the client refuses before sending: the API
	// key never goes to a destination endpoint.
	normal := newClient(t, srv.URL, gateway.DemoAPIKey, "")
	before := len(srv.Requests())
	_, err = normal.UpdateDestination(cx, id, api.DestinationPatch{Enabled: ptr(true)})
	var mk *api.MissingKeyError
	if !errors.As(err, &mk) || !strings.Contains(err.Error(), "management key") {
		t.Fatalf("no management key: %v", err)
	}
	if _, err := normal.ListDestinations(cx, api.ListOptions{}); !errors.As(err, &mk) {
		t.Fatalf("no management key, list: %v", err)
	}
	if len(srv.Requests()) != before {
		t.Fatalf("a request was sent without a management key")
	}
	// The gateway's own rows: 403 for a normal key, 401 with a wrong one.
	_, err = newClient(t, srv.URL, "", gateway.DemoAPIKey).UpdateDestination(cx, id, api.DestinationPatch{Enabled: ptr(true)})
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 403 || !strings.Contains(ae.Message, "Only management keys") {
		t.Fatalf("403: %v", err)
	}
	if _, err := newClient(t, srv.URL, "", gateway.DemoAPIKey).ListDestinations(cx, api.ListOptions{}); api.StatusOf(err) != 403 {
		t.Fatalf("403 list: %v", err)
	}
	if _, err := newClient(t, srv.URL, "", "wrong-mgmt-key").ListDestinations(cx, api.ListOptions{}); api.StatusOf(err) != 401 {
		t.Fatalf("401: %v", err)
	}
	// 500 on list.
	if _, err := c.ListDestinations(cx, api.ListOptions{WorkspaceID: gateway.BrokenWorkspace}); api.StatusOf(err) != 500 {
		t.Fatalf("list 500: %v", err)
	}
	// 400s straight from the gateway for what the client would refuse.
	for _, tc := range []struct{ method, path, body, want string }{
		{"GET", "/observability/destinations?limit=0", "", "limit"},
		{"GET", "/observability/destinations?offset=-1", "", "offset"},
		{"GET", "/observability/destinations?workspace_id=x", "", "workspace_id"},
		{"PATCH", "/observability/destinations/" + id, `{"sampling_rate":2}`, "sampling_rate"},
		{"PATCH", "/observability/destinations/" + id, `{"regions":[]}`, "regions"},
		{"PATCH", "/observability/destinations/" + id, `{"api_key_hashes":[]}`, "api_key_hashes"},
		{"PATCH", "/observability/destinations/" + id, `{"colour":"red"}`, "colour"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+gateway.DemoManagementKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if resp.StatusCode != 400 || env.Error.Code != 400 || !strings.Contains(env.Error.Message, tc.want) || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s %s: %d %+v", tc.method, tc.path, resp.StatusCode, env)
		}
	}
}

func TestKeysRoutedAndNeverShown(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	cx := ctx(t)
	c.GetBatch(cx, srv.SeedID(gateway.SeedChat))
	c.CreateResponse(cx, api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
	c.ListDestinations(cx, api.ListOptions{})
	for _, r := range srv.Requests() {
		want := "api"
		if strings.Contains(r.Path, "/observability/") {
			want = "management"
		}
		if r.Key != want {
			t.Fatalf("%s %s authenticated with %s, want %s", r.Method, r.Path, r.Key, want)
		}
	}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v", c, c, c), fmt.Sprintf("%+v", *c)} {
		if strings.Contains(s, gateway.DemoAPIKey) || strings.Contains(s, gateway.DemoManagementKey) {
			t.Fatalf("client formatting shows a key: %s", s)
		}
	}
}

func TestRedirectToAnotherHostIsNotFollowed(t *testing.T) {
	var sawAuth string
	other, hits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { sawAuth = r.Header.Get("Authorization") })
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	})
	c := newClient(t, srv.URL, "very-secret-key", "")
	_, err := c.GetBatch(ctx(t), "b")
	var re *api.RedirectError
	if !errors.As(err, &re) || hits.Load() != 0 || sawAuth != "" || strings.Contains(err.Error(), "very-secret-key") {
		t.Fatalf("redirect: %v (hits %d)", err, hits.Load())
	}
}

func TestErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		want              []string
	}{
		{"html", "text/html", "<html><h1>502 Bad Gateway</h1></html>", 502, []string{"HTTP 502", "text/html", "502 Bad Gateway"}},
		{"empty", "", "", 503, []string{"HTTP 503", "empty body"}},
		{"truncated", "application/json", `{"error":{"code":500,"mess`, 500, []string{"HTTP 500"}},
		{"string code", "application/json", `{"error":{"code":"rate_limited","message":"slow","metadata":{"raw":"x"}}}`, 429, []string{"HTTP 429 (rate_limited): slow"}},
	} {
		srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.ctype != "" {
				w.Header().Set("Content-Type", tc.ctype)
			}
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		})
		_, err := newClient(t, srv.URL, "k", "").GetBatch(ctx(t), "b")
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v lacks %q", tc.name, err, w)
			}
		}
	}
	// A 200 with a truncated or mistyped body is a decode error.
	for _, body := range []string{`{"id":"b","status":`, `{"id":5}`, ``} {
		srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) })
		_, err := newClient(t, srv.URL, "k", "").GetBatch(ctx(t), "b")
		var de *api.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%q: want decode error, got %v", body, err)
		}
	}
}
