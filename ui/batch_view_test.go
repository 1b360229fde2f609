package ui

import (
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func batchOf(m Model) *batchView { return m.views[viewBatches].(*batchView) }

func fastPoll() api.PollOptions {
	return api.PollOptions{Interval: 30 * time.Millisecond, MaxInterval: 60 * time.Millisecond, PaymentInterval: 40 * time.Millisecond, NotFoundGrace: 50 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
}

func TestBatchRunningReachesCompleted(t *testing.T) {
	srv, c := startGW(t, gateway.Options{BatchDuration: 600 * time.Millisecond})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedRunning), Poll: fastPoll()}, 120, 40)
	u.until("a non-terminal status", func(m Model) bool { b := batchOf(m).batch; return b != nil && !b.Status.Terminal() })
	view := u.screen("polling stopped: batch completed", "completed with errors", "Results 1 of 200")
	if !strings.Contains(view, "✓ ") || !strings.Contains(view, "✗ ") {
		t.Fatalf("completed and failed must show separately:\n%s", view)
	}
	// No poll after the terminal status.
	n := len(srv.RequestsTo("GET", "/api/v1/batches/"))
	time.Sleep(150 * time.Millisecond)
	if len(srv.RequestsTo("GET", "/api/v1/batches/")) != n {
		t.Fatalf("polled after the terminal status")
	}
	u.quit()
}

func TestBatchErrorScreens(t *testing.T) {
	srv, c := startGW(t, gateway.Options{PaymentPolls: 2})
	cases := []struct {
		seed string
		want []string
	}{
		{gateway.SeedPayment, []string{"402", "add credits, polling continues"}},
		{gateway.SeedOld, []string{"Batch results deleted", "30 days"}},
		{gateway.SeedFailed, []string{"batch failed:", "Batch validation failed"}},
	}
	for _, tc := range cases {
		u := start(t, Options{Client: c, BatchID: srv.SeedID(tc.seed), Poll: fastPoll()}, 100, 30)
		u.screen(tc.want...)
		if tc.seed == gateway.SeedPayment {
			// The results arrive once credits are "added".
			u.screen("Results 1 of 15", "polling stopped")
		}
		u.quit()
	}
	u := start(t, Options{Client: c, BatchID: "batch-0-missing", Poll: fastPoll()}, 100, 30)
	u.screen("Batch not found", "batch-0-missing")
	u.quit()
	// Transient errors keep the last good snapshot and say when they retry.
	u = start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedFlaky502), Poll: fastPoll()}, 100, 30)
	u.screen("completed", "Results 1 of 3")
	u.quit()
}

func TestBatchFilterDetailShapesExport(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat), ExportDir: dir}, 140, 45)
	u.screen("Results 1 of 40")
	u.runes("f")
	u.runes("f") // all -> succeeded -> failed
	u.screen("show failed", "(filtered from 40)")
	u.key(tea.KeyEnter)
	u.screen("Result detail", "Failed", "error_type")
	u.runes("J")
	u.screen("Raw JSON", `"error_type"`)
	u.key(tea.KeyEsc)
	u.runes("e")
	u.screen("exported")
	fm := u.quit()
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("export files: %v", files)
	}
	data, _ := os.ReadFile(dir + "/" + files[0].Name())
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != batchOf(fm).batch.RequestCounts.Failed {
		t.Fatalf("exported %d lines, want the %d failed results", len(lines), batchOf(fm).batch.RequestCounts.Failed)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"error_type"`) {
			t.Fatalf("exported a non-failed result: %s", l)
		}
	}

	shapes := map[string][]string{
		gateway.SeedChat:       {"Choice 0", "finish: stop"},
		gateway.SeedResponses:  {"status completed", "usage in"},
		gateway.SeedMessages:   {"Block 0", "stop end_turn"},
		gateway.SeedEmbeddings: {"Vector 0", "256 dimensions"},
	}
	for seed, want := range shapes {
		u := start(t, Options{Client: c, BatchID: srv.SeedID(seed)}, 140, 45)
		u.screen("Results 1 of")
		u.key(tea.KeyEnter)
		u.screen(want...)
		u.quit()
	}
}

func TestChatDetailFeatures(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat)}, 140, 60)
	u.screen("Results 1 of 40")
	open := func(row int, want ...string) {
		u.runes("g")
		for i := 0; i < row; i++ {
			u.key(tea.KeyDown)
		}
		u.key(tea.KeyEnter)
		u.screen(want...)
		u.key(tea.KeyEsc)
		u.screen("Results")
	}
	open(1, "tool call", "get_weather", `"city": "Paris"`)
	open(2, "cite", "How routing works", "web")
	open(3, "image", "images.example.com")
	open(4, "▸ reasoning")
	open(5, "logprobs for 2 tokens")
	open(6, "refusal:")
	open(15, "file", "pricing.pdf")
	u.quit()
}

func TestBatchSearchAndSort(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat)}, 120, 40)
	u.screen("Results 1 of 40")
	u.runes("/")
	u.runes("req-0001")
	u.key(tea.KeyEnter)
	u.screen("1 of 10 (filtered from 40)")
	u.key(tea.KeyEsc)
	u.screen("Results 11 of 40 ·") // the selection is kept when the search is cleared
	u.runes("s")
	u.runes("s")
	u.screen("sort tokens")
	u.until("rows sorted by tokens", func(m Model) bool {
		tb := &batchOf(m).table
		for i := 1; i < len(tb.view); i++ {
			if tb.rows[tb.view[i-1]].tokens < tb.rows[tb.view[i]].tokens {
				return false
			}
		}
		return len(tb.view) == 40
	})
	u.runes("t")
	u.screen("error type ")
	u.quit()
}

func TestOpenerOffersSuggestions(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	sugg := []Suggestion{{ID: srv.SeedID(gateway.SeedMessages), About: "messages batch"}}
	u := start(t, Options{Client: c, SuggestedBatches: sugg, StateDir: t.TempDir()}, 100, 30)
	u.screen("Open a batch", "messages batch")
	u.key(tea.KeyDown)
	u.key(tea.KeyEnter)
	u.screen("Results 1 of 10")
	u.quit()
}

func TestCopyGoesToTheClipboardOnce(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	var copied []string
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat), Clipboard: func(s string) error { copied = append(copied, s); return nil }}, 120, 40)
	u.screen("Results 1 of 40")
	u.runes("y")
	u.screen("copied the result's JSON to the clipboard")
	u.quit()
	if len(copied) != 1 || !strings.Contains(copied[0], `"custom_id":"chat-req-00000"`) {
		t.Fatalf("copied %q", copied)
	}
}
