package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/retry"
)

// R in the inspector of a settled batch submitted from here, over real
// HTTP: the dialog shows the plan (the retryable types chosen, the
// others not), N sends nothing, space changes the choice, y submits only
// the chosen rows' kept bodies and opens the child in the parent's place
// ("retry of"); the record keeps the lineage, the home shows parent ->
// child, and E in the parent shows the effective results, with counts
// that add up.
func TestRetryFromTheInspector(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	srv, c := startGW(t, gateway.Options{BatchDuration: time.Minute, Now: clk.Now})
	rec := reqlog.Start(reqlog.Options{Path: filepath.Join(t.TempDir(), "requests.db")})
	t.Cleanup(func() { rec.Close(5 * time.Second) })
	reqs := make([]api.BatchRequest, 300)
	for i := range reqs {
		reqs[i] = api.BatchRequest{CustomID: fmt.Sprintf("row-%03d", i), Body: json.RawMessage(fmt.Sprintf(`{"messages":[{"role":"user","content":"q%d"}]}`, i))}
	}
	// Submitted through the dashboard's client, which logs it.
	parent, err := logRequests(c, rec).SubmitBatch(context.Background(), "/v1/chat/completions", "openai/gpt-4o-mini", reqs)
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(2 * time.Minute)
	pd, err := c.GetBatchData(context.Background(), parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, groups := retry.FailedTypes(pd)
	retryable := map[string]bool{}
	first := "" // the first group shown, which space unchooses
	for i, g := range groups {
		if i == 0 {
			first = g.Type
		}
		if g.Retryable {
			for j := range pd.Rows {
				if pd.Rows[j].Failed && pd.Word(pd.Rows[j].ErrType) == g.Type && g.Type != groups[0].Type {
					retryable[pd.CustomID(j)] = true
				}
			}
		}
	}
	if !groups[0].Retryable || len(retryable) == 0 {
		t.Fatalf("the gateway should fail rows of several retryable types: %+v", groups)
	}

	stDir := t.TempDir()
	st := record.Open(stDir)
	u := start(t, Options{Client: c, BatchID: parent.ID, Requests: rec, Record: st, Poll: fastPoll()}, 140, 45)
	u.screen("Results 1-", "of 300")
	posts := func() int { return len(srv.RequestsTo("POST", "/api/v1/batches")) }
	before := posts()

	u.runes("R")
	u.screen("Retry failed rows of "+parent.ID, "[x] "+first, "bodies from the request log", "estimate", "as a new batch? y/N")
	u.runes("n")
	u.until("the dialog closed", func(m Model) bool { return retryOf(m) == nil && strings.Contains(m.notice, "nothing submitted") })
	if posts() != before {
		t.Fatal("N submitted a batch")
	}

	// A model typed in the dialog is not dropped by esc without asking.
	u.runes("R")
	u.screen("as a new batch? y/N")
	u.runes("m")
	u.until("the model field", func(m Model) bool { r := retryOf(m); return r != nil && r.editing })
	u.runes("x")
	u.key(tea.KeyEsc)
	u.screen("drop the typed model? y/N")
	u.runes("n")
	u.until("still typing the model", func(m Model) bool {
		r := retryOf(m)
		return r != nil && r.editing && !r.sub.open() && strings.HasSuffix(r.input.Value(), "x")
	})
	u.key(tea.KeyEsc)
	u.screen("drop the typed model? y/N")
	u.runes("y")
	u.until("the field left, the model unchanged", func(m Model) bool {
		r := retryOf(m)
		return r != nil && !r.editing && r.model == parent.Model && strings.Contains(m.notice, "model unchanged")
	})
	u.runes("n")
	u.until("the dialog closed", func(m Model) bool { return retryOf(m) == nil })

	u.runes("R")
	u.screen("as a new batch? y/N")
	u.space() // the first (largest) type is no longer retried
	u.until("the plan without "+first, func(m Model) bool {
		r := retryOf(m)
		return r != nil && !r.planning && r.plan != nil && r.plan.Chosen() == len(retryable)
	})
	u.screen("[ ] " + first)
	u.runes("y")
	var child string
	view := u.until("the child open", func(m Model) bool {
		b := batchOf(m)
		child = b.id
		return b.id != parent.ID && strings.Contains(m.View(), "retry of "+parent.ID) &&
			strings.Contains(m.notice, "a retry of "+fmt.Sprint(len(retryable))+" failed rows")
	})
	if !strings.Contains(view, child) {
		t.Fatalf("the child is not open:\n%s", view)
	}
	sent := srv.RequestsTo("POST", "/api/v1/batches")
	if len(sent) != before+1 {
		t.Fatalf("%d submissions", len(sent)-before)
	}
	var body struct {
		Requests []api.BatchRequest `json:"requests"`
	}
	json.Unmarshal(sent[len(sent)-1].Body, &body)
	var ids []string
	for _, r := range body.Requests {
		if !retryable[r.CustomID] {
			t.Fatalf("sent %s, which was not chosen", r.CustomID)
		}
		want := fmt.Sprintf(`{"messages":[{"role":"user","content":"q%s"}]}`, strings.TrimLeft(strings.TrimPrefix(r.CustomID, "row-"), "0"))
		if string(r.Body) != want && r.CustomID != "row-000" {
			t.Fatalf("%s went with the body %s", r.CustomID, r.Body)
		}
		ids = append(ids, r.CustomID)
	}
	if len(ids) != len(retryable) {
		t.Fatalf("sent %d of %d", len(ids), len(retryable))
	}

	// The child settles; the parent's effective results take its rows.
	clk.Add(2 * time.Minute)
	u.screen("Results 1-", "of "+fmt.Sprint(len(retryable)))
	u.key(tea.KeyEsc)
	u.until("home", func(m Model) bool { return batchOf(m) == nil })
	u.runes("r")
	suffix := parent.ID[len(parent.ID)-6:]
	u.screen("…" + suffix + " -> " + child)

	u.runes("/")
	u.runes(parent.ID)
	u.key(tea.KeyEnter)
	u.screen("retried by "+child, "E effective results", "Results 1-", "of 300")
	u.runes("E")
	var ev effectiveView
	u.until("effective results", func(m Model) bool {
		if b := batchOf(m); b != nil && b.effective != nil {
			ev = *b.effective
			return true
		}
		return false
	})
	if ev.counts.Total != 300 || ev.counts.Succeeded+ev.counts.Failed != 300 || ev.counts.FromRetries != len(retryable) || ev.counts.Attempts != 1 {
		t.Fatalf("effective counts: %+v", ev.counts)
	}
	u.screen("Effective results", fmt.Sprintf("300 rows · %d succeeded · %d failed", ev.counts.Succeeded, ev.counts.Failed))
	u.runes("R") // in the effective results: the rows that still fail
	u.screen("Retry the rows that still fail (effective results) of " + parent.ID)
	u.until("the plan of the effective rows", func(m Model) bool {
		r := retryOf(m)
		if r == nil || r.planning {
			return false
		}
		n := 0
		for _, g := range r.groups {
			n += g.Rows
		}
		return n == ev.counts.Failed
	})
	u.runes("n")
	u.until("the dialog closed", func(m Model) bool { return retryOf(m) == nil })
	u.runes("E")
	u.screen("Results 1-", "of 300")

	u.quit()
	if rb, ok := record.Open(stDir).Batch(strings.TrimRight(c.BaseURL(), "/"), child); !ok || rb.RetryOf != parent.ID || rb.SubmittedAt == nil {
		t.Fatalf("the record's child: %+v %v", rb, ok)
	}
}

// R is refused in a read-only session (and left out of its help), says
// why on a batch still running, and names the command line's --input
// for a batch whose requests were not kept here.
func TestRetryRefusals(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{ReadOnly: true, BatchID: "batch-done"}, 140, 40)
	requireLists(t, "read-only ? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"effective results"}, []string{"retry failed rows"})
	m = drive(m, keyMsg("R"))
	if !strings.Contains(m.notice, "read-only: retrying a batch's failed rows is disabled") || retryOf(m) != nil {
		t.Fatalf("R read-only: notice %q", m.notice)
	}

	m = stateModel(t, fakeBatches(), Options{BatchID: "batch-done"}, 140, 40)
	requireLists(t, "? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"retry failed rows", "effective results"}, nil)
	m = drive(m, keyMsg("R"))
	if !strings.Contains(m.errText, "were not kept on this machine") || !strings.Contains(m.errText, "gwdash batch retry batch-done --input FILE") || retryOf(m) != nil {
		t.Fatalf("R without kept requests: error %q", m.errText)
	}
	m = drive(m, keyMsg("E"))
	if !strings.Contains(m.notice, "no retry of this batch was made from this machine") {
		t.Fatalf("E without retries: notice %q", m.notice)
	}

	m = stateModel(t, fakeBatches(), Options{BatchID: "batch-fail"}, 140, 40)
	m = drive(m, keyMsg("R"))
	if !strings.Contains(m.errText, "is failed without per-request results") || retryOf(m) != nil {
		t.Fatalf("R on a batch failed as a whole: error %q", m.errText)
	}

	m = stateModel(t, fakeBatches(), Options{BatchID: "batch-run"}, 140, 40)
	m = drive(m, keyMsg("R"))
	if !strings.Contains(m.notice, "only a settled batch can be retried") {
		t.Fatalf("R on a running batch: notice %q", m.notice)
	}
}
