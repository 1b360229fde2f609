package batchdiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
)

func ok(cid, text string, cost float64) string {
	return fmt.Sprintf(`{"id":"g","custom_id":%q,"response":{"status_code":200,"request_id":null,"body":{"id":"c","object":"chat.completion","created":1,"model":"m/x","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"finish_reason":"stop","native_finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"cost":%v}}},"error":null}`, cid, text, cost)
}

func bad(cid, typ string) string {
	return fmt.Sprintf(`{"id":"g","custom_id":%q,"response":null,"error":{"type":"server_error","message":"x","param":null,"error_type":%q}}`, cid, typ)
}

func data(t *testing.T, id string, rows ...string) *api.BatchData {
	t.Helper()
	d, err := api.ReadBatchData([]byte(fmt.Sprintf(`{"id":%q,"object":"batch","endpoint":"/v1/chat/completions","model":"m/x","completion_window":"24h","status":"completed","created_at":1,"request_counts":{"total":%d,"completed":0,"failed":0},"results":[%s],"usage":null}`, id, len(rows), strings.Join(rows, ","))))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every row of A and of B is counted once, each kind in its place; with
// Same the rows that are the same are handed over too, with their places.
func TestCompareCountsEveryRowOnce(t *testing.T) {
	a := data(t, "a", ok("same", "x", 0.1), bad("up", "timeout"), ok("down", "y", 0.1), ok("text", "one\ntwo", 0.1), bad("err", "timeout"), ok("gone", "z", 0.1), ok("dup", "d", 0.1), ok("dup", "d", 0.1))
	b := data(t, "b", ok("same", "x", 0.2), ok("up", "y", 0.1), bad("down", "server"), ok("text", "one\nthree", 0.1), bad("err", "server"), ok("new", "n", 0.1), ok("dup", "d", 0.1))
	var rows []Row
	s, err := Compare(a, b, Options{Same: true, TextDiff: true}, func(r Row) error { rows = append(rows, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if s.Improved != 1 || s.Regressed != 1 || s.Changed != 2 || s.Same != 2 || s.OnlyInA != 2 || s.OnlyInB != 1 || s.Differ() != 7 {
		t.Fatalf("%+v", s)
	}
	if n := s.Improved + s.Regressed + s.Changed + s.Same; 2*n+s.OnlyInA+s.OnlyInB != len(a.Rows)+len(b.Rows) {
		t.Fatalf("rows counted %d, want %d", 2*n+s.OnlyInA+s.OnlyInB, len(a.Rows)+len(b.Rows))
	}
	if len(rows) != 9 || rows[0].Change != Same || rows[0].IndexA != 0 || rows[0].IndexB != 0 || rows[len(rows)-1].Change != OnlyInB || rows[len(rows)-1].IndexA != -1 {
		t.Fatalf("rows: %+v", rows)
	}
	for _, r := range rows {
		if r.CustomID == "text" && (!r.AnswerChanged || len(r.Diff) == 0) {
			t.Fatalf("the changed answer: %+v", r)
		}
	}
	if line := s.Line(); !strings.HasPrefix(line, "1 improved · 1 regressed · 2 changed · 2 same · 2 only in A · 1 only in B · cost A ") {
		t.Fatalf("line %q", line)
	}
	for _, k := range Kinds {
		if s.Count(k) == 0 {
			t.Errorf("Count(%s) = 0", k)
		}
	}
}

// Segments: A's side (equal and deleted) and B's side (equal and
// inserted) rebuild each answer; long answers are cut and said so.
func TestSegmentsRebuildBothSides(t *testing.T) {
	a, b := "the quick brown fox\njumps", "the slow brown fox\nleaps high"
	segs, cut := Segments(a, b)
	var ga, gb strings.Builder
	for _, s := range segs {
		if s.Op != Inserted {
			ga.WriteString(s.Text)
		}
		if s.Op != Deleted {
			gb.WriteString(s.Text)
		}
	}
	if cut || ga.String() != a || gb.String() != b {
		t.Fatalf("%q %q %v", ga.String(), gb.String(), cut)
	}
	if _, cut := Segments(strings.Repeat("é", MaxText), "x"); !cut {
		t.Fatal("a long answer must be cut")
	}
}
