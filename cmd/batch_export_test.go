package cmd

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/internal/export"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// CSV of hand-made results: the columns, RFC 4180 quoting (commas,
// quotes, newlines, CRLF), numbers as sent, empty cells for what a
// result lacks, text inert, formulas kept from running; JSON Lines: each
// result as sent, the same value.
func TestBatchExportEdgeCases(t *testing.T) {
	body := batchBody("batch-x",
		okRow("plain", "a, \"quoted\"\nsecond line", 12, 34, 0.000123),
		failRow("broke", "rate_limit_exceeded"),
		okRow("=cmd|' /C calc'!A0", "=HYPERLINK(\"http://evil\")", 1, 2, 0),
		okRow("list", "- item one\n- item two", 1, 2, 0.5),
		okRow("evil", "\x1b]52;c;cHduZWQ=\x07\x1b[2Jgotcha\u202e", 1, 1, 0.0001),
		`{"id":"g","custom_id":"embed","response":{"status_code":200,"request_id":null,"body":{"object":"list","data":[{"object":"embedding","embedding":[0.1]}],"model":"openai/text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}},"error":null}`,
		`{"id":"g","custom_id":"http500","response":{"status_code":500,"request_id":null,"body":{}},"error":null}`,
	)
	h := newHarness(t, gateway.Options{})
	h.env["GWDASH_BASE_URL"] = batchServer(t, map[string]string{"batch-x": body})

	r := h.run("", "batch", "export", "batch-x", "--format", "csv")
	r.must(t, 0, nil, nil)
	if !strings.Contains(r.out, "\r\n") || strings.ContainsAny(r.out, "\x1b\x07") || strings.Contains(r.out, "\u202e") {
		t.Fatalf("not CRLF, or raw controls: %q", r.out)
	}
	recs, err := csv.NewReader(strings.NewReader(r.out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		export.Columns,
		{"plain", "succeeded", "openai/gpt-4o-mini", "12", "34", "0.000123", "", "", "a, \"quoted\"\nsecond line"},
		{"broke", "failed", "", "", "", "", "rate_limit_exceeded", "it failed: rate_limit_exceeded", ""},
		{"'=cmd|' /C calc'!A0", "succeeded", "openai/gpt-4o-mini", "1", "2", "0", "", "", "'=HYPERLINK(\"http://evil\")"},
		{"list", "succeeded", "openai/gpt-4o-mini", "1", "2", "0.5", "", "", "- item one\n- item two"},
		{"evil", "succeeded", "openai/gpt-4o-mini", "1", "1", "0.0001", "", "", "␛]52;c;cHduZWQ=␇␛[2Jgotcha‹U+202E›"},
		{"embed", "succeeded", "openai/text-embedding-3-small", "8", "", "", "", "", ""},
		{"http500", "failed", "", "", "", "", "HTTP 500", "", ""},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Fatalf("csv:\n%q\nwant\n%q", recs, want)
	}

	r = h.run("", "batch", "export", "batch-x")
	r.must(t, 0, nil, nil)
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	var sent struct{ Results []json.RawMessage }
	json.Unmarshal([]byte(body), &sent)
	if len(lines) != len(sent.Results) || strings.ContainsAny(r.out, "\x1b\x07") {
		t.Fatalf("%d lines for %d results: %q", len(lines), len(sent.Results), r.out)
	}
	for i, l := range lines {
		var got, exp any
		if json.Unmarshal([]byte(l), &got) != nil || json.Unmarshal(sent.Results[i], &exp) != nil || !reflect.DeepEqual(got, exp) {
			t.Fatalf("line %d is not the result as sent: %s", i, l)
		}
	}
}

// The error paths: refused input before any request, an unknown id, a
// batch not settled, a body cut short (no partial file is left).
func TestBatchExportErrors(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	chat := h.srv.SeedID(gateway.SeedChat)
	h.run("", "batch", "export", chat, "--format", "xlsx").must(t, 2, nil, []string{"--format", "jsonl or csv"})
	h.run("", "batch", "export").must(t, 2, nil, []string{"a batch id"})
	h.run("", "batch", "export", chat, "--output", filepath.Join(t.TempDir(), "no", "such", "dir", "x.csv")).must(t, 2, nil, []string{"--output"})
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("refused input sent %d requests", n)
	}
	h.run("", "batch", "export", "batch-0-missing").must(t, 1, nil, []string{"HTTP 404"})
	r := h.run("", "batch", "export", h.srv.SeedID(gateway.SeedValidating), "--format", "csv")
	r.must(t, 1, nil, []string{"batch is validating", "terminal status"})
	if r.out != "" {
		t.Fatalf("a batch without results wrote %q", r.out)
	}

	// The embedded gateway's batch: a row per result, failures as counted.
	dir := t.TempDir()
	out := filepath.Join(dir, "chat.csv")
	h.run("", "batch", "export", chat, "--format", "csv", "-o", out).must(t, 0, nil, []string{"exported 40 results to " + out})
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 41 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	failed := 0
	for _, rec := range recs[1:] {
		if rec[1] == "failed" {
			failed++
		}
	}
	var b struct {
		Counts struct{ Failed int } `json:"request_counts"`
	}
	json.Unmarshal([]byte(h.run("", "batch", "get", chat, "--json").out), &b)
	if failed == 0 || failed != b.Counts.Failed {
		t.Fatalf("%d failed rows, the batch counts %d", failed, b.Counts.Failed)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}

	// The other body shapes: a response's output text, a message's text
	// blocks, their input and output tokens.
	for _, seed := range []string{gateway.SeedResponses, gateway.SeedMessages} {
		r := h.run("", "batch", "export", h.srv.SeedID(seed), "--format", "csv")
		r.must(t, 0, nil, nil)
		recs, err := csv.NewReader(strings.NewReader(r.out)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%s: %v %d", seed, err, len(recs))
		}
		for _, rec := range recs[1:] {
			if rec[1] == "succeeded" && (rec[2] == "" || rec[3] == "" || rec[4] == "" || !strings.HasPrefix(rec[8], "## ")) {
				t.Fatalf("%s: a row without its model, tokens or text: %q", seed, rec)
			}
		}
	}

	// A body cut short: exit 1, and no file where the export was going.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"id":"cut","object":"batch","results":[`+okRow("a", "x", 1, 1, 0)+`,`)
	}))
	t.Cleanup(srv.Close)
	h.env["GWDASH_BASE_URL"] = srv.URL + "/api/v1"
	cut := filepath.Join(dir, "cut.csv")
	h.run("", "batch", "export", "cut", "--format", "csv", "-o", cut).must(t, 1, nil, nil)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a failed export left files: %v", entries)
	}
}

