package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/retry"
)

// gwClock is the embedded gateway's clock, moved by the test.
type gwClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *gwClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *gwClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// submitted submits n chat requests and returns the batch id; its rows'
// bodies name the model.
func (h *harness) submitted(t *testing.T, n int) (id, file string) {
	t.Helper()
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `{"custom_id":"row-%03d","body":{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"question %d"}],"max_tokens":100}}`+"\n", i, i)
	}
	file = filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(file, []byte(sb.String()), 0o600)
	r := h.run("", "batch", "submit", file, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions")
	r.must(t, 0, []string{"batch-"}, nil)
	return strings.Fields(r.out)[0], file
}

type batchJSON struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	RetryOf string `json:"retry_of"`
	Counts  struct {
		Total, Completed, Failed int
	} `json:"request_counts"`
	Results []struct {
		CustomID string `json:"custom_id"`
		Error    *struct {
			ErrorType string `json:"error_type"`
		} `json:"error"`
	} `json:"results"`
}

// The whole flow over HTTP: a batch submitted here keeps its requests
// (0600, no key); a retry of it before it settles is refused; a dry run
// prints exactly the failed retryable rows' bodies and sends nothing;
// without a terminal it asks for --yes, on one "n" sends nothing; --yes
// submits the child, which carries retry_of in get and list --json; the
// effective results take the child's answers, with counts that add up.
func TestBatchRetryFlow(t *testing.T) {
	clk := &gwClock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	h := newHarness(t, gateway.Options{Now: clk.now, BatchDuration: time.Minute})
	parent, _ := h.submitted(t, 300)

	h.run("", "batch", "retry", parent, "--yes").must(t, 1, nil, []string{"is validating", "only a settled batch can be retried"})
	clk.advance(2 * time.Minute)

	var pb batchJSON
	decodeJSONOut(t, h.run("", "batch", "get", parent, "--json"), &pb)
	if pb.Status != "completed" || pb.Counts.Failed == 0 || pb.RetryOf != "" {
		t.Fatalf("parent: %+v", pb)
	}
	want := map[string]bool{}
	types := map[string]int{}
	for _, r := range pb.Results {
		if r.Error != nil {
			types[r.Error.ErrorType]++
			if retry.Retryable(r.Error.ErrorType) {
				want[r.CustomID] = true
			}
		}
	}
	if len(want) == 0 || len(want) == pb.Counts.Failed {
		t.Fatalf("the gateway's failures should mix retryable and other types: %v", types)
	}

	// The request log kept the bodies, in a 0600 file without the key.
	state, _ := config.StateDir(func(k string) string { return h.env[k] })
	logPath := reqlog.Path(state)
	if st, err := os.Stat(logPath); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("request log: %v %v", st, err)
	}
	for _, p := range []string{logPath, logPath + "-wal"} {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(gateway.DemoAPIKey)) {
			t.Fatalf("%s holds the API key", p)
		}
	}

	posts := func() int { return len(h.srv.RequestsTo("POST", "/api/v1/batches")) }
	before := posts()
	r := h.run("", "batch", "retry", parent, "--dry-run")
	r.must(t, 0, nil, []string{"retry of " + parent, "[x]", "[ ]", "not retried by default", "estimate", "about $", "dry run: nothing was sent"})
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	got := map[string]bool{}
	for _, l := range lines {
		var rq struct {
			CustomID string `json:"custom_id"`
			Body     struct {
				Model    string `json:"model"`
				Messages []struct{ Content string }
			} `json:"body"`
		}
		if err := json.Unmarshal([]byte(l), &rq); err != nil || rq.Body.Model != "openai/gpt-4o-mini" {
			t.Fatalf("dry-run line %q: %v", l, err)
		}
		if rq.Body.Messages[0].Content != "question "+strings.TrimLeft(strings.TrimPrefix(rq.CustomID, "row-"), "0") && rq.CustomID != "row-000" {
			t.Fatalf("%s went with another row's body: %q", rq.CustomID, rq.Body.Messages[0].Content)
		}
		got[rq.CustomID] = true
	}
	if fmt.Sprint(keys(got)) != fmt.Sprint(keys(want)) {
		t.Fatalf("dry run sends %v, the retryable failures are %v", keys(got), keys(want))
	}
	if posts() != before {
		t.Fatal("a dry run sent a batch")
	}

	// Another model: every body that names one names the new one.
	r = h.run("", "batch", "retry", parent, "--dry-run", "--model", "anthropic/claude-3.5-haiku")
	r.must(t, 0, nil, []string{"anthropic/claude-3.5-haiku (another than the batch's openai/gpt-4o-mini)"})
	if strings.Contains(r.out, "gpt-4o-mini") || !strings.Contains(r.out, `"model":"anthropic/claude-3.5-haiku"`) {
		t.Fatalf("bodies keep the old model: %s", r.out)
	}

	// Every type named chooses exactly those.
	var other string
	for ty := range types {
		if !retry.Retryable(ty) {
			other = ty
		}
	}
	r = h.run("", "batch", "retry", parent, "--dry-run", "--error-type", other)
	r.must(t, 0, nil, nil)
	if n := len(strings.Split(strings.TrimSpace(r.out), "\n")); n != types[other] {
		t.Fatalf("--error-type %s sends %d rows, want %d", other, n, types[other])
	}

	// No terminal and no --yes; a terminal and "n": nothing is sent.
	h.run("", "batch", "retry", parent).must(t, 2, []string{"retry of " + parent}, []string{"refusing without --yes"})
	h.tty = true
	h.run("n\n", "batch", "retry", parent).must(t, 1, nil, []string{"[y/N]", "not done"})
	h.tty = false
	if posts() != before {
		t.Fatal("a refused retry sent a batch")
	}

	r = h.run("", "batch", "retry", parent, "--yes", "--json")
	r.must(t, 0, nil, nil)
	var out struct {
		Parent, Child string
		Requests      int
		Groups        []retry.Group
		Estimate      retry.Estimate
	}
	decodeJSONOut(t, r, &out)
	if out.Parent != parent || !strings.HasPrefix(out.Child, "batch-") || out.Requests != len(want) || !out.Estimate.Known || out.Estimate.Cost <= 0 {
		t.Fatalf("json: %+v", out)
	}
	sent := h.srv.RequestsTo("POST", "/api/v1/batches")
	var body struct {
		Model    string
		Requests []struct {
			CustomID string `json:"custom_id"`
		}
	}
	json.Unmarshal(sent[len(sent)-1].Body, &body)
	if len(body.Requests) != len(want) || body.Model != "openai/gpt-4o-mini" {
		t.Fatalf("sent %d requests to %s", len(body.Requests), body.Model)
	}
	for _, rq := range body.Requests {
		if !want[rq.CustomID] {
			t.Fatalf("sent %s, which did not fail with a retryable type", rq.CustomID)
		}
	}

	// Lineage: the child carries retry_of; the parent does not.
	clk.advance(2 * time.Minute)
	var cb batchJSON
	decodeJSONOut(t, h.run("", "batch", "get", out.Child, "--json"), &cb)
	if cb.RetryOf != parent || cb.Status != "completed" {
		t.Fatalf("child: %+v", cb)
	}
	h.run("", "batch", "get", out.Child).must(t, 0, []string{"retry of   " + parent}, nil)
	listed := 0
	for _, l := range strings.Split(strings.TrimSpace(h.run("", "batch", "list", "--json").out), "\n") {
		var b batchJSON
		json.Unmarshal([]byte(l), &b)
		switch b.ID {
		case out.Child:
			listed++
			if b.RetryOf != parent {
				t.Fatalf("list: the child lacks retry_of: %s", l)
			}
		case parent:
			listed++
			if b.RetryOf != "" {
				t.Fatalf("list: the parent has retry_of: %s", l)
			}
		}
	}
	if listed != 2 {
		t.Fatalf("list --json showed %d of the two", listed)
	}

	// Effective results: the child's answers replace the parent's for its
	// rows; succeeded + failed = the parent's rows.
	childFailed := map[string]bool{}
	for _, r := range cb.Results {
		if r.Error != nil {
			childFailed[r.CustomID] = true
		}
	}
	r = h.run("", "batch", "results", parent, "--effective")
	r.must(t, 0, nil, []string{"effective results of " + parent})
	eff := strings.Split(strings.TrimSpace(r.out), "\n")
	failed := 0
	for _, l := range eff {
		var it struct {
			CustomID string    `json:"custom_id"`
			ID       string    `json:"id"`
			Error    *struct{} `json:"error"`
		}
		json.Unmarshal([]byte(l), &it)
		if it.Error != nil {
			failed++
		}
		if want[it.CustomID] && (it.Error != nil) != childFailed[it.CustomID] {
			t.Fatalf("%s: the effective row is not the child's", it.CustomID)
		}
	}
	wantFailed := pb.Counts.Failed - len(want) + len(childFailed)
	if len(eff) != pb.Counts.Total || failed != wantFailed {
		t.Fatalf("effective: %d rows, %d failed; want %d, %d", len(eff), failed, pb.Counts.Total, wantFailed)
	}
	summary := fmt.Sprintf("%d rows · %d succeeded · %d failed · %d answered by 1 retry (%d recovered)",
		pb.Counts.Total, pb.Counts.Total-wantFailed, wantFailed, len(want), len(want)-len(childFailed))
	if !strings.Contains(r.err, summary) {
		t.Fatalf("stderr %q lacks %q", r.err, summary)
	}
	// A retry of the effective results sends only the rows whose latest
	// attempt failed with a retryable type.
	still := map[string]bool{}
	for _, r := range cb.Results {
		if r.Error != nil && retry.Retryable(r.Error.ErrorType) {
			still[r.CustomID] = true
		}
	}
	r = h.run("", "batch", "retry", parent, "--effective", "--dry-run")
	if len(still) == 0 {
		r.must(t, 1, nil, []string{"no failed row is of a retryable type"})
	} else {
		r.must(t, 0, nil, nil)
		got := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(r.out), "\n") {
			var rq struct {
				CustomID string `json:"custom_id"`
			}
			json.Unmarshal([]byte(l), &rq)
			got[rq.CustomID] = true
		}
		if fmt.Sprint(keys(got)) != fmt.Sprint(keys(still)) {
			t.Fatalf("--effective sends %v, the rows still failing are %v", keys(got), keys(still))
		}
	}

	// The record's counts of the parent are still its own.
	if rb, ok := record.Open(state).Batch(h.srv.URL, parent); !ok || rb.Counts.Failed != pb.Counts.Failed {
		t.Fatalf("the record's parent: %+v (%v)", rb, ok)
	}

	// A retry of the retry: its requests were kept too.
	for _, r := range cb.Results {
		if r.Error != nil {
			h.run("", "batch", "retry", out.Child, "--dry-run", "--error-type", r.Error.ErrorType).must(t, 0, nil, []string{"bodies from the request log"})
			break
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Each refusal, with its words and exit code: an unknown error type
// (before any request), an unknown id, nothing failed, a batch whose
// requests were not kept (which names --input), a bad --input (not JSON
// Lines, a wrong shape, a custom_id the batch does not have), a type that
// no row failed with, only non-retryable failures.
func TestBatchRetryRefusals(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	chat := h.srv.SeedID(gateway.SeedChat)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}

	h.run("", "batch", "retry", chat, "--error-type", "nonsense").must(t, 2, nil, []string{`--error-type "nonsense" is not a canonical error type`})
	h.run("", "batch", "retry", chat, "--model", "gpt").must(t, 2, nil, []string{"model"})
	h.run("", "batch", "retry", chat, "--dry-run", "--watch").must(t, 2, nil, []string{"--dry-run"})
	h.run("", "batch", "retry", chat, "--input", write("notjson.jsonl", "hello\n")).must(t, 2, nil, []string{"notjson.jsonl is not the batch's JSON Lines", "line 1", "not valid JSON"})
	h.run("", "batch", "retry", chat, "--input", write("shape.jsonl", `{"custom_id":"a","body":[1]}`+"\n")).must(t, 2, nil, []string{"line 1: body must be a JSON object"})
	h.run("", "batch", "retry", chat, "--input", filepath.Join(dir, "missing.jsonl")).must(t, 2, nil, []string{"--input: cannot read"})
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("refused input sent %d requests", n)
	}

	h.run("", "batch", "retry", "batch-0-missing", "--yes").must(t, 1, nil, []string{"HTTP 404"})
	h.run("", "batch", "retry", chat, "--yes").must(t, 1, nil, []string{"were not kept on this machine", "pass --input FILE with the original JSON Lines"})

	// The seeded batch's own rows, from a file.
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(h.run("", "batch", "results", chat).out), "\n") {
		var it struct {
			CustomID string `json:"custom_id"`
		}
		json.Unmarshal([]byte(l), &it)
		ids = append(ids, it.CustomID)
	}
	var sb strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&sb, `{"custom_id":%q,"body":{"messages":[{"role":"user","content":"again %s"}]}}`+"\n", id, id)
	}
	good := write("chat.jsonl", sb.String())
	r := h.run("", "batch", "retry", chat, "--input", good, "--dry-run")
	r.must(t, 0, nil, []string{"bodies from " + good, "provider_overloaded", "timeout", "content_policy_violation", "[ ]"})
	if n := len(strings.Split(strings.TrimSpace(r.out), "\n")); n != 2 {
		t.Fatalf("%d rows retried of the seeded batch's two retryable failures:\n%s", n, r.out)
	}
	stray := write("stray.jsonl", sb.String()+`{"custom_id":"not-in-it","body":{}}`+"\n")
	h.run("", "batch", "retry", chat, "--input", stray, "--dry-run").must(t, 1, nil, []string{`custom_id "not-in-it" is not a row of batch ` + chat})
	part := write("part.jsonl", strings.SplitAfter(sb.String(), "\n")[0])
	h.run("", "batch", "retry", chat, "--input", part, "--dry-run").must(t, 1, nil, []string{"2 of the 2 rows to retry have no request in " + part})
	h.run("", "batch", "retry", chat, "--input", good, "--dry-run", "--error-type", "image_too_large").must(t, 1, nil,
		[]string{"--error-type image_too_large: no failed row has this error type", "timeout 1"})
	h.run("", "batch", "retry", h.srv.SeedID(gateway.SeedValidating), "--yes").must(t, 1, nil, []string{"only a settled batch"})

	// Hand-made batches: nothing failed; only failures not retried by
	// default.
	h.env["GWDASH_BASE_URL"] = batchServer(t, map[string]string{
		"batch-ok":     batchBody("batch-ok", okRow("a", "fine", 1, 1, 0)),
		"batch-policy": batchBody("batch-policy", okRow("a", "fine", 1, 1, 0), failRow("b", "content_policy_violation")),
	})
	h.run("", "batch", "retry", "batch-ok", "--yes").must(t, 1, nil, []string{"nothing failed"})
	pol := write("pol.jsonl", `{"custom_id":"a","body":{}}`+"\n"+`{"custom_id":"b","body":{}}`+"\n")
	h.run("", "batch", "retry", "batch-policy", "--input", pol, "--yes").must(t, 1, nil,
		[]string{"no failed row is of a retryable type", "content_policy_violation 1", "--error-type"})
}

