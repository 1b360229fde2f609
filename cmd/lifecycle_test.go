package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
)

func TestBatchListAndDelete(t *testing.T) {
	h := newHarness(t, gateway.Options{PurgeAfter: time.Hour})
	r := h.run("", "batch", "list")
	r.must(t, 0, []string{"ID", "STATUS", "MODEL", "ENDPOINT", "OK/FAIL/ALL", "CREATED", "COST", "18 batches"}, nil)
	r = h.run("", "batch", "list", "--all", "--limit", "5", "--status", "completed", "--json")
	r.must(t, 0, nil, nil)
	sc := bufio.NewScanner(strings.NewReader(r.out))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var b map[string]any
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil || b["status"] != "completed" || b["results"] != nil {
			t.Fatalf("line %d: %v %v", n, err, b["status"])
		}
		n++
	}
	if n < 8 {
		t.Fatalf("%d completed batches", n)
	}
	before := len(h.srv.Requests())
	h.run("", "batch", "list", "--limit", "0").must(t, 2, nil, []string{"--limit"})
	h.run("", "batch", "list", "--status", "done").must(t, 2, nil, []string{"status"})
	if len(h.srv.Requests()) != before {
		t.Fatal("refused flags were sent")
	}

	// Delete asks on a terminal, refuses without one unless --yes.
	id := h.srv.SeedID(gateway.SeedChat)
	before = len(h.srv.RequestsTo("DELETE", "/api/v1/batches/"))
	h.run("", "batch", "delete", id).must(t, 2, nil, []string{"--yes", "not a terminal"})
	if len(h.srv.RequestsTo("DELETE", "/api/v1/batches/")) != before {
		t.Fatal("a refused delete was sent")
	}
	h.tty = true
	h.run("n\n", "batch", "delete", id).must(t, 1, nil, []string{"[y/N]", "not done"})
	h.run("y\n", "batch", "delete", id).must(t, 0, []string{"deleted " + id}, []string{"[y/N]"})
	h.tty = false
	h.run("", "batch", "get", id).must(t, 1, nil, []string{"HTTP 404", "no batch has that id"})
	// In flight: a clear message, exit 1, no retry.
	running := h.srv.SeedID(gateway.SeedValidating)
	before = len(h.srv.RequestsTo("DELETE", "/api/v1/batches/"))
	h.run("", "batch", "delete", running, "--yes").must(t, 1, nil, []string{"HTTP 409", "settled"})
	if got := len(h.srv.RequestsTo("DELETE", "/api/v1/batches/")) - before; got != 1 {
		t.Fatalf("%d DELETEs for an in-flight batch", got)
	}
}

