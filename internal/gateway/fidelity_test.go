package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

// sdkMember is one line of testdata/sdk-required.txt.
type sdkMember struct {
	line     int
	path     []string // "data[]" iterates an array
	optional bool
	types    []string
}

// readSDKTable reads the table of members the SDK requires, per route.
func readSDKTable(t *testing.T) map[string][]sdkMember {
	t.Helper()
	f, err := os.Open("testdata/sdk-required.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]sdkMember{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 4 {
			t.Fatalf("sdk-required.txt:%d: want route (two words), path, types: %q", n, line)
		}
		route, path, types := fs[0]+" "+fs[1], fs[2], fs[3]
		m := sdkMember{line: n, types: strings.Split(types, "|")}
		path, m.optional = strings.CutSuffix(path, "?")
		m.path = strings.Split(path, ".")
		out[route] = append(out[route], m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var decimalString = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// typeOK reports whether a decoded JSON value has one of the types.
func typeOK(v any, types []string) bool {
	for _, ty := range types {
		switch {
		case ty == "null" && v == nil:
			return true
		case ty == "string" || ty == "decimal" || strings.HasPrefix(ty, "enum("):
			s, ok := v.(string)
			if !ok {
				continue
			}
			switch {
			case ty == "string":
				return true
			case ty == "decimal":
				if decimalString.MatchString(s) && significantDigits(s) <= 8 {
					return true
				}
			default:
				if slices.Contains(strings.Split(strings.TrimSuffix(strings.TrimPrefix(ty, "enum("), ")"), ","), s) {
					return true
				}
			}
		case ty == "number":
			if _, ok := v.(json.Number); ok {
				return true
			}
		case ty == "integer":
			if n, ok := v.(json.Number); ok {
				if _, err := n.Int64(); err == nil {
					return true
				}
			}
		case ty == "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case ty == "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case ty == "array":
			if _, ok := v.([]any); ok {
				return true
			}
		}
	}
	return false
}

// significantDigits counts the digits of a decimal string from its first
// non-zero one.
func significantDigits(s string) int {
	s = strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", ""), "0")
	return len(s)
}

// checkMember walks one member path through an answer and reports every
// place where it is missing or of another type.
func checkMember(v any, m sdkMember, path []string, at string, errs *[]string) {
	seg := path[0]
	name, each := strings.CutSuffix(seg, "[]")
	obj, ok := v.(map[string]any)
	if !ok {
		*errs = append(*errs, fmt.Sprintf("%s: not an object", at))
		return
	}
	child, present := obj[name]
	where := strings.TrimPrefix(at+"."+name, ".")
	if !present {
		if !(m.optional && len(path) == 1) {
			*errs = append(*errs, fmt.Sprintf("line %d: %s is missing", m.line, where))
		}
		return
	}
	if each {
		arr, ok := child.([]any)
		if !ok {
			if child != nil {
				*errs = append(*errs, fmt.Sprintf("line %d: %s is not an array", m.line, where))
			}
			return
		}
		for i, el := range arr {
			at := fmt.Sprintf("%s[%d]", where, i)
			if len(path) == 1 {
				if !typeOK(el, m.types) {
					*errs = append(*errs, fmt.Sprintf("line %d: %s is %s, want %s", m.line, at, show(el), strings.Join(m.types, "|")))
				}
				continue
			}
			if el != nil {
				checkMember(el, m, path[1:], at, errs)
			}
		}
		return
	}
	if len(path) == 1 {
		if !typeOK(child, m.types) {
			*errs = append(*errs, fmt.Sprintf("line %d: %s is %s, want %s", m.line, where, show(child), strings.Join(m.types, "|")))
		}
		return
	}
	if child != nil {
		checkMember(child, m, path[1:], where, errs)
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// getJSON fetches a route over HTTP and decodes it with numbers kept as
// written.
func getJSON(t *testing.T, srv *Server, path, key string) any {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// respond makes one answer and returns its generation id.
func respond(t *testing.T, srv *Server, model string, hdr ...string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/responses", strings.NewReader(`{"model":`+show(model)+`,"input":"hello there","user":"user-42","service_tier":"auto"}`))
	req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /responses %s: %d", model, resp.StatusCode)
	}
	return resp.Header.Get("X-Generation-Id")
}

// TestSDKRequiredMembers compares, route by route, answers of the gateway
// with the members the official SDK requires (testdata/sdk-required.txt):
// a member that goes missing or changes type fails here.
func TestSDKRequiredMembers(t *testing.T) {
	table := readSDKTable(t)
	for _, route := range []string{"GET /models", "GET /key", "GET /credits", "GET /generation"} {
		if len(table[route]) == 0 {
			t.Fatalf("the table has no members for %s", route)
		}
	}
	srv, err := Start("", Options{GenerationDelay: time.Nanosecond, KeyLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var gens []string
	for _, m := range []string{"openai/gpt-4o-mini", "openrouter/auto", "google/gemma-3-27b-it:free"} {
		gens = append(gens, respond(t, srv, m, "HTTP-Referer", "https://app.example/chat", "User-Agent", "gwdash-test/1"))
	}
	answers := map[string][]any{
		"GET /models": {getJSON(t, srv, "/models", ""), getJSON(t, srv, "/models?output_modalities=all", ""),
			getJSON(t, srv, "/models?limit=3&offset=2", "")},
		"GET /key":     {getJSON(t, srv, "/key", DemoAPIKey), getJSON(t, srv, "/key", DemoManagementKey)},
		"GET /credits": {getJSON(t, srv, "/credits", DemoManagementKey)},
	}
	for _, id := range gens {
		waitFor(t, func() bool {
			req, _ := http.NewRequest("GET", srv.URL+"/generation?id="+url.QueryEscape(id), nil)
			req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == 200
		})
		v := getJSON(t, srv, "/generation?id="+url.QueryEscape(id), DemoAPIKey)
		answers["GET /generation"] = append(answers["GET /generation"], v)
	}
	for route, members := range table {
		as, ok := answers[route]
		if !ok {
			t.Errorf("the table lists %s, which this test does not fetch", route)
			continue
		}
		for i, a := range as {
			var errs []string
			for _, m := range members {
				checkMember(a, m, m.path, "", &errs)
			}
			for _, e := range errs {
				t.Errorf("%s (answer %d): %s", route, i, e)
			}
		}
	}
}

// waitFor polls cond (no clock: a bounded number of tries, each a request).
func waitFor(t *testing.T, cond func() bool) bool {
	t.Helper()
	for range 10000 {
		if cond() {
			return true
		}
	}
	t.Fatal("condition never held")
	return false
}

// TestSDKTableCatchesDrift proves the check can fail: an answer without a
// required member, or with a price of float residue, is reported.
func TestSDKTableCatchesDrift(t *testing.T) {
	table := readSDKTable(t)
	var bad any
	dec := json.NewDecoder(strings.NewReader(`{"data":[{"id":"a/b","canonical_slug":"a/b","name":"B","created":1,"context_length":null,
		"architecture":{"input_modalities":["text"],"output_modalities":["text"],"modality":null,"tokenizer":null},
		"pricing":{"prompt":"0.00000040000000000000003","completion":"0"},"top_provider":{"is_moderated":false},
		"per_request_limits":{"prompt_tokens":"32000","completion_tokens":4096},"supported_parameters":[],"default_parameters":null,
		"supported_voices":null,"links":{"details":"x"}}],"links":{"next":null}}`))
	dec.UseNumber()
	if err := dec.Decode(&bad); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, m := range table["GET /models"] {
		checkMember(bad, m, m.path, "", &errs)
	}
	joined := strings.Join(errs, "\n")
	for _, want := range []string{"total_count is missing", "tokenizer is null", "pricing.prompt is \"0.00000040000000000000003\"", "prompt_tokens is \"32000\""} {
		if !strings.Contains(joined, want) {
			t.Errorf("drift not reported: %q in\n%s", want, joined)
		}
	}
	if len(errs) != 4 {
		t.Errorf("want exactly 4 findings, got:\n%s", joined)
	}
}

// TestModelsQuery: offset and limit page the list (links.next and
// total_count true to them), the filters keep what they say, and the
// default list holds text-output models only.
func TestModelsQuery(t *testing.T) {
	srv, err := Start("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	type row struct {
		ID           string `json:"id"`
		Architecture struct {
			In  []string `json:"input_modalities"`
			Out []string `json:"output_modalities"`
		} `json:"architecture"`
		Context int      `json:"context_length"`
		Params  []string `json:"supported_parameters"`
	}
	type page struct {
		Data  []row `json:"data"`
		Links struct {
			Next *string `json:"next"`
		} `json:"links"`
		Total int `json:"total_count"`
	}
	get := func(q string) page {
		t.Helper()
		resp, err := http.Get(srv.URL + "/models" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p page
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s: %d %s", q, resp.StatusCode, b)
		}
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := get("")
	if all.Total != len(all.Data) || all.Links.Next != nil || len(all.Data) < 30 {
		t.Fatalf("default list: %d models, total %d, next %v", len(all.Data), all.Total, all.Links.Next)
	}
	for _, m := range all.Data {
		if !slices.Contains(m.Architecture.Out, "text") || strings.Contains(m.ID, "embedding") {
			t.Fatalf("the default list holds %s (outputs %v)", m.ID, m.Architecture.Out)
		}
	}
	every := get("?output_modalities=all")
	if every.Total != len(catalogue) || every.Total <= all.Total {
		t.Fatalf("output_modalities=all: %d of %d", every.Total, len(catalogue))
	}
	emb := get("?output_modalities=embeddings")
	if len(emb.Data) != 1 || emb.Data[0].ID != "openai/text-embedding-3-small" {
		t.Fatalf("embeddings: %+v", emb.Data)
	}

	// An SDK-style pager: follow links.next until null; every model once,
	// in order, and total_count the same on every page.
	var paged []string
	next := srv.URL + "/models?limit=7"
	for pages := 0; next != ""; pages++ {
		if pages > 20 {
			t.Fatal("the pager does not end")
		}
		p := get(strings.TrimPrefix(next, srv.URL+"/models"))
		if p.Total != all.Total || len(p.Data) > 7 {
			t.Fatalf("page %d: %d models, total %d", pages, len(p.Data), p.Total)
		}
		for _, m := range p.Data {
			paged = append(paged, m.ID)
		}
		next = ""
		if p.Links.Next != nil {
			next = *p.Links.Next
		}
	}
	var want []string
	for _, m := range all.Data {
		want = append(want, m.ID)
	}
	if !slices.Equal(paged, want) {
		t.Fatalf("paged %v\nwant %v", paged, want)
	}
	if p := get("?offset=1000&limit=5"); len(p.Data) != 0 || p.Total != all.Total || p.Links.Next != nil {
		t.Fatalf("past the end: %+v", p)
	}

	// Filters.
	for _, m := range get("?input_modalities=image,file").Data {
		if !slices.Contains(m.Architecture.In, "image") || !slices.Contains(m.Architecture.In, "file") {
			t.Fatalf("input_modalities let %s through", m.ID)
		}
	}
	if p := get("?output_modalities=image"); len(p.Data) != 2 {
		t.Fatalf("image output: %+v", p.Data)
	}
	big := get("?context=1000000")
	if len(big.Data) == 0 {
		t.Fatal("no model with a context of a million")
	}
	for _, m := range big.Data {
		if m.Context < 1000000 {
			t.Fatalf("context filter let %s (%d) through", m.ID, m.Context)
		}
	}
	for _, m := range get("?supported_parameters=tools,reasoning").Data {
		if !slices.Contains(m.Params, "tools") || !slices.Contains(m.Params, "reasoning") {
			t.Fatalf("supported_parameters let %s through", m.ID)
		}
	}
	prog := get("?category=programming")
	if len(prog.Data) == 0 || !slices.ContainsFunc(prog.Data, func(m row) bool { return m.ID == "qwen/qwen3-coder" }) || len(prog.Data) >= all.Total {
		t.Fatalf("category=programming: %+v", prog.Data)
	}
	if p := get("?q=llama+instruct"); len(p.Data) != 3 || p.Total != 3 {
		t.Fatalf("q: %+v", p.Data)
	}
	if p := get("?q=llama&limit=2"); len(p.Data) != 2 || p.Total != 4 || p.Links.Next == nil || !strings.Contains(*p.Links.Next, "q=llama") {
		t.Fatalf("q with limit keeps the query in next: %+v", p)
	}

	// Bad parameters are refused, naming them.
	for q, want := range map[string]string{"?limit=0": "limit", "?offset=-1": "offset", "?context=big": "context", "?input_modalities=smell": "input_modalities"} {
		resp, err := http.Get(srv.URL + "/models" + q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), want) {
			t.Errorf("%s: %d %s", q, resp.StatusCode, b)
		}
	}
}

// TestPricesAreDecimals: every price is the catalogue's decimal divided
// exactly (no float residue), for each unit.
func TestPricesAreDecimals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0.4", "0.0000004"}, {"0.15", "0.00000015"}, {"0.075", "0.000000075"}, {"15", "0.000015"}, {"-1", "-1"}, {"", "0"}, {"0", "0"}, {"1.25", "0.00000125"},
	} {
		if got := decimalDiv(c.in, 1e6); got != c.want {
			t.Errorf("%q per million = %q, want %q", c.in, got, c.want)
		}
	}
	if got := decimalDiv("25", 1000); got != "0.025" {
		t.Errorf("web search: %q", got)
	}
	// The client reads each price back as the same per-million figure.
	for i := range catalogue {
		m := &catalogue[i]
		w := m.wire("http://x/api/v1")
		am := api.Model{ID: m.id, Pricing: map[string]string{}}
		for k, v := range w["pricing"].(map[string]any) {
			am.Pricing[k] = v.(string)
		}
		if m.in == "-1" {
			continue
		}
		var want float64
		fmt.Sscan(m.in, &want)
		if p := am.PriceOf("prompt"); !p.Known || p.PerMillion != want {
			t.Errorf("%s: prompt %q reads as %v, want %v", m.id, am.Pricing["prompt"], p.PerMillion, want)
		}
	}
}

// TestKeyCreditsGenerationValues: the values are realistic and agree
// with each other.
func TestKeyCreditsGenerationValues(t *testing.T) {
	srv, err := Start("", Options{GenerationDelay: time.Nanosecond, KeyLimit: 10, KeyUsage: 1, Credits: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	respond(t, srv, "google/gemma-3-27b-it:free")
	auto := respond(t, srv, "openrouter/auto", "User-Agent", "gwdash-test/1", "HTTP-Referer", "https://app.example/x")
	var key struct {
		Data struct {
			WorkspaceID string                               `json:"workspace_id"`
			ByokUsage   float64                              `json:"byok_usage"`
			ByokDaily   float64                              `json:"byok_usage_daily"`
			ByokWeekly  float64                              `json:"byok_usage_weekly"`
			ByokMonthly float64                              `json:"byok_usage_monthly"`
			Free        struct{ Limit, Remaining, Used int } `json:"free_model_daily_requests"`
		} `json:"data"`
	}
	raw, _ := json.Marshal(getJSON(t, srv, "/key", DemoAPIKey))
	json.Unmarshal(raw, &key)
	d := key.Data
	if d.WorkspaceID != DefaultWorkspace && d.WorkspaceID != SecondWorkspace {
		t.Errorf("workspace %q is not a demo workspace", d.WorkspaceID)
	}
	if !(0 <= d.ByokDaily && d.ByokDaily <= d.ByokWeekly && d.ByokWeekly <= d.ByokMonthly && d.ByokMonthly <= d.ByokUsage) {
		t.Errorf("BYOK usage does not add up: %+v", d)
	}
	if d.Free.Used != 1 || d.Free.Remaining != d.Free.Limit-1 {
		t.Errorf("free-model requests: %+v", d.Free)
	}
	var credits struct {
		Data struct {
			Total float64 `json:"total_credits"`
			Used  float64 `json:"total_usage"`
		} `json:"data"`
	}
	raw, _ = json.Marshal(getJSON(t, srv, "/credits", DemoManagementKey))
	json.Unmarshal(raw, &credits)
	if credits.Data.Total != 40 || credits.Data.Used <= 1 || credits.Data.Used > 2 {
		t.Errorf("credits: %+v", credits.Data)
	}
	if rec := do(t, srv.Gateway, "GET", "/api/v1/credits", DemoAPIKey, ""); rec.Code != 403 || !strings.Contains(rec.Body.String(), "credits") {
		t.Errorf("credits with an API key: %d %s", rec.Code, rec.Body)
	}
	type genRec struct {
		Data struct {
			TokensPrompt     int    `json:"tokens_prompt"`
			TokensCompletion int    `json:"tokens_completion"`
			NativePrompt     int    `json:"native_tokens_prompt"`
			NativeCompletion int    `json:"native_tokens_completion"`
			Provider         string `json:"provider_name"`
			UserAgent        string `json:"user_agent"`
			Origin           string `json:"origin"`
			ExternalUser     string `json:"external_user"`
			Responses        []struct {
				Status   int    `json:"status"`
				Provider string `json:"provider_name"`
			} `json:"provider_responses"`
		} `json:"data"`
	}
	var g genRec
	waitFor(t, func() bool {
		return do(t, srv.Gateway, "GET", "/api/v1/generation?id="+auto, DemoAPIKey, "").Code == 200
	})
	raw, _ = json.Marshal(getJSON(t, srv, "/generation?id="+auto, DemoAPIKey))
	json.Unmarshal(raw, &g)
	gd := g.Data
	if gd.NativePrompt != gd.TokensPrompt || gd.NativeCompletion != gd.TokensCompletion || gd.TokensPrompt == 0 {
		t.Errorf("native tokens differ from usage: %+v", gd)
	}
	if len(gd.Responses) != 2 || gd.Responses[0].Status != 429 || gd.Responses[1].Status != 200 || gd.Responses[1].Provider != gd.Provider {
		t.Errorf("provider responses: %+v", gd.Responses)
	}
	if gd.UserAgent != "gwdash-test/1" || gd.Origin != "https://app.example" || gd.ExternalUser != "user-42" {
		t.Errorf("request facts: %+v", gd)
	}
}

// TestDestinationTypesAgree: the gateway's destination types, the
// client's (which the forms and the commands use) and
// testdata/dest-required.txt (service-facts.md) name the same types with
// the same required config members; the gateway refuses a create that
// lacks one and takes one with only those.
func TestDestinationTypesAgree(t *testing.T) {
	b, err := os.ReadFile("testdata/dest-required.txt")
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		facts[fs[0]] = fs[1:]
	}
	if len(facts) != 17 {
		t.Fatalf("dest-required.txt lists %d types", len(facts))
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for typ, req := range facts {
		gs, ok := typeSpecs[typ]
		if !ok || !slices.Equal(sorted(gs.required), sorted(req)) {
			t.Errorf("gateway %s requires %v, service-facts %v", typ, gs.required, req)
		}
		cs, ok := api.TypeSpec(typ)
		if !ok || !slices.Equal(sorted(cs.Required), sorted(req)) {
			t.Errorf("client %s requires %v, service-facts %v", typ, cs.Required, req)
		}
		if !slices.Equal(sorted(gs.optional), sorted(cs.Optional)) {
			t.Errorf("%s optional members: gateway %v, client %v", typ, gs.optional, cs.Optional)
		}
	}
	if len(typeSpecs) != len(facts) || len(api.DestinationTypeSpecs) != len(facts) {
		t.Errorf("types: gateway %d, client %d, service-facts %d", len(typeSpecs), len(api.DestinationTypeSpecs), len(facts))
	}
	g := New(Options{})
	for typ, req := range facts {
		cfg := map[string]any{}
		for _, m := range req {
			cfg[m] = "v-" + m
		}
		if typ == "webhook" {
			cfg["url"] = "https://hooks.example/x"
		}
		body := func(cfg map[string]any) string {
			return show(map[string]any{"type": typ, "name": "agree " + typ, "config": cfg})
		}
		// Without one required member: refused, naming it.
		for _, m := range req {
			less := map[string]any{}
			for k, v := range cfg {
				if k != m {
					less[k] = v
				}
			}
			rec := do(t, g, "POST", "/api/v1/observability/destinations", DemoManagementKey, body(less))
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), "config."+m) {
				t.Errorf("%s without %s: %d %s", typ, m, rec.Code, rec.Body)
			}
		}
		if rec := do(t, g, "POST", "/api/v1/observability/destinations", DemoManagementKey, body(cfg)); rec.Code != 201 {
			t.Errorf("%s with its required members: %d %s", typ, rec.Code, rec.Body)
		}
	}
}

// TestRegionsAgreeWithTheClient: the data regions the gateway takes and
// answers are the client's (which the destination form offers and the
// commands check), and a region the client refuses the gateway refuses
// too, with the same alias.
func TestRegionsAgreeWithTheClient(t *testing.T) {
	if !slices.Equal(Regions, api.Regions) {
		t.Fatalf("gateway regions %v, client %v", Regions, api.Regions)
	}
	g := New(Options{})
	rec := do(t, g, "GET", "/api/v1/key", DemoAPIKey, "")
	for _, r := range api.Regions {
		if !strings.Contains(rec.Body.String(), strconv.Quote(r)) {
			t.Errorf("allowed_data_regions lacks %s: %s", r, rec.Body)
		}
	}
	for _, r := range []string{"eu", "global", "mars"} {
		clientOK := api.ValidateRegions([]string{r}) == nil
		body := show(map[string]any{"type": "webhook", "name": "regions " + r, "config": map[string]any{"url": "https://hooks.example/x"}, "regions": []string{r}})
		rec := do(t, g, "POST", "/api/v1/observability/destinations", DemoManagementKey, body)
		if gatewayOK := rec.Code == 201; gatewayOK != clientOK {
			t.Errorf("region %q: client ok %v, gateway %d %s", r, clientOK, rec.Code, rec.Body)
		}
	}
}
