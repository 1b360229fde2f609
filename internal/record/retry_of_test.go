package record

import (
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

// A retry's parent (its lineage) is kept by the snapshots that follow,
// which do not know it: written at once, and held then flushed; it
// reaches a fresh reader; a parent id longer than an id may be is not
// kept.
func TestRetryOfOutlivesLaterSnapshots(t *testing.T) {
	dir := t.TempDir()
	const gw = "https://a/api/v1"
	s := Open(dir)
	now := time.Now()
	s.Remember(gw, Batch{ID: "child", RetryOf: "parent", Status: api.BatchValidating, CreatedAt: 1, SubmittedAt: &now, SeenAt: now})
	s.Remember(gw, Batch{ID: "child", Status: api.BatchCompleted, CreatedAt: 1, SeenAt: now})
	s.Hold()
	s.Remember(gw, Batch{ID: "held", RetryOf: "child", Status: api.BatchValidating, CreatedAt: 2, SeenAt: now})
	s.Remember(gw, Batch{ID: "held", Status: api.BatchInProgress, CreatedAt: 2, SeenAt: now})
	s.Flush()
	s.Remember(gw, Batch{ID: "long", RetryOf: strings.Repeat("x", MaxID+1), CreatedAt: 3, SeenAt: now})
	fresh := Open(dir)
	for id, want := range map[string]string{"child": "parent", "held": "child", "long": ""} {
		b, ok := fresh.Batch(gw, id)
		if !ok || b.RetryOf != want {
			t.Fatalf("%s: retry_of %q (%v), want %q", id, b.RetryOf, ok, want)
		}
	}
	if b, _ := fresh.Batch(gw, "child"); b.Status != api.BatchCompleted || b.SubmittedAt == nil {
		t.Fatalf("child: %+v", b)
	}
}
