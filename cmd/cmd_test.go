package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/ui"
)

type result struct {
	code     int
	out, err string
}

// harness runs commands in-process against one embedded gateway.
type harness struct {
	t   *testing.T
	srv *gateway.Server
	env map[string]string
	tty bool // stdin is a terminal
}

func newHarness(t *testing.T, opts gateway.Options) *harness {
	t.Helper()
	srv, err := gateway.Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	return &harness{t: t, srv: srv, env: map[string]string{
		"GWDASH_BASE_URL": srv.URL, "GWDASH_API_KEY": gateway.DemoAPIKey, "GWDASH_MANAGEMENT_KEY": gateway.DemoManagementKey,
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_CACHE_HOME": filepath.Join(dir, "cache"), "HOME": dir,
	}}
}

func (h *harness) run(stdin string, args ...string) result {
	h.t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := Run(ctx, args, IO{In: strings.NewReader(stdin), Out: &out, Err: &errb, InTTY: h.tty}, func(k string) string { return h.env[k] })
	return result{code: code, out: out.String(), err: errb.String()}
}

func (r result) must(t *testing.T, code int, outHas, errHas []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.out, r.err)
	}
	for _, s := range outHas {
		if !strings.Contains(r.out, s) {
			t.Fatalf("stdout lacks %q:\n%s", s, r.out)
		}
	}
	for _, s := range errHas {
		if !strings.Contains(r.err, s) {
			t.Fatalf("stderr lacks %q:\n%s", s, r.err)
		}
	}
}

func TestBatchGet(t *testing.T) {
	h := newHarness(t, gateway.Options{PaymentPolls: 1})
	id := h.srv.SeedID(gateway.SeedChat)
	h.run("", "batch", "get", id).must(t, 0, []string{id, "completed", "requests", "40 total", "failures", "usage", "cost $"}, nil)
	r := h.run("", "batch", "get", id, "--json")
	r.must(t, 0, nil, nil)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.out), &m); err != nil || m["object"] != "batch" || len(m["results"].([]any)) != 40 {
		t.Fatalf("--json: %v", err)
	}
	// 402: metadata on stdout, status and what to do on stderr, exit 1.
	pay := h.srv.SeedID(gateway.SeedPayment)
	h.run("", "batch", "get", pay).must(t, 1, []string{pay}, []string{"HTTP 402", "Add credits", "not re-run"})
	h.run("", "batch", "get", h.srv.SeedID(gateway.SeedOld)).must(t, 1, nil, []string{"HTTP 410", "30 days"})
	h.run("", "batch", "get", "batch-0-missing").must(t, 1, nil, []string{"HTTP 404"})
	h.run("", "batch", "get").must(t, 2, nil, []string{"needs a batch id"})
	h.run("", "batch", "get", id, "--bogus").must(t, 2, nil, []string{"unknown flag"})
	// the millisecond batch reads as a recent local time
	h.run("", "batch", "get", h.srv.SeedID(gateway.SeedMillis)).must(t, 0, []string{"m ago"}, nil)
	h.run("", "batch", "get", h.srv.SeedID(gateway.SeedFailed)).must(t, 0, []string{"failed", "error", "Batch validation failed"}, nil)
}

func TestMissingSettingsExitTwo(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	delete(h.env, "GWDASH_API_KEY")
	h.run("", "batch", "get", "x").must(t, 2, nil, []string{"no API key"})
	delete(h.env, "GWDASH_BASE_URL")
	h.run("", "batch", "get", "x").must(t, 2, nil, []string{"no gateway configured"})
	h.env["GWDASH_BASE_URL"] = "http://gateway.example.com/api/v1"
	h.run("", "batch", "get", "x").must(t, 2, nil, []string{"--insecure"})
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent for refused input", n)
	}
}