// A read-only session refuses a retry before anything is sent, but may
// still print a dry run.
func TestBatchRetryReadOnly(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "--read-only", "batch", "retry", h.srv.SeedID(gateway.SeedChat), "--yes").must(t, 2, nil, []string{"read-only", "retrying a batch's failed rows"})
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("a read-only retry sent %d requests", n)
	}
}

// --watch follows the child as batch watch does: its progress on stderr,
// its final state on stdout, exit 0 when it completed.
func TestBatchRetryWatch(t *testing.T) {
	h := newHarness(t, gateway.Options{BatchDuration: time.Millisecond})
	parent, _ := h.submitted(t, 300)
	h.run("", "batch", "watch", parent).must(t, 0, nil, nil)
	r := h.run("", "batch", "retry", parent, "--yes", "--watch")
	r.must(t, 0, []string{"submitted batch-", "a retry of " + parent, "completed"}, []string{"watching batch-"})
	child := strings.Fields(r.out[strings.Index(r.out, "submitted "):])[1]
	child = strings.TrimSuffix(child, ":")
	var cb batchJSON
	decodeJSONOut(t, h.run("", "batch", "get", child, "--json"), &cb)
	if cb.RetryOf != parent || cb.Status != "completed" {
		t.Fatalf("child %s: %+v", child, cb)
	}
}
