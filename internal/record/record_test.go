package record

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

func TestRecordPerGatewayAndMode(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	now := time.Now()
	sub := now.Add(-time.Minute)
	s.Remember("https://a/api/v1", Batch{ID: "b1", Status: api.BatchInProgress, CreatedAt: 100, SeenAt: now, SubmittedAt: &sub},
		Batch{ID: "b2", Status: api.BatchCompleted, CreatedAt: 200, SeenAt: now})
	s.Remember("https://b/api/v1", Batch{ID: "other", CreatedAt: 1, SeenAt: now})
	// A later snapshot keeps the submission time.
	s.Remember("https://a/api/v1", Batch{ID: "b1", Status: api.BatchCompleted, CreatedAt: 100, SeenAt: now})
	got := s.Batches("https://a/api/v1")
	if len(got) != 2 || got[0].ID != "b2" || got[1].Status != api.BatchCompleted || got[1].SubmittedAt == nil {
		t.Fatalf("%+v", got)
	}
	if !s.SubmittedWithin("https://a/api/v1", "b1", 5*time.Minute, now) || s.SubmittedWithin("https://a/api/v1", "b2", 5*time.Minute, now) ||
		s.SubmittedWithin("https://a/api/v1", "b1", 30*time.Second, now) {
		t.Fatal("SubmittedWithin")
	}
	st, err := os.Stat(s.ShardPath("https://a/api/v1"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", st, err)
	}
	s.Forget("https://a/api/v1", "b2")
	if len(s.Batches("https://a/api/v1")) != 1 || len(s.Batches("https://b/api/v1")) != 1 {
		t.Fatal("forget")
	}
	name := "n"
	s.SeeDestinations("https://a/api/v1", api.Destination{ID: "d1", Name: &name, UpdatedAt: "t1"})
	if d, ok := s.Destination("https://a/api/v1", "d1"); !ok || *d.Name != "n" || d.UpdatedAt != "t1" {
		t.Fatalf("destination %+v", d)
	}
	for i := 0; i < 20; i++ {
		s.UseModel("https://a/api/v1", string(rune('a'+i))+"/m")
	}
	if m := s.Models("https://a/api/v1"); len(m) != MaxModels || m[0] != "t/m" {
		t.Fatalf("models %v", m)
	}
	// A nil store remembers nothing and does not fail.
	var none *Store
	if none.Remember("x", Batch{ID: "a"}) != nil || len(none.Batches("x")) != 0 {
		t.Fatal("nil store")
	}
}

func TestRecordConcurrentWritersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := Open(dir) // separate stores, as separate processes
			for i := 0; i < 10; i++ {
				s.Remember("g", Batch{ID: string(rune('a'+w)) + string(rune('0'+i)), SeenAt: time.Now()})
			}
		}(w)
	}
	wg.Wait()
	if n := len(Open(dir).Batches("g")); n != 40 {
		t.Fatalf("%d of 40 remembered", n)
	}
}

func TestMerge(t *testing.T) {
	server := []api.Batch{{ID: "s2", CreatedAt: 20}, {ID: "both", CreatedAt: 10}}
	local := []Batch{{ID: "both", CreatedAt: 10, Status: "stale"}, {ID: "mine", CreatedAt: 15}}
	out, rec := Merge(server, local)
	if len(out) != 3 || out[0].ID != "s2" || out[1].ID != "mine" || out[2].Status == "stale" || !rec["mine"] || rec["both"] {
		t.Fatalf("%+v %v", out, rec)
	}
}