func TestBatchWatch(t *testing.T) {
	h := newHarness(t, gateway.Options{BatchDuration: 300 * time.Millisecond})
	r := h.run("", "batch", "watch", h.srv.SeedID(gateway.SeedRunning), "--interval", "20ms")
	r.must(t, 0, []string{"completed", "200 total"}, []string{"done"})
	if strings.Contains(r.err, "\r") {
		t.Fatalf("plain lines expected on a non-terminal: %q", r.err)
	}
	h.run("", "batch", "watch", h.srv.SeedID(gateway.SeedFailed)).must(t, 1, []string{"failed"}, []string{"batch ended failed"})
	h.run("", "batch", "watch", h.srv.SeedID(gateway.SeedExpired)).must(t, 1, nil, []string{"ended expired"})
	r = h.run("", "batch", "watch", h.srv.SeedID(gateway.SeedValidating), "--interval", "10ms", "--timeout", "100ms")
	r.must(t, 1, nil, []string{"timed out", "validating"})
	w := h.run("", "batch", "watch", h.srv.SeedID(gateway.SeedChat), "--json")
	w.must(t, 0, []string{`"object":"batch"`}, nil)
	if g := h.run("", "batch", "get", h.srv.SeedID(gateway.SeedChat), "--json"); g.out != w.out {
		t.Fatalf("watch --json must print the batch exactly as get --json does")
	}
	h.run("", "batch", "watch", "x", "--interval", "-1s").must(t, 2, nil, nil)
}

