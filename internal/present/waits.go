package present

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gwdash/gwdash/api"
)

// The words of a wait before a retry (api.WaitNotice), said by the
// commands on stderr (WaitLine) and by the dashboard's status bar as a
// countdown (WaitCountdown). Why is the server's: callers sanitize the
// line as a whole.

// WaitLine is the commands' line for a wait that starts at now: "PATCH
// /observability/destinations/{id}: HTTP 409 (...); retrying in 12s, at
// 10:04:12 (attempt 2 of 4; gives up after 5m0s of waiting in all, 4m48s
// left)".
func WaitLine(n api.WaitNotice, now time.Time) string {
	return fmt.Sprintf("%s: %s; retrying in %s, at %s (%s; %s of waiting in all, %s left)",
		n.Op, n.Why, api.HumanDuration(n.Wait), now.Add(n.Wait).Format("15:04:05"), waitAttempt(n),
		waitBound(n), api.HumanDuration(n.Budget-n.Spent-n.Wait))
}

// WaitCountdown is the dashboard's line while a wait runs, left of it to
// go: "waiting 12s for the server (409, attempt 2 of 4) · gives up after
// 5m0s".
func WaitCountdown(n api.WaitNotice, left time.Duration) string {
	left = max(0, left)
	if left > time.Second {
		left = left.Round(time.Second) // the countdown moves by whole seconds
	}
	why := waitAttempt(n)
	if n.Status != 0 {
		why = strconv.Itoa(n.Status) + ", " + why
	}
	return fmt.Sprintf("waiting %s for the server (%s) · %s", api.HumanDuration(left), why, waitBound(n))
}

func waitAttempt(n api.WaitNotice) string {
	return fmt.Sprintf("attempt %d of %d", n.Attempt, n.Attempts)
}

func waitBound(n api.WaitNotice) string { return "gives up after " + api.HumanDuration(n.Budget) }