// A snapshot that says what the record says writes nothing; a change
// writes its own line, not the record again.
func TestRecordWritesOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	base := "https://a/api/v1"
	var many []Batch
	for i := 0; i < 500; i++ {
		many = append(many, Batch{ID: fmt.Sprintf("batch-%04d", i), Status: api.BatchCompleted, Model: "openai/gpt-4o-mini", CreatedAt: int64(i), SeenAt: time.Unix(int64(i), 0)})
	}
	s.Remember(base, many...)
	full := s.Written()
	// The same snapshots seen again, later: nothing written.
	for i := range many {
		many[i].SeenAt = many[i].SeenAt.Add(time.Hour)
	}
	s.Remember(base, many...)
	if s.Written() != full {
		t.Fatalf("an unchanged poll wrote %d bytes", s.Written()-full)
	}
	// One row moves: one line, a small fraction of the record.
	run := Batch{ID: "batch-0007", Status: api.BatchInProgress, Model: "openai/gpt-4o-mini", CreatedAt: 7, Counts: api.RequestCounts{Total: 9, Completed: 3}}
	s.Remember(base, run)
	if d := s.Written() - full; d == 0 || d > full/50 {
		t.Fatalf("one changed row wrote %d bytes (the record is %d)", d, full)
	}
	// Another process sees it; a fresh store reads the journal.
	if b, ok := Open(dir).Batch(base, "batch-0007"); !ok || b.Counts.Completed != 3 || b.Status != api.BatchInProgress {
		t.Fatalf("%+v %v", b, ok)
	}
	// Many changes of one row: the journal is compacted, it stays small.
	for i := 0; i < 3000; i++ {
		run.Counts.Completed = i
		run.Status = []api.BatchStatus{api.BatchInProgress, api.BatchFinalizing}[i%2]
		s.Remember(base, run)
	}
	fi, err := os.Stat(s.ShardPath(base))
	if err != nil || fi.Size() > 3*full {
		t.Fatalf("the journal grew to %d bytes (the record is %d): %v", fi.Size(), full, err)
	}
	if b, _ := Open(dir).Batch(base, "batch-0007"); b.Counts.Completed != 2999 || len(Open(dir).Batches(base)) != 500 {
		t.Fatalf("after compaction: %+v", b)
	}
}

// Held changes are written once, at Flush, and only the latest of a row.
func TestRecordHoldCoalesces(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	base := "g"
	s.Hold()
	for i := 0; i < 100; i++ {
		s.Remember(base, Batch{ID: "b", Status: api.BatchInProgress, Counts: api.RequestCounts{Total: 100, Completed: i}})
	}
	if s.Written() != 0 {
		t.Fatal("written while held")
	}
	if b, _ := s.Batch(base, "b"); b.Counts.Completed != 99 {
		t.Fatalf("the held change is seen by this process: %+v", b)
	}
	sub := time.Unix(1000, 0)
	s.Remember(base, Batch{ID: "mine", SubmittedAt: &sub})
	s.Remember(base, Batch{ID: "mine", Status: api.BatchCompleted})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if !Open(dir).SubmittedWithin(base, "mine", time.Hour, sub.Add(time.Minute)) {
		t.Fatal("a later snapshot held with the submission lost it")
	}
	b, err := os.ReadFile(s.ShardPath(base))
	if err != nil || strings.Count(string(b), "\n") != 3 || !strings.Contains(string(b), `"completed":99`) {
		t.Fatalf("one header and one line a batch: %q %v", b, err)
	}
}

// Entries and strings are bounded per gateway, gateways in total; one
// gateway's bulk is not read for another.
func TestRecordBounds(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	long := strings.Repeat("m", 100_000)
	var bs []Batch
	for i := 0; i < MaxBatches+300; i++ {
		bs = append(bs, Batch{ID: fmt.Sprintf("b%05d", i), Model: long, Endpoint: long, Status: api.BatchStatus(long), SeenAt: time.Unix(int64(i), 0)})
	}
	bs = append(bs, Batch{ID: strings.Repeat("x", MaxID+1), SeenAt: time.Unix(1e9, 0)})
	s.Remember("big", bs...)
	got := Open(dir).Batches("big")
	if len(got) != MaxBatches || len(got[0].Model) != MaxText || len(got[0].Status) != MaxText {
		t.Fatalf("%d batches, model %d bytes", len(got), len(got[0].Model))
	}
	if _, ok := Open(dir).Batch("big", "b00000"); ok {
		t.Fatal("the batch seen longest ago is the one that goes")
	}
	name := long
	s.SeeDestinations("big", api.Destination{ID: "huge", Name: &name})
	if _, ok := Open(dir).Destination("big", "huge"); ok {
		t.Fatal("a destination over the byte bound is kept")
	}
	for i := 0; i < MaxDestinations+20; i++ {
		s.SeeDestinations("big", api.Destination{ID: fmt.Sprintf("d%d", i)})
	}
	if _, ok := Open(dir).Destination("big", "d0"); ok {
		t.Fatal("destinations are bounded")
	}
	fi, _ := os.Stat(s.ShardPath("big"))
	if fi.Size() > MaxShardBytes/2 {
		t.Fatalf("shard %d bytes", fi.Size())
	}
	// Another gateway's file holds only its own.
	s.Remember("small", Batch{ID: "one"})
	if fi, _ := os.Stat(s.ShardPath("small")); fi.Size() > 1024 {
		t.Fatalf("a small gateway's file is %d bytes", fi.Size())
	}
	for i := 0; i < MaxGateways+5; i++ {
		s.Remember(fmt.Sprintf("gw-%d", i), Batch{ID: "a"})
	}
	entries, _ := os.ReadDir(s.Path())
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			n++
		}
	}
	if n > MaxGateways {
		t.Fatalf("%d gateways kept", n)
	}
}