func TestBatchResults(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	id := h.srv.SeedID(gateway.SeedChat)
	r := h.run("", "batch", "results", id)
	r.must(t, 0, nil, nil)
	if n := strings.Count(r.out, "\n"); n != 40 {
		t.Fatalf("%d lines, want 40", n)
	}
	r = h.run("", "batch", "results", id, "--failed")
	r.must(t, 0, nil, nil)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	for _, l := range lines {
		var it struct {
			Error *struct {
				ErrorType string `json:"error_type"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(l), &it) != nil || it.Error == nil {
			t.Fatalf("not a failed result: %s", l)
		}
	}
	var first struct {
		Error struct {
			ErrorType string `json:"error_type"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(lines[0]), &first)
	r = h.run("", "batch", "results", id, "--error-type", first.Error.ErrorType)
	r.must(t, 0, []string{first.Error.ErrorType}, nil)
	if strings.Count(r.out, "\n") >= len(lines) && len(lines) > 1 {
		t.Fatalf("--error-type did not narrow the results")
	}
	h.run("", "batch", "results", id, "--error-type", "nonsense").must(t, 2, nil, []string{"canonical"})
	h.run("", "batch", "results", h.srv.SeedID(gateway.SeedValidating)).must(t, 1, nil, []string{"terminal status"})
}

func TestBatchSubmit(t *testing.T) {
	// A submitted batch is invisible (404) for a moment: watch must wait.
	h := newHarness(t, gateway.Options{BatchDuration: 200 * time.Millisecond, SubmitVisibleAfter: 2500 * time.Millisecond})
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	good := write("good.jsonl", `{"custom_id":"a","body":{"messages":[{"role":"user","content":"hi"}]}}`+"\n\n"+`{"custom_id":"b","body":{"messages":[]}}`+"\n")
	dup := write("dup.jsonl", `{"custom_id":"a","body":{}}`+"\n"+`{"custom_id":"a","body":{}}`+"\n")
	missing := write("missing.jsonl", `{"custom_id":"a","body":{}}`+"\n"+`{"body":{}}`+"\n")
	h.run("", "batch", "submit", dup, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions").must(t, 2, nil, []string{"line 2", "repeats line 1"})
	h.run("", "batch", "submit", missing, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions").must(t, 2, nil, []string{"line 2", "custom_id is required"})
	h.run("", "batch", "submit", good, "--model", "openai/gpt-4o-mini").must(t, 2, nil, []string{"--endpoint"})
	h.run("", "batch", "submit", good, "--model", "gpt", "--endpoint", "/v1/chat/completions").must(t, 2, nil, []string{"model"})
	if n := len(h.srv.RequestsTo("POST", "/api/v1/batches")); n != 0 {
		t.Fatalf("refused submissions were sent: %d", n)
	}
	h.run("", "batch", "submit", good, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions").must(t, 0, []string{"batch-", "validating", "2 requests"}, nil)
	h.run("", "batch", "submit", "-", "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions").must(t, 2, nil, []string{"holds no requests"})
	h2 := h.run(`{"custom_id":"x","body":{}}`, "batch", "submit", "-", "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions", "--watch", "--json")
	h2.must(t, 0, []string{`"status":"completed"`}, []string{"submitted", "watching", "HTTP 404"})
}

func TestRespond(t *testing.T) {
	// 200 tokens a second: the deltas span most of a second, so the rate
	// window is measured even when a loaded machine delays the reader.
	h := newHarness(t, gateway.Options{TokensPerSecond: 200})
	r := h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini", "--metadata", "team=infra", "--service-tier", "fast")
	r.must(t, 0, []string{"##"}, []string{"completed", "in ", "out ", "charged $", "ttft", "tok/s"})
	nonStream := h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini", "--no-stream")
	nonStream.must(t, 0, nil, []string{"completed"})
	if nonStream.out != r.out {
		t.Fatalf("streamed and plain answers differ")
	}
	var body map[string]any
	json.Unmarshal(h.srv.RequestsTo("POST", "/api/v1/responses")[0].Body, &body)
	if body["stream"] != true || body["metadata"].(map[string]any)["team"] != "infra" || body["service_tier"] != "fast" {
		t.Fatalf("request body %v", body)
	}
	h.run("", "respond", "x", "--model", "openai/gpt-4o-mini", "--json", "--routing-metadata").must(t, 0, []string{`"object":"response"`, "openrouter_metadata"}, nil)
	h.run("from stdin", "respond", "-", "--model", "openai/gpt-4o-mini", "--max-output-tokens", "5").must(t, 1, nil, []string{"incomplete", "max_output_tokens"})
	h.run("", "respond", "x", "--model", gateway.ModelFailMidstream).must(t, 1, nil, []string{"failed", "server_error", "provider_unavailable"})
	r = h.run("", "respond", "x", "--model", gateway.ModelDrop)
	r.must(t, 1, nil, []string{"interrupted: the connection closed before a final status", "what arrived is kept"})
	if strings.TrimSpace(r.out) == "" {
		t.Fatalf("an interrupted stream must keep what arrived")
	}
	h.run("", "respond", "x", "--model", gateway.ModelRateLimited).must(t, 1, nil, []string{"HTTP 429", "retry after 7s"})
	before := len(h.srv.Requests())
	h.run("", "respond", "x", "--model", "nomodel").must(t, 2, nil, []string{"model"})
	h.run("", "respond", "x", "--model", "a/b", "--max-tool-calls", "31").must(t, 2, nil, []string{"max_tool_calls"})
	h.run("", "respond", "x", "--model", "a/b", "--session-id", strings.Repeat("s", 257)).must(t, 2, nil, []string{"session_id"})
	h.run("", "respond", "x", "--model", "a/b", "--metadata", "novalue").must(t, 2, nil, []string{"key=value"})
	h.run("", "respond", "x", "--model", "a/b", "--reasoning-effort", "huge").must(t, 2, nil, []string{"reasoning.effort"})
	h.run("", "respond", "x").must(t, 2, nil, []string{"--model"})
	if len(h.srv.Requests()) != before {
		t.Fatalf("refused input reached the server")
	}
	// Escape sequences from the model never reach stdout.
	r = h.run("", "respond", "x", "--model", gateway.ModelEscapes)
	r.must(t, 0, []string{"Plain start", "end."}, nil)
	if strings.ContainsAny(r.out, "\x1b\x07\u009b\u202e") {
		t.Fatalf("control sequences reached stdout: %q", r.out)
	}
}

func TestDest(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "dest", "list", "--limit", "5")
	r.must(t, 0, []string{"NAME", "TYPE", "SAMPLING", "1–5 of"}, nil)
	r = h.run("", "dest", "list", "--all", "--json")
	// one JSON object per line, as every list command prints
	var all []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var d map[string]any
		if json.Unmarshal([]byte(line), &d) != nil || d["id"] == nil {
			t.Fatalf("--all --json line %q", line)
		}
		all = append(all, d)
	}
	if len(all) < 30 {
		t.Fatalf("--all --json: %d", len(all))
	}
	gets := len(h.srv.RequestsTo("GET", "/api/v1/observability/destinations"))
	r = h.run("", "dest", "list", "--all", "--limit", "7")
	r.must(t, 0, []string{"32 of 32"}, nil)
	if n := len(h.srv.RequestsTo("GET", "/api/v1/observability/destinations")) - gets; n != 5 {
		t.Fatalf("--all --limit 7 made %d requests, want 5 pages", n)
	}
	if r := h.run("", "dest", "list", "--json", "--limit", "2"); r.code != 0 || strings.Count(strings.TrimSpace(r.out), "\n") != 1 || strings.Contains(r.out, `"total_count"`) {
		t.Fatalf("dest list --json prints one object per line, like batch list and models:\n%s", r.out)
	}
	h.run("", "dest", "list", "--limit", "101").must(t, 2, nil, []string{"limit"})
	h.run("", "dest", "list", "--offset", "-1").must(t, 2, nil, []string{"offset"})
	h.run("", "dest", "list", "--workspace", gateway.SecondWorkspace).must(t, 0, []string{"of"}, nil)

	id := h.srv.DestinationID("prod-langfuse")
	r = h.run("", "dest", "update", id, "--sampling-rate", "0.25", "--regions", "eu,us", "--all-keys", "--enabled=false", "--json")
	r.must(t, 0, []string{`"sampling_rate":0.25`, `"europe"`}, nil)
	sent := h.srv.RequestsTo("PATCH", "/api/v1/observability/destinations/"+id)
	var body map[string]json.RawMessage
	json.Unmarshal(sent[len(sent)-1].Body, &body)
	if len(body) != 4 || string(body["regions"]) != `["eu","us"]` || string(body["api_key_hashes"]) != "null" || string(body["enabled"]) != "false" {
		t.Fatalf("PATCH body %s", sent[len(sent)-1].Body)
	}
	before := len(h.srv.Requests())
	h.run("", "dest", "update", id, "--privacy-mode", "--name", "new", "--dry-run").must(t, 0, []string{`"privacy_mode":true`, `"name":"new"`}, nil)
	h.run("", "dest", "update", id, "--sampling-rate", "2").must(t, 2, nil, []string{"sampling_rate"})
	h.run("", "dest", "update", id, "--regions", "asia").must(t, 2, nil, []string{"regions"})
	h.run("", "dest", "update", id, "--set", "secretKey=sk-l...abcd").must(t, 2, nil, []string{"masked"})
	h.run("", "dest", "update", id).must(t, 2, nil, []string{"changes nothing"})
	h.run("", "dest", "update", id, "--all-keys", "--api-key-hashes", "a").must(t, 2, nil, []string{"cannot be combined"})
	if len(h.srv.Requests()) != before {
		t.Fatalf("dry runs and refused updates reached the server")
	}
	// A new secret is sent; 409 is retried.
	h.run("", "dest", "update", id, "--set", "secretKey=sk-lf-brand-new-0001").must(t, 0, nil, nil)
	if h.srv.DestinationSecret(id, "secretKey") != "sk-lf-brand-new-0001" {
		t.Fatalf("secret not updated")
	}
	h.run("", "dest", "update", h.srv.DestinationID(gateway.ConflictDestination), "--enabled=false").must(t, 0, []string{"conflict-once"}, nil)
	rules := filepath.Join(t.TempDir(), "rules.json")
	os.WriteFile(rules, []byte(`{"enabled":true,"groups":[{"logic":"and","rules":[{"field":"model","operator":"equals","value":"a/b"}]}]}`), 0o600)
	h.run("", "dest", "update", id, "--filter-rules", rules, "--json").must(t, 0, []string{`"filter_rules":{`}, nil)
	h.run("", "dest", "update", id, "--filter-rules", "null", "--json").must(t, 0, []string{`"filter_rules":null`}, nil)
	// A normal key only: refused before any request, with what to do; the
	// API key never goes to the destinations endpoint.
	delete(h.env, "GWDASH_MANAGEMENT_KEY")
	before = len(h.srv.Requests())
	h.run("", "dest", "list").must(t, 2, nil, []string{"management key", "GWDASH_MANAGEMENT_KEY"})
	h.run("", "dest", "update", id, "--enabled=false").must(t, 2, nil, []string{"management key"})
	if len(h.srv.Requests()) != before {
		t.Fatalf("a destination command without a management key sent a request")
	}
}

func TestConfigCommands(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "config", "path")
	r.must(t, 0, []string{filepath.Join(h.env["XDG_CONFIG_HOME"], "gwdash", "config.toml")}, nil)
	h.run("", "config", "set", "workspace_id", gateway.SecondWorkspace, "--profile", "prod").must(t, 0, nil, []string{"wrote"})
	h.run("", "config", "set", "api_key", "x").must(t, 2, nil, []string{"not settable"})
	h.run("", "config", "set", "poll_interval", "soon").must(t, 2, nil, []string{"duration"})
	st, err := os.Stat(strings.TrimSpace(r.out))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file mode: %v %v", st, err)
	}
	r = h.run("", "config", "show", "--profile", "prod")
	r.must(t, 0, []string{"base_url", "env GWDASH_BASE_URL", "api_key", "workspace_id", gateway.SecondWorkspace, "file [profiles.prod]"}, nil)
	h.run("", "version").must(t, 0, []string{"gwdash"}, nil)
	h.run("", "completion", "bash").must(t, 0, []string{"bash completion"}, nil)
	h.run("", "--view", "nowhere").must(t, 2, nil, []string{"--view"})
	h.run("", "demo", "--error-rate", "2").must(t, 2, nil, []string{"error-rate"})
}

// TestNoCommandPrintsAKey runs every command with known keys and checks
// that neither key appears anywhere in what was printed.
func TestNoCommandPrintsAKey(t *testing.T) {
	h := newHarness(t, gateway.Options{BatchDuration: 100 * time.Millisecond})
	id := h.srv.SeedID(gateway.SeedChat)
	dest := h.srv.DestinationID("prod-langfuse")
	runs := [][]string{
		{"batch", "get", id}, {"batch", "get", id, "--json"}, {"batch", "get", "missing"}, {"batch", "get", h.srv.SeedID(gateway.SeedPayment)},
		{"batch", "watch", h.srv.SeedID(gateway.SeedRunning), "--interval", "20ms"}, {"batch", "results", id},
		{"respond", "x", "--model", "a/b"}, {"respond", "x", "--model", gateway.ModelRateLimited}, {"respond", "x", "--model", gateway.ModelDrop},
		{"dest", "list", "--all"}, {"dest", "update", dest, "--enabled=false", "--json"}, {"dest", "update", dest, "--name", "n", "--dry-run"},
		{"config", "show"}, {"config", "path"}, {"version"}, {"batch", "get"}, {"--bogus"},
	}
	var all strings.Builder
	for _, args := range runs {
		r := h.run("", args...)
		all.WriteString(r.out + r.err)
	}
	h.env["GWDASH_API_KEY"] = "wrong-key-but-secret-123"
	r := h.run("", "batch", "get", id)
	all.WriteString(r.out + r.err)
	for _, k := range []string{gateway.DemoAPIKey, gateway.DemoManagementKey, "wrong-key-but-secret-123"} {
		if strings.Contains(all.String(), k) {
			t.Fatalf("a key was printed: %s", k)
		}
	}
}

func TestCrashReport(t *testing.T) {
	var errb bytes.Buffer
	a := newApp(context.Background(), IO{Err: &errb}, nil)
	err := a.crashReport(&ui.CrashError{Value: "boom"})
	if code := a.report(err); code != 1 || !strings.Contains(errb.String(), "--log FILE") || !strings.Contains(errb.String(), "terminal was restored") {
		t.Fatalf("%d %s", code, errb.String())
	}
	errb.Reset()
	a.logPath = "/tmp/gwdash.log"
	a.report(a.crashReport(&ui.CrashError{Value: "boom"}))
	if !strings.Contains(errb.String(), "full report is in /tmp/gwdash.log") {
		t.Fatalf("%s", errb.String())
	}
}

func TestDashboardNeedsATerminal(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "--view", "playground").must(t, 2, nil, []string{"needs a terminal"})
	h.run("", "demo").must(t, 2, nil, []string{"needs a terminal"})
}

