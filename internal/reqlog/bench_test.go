package reqlog

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

// benchRows is the size of the log the read benchmarks run on.
const benchRows = 100000

var (
	benchOnce sync.Once
	benchPath string
)

// benchLog is a log of 100k rows (made once per run, in one transaction:
// the benchmarks time the reads, not the seeding).
func benchLog(b *testing.B) *DB {
	b.Helper()
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "reqlog-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchPath = Path(dir)
		db, _, err := Open(benchPath)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		tx, _ := db.sql.Begin()
		words := []string{"routing", "latency", "billing", "batches", "streaming", "providers", "tokens", "gateway"}
		for i := 0; i < benchRows; i++ {
			t := t0.Add(-time.Duration(i) * time.Minute)
			cost := float64(i%97) / 1000
			in := fmt.Sprintf("question %d about %s and %s", i, words[i%8], words[(i/8)%8])
			ans := fmt.Sprintf("an answer of some length about %s, %s and the rest; row %d", words[(i/3)%8], words[(i/5)%8], i)
			if _, err := tx.Exec(insertSQL, t.Format(time.RFC3339Nano), t.UnixMilli(), KindResponse, "bench", "gw", []string{"openai/gpt-4o", "anthropic/claude"}[i%2],
				"", []string{"OpenAI", "Anthropic"}[i%2], in, "", `{"input":"x"}`, ans, false, "completed", "", 10, 20, 0, 0, cost, 300, 50.0, 900,
				true, fmt.Sprintf("gen-%d", i), "", nil, "", nil, "", nil, "", nil, len(in)+len(ans)+256); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	})
	db, _, err := Open(benchPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkSearch100k: a full-text search over 100k rows, newest 50
// matches and their count (issue: under 200 ms).
func BenchmarkSearch100k(b *testing.B) {
	db := benchLog(b)
	ctx := context.Background()
	f := Filter{Search: "latency billing", Limit: 50}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := db.List(ctx, f)
		if err != nil || len(rows) == 0 {
			b.Fatal(err, len(rows))
		}
		if _, err := db.Count(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogsViewOpen100k: what the Logs view reads when it opens on
// 100k rows: a page of 1000, the count, 30 days of spend (issue: under
// 1 s).
func BenchmarkLogsViewOpen100k(b *testing.B) {
	db := benchLog(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rows, err := db.List(ctx, Filter{Limit: 1000}); err != nil || len(rows) != 1000 {
			b.Fatal(err)
		}
		if _, err := db.Count(ctx, Filter{}); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Spend(ctx, t0.Add(-30*24*time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExport100k: every row read whole, one at a time; the peak
// heap it adds is reported (it must not grow with the log).
func BenchmarkExport100k(b *testing.B) {
	db := benchLog(b)
	ctx := context.Background()
	var peak uint64
	var ms runtime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		n := 0
		err := db.Each(ctx, Filter{}, func(Entry) error {
			n++
			if n%10000 == 0 {
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > base && ms.HeapAlloc-base > peak {
					peak = ms.HeapAlloc - base
				}
			}
			return nil
		})
		if err != nil || n != benchRows {
			b.Fatal(err, n)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}

// BenchmarkRecordAdded: what recording adds to a request on the
// caller's side (begin, 100 deltas, finish); the write itself happens on
// the recorder's goroutine (issue: p50 under 1 ms).
func BenchmarkRecordAdded(b *testing.B) {
	dir := b.TempDir()
	r := Start(Options{Path: Path(dir), Now: clock(t0)})
	defer r.Close(time.Minute)
	req := api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "a prompt of ordinary length for the benchmark"}}
	o := outcome("a/b", 0.001, 10, 100)
	ev := delta("token ")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := r.Begin(req, Meta{})
		for j := 0; j < 100; j++ {
			c.Event(ev)
		}
		c.Finish(o)
		if i%512 == 511 {
			b.StopTimer()
			r.Flush() // keep the queue from filling: this times the caller
			b.StartTimer()
		}
	}
}
