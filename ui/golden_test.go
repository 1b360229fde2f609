package ui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/gwdash/gwdash/api"
)

// fixedBatch is a batch with fixed times, for stable golden files.
func fixedBatch(t testing.TB, status string, results int) *api.Batch {
	created := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC).Unix()
	raw := fmt.Sprintf(`{"id":"batch-1763631000-golden","object":"batch","endpoint":"/v1/chat/completions","model":"openai/gpt-4o-mini",
"completion_window":"24h","status":%q,"created_at":%d,"finalized_at":%d,"request_counts":{"total":1000,"completed":903,"failed":41},
"usage":{"prompt_tokens":120345,"completion_tokens":98765,"total_tokens":219110,"cost":1.2345,"is_byok":false,"service_tier":"default",
"prompt_tokens_details":{"cached_tokens":2048},"completion_tokens_details":{"reasoning_tokens":512}},"results":null,"error":null}`, status, created, created+3600)
	var b api.Batch
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

func goldenView(w, h int, status string) string {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	c := &common{opts: Options{Now: func() time.Time { return now }}, styles: NewStyles(DefaultTheme())}
	v := newBatchView(c)
	v.SetSize(w, h-2)
	v.id, v.mode = "batch-1763631000-golden", batchShowing
	v.batch = fixedBatch(nil, status, 0)
	v.updated = now.Add(-3 * time.Second)
	v.nextPoll = now.Add(12 * time.Second)
	v.done = api.BatchStatus(status).Terminal()
	v.relayout()
	return v.View()
}

func TestGoldenBatchPanels(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, status := range []string{"in_progress", "finalizing"} {
			t.Run(fmt.Sprintf("%dx%d_%s", sz[0], sz[1], status), func(t *testing.T) {
				golden.RequireEqual(t, []byte(goldenView(sz[0], sz[1], status)))
			})
		}
	}
}

func TestProgressNeverFullWhileWorkRemains(t *testing.T) {
	s := NewStyles(DefaultTheme())
	for _, rc := range []api.RequestCounts{{Total: 1000, Completed: 999}, {Total: 1000, Completed: 990, Failed: 9}, {Total: 3, Completed: 2}} {
		bar := progressBar(s, rc, 20)
		if !containsRune(bar, '░') {
			t.Fatalf("%+v drew a full bar: %q", rc, bar)
		}
	}
	if bar := progressBar(s, api.RequestCounts{Total: 10, Completed: 10}, 20); containsRune(bar, '░') {
		t.Fatalf("a finished batch must draw a full bar: %q", bar)
	}
}

func containsRune(s string, r rune) bool {
	for _, x := range s {
		if x == r {
			return true
		}
	}
	return false
}

// tableFrame is one frame of the results table: a cursor move and View.
func benchTable(b *testing.B, n int) {
	rows := make([]resultRow, n)
	for i := range rows {
		rows[i] = resultRow{idx: i, customID: fmt.Sprintf("req-%06d", i), outcome: "200", model: "openai/gpt-4o-mini", tokens: i % 500, finish: "stop", failed: i%25 == 7}
	}
	c := &common{styles: NewStyles(DefaultTheme())}
	v := newBatchView(c)
	v.SetSize(160, 46)
	v.id, v.mode, v.done = "b", batchShowing, true
	v.batch = fixedBatch(b, "completed", 0)
	v.table.setRows(rows)
	v.updated = time.Now()
	v.relayout()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			v.table.move(1)
		} else {
			v.table.move(-1)
		}
		_ = v.View()
	}
}

func BenchmarkResultsTableFrame100(b *testing.B)    { benchTable(b, 100) }
func BenchmarkResultsTableFrame100000(b *testing.B) { benchTable(b, 100000) }