// syncBuf is a buffer safe to read while a command writes to it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestDemoServe(t *testing.T) {
	var out, errb syncBuf
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"demo", "--serve", "--listen", "127.0.0.1:0"}, IO{In: strings.NewReader(""), Out: &out, Err: &errb}, func(string) string { return "" })
	}()
	var base string
	for i := 0; i < 200 && base == ""; i++ {
		time.Sleep(10 * time.Millisecond)
		for _, l := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "base" && f[1] == "URL" {
				base = f[2]
			}
		}
	}
	if !strings.HasSuffix(base, "/api/v1") {
		t.Fatalf("no base URL printed:\n%s", out.String())
	}
	for _, want := range []string{gateway.DemoAPIKey, gateway.DemoManagementKey, "-running", "-payment", "402 until credits", "410", "demo/fail-midstream"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("serve output lacks %q:\n%s", want, out.String())
		}
	}
	// The printed URL and key answer with the contract's shapes.
	id := regexp.MustCompile(`batch-\d+-chat`).FindString(out.String())
	req, _ := http.NewRequest("GET", base+"/batches/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+gateway.DemoAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b struct{ Object, Status string }
	json.NewDecoder(resp.Body).Decode(&b)
	resp.Body.Close()
	if resp.StatusCode != 200 || b.Object != "batch" || b.Status != "completed" {
		t.Fatalf("GET %s: %d %+v", id, resp.StatusCode, b)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("demo --serve did not stop on interrupt")
	}
}

