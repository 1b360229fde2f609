package cmd

import (
	"strings"
	"testing"

	"github.com/gwdash/gwdash/internal/gateway"
)

// Issue 23 item 10: the requests an expired batch never ran are "not run",
// not pending, in `batch get` as on the batch screen.
func TestBatchGetExpiredSaysNotRun(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "batch", "get", h.srv.SeedID(gateway.SeedExpired))
	r.must(t, 0, []string{"6 completed · 0 failed · 74 not run · 80 total"}, nil)
	if strings.Contains(r.out, "pending") {
		t.Fatalf("an expired batch has nothing pending:\n%s", r.out)
	}
}

// Issue 23 item 10: `batch get` of a batch that failed as a whole does not
// say "failures: none" beside 25 failed: it says no per-request results
// exist, and gives the server's message.
func TestBatchGetFailedSaysNoPerRequestResults(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "batch", "get", h.srv.SeedID(gateway.SeedFailed))
	r.must(t, 0, []string{"no per-request results exist", "Batch validation failed"}, nil)
	if strings.Contains(r.out, "none") {
		t.Fatalf("a failed batch says none:\n%s", r.out)
	}
}
