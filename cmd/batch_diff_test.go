package cmd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
)

// okRow is a chat result that succeeded with text, tokens and cost.
func okRow(cid, text string, in, out int, cost float64) string {
	t, _ := json.Marshal(text)
	return fmt.Sprintf(`{"id":"gen-%s","custom_id":%q,"response":{"status_code":200,"request_id":null,"body":{"id":"c","object":"chat.completion","created":1,"model":"openai/gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"finish_reason":"stop","native_finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"cost":%v}}},"error":null}`,
		cid, cid, t, in, out, in+out, cost)
}

// failRow is a result that failed with an error type.
func failRow(cid, errorType string) string {
	return fmt.Sprintf(`{"id":"gen-%s","custom_id":%q,"response":null,"error":{"type":"server_error","message":"it failed: %s","param":null,"error_type":%q}}`, cid, cid, errorType, errorType)
}

// batchBody is a settled batch of these results (results before the
// status, as a server that sorts its members sends them).
func batchBody(id string, rows ...string) string {
	return fmt.Sprintf(`{"completion_window":"24h","created_at":1763700000,"endpoint":"/v1/chat/completions","error":null,"finalized_at":1763700100,"id":%q,"model":"openai/gpt-4o-mini","object":"batch","request_counts":{"total":%d,"completed":0,"failed":0},"results":[%s],"status":"completed","usage":null}`,
		id, len(rows), strings.Join(rows, ","))
}

// batchServer serves these batch bodies by id, 404 otherwise.
func batchServer(t *testing.T, bodies map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/api/v1/batches/")
		body, ok := bodies[id]
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(404)
			fmt.Fprintf(w, `{"error":{"code":404,"message":"Batch %q not found"}}`, id)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/api/v1"
}

type diffOut struct {
	A, B struct {
		ID     string
		Status string
		Rows   int
	}
	Rows []struct {
		CustomID string `json:"custom_id"`
		Change   string
		A, B     *struct {
			Status           string
			ErrorType        string   `json:"error_type"`
			PromptTokens     *int     `json:"prompt_tokens"`
			CompletionTokens *int     `json:"completion_tokens"`
			Cost             *float64 `json:"cost"`
		}
		AnswerChanged         bool     `json:"answer_changed"`
		Diff                  []string `json:"diff"`
		CompletionTokensDelta *int     `json:"completion_tokens_delta"`
		CostDelta             *float64 `json:"cost_delta"`
	}
	Summary struct {
		Improved, Regressed, Changed, Same int
		OnlyInA                            int      `json:"only_in_a"`
		OnlyInB                            int      `json:"only_in_b"`
		CostA                              *float64 `json:"cost_a"`
		CostB                              *float64 `json:"cost_b"`
	}
}