// cancelAfter is a stdout that ends the run's context with a signal once
// n bytes have arrived, as Execute's signal owner does.
type cancelAfter struct {
	mu     sync.Mutex
	b      bytes.Buffer
	n      int
	cancel context.CancelCauseFunc
	sig    syscall.Signal
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if c.b.Len() >= c.n && c.cancel != nil {
		c.cancel(&SignalError{Signal: c.sig})
		c.cancel = nil
	}
	return len(p), nil
}

// A signal during a headless command: what arrived is printed, the
// command says it was stopped, and exits 128 plus the signal.
func TestSignalsStopHeadlessCommands(t *testing.T) {
	h := newHarness(t, gateway.Options{TokensPerSecond: 40})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ctx, cancel := context.WithCancelCause(context.Background())
		out := &cancelAfter{n: 20, cancel: cancel, sig: sig}
		var errb bytes.Buffer
		code := Run(ctx, []string{"respond", "a slow answer", "--model", "openai/gpt-4o-mini"}, IO{In: strings.NewReader(""), Out: out, Err: &errb},
			func(k string) string { return h.env[k] })
		out.mu.Lock()
		got := out.b.String()
		out.mu.Unlock()
		if code != 128+int(sig) || len(got) < 20 || !strings.Contains(errb.String(), "what arrived is kept") {
			t.Fatalf("%v: exit %d, %d bytes out, stderr %q", sig, code, len(got), errb.String())
		}
	}
}

// A command that only holds others, run alone (or by an alias), refuses
// as bad input and names what it holds.
func TestGroupCommandsNameTheirCommands(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "batch").must(t, ExitInput, nil, []string{"batch needs a command: list, get, watch, results, submit, retry, delete, diff or export"})
	h.run("", "config").must(t, ExitInput, nil, []string{"config needs a command: path, show or set"})
	h.run("", "destinations").must(t, ExitInput, nil, []string{"dest needs a command: list, get, create, update or delete"})
}
