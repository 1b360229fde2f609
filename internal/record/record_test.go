package record

import (
	"os"
	"path/filepath"
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
	st, err := os.Stat(filepath.Join(dir, "record.json"))
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
	if m := s.Models("https://a/api/v1"); len(m) != maxModels || m[0] != "t/m" {
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