// A record.json of an earlier version is carried over once; a huge one
// is set aside unread.
func TestRecordMigratesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "record.json"), []byte(`{"gateways":{"g":{"batches":[{"id":"old","status":"completed"}],"models":["a/b"]}}}`), 0o600)
	s := Open(dir)
	if _, ok := s.Batch("g", "old"); !ok || len(s.Models("g")) != 1 {
		t.Fatal("not carried over")
	}
	if _, err := os.Stat(filepath.Join(dir, "record.json")); err == nil {
		t.Fatal("the old file is read again")
	}
	dir = t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "record.json"))
	f.Truncate(maxLegacyBytes + 1)
	f.Close()
	if len(Open(dir).Batches("g")) != 0 {
		t.Fatal("huge")
	}
	if _, err := os.Stat(filepath.Join(dir, "record.json.too-large")); err != nil {
		t.Fatal("a huge old record is set aside")
	}
}

// A shard that is a symlink is not followed.
func TestRecordDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	os.MkdirAll(s.Path(), 0o700)
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, []byte("keep"), 0o600)
	os.Symlink(target, s.ShardPath("g"))
	s.Remember("g", Batch{ID: "a"})
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("written through a symlink: %q", b)
	}
}

// The record key has one home (Key, applied by every method): a base URL
// written with or without its trailing slash, by a command or by the
// dashboard, names one gateway, in this process and in the next.
func TestRecordKeyIsOneRule(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_700_000_000, 0)
	s := Open(dir)
	if err := s.Remember("https://a/api/v1/", Batch{ID: "b1", Status: api.BatchInProgress, CreatedAt: 1, SeenAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.UseModel("https://a/api/v1//", "demo/echo"); err != nil {
		t.Fatal(err)
	}
	if s.ShardPath("https://a/api/v1/") != s.ShardPath("https://a/api/v1") {
		t.Fatal("two shard files for one gateway")
	}
	for _, st := range []*Store{s, Open(dir)} { // this process, then a later one
		if got := st.Batches("https://a/api/v1"); len(got) != 1 || got[0].ID != "b1" {
			t.Fatalf("batches under the bare URL: %+v", got)
		}
		if got := st.Models("https://a/api/v1/"); len(got) != 1 || got[0] != "demo/echo" {
			t.Fatalf("models under the slashed URL: %v", got)
		}
	}
	shards, err := filepath.Glob(filepath.Join(s.Path(), "*.jsonl"))
	if err != nil || len(shards) != 1 {
		t.Fatalf("one shard expected: %v %v", shards, err)
	}
}

// Watches are kept per gateway, read back by another Store, bounded, and
// an unwatch removes one.
func TestWatchedBatches(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	base := "https://gw.example/api/v1"
	for i := range MaxWatched + 3 {
		s.Watch(base, fmt.Sprintf("batch-%d", i))
	}
	s.Watch(base, "batch-0") // already watched: nothing
	s.Unwatch(base, "batch-1")
	got := Open(dir).Watched(base)
	if len(got) != MaxWatched-1 || got[0] != "batch-0" || slices.Contains(got, "batch-1") {
		t.Fatalf("%d watched: %v", len(got), got)
	}
	if other := Open(dir).Watched("https://other.example/api/v1"); len(other) != 0 {
		t.Fatalf("another gateway: %v", other)
	}
}
