package present

import (
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

func TestWaitWords(t *testing.T) {
	n := api.WaitNotice{Op: "PATCH /x", Why: "HTTP 409: changed", Wait: 12 * time.Second, Attempt: 2, Attempts: 4,
		Spent: time.Second, Budget: api.MaxOperationWait, Status: 409}
	now := time.Date(2026, 1, 2, 10, 4, 0, 0, time.UTC)
	if got, want := WaitLine(n, now), "PATCH /x: HTTP 409: changed; retrying in 12s, at 10:04:12 (attempt 2 of 4; gives up after 5m0s of waiting in all, 4m47s left)"; got != want {
		t.Fatalf("line:\n got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		left time.Duration
		want string
	}{
		{11*time.Second + 600*time.Millisecond, "waiting 12s for the server (409, attempt 2 of 4) · gives up after 5m0s"},
		{400 * time.Millisecond, "waiting 400ms for the server (409, attempt 2 of 4) · gives up after 5m0s"},
		{-time.Second, "waiting 0s for the server (409, attempt 2 of 4) · gives up after 5m0s"},
	} {
		if got := WaitCountdown(n, c.left); got != c.want {
			t.Fatalf("countdown %s:\n got %s\nwant %s", c.left, got, c.want)
		}
	}
	n.Status = 0
	if got, want := WaitCountdown(n, time.Second), "waiting 1s for the server (attempt 2 of 4) · gives up after 5m0s"; got != want {
		t.Fatalf("no status:\n got %s\nwant %s", got, want)
	}
}