func TestBatchListFallsBackToTheRecord(t *testing.T) {
	h := newHarness(t, gateway.Options{NoBatchList: true, SubmitVisibleAfter: time.Nanosecond})
	// Nothing remembered yet: an empty list, and why.
	h.run("", "batch", "list").must(t, 0, []string{"0 batches"}, []string{"does not list batches"})
	h.run("", "batch", "get", h.srv.SeedID(gateway.SeedChat)).must(t, 0, nil, nil)
	jsonl := filepath.Join(t.TempDir(), "r.jsonl")
	writeFile(t, jsonl, `{"custom_id":"a","body":{}}`+"\n")
	h.run("", "batch", "submit", jsonl, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions").must(t, 0, nil, nil)
	r := h.run("", "batch", "list")
	r.must(t, 0, []string{h.srv.SeedID(gateway.SeedChat), "(remembered)", "2 batches"}, []string{"remembered on this machine"})
	// A 404 id is not remembered.
	h.run("", "batch", "get", "batch-0-typo").must(t, 1, nil, []string{"404"})
	if strings.Contains(h.run("", "batch", "list").out, "batch-0-typo") {
		t.Fatal("a 404 id was remembered")
	}
	shards, _ := filepath.Glob(filepath.Join(h.env["XDG_STATE_HOME"], "gwdash", "record", "*.jsonl"))
	if len(shards) != 1 {
		t.Fatalf("one gateway, one record file: %v", shards)
	}
	st, err := os.Stat(shards[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("record: %v %v", st, err)
	}
}

// Only a batch submitted from here gets the just-submitted 404 grace.
func TestWatchGraceOnlyForOwnSubmissions(t *testing.T) {
	h := newHarness(t, gateway.Options{BatchDuration: 200 * time.Millisecond, SubmitVisibleAfter: 300 * time.Millisecond})
	gets := func() int { return len(h.srv.RequestsTo("GET", "/api/v1/batches/")) }
	before := gets()
	h.run("", "batch", "watch", "batch-0-typo", "--interval", "10ms").must(t, 1, nil, []string{"HTTP 404"})
	if gets()-before != 1 {
		t.Fatalf("a mistyped id was polled %d times", gets()-before)
	}
	jsonl := filepath.Join(t.TempDir(), "r.jsonl")
	writeFile(t, jsonl, `{"custom_id":"a","body":{}}`+"\n")
	r := h.run("", "batch", "submit", jsonl, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions")
	id := strings.Fields(r.out)[0]
	h.run("", "batch", "watch", id, "--interval", "10ms").must(t, 0, []string{"completed"}, nil)
}

func TestDestLifecycle(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	// Every missing member is named, nothing is sent.
	before := len(h.srv.Requests())
	h.run("", "dest", "create", "--type", "s3", "--name", "bucket").must(t, 2, nil, []string{"config.bucketName", "config.accessKeyId", "config.secretAccessKey"})
	h.run("", "dest", "create", "--type", "webhook", "--name", "w", "--set", "url=https://h", "--set", "method=GET").must(t, 2, nil, []string{"config.method", "POST, PUT"})
	h.run("", "dest", "create", "--name", "x").must(t, 2, nil, []string{"type"})
	h.run("", "dest", "get", "not-a-uuid").must(t, 2, nil, []string{"UUID"})
	h.run("", "dest", "create", "--type", "langfuse", "--name", "x", "--set", "publicKey=p", "--set-from-env", "secretKey=NOPE").must(t, 2, nil, []string{"NOPE"})
	if len(h.srv.Requests()) != before {
		t.Fatal("a refused create was sent")
	}
	// Secrets from the environment and from stdin; the dry run masks them.
	h.env["LF_SECRET"] = "sk-lf-from-the-environment-1234"
	r := h.run("", "dest", "create", "--type", "langfuse", "--name", "from-env", "--set", "publicKey=pk-1", "--set-from-env", "secretKey=LF_SECRET", "--dry-run")
	r.must(t, 0, []string{`"secretKey":"sk-l...1234"`}, nil)
	if strings.Contains(r.out, "from-the-environment") {
		t.Fatal("the dry run shows a secret")
	}
	r = h.run("sk-lf-from-stdin-0000000000\n", "dest", "create", "--type", "langfuse", "--name", "from-stdin", "--set", "publicKey=pk-2",
		"--set-from-stdin", "secretKey", "--sampling-rate", "25%", "--enabled", "--json")
	r.must(t, 0, []string{`"name":"from-stdin"`, `"sampling_rate":0.25`}, nil)
	var created struct {
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(r.out), &created)
	if h.srv.DestinationSecret(created.ID, "secretKey") != "sk-lf-from-stdin-0000000000" {
		t.Fatal("the secret from stdin was not sent in full")
	}
	// A future type is sent with its members as given.
	h.run("", "dest", "create", "--type", "acme-traces", "--name", "future", "--set", "collectorUrl=https://a").must(t, 0, []string{"acme-traces"}, []string{"created future"})
	h.run("", "dest", "get", created.ID).must(t, 0, []string{"from-stdin", "config.secretKey", "sk-lf-...0000", "sampling", "25%"}, nil)
	// Read-only refuses every change.
	h.run("", "dest", "create", "--type", "otel-collector", "--name", "o", "--set", "endpoint=https://o", "--read-only").must(t, 2, nil, []string{"read-only"})
	h.run("", "dest", "delete", created.ID, "--yes", "--read-only").must(t, 2, nil, []string{"read-only"})

	// Someone else changes it after it was seen here: update refuses with
	// a diff, --force applies on top.
	h.srv.EditDestination(created.ID, func(name *string, rate *float64) { *name = "renamed-by-someone" })
	r = h.run("", "dest", "update", created.ID, "--sampling-rate", "0.5")
	r.must(t, 1, nil, []string{"AS SEEN HERE", "ON THE SERVER NOW", "YOURS", "renamed-by-someone", "from-stdin", "sampling_rate", "--force"})
	if n := len(h.srv.RequestsTo("PATCH", "/api/v1/observability/destinations/"+created.ID)); n != 0 {
		t.Fatalf("a refused update sent %d PATCHes", n)
	}
	h.run("", "dest", "update", created.ID, "--sampling-rate", "0.5", "--force").must(t, 0, []string{"renamed-by-someone"}, nil)
	// Seen again: no conflict now.
	h.run("", "dest", "update", created.ID, "--sampling-rate", "0.4").must(t, 0, nil, nil)

	// Delete asks, refuses without a terminal, then is gone.
	h.run("", "dest", "delete", created.ID).must(t, 2, nil, []string{"--yes"})
	h.run("", "dest", "delete", created.ID, "--yes").must(t, 0, []string{"deleted"}, nil)
	h.run("", "dest", "get", created.ID).must(t, 1, nil, []string{"HTTP 404", "no destination has that id"})
}

func TestModelsKeyGeneration(t *testing.T) {
	h := newHarness(t, gateway.Options{KeyLimit: 10, KeyUsage: 6.8, GenerationDelay: 50 * time.Millisecond})
	r := h.run("", "models")
	r.must(t, 0, []string{"ID", "CONTEXT", "INPUT $/M", "OUTPUT $/M", "MODALITIES", "openai/gpt-4o-mini", "$0.1500", "router", "free"}, nil)
	h.run("", "models", "--search", "llama free").must(t, 0, []string{"meta-llama/llama-3.3-70b-instruct:free", "1 model"}, nil)
	gets := len(h.srv.RequestsTo("GET", "/api/v1/models"))
	h.run("", "models", "--json", "--search", "gpt-4o").must(t, 0, []string{`"id":"openai/gpt-4o-mini"`}, nil)
	if len(h.srv.RequestsTo("GET", "/api/v1/models")) != gets {
		t.Fatal("the cached catalogue was not used")
	}
	h.run("", "models", "--refresh").must(t, 0, nil, nil)
	if len(h.srv.RequestsTo("GET", "/api/v1/models")) != gets+1 {
		t.Fatal("--refresh did not read the server")
	}
	h.run("", "key").must(t, 0, []string{"$3.20 of $10.00 left this month"}, nil)
	usage := func() float64 {
		var k struct {
			Data struct {
				Usage float64 `json:"usage"`
			} `json:"data"`
		}
		json.Unmarshal([]byte(h.run("", "key", "--json").out), &k)
		return k.Data.Usage
	}
	used := usage()
	r = h.run("", "respond", "hello", "--model", "openai/gpt-4o")
	r.must(t, 0, nil, []string{"generation gen-"})
	gen := r.err[strings.Index(r.err, "generation gen-")+len("generation "):]
	gen = strings.Fields(gen)[0]
	if usage() <= used {
		t.Fatal("the key's usage did not grow after an answer")
	}
	for i := 0; ; i++ {
		r = h.run("", "generation", gen)
		if r.code == 0 || i > 100 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.must(t, 0, []string{"provider", "OpenAI", "total cost", "native tokens", "streamed", " on"}, nil)
	h.run("", "generation", gen, "--json").must(t, 0, []string{`"id":"` + gen + `"`}, nil)
	h.run("", "generation", "gen-nope").must(t, 1, nil, []string{"404"})
	// The key is never printed.
	if out := h.run("", "key", "--json").out; strings.Contains(out, gateway.DemoAPIKey) {
		t.Fatal("key printed")
	}
}

func TestRespondCompare(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini", "--model", "anthropic/claude-sonnet-4", "--model", gateway.ModelFailMidstream)
	r.must(t, 1, []string{"── openai/gpt-4o-mini ── completed", "── anthropic/claude-sonnet-4 ── completed", "── demo/fail-midstream ── response failed"},
		[]string{"openai/gpt-4o-mini: completed", "anthropic/claude-sonnet-4: completed", "demo/fail-midstream: response failed", "first token: 1.", "cost: 1."})
	if n := len(h.srv.RequestsTo("POST", "/api/v1/responses")); n != 3 {
		t.Fatalf("%d POSTs for three models", n)
	}
	r = h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini", "--model", "meta-llama/llama-3.1-70b-instruct", "--json")
	r.must(t, 0, nil, nil)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	single := h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini")
	for i, l := range lines {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		for _, k := range []string{"model", "status", "text", "usage", "cost", "ttft_ms", "tokens_per_second", "generation_id", "error"} {
			if _, ok := o[k]; !ok {
				t.Fatalf("line %d lacks %s", i, k)
			}
		}
		if o["status"] != "completed" || o["error"] != nil {
			t.Fatalf("line %d: %v", i, o)
		}
		if i == 0 && o["text"].(string)+"\n" != single.out {
			t.Fatalf("the compared text differs from the single answer")
		}
	}
	h.run("", "respond", "x", "--model", "a/b", "--model", "a/c", "--model", "a/d", "--model", "a/e", "--model", "a/f").must(t, 2, nil, []string{"2 to 4"})
	h.run("", "respond", "x", "--model", "a/b", "--model", "nope").must(t, 2, nil, []string{"model"})
}