// Every kind of row, a repeated custom_id, hostile text: each row of A
// and of B is counted once, the answer's diff is in the row, deltas are
// B minus A, the text reaches the terminal inert, and --fail-on exits 1
// only when its condition holds.
func TestBatchDiffEdgeCases(t *testing.T) {
	a := batchBody("batch-a",
		failRow("up", "timeout"),
		okRow("down", "fine", 10, 20, 0.0003),
		okRow("edit", "line one\nline two\nline three\nline four", 10, 20, 0.0003),
		failRow("errkind", "rate_limit_exceeded"),
		okRow("same", "unchanged", 10, 20, 0.0003),
		okRow("gone", "only here", 5, 5, 0.0001),
		okRow("dup", "first", 1, 1, 0.0001),
		okRow("dup", "second", 1, 1, 0.0001),
		okRow("evil", "safe", 1, 1, 0.0001),
	)
	b := batchBody("batch-b",
		okRow("up", "recovered", 10, 25, 0.0004),
		failRow("down", "provider_overloaded"),
		okRow("edit", "line one\nline 2\nline three\nline four", 10, 24, 0.0004),
		failRow("errkind", "context_length_exceeded"),
		okRow("same", "unchanged", 10, 22, 0.0003),
		okRow("dup", "first", 1, 1, 0.0001),
		okRow("new", "only there", 5, 5, 0.0001),
		okRow("evil", "\x1b]52;c;cHduZWQ=\x07\x1b[2Jgotcha\u202e", 1, 1, 0.0001),
	)
	h := newHarness(t, gateway.Options{})
	h.env["GWDASH_BASE_URL"] = batchServer(t, map[string]string{"batch-a": a, "batch-b": b, "batch-a2": strings.Replace(a, "batch-a", "batch-a2", 1)})

	r := h.run("", "batch", "diff", "batch-a", "batch-b", "--json")
	r.must(t, 0, nil, nil)
	var d diffOut
	if err := json.Unmarshal([]byte(r.out), &d); err != nil {
		t.Fatalf("--json is not one JSON object: %v\n%s", err, r.out)
	}
	s := d.Summary
	if s.Improved != 1 || s.Regressed != 1 || s.Changed != 3 || s.Same != 2 || s.OnlyInA != 2 || s.OnlyInB != 1 {
		t.Fatalf("summary %+v", s)
	}
	if s.Improved+s.Regressed+s.Changed+s.Same+s.OnlyInA != d.A.Rows || s.Improved+s.Regressed+s.Changed+s.Same+s.OnlyInB != d.B.Rows || d.A.Rows != 9 || d.B.Rows != 8 {
		t.Fatalf("rows not counted once each: %+v, A %d rows, B %d rows", s, d.A.Rows, d.B.Rows)
	}
	if s.CostA == nil || *s.CostA != 0.0013 || s.CostB == nil || *s.CostB != 0.0014 {
		t.Fatalf("costs %v %v", s.CostA, s.CostB)
	}
	byID := map[string]int{}
	for i, row := range d.Rows {
		byID[row.CustomID+"/"+row.Change] = i
	}
	for _, want := range []string{"up/improved", "down/regressed", "edit/changed", "errkind/changed", "evil/changed", "gone/only_in_a", "dup/only_in_a", "new/only_in_b"} {
		if _, ok := byID[want]; !ok {
			t.Fatalf("no row %s in %+v", want, d.Rows)
		}
	}
	if len(d.Rows) != 8 {
		t.Fatalf("%d rows listed; the same rows are only counted", len(d.Rows))
	}
	edit := d.Rows[byID["edit/changed"]]
	if !edit.AnswerChanged || strings.Join(edit.Diff, "|") != "  line one|- line two|+ line 2|  line three|  line four" ||
		*edit.CompletionTokensDelta != 4 || *edit.CostDelta != 0.0001 {
		t.Fatalf("edit row %+v diff %q", edit, edit.Diff)
	}
	if ek := d.Rows[byID["errkind/changed"]]; ek.AnswerChanged || ek.A.ErrorType != "rate_limit_exceeded" || ek.B.ErrorType != "context_length_exceeded" {
		t.Fatalf("error type row %+v", ek)
	}
	if up := d.Rows[byID["up/improved"]]; up.A.Status != "failed" || up.B.Status != "succeeded" || up.B.Cost == nil {
		t.Fatalf("improved row %+v", up)
	}
	if strings.ContainsAny(r.out, "\x1b\x07") || strings.Contains(r.out, "\u202e") {
		t.Fatalf("--json carries raw controls: %q", r.out)
	}

	// For people: the rows, the diff lines, the summary; escapes inert.
	r = h.run("", "batch", "diff", "batch-a", "batch-b")
	r.must(t, 0, []string{"A  batch-a", "B  batch-b", "up  improved  failed (timeout) → succeeded", "down  regressed  succeeded → failed (provider_overloaded)",
		"edit  changed  answer changed · tokens 30 → 34 (+4) · cost $0.00030 → $0.00040 (+$0.00010)", "    - line two", "    + line 2",
		"gone  only in A", "new  only in B", "1 improved · 1 regressed · 3 changed · 2 same · 2 only in A · 1 only in B · cost A $0.0013 → B $0.0014 (+$0.00010)"}, nil)
	if strings.ContainsAny(r.out, "\x1b\x07") || strings.Contains(r.out, "\u202e") || !strings.Contains(r.out, "␛") {
		t.Fatalf("the text reached the terminal live: %q", r.out)
	}

	// --fail-on: exit 1 when the condition holds, 0 when it does not.
	h.run("", "batch", "diff", "batch-a", "batch-b", "--fail-on", "regressed").must(t, 1, []string{"1 regressed"}, []string{"1 row regressed (--fail-on regressed)"})
	h.run("", "batch", "diff", "batch-a", "batch-b", "--fail-on", "changed", "--json").must(t, 1, []string{`"summary"`}, []string{"8 rows differ (--fail-on changed)"})
	h.run("", "batch", "diff", "batch-a", "batch-a2", "--fail-on", "changed").must(t, 0, []string{"0 improved · 0 regressed · 0 changed · 9 same · 0 only in A · 0 only in B"}, nil)
	h.run("", "batch", "diff", "batch-b", "batch-a", "--fail-on", "regressed").must(t, 1, nil, []string{"1 row regressed"})
}

