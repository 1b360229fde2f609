package ui

import (
	"fmt"
	"net/http"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// retryingWhy says what a batch view waits for while its poll is retried:
// a batch submitted a moment ago that the server does not show yet (404
// within the grace), or results that a 429/5xx/transport error keeps back.
// It never says the batch has no results: that is not known yet.
func (v *batchView) retryingWhy() string {
	if api.StatusOf(v.pollErr) == http.StatusNotFound {
		return fmt.Sprintf("batch %s is not visible yet (a batch answers 404 for a few seconds after it is submitted): retrying (%d)",
			textsafe.Line(v.id), v.retries)
	}
	return fmt.Sprintf("results not loaded yet: %s · retrying (%d)", describeErr(v.pollErr), v.retries)
}

// countsLine is the progress bar and "✓ 184  ✗ 16  … 0  of 200"; for a
// settled batch the requests that never ran are "not run"; a batch that
// failed as a whole, with no per-request results, says so instead of a
// bar of failures there is nothing to show for.
func (v *batchView) countsLine(width int) string {
	s := v.c.styles
	b := v.meta
	rc := b.RequestCounts
	if b.Status == api.BatchFailed && (v.data == nil || len(v.data.Rows) == 0) {
		return s.Error.Render("failed as a whole") + " · " +
			fmt.Sprintf("the server counts %s of %s failed · no per-request results exist", format.Int(rc.Failed), format.Int(rc.Total))
	}
	notDone := s.Muted.Render("…") + " " + format.Int(rc.Pending())
	if word := present.NotDone(b.Status, rc.Pending()); word != "pending" {
		notDone = s.Muted.Render(word) + " " + format.Int(rc.Pending())
	}
	return progressBar(s, rc, width) + " " + fmt.Sprintf("%s %s  %s %s  %s  of %s",
		s.Success.Render("✓"), format.Int(rc.Completed), s.Error.Render("✗"), format.Int(rc.Failed), notDone, format.Int(rc.Total))
}
