package cmd

// Commands that tell the truth: read-only refuses every write, the
// default of enabled, webhook checks, no raw Go error, the end of a list,
// the last state on a timeout, plain-http base URLs, completion shells,
// and updates against a server without GET of one destination.

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
)

// writes counts the requests that change something.
func writes(h *harness) int {
	n := 0
	for _, r := range h.srv.Requests() {
		if r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

func TestReadOnlyRefusesEveryWrite(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"custom_id":"a","body":{}}`+"\n"), 0o600)
	id := h.srv.DestinationID("prod-langfuse")
	batch := h.srv.SeedID(gateway.SeedChat)
	check := func(how string, extra ...string) {
		t.Helper()
		before := writes(h)
		for _, c := range []struct {
			args []string
			what string
		}{
			{[]string{"batch", "submit", good, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions"}, "submitting a batch"},
			{[]string{"batch", "delete", batch, "--yes"}, "deleting a batch"},
			{[]string{"dest", "create", "--type", "webhook", "--name", "w", "--set", "url=https://h.example/x"}, "creating a destination"},
			{[]string{"dest", "update", id, "--enabled=false"}, "editing a destination"},
			{[]string{"dest", "delete", id, "--yes"}, "deleting a destination"},
		} {
			r := h.run("", append(c.args, extra...)...)
			r.must(t, 2, nil, []string{"read-only: " + c.what + " is disabled", "--read-only or read_only = true"})
		}
		if n := writes(h) - before; n != 0 {
			t.Fatalf("%s: %d writes reached the server", how, n)
		}
	}
	// The flag is global: every command accepts it, reads too.
	check("--read-only", "--read-only")
	h.run("", "batch", "list", "--read-only").must(t, 0, []string{"batches"}, nil)
	h.run("", "dest", "list", "--read-only").must(t, 0, []string{"NAME"}, nil)
	// read_only = true in the config does the same.
	h.run("", "config", "set", "read_only", "on").must(t, 0, nil, []string{"wrote"})
	h.run("", "config", "show").must(t, 0, []string{"read_only", "on"}, nil)
	check("read_only = true")
}

func TestDestCreateEnabledByDefaultAsInTheDashboard(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "dest", "create", "--help").must(t, 0, []string{"forward generations (default on"}, nil)
	r := h.run("", "dest", "create", "--type", "webhook", "--name", "hook", "--set", "url=https://h.example/x", "--json")
	r.must(t, 0, nil, nil)
	var d struct {
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(r.out), &d)
	if !h.srv.DestinationEnabled(d.ID) {
		t.Fatal("dest create without --enabled made a disabled destination; the dashboard's form starts enabled")
	}
	sent := h.srv.RequestsTo("POST", "/api/v1/observability/destinations")
	if !strings.Contains(string(sent[len(sent)-1].Body), `"enabled":true`) {
		t.Fatalf("the default is sent, not left to the server: %s", sent[len(sent)-1].Body)
	}
	r = h.run("", "dest", "create", "--type", "webhook", "--name", "off", "--set", "url=https://h.example/y", "--enabled=off", "--json")
	r.must(t, 0, nil, nil)
	json.Unmarshal([]byte(r.out), &d)
	if h.srv.DestinationEnabled(d.ID) {
		t.Fatal("--enabled=off must create it disabled")
	}
	// One word for booleans in the table.
	h.run("", "dest", "list", "--limit", "100").must(t, 0, []string{" on ", " off "}, nil)
	if r := h.run("", "dest", "list", "--limit", "100"); strings.Contains(r.out, " yes ") || strings.Contains(r.out, " no ") {
		t.Fatalf("booleans say on/off:\n%s", r.out)
	}
}

func TestWebhookURLAndHeadersCheckedBeforeSending(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	before := writes(h)
	create := func(sets ...string) result {
		args := []string{"dest", "create", "--type", "webhook", "--name", "w"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		return h.run("", args...)
	}
	create("url=ftp://h.example/x").must(t, 2, nil, []string{"config.url", "http or https URL with a host"})
	create("url=https://").must(t, 2, nil, []string{"config.url"})
	create("url=h.example/x").must(t, 2, nil, []string{"config.url"})
	create("url=https://h.example/x", `headers={"X-Team": 1}`).must(t, 2, nil, []string{"config.headers", "JSON object of strings"})
	create("url=https://h.example/x", `headers=["a"]`).must(t, 2, nil, []string{"config.headers"})
	create("url=https://h.example/x", `headers=X-Team: infra`).must(t, 2, nil, []string{"config.headers"})
	if n := writes(h) - before; n != 0 {
		t.Fatalf("%d refused creates were sent", n)
	}
	create("url=https://h.example/x", `headers={"X-Team": "infra"}`).must(t, 0, nil, []string{"created w"})
	sent := h.srv.RequestsTo("POST", "/api/v1/observability/destinations")
	if !strings.Contains(string(sent[len(sent)-1].Body), `"headers":{"X-Team":"infra"}`) {
		t.Fatalf("headers are sent as a JSON object: %s", sent[len(sent)-1].Body)
	}
}

func TestNoRawGoErrorReachesTheUser(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	raw := []string{"dial tcp", "strconv.", "json: cannot unmarshal", "invalid character", "no such file or directory", "Go struct"}
	clean := func(r result) {
		t.Helper()
		for _, s := range raw {
			if strings.Contains(r.err, s) || strings.Contains(r.out, s) {
				t.Fatalf("raw Go error %q reached the user:\n%s%s", s, r.out, r.err)
			}
		}
	}
	// Nothing listens there.
	h.env["GWDASH_BASE_URL"] = "http://127.0.0.1:1/api/v1"
	r := h.run("", "batch", "list")
	r.must(t, 1, nil, []string{"nothing answers at 127.0.0.1:1", "check the base URL"})
	clean(r)
	h.env["GWDASH_BASE_URL"] = h.srv.URL
	// A flag that is not a number, a duration.
	r = h.run("", "dest", "list", "--limit", "abc")
	r.must(t, 2, nil, []string{`"abc" is not a whole number`})
	clean(r)
	r = h.run("", "batch", "watch", "x", "--timeout", "soon")
	r.must(t, 2, nil, []string{"not a duration"})
	clean(r)
	// Files: missing, and lines that are not requests, by 1-based line.
	dir := t.TempDir()
	r = h.run("", "batch", "submit", filepath.Join(dir, "nope.jsonl"), "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions")
	r.must(t, 2, nil, []string{"nope.jsonl does not exist"})
	clean(r)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"custom_id\":\"a\",\"body\":{}}\nnot json\n{\"custom_id\":5,\"body\":{}}\n"), 0o600)
	r = h.run("", "batch", "submit", bad, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions")
	r.must(t, 2, nil, []string{"line 2: not valid JSON", "line 3: custom_id must be a string, not number"})
	clean(r)
	model := filepath.Join(dir, "model.jsonl")
	os.WriteFile(model, []byte("\n{\"custom_id\":\"a\",\"body\":{}}\n{\"custom_id\":\"b\",\"body\":{\"model\":\"x/y\"}}\n"), 0o600)
	r = h.run("", "batch", "submit", model, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions")
	r.must(t, 2, nil, []string{"line 3: body.model: must equal the batch model"})
	rules := filepath.Join(dir, "rules.json")
	os.WriteFile(rules, []byte(`{"enabled": "yes"}`), 0o600)
	r = h.run("", "dest", "update", h.srv.DestinationID("prod-langfuse"), "--filter-rules", rules)
	r.must(t, 2, nil, []string{"--filter-rules", "enabled must be true or false"})
	clean(r)
}

func TestDestListPastTheEnd(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "dest", "list", "--limit", "100")
	r.must(t, 0, nil, nil)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	total := strings.Fields(lines[len(lines)-1]) // "N of N"
	h.run("", "dest", "list", "--offset", "100").must(t, 0, []string{"no destinations at offset 100 (" + total[len(total)-1] + " in all)"}, nil)
}

func TestWatchJSONPrintsTheLastStateOnTimeout(t *testing.T) {
	h := newHarness(t, gateway.Options{BatchDuration: time.Hour})
	id := h.srv.SeedID(gateway.SeedValidating)
	r := h.run("", "batch", "watch", id, "--json", "--interval", "10ms", "--timeout", "1s")
	r.must(t, 1, []string{`"id":"` + id + `"`, `"status":"validating"`}, []string{"timed out"})
	var b map[string]any
	if err := json.Unmarshal([]byte(r.out), &b); err != nil {
		t.Fatalf("the last state is one JSON object: %v\n%s", err, r.out)
	}
}

func TestPlainHTTPBaseURLRefusedAlikeAndShown(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	words := "plain http to a non-loopback host"
	h.run("", "config", "set", "base_url", "http://gw.example.com/api/v1").must(t, 2, nil, []string{words, "--insecure"})
	cfg, _ := os.ReadFile(filepath.Join(h.env["XDG_CONFIG_HOME"], "gwdash", "config.toml"))
	if strings.Contains(string(cfg), "gw.example.com") {
		t.Fatal("a refused base URL was written")
	}
	h.run("", "config", "set", "base_url", "https://gw.example.com/api/v1").must(t, 0, nil, []string{"wrote"})
	h.env["GWDASH_BASE_URL"] = "http://gw.example.com/api/v1"
	h.run("", "batch", "list").must(t, 2, nil, []string{words})
	r := h.run("", "config", "show")
	r.must(t, 0, []string{"http://gw.example.com/api/v1", "✗ refused"}, []string{"warning", words})
}

func TestCompletionNamesTheShells(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "completion", "tcsh").must(t, 2, nil, []string{`"tcsh"`, "bash, fish, powershell, zsh"})
	h.run("", "completion").must(t, 2, nil, []string{"bash, fish, powershell, zsh"})
	h.run("", "completion", "zsh").must(t, 0, []string{"compdef _gwdash gwdash"}, nil)
}

func TestDestUpdateWithoutGetOfOneDestination(t *testing.T) {
	var noList atomic.Bool
	h := newHarness(t, gateway.Options{Wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			const coll = "/api/v1/observability/destinations"
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, coll+"/") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusMethodNotAllowed)
				w.Write([]byte(`{"error":{"code":405,"message":"method not allowed"}}`))
				return
			}
			if r.Method == http.MethodGet && r.URL.Path == coll && noList.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}})
	id := h.srv.DestinationID("prod-langfuse")
	h.run("", "dest", "list", "--limit", "100").must(t, 0, nil, nil) // seen here
	// The re-read falls back to the list: the update goes on.
	h.run("", "dest", "update", id, "--sampling-rate", "0.5").must(t, 0, []string{"50%"}, nil)
	// Someone else changes it: the list still tells.
	h.srv.EditDestination(id, func(name *string, _ *float64) { *name = "renamed-by-someone" })
	h.run("", "dest", "update", id, "--sampling-rate", "0.4").must(t, 1, nil, []string{"renamed-by-someone", "--force"})
	// No way to read it again: said on stderr, and the update goes on.
	h.run("", "dest", "list", "--limit", "100").must(t, 0, nil, nil)
	noList.Store(true)
	h.run("", "dest", "update", id, "--sampling-rate", "0.3").must(t, 0, nil, []string{"conflict check is not available"})
}