// The error paths: refused input before any request, an unknown id, a
// batch not settled.
func TestBatchDiffErrors(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	chat := h.srv.SeedID(gateway.SeedChat)
	h.run("", "batch", "diff", chat, chat, "--fail-on", "worse").must(t, 2, nil, []string{"--fail-on", "regressed or changed"})
	h.run("", "batch", "diff", chat).must(t, 2, nil, []string{"two batch ids"})
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("refused input sent %d requests", n)
	}
	h.run("", "batch", "diff", chat, "batch-0-missing").must(t, 1, nil, []string{"HTTP 404"})
	h.run("", "batch", "diff", h.srv.SeedID(gateway.SeedValidating), chat).must(t, 1, nil, []string{"is validating", "terminal status"})
	h.run("", "batch", "diff", chat, h.srv.SeedID(gateway.SeedPayment)).must(t, 1, nil, []string{"HTTP 402"})
}

// Two batches of the same rows on the embedded gateway: the summary adds
// up to each batch's rows, and the failures of each are those the batch
// reports.
func TestBatchDiffOfTwoRuns(t *testing.T) {
	h := newHarness(t, gateway.Options{BatchDuration: 200 * time.Millisecond, SubmitVisibleAfter: time.Nanosecond})
	h.run("", "config", "set", "poll_interval", "20ms").must(t, 0, nil, nil)
	var lines []string
	for i := 0; i < 300; i++ {
		lines = append(lines, fmt.Sprintf(`{"custom_id":"q-%03d","body":{"messages":[{"role":"user","content":"question %d"}]}}`, i, i))
	}
	jsonl := filepath.Join(t.TempDir(), "rows.jsonl")
	writeFile(t, jsonl, strings.Join(lines, "\n")+"\n")
	var ids []string
	failed := map[string]int{}
	for range 2 {
		r := h.run("", "batch", "submit", jsonl, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions", "--watch", "--json")
		r.must(t, 0, []string{`"status":"completed"`}, nil)
		var b struct {
			ID     string
			Counts struct{ Failed int } `json:"request_counts"`
		}
		json.Unmarshal([]byte(r.out), &b)
		ids = append(ids, b.ID)
		failed[b.ID] = b.Counts.Failed
	}
	r := h.run("", "batch", "diff", ids[0], ids[1], "--json")
	r.must(t, 0, nil, nil)
	var d diffOut
	if err := json.Unmarshal([]byte(r.out), &d); err != nil {
		t.Fatal(err)
	}
	s := d.Summary
	if s.Improved+s.Regressed+s.Changed+s.Same != 300 || s.OnlyInA+s.OnlyInB != 0 {
		t.Fatalf("summary %+v", s)
	}
	if s.Changed == 0 || s.Same == 0 || s.Improved+s.Regressed == 0 || failed[ids[0]] == 0 {
		t.Fatalf("two runs of the same rows should differ somewhat: %+v (failed %v)", s, failed)
	}
	// The failed rows of each side agree with each batch's own count.
	fa, fb := 0, 0
	for _, row := range d.Rows {
		if row.A != nil && row.A.Status == "failed" {
			fa++
		}
		if row.B != nil && row.B.Status == "failed" {
			fb++
		}
	}
	if fa > failed[ids[0]] || fb > failed[ids[1]] || s.Improved > failed[ids[0]] || s.Regressed > failed[ids[1]] {
		t.Fatalf("rows %d/%d failed vs counts %v", fa, fb, failed)
	}
}

// A diff of long answers stays bounded: the text compared, the lines
// shown, each line's length.
func TestTextDiffBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d changed\n", i)
	}
	long := strings.Repeat("x", 10000)
	d := textDiff(a.String()+long, b.String()+long+"y")
	if len(d) > diffMaxLines+2 || !strings.Contains(d[0], "first 64 KiB") || !strings.Contains(d[len(d)-1], "more") {
		t.Fatalf("%d lines: %q … %q", len(d), d[0], d[len(d)-1])
	}
	d = textDiff("short", long+"y")
	if got := len([]rune(d[len(d)-1])); got > diffMaxLineRune+1 {
		t.Fatalf("a line of %d runes", got)
	}
}