// Against a server whose every string carries terminal escapes, diff,
// export and the end-of-watch notification print none of them live.
func TestHostileServerBatchFlow(t *testing.T) {
	h := newHostileHarness(t, hostile.Options{CleanStatus: true})
	h.env["TERM_PROGRAM"] = "iTerm.app"
	h.env["TMUX"] = "/tmp/tmux-0/default,1,0"
	chat, cancelled := h.srv.SeedID(gateway.SeedChat), h.srv.SeedID(gateway.SeedCancelled)
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	for _, args := range [][]string{
		{"batch", "diff", chat, cancelled},
		{"batch", "diff", chat, cancelled, "--json"},
		{"batch", "export", chat},
		{"batch", "export", chat, "--format", "csv"},
		{"batch", "watch", chat, "--notify", "--exec", env},
	} {
		r := h.runTTY(args...)
		printed := r.out + r.err
		// Our own notification (one OSC 9 wrapped for tmux, ended by its
		// one BEL) is taken out; what it carries is checked with the rest.
		if i := strings.Index(printed, "\x1bPtmux;\x1b\x1b]9;"); i >= 0 {
			j := strings.Index(printed[i:], "\a\x1b\\")
			if j < 0 {
				t.Fatalf("%v: an unterminated notification: %q", args, printed[i:])
			}
			printed = printed[:i] + printed[i+len("\x1bPtmux;\x1b\x1b]9;"):i+j] + printed[i+j+3:]
		} else if args[1] == "watch" {
			t.Fatalf("%v: no notification: %q", args, r.err)
		}
		if bad := hostile.Found(printed); bad != "" {
			t.Fatalf("%v printed %q:\nstdout: %q\nstderr: %q", args, bad, r.out, r.err)
		}
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.err)
		}
	}
}
