// Package present renders the lines that the headless commands and the
// dashboard both show: a response's usage and cost, its timing, its
// one-line summary, a batch's counts. One function per line, so that the
// two never disagree. Output is plain text: callers pass it through their
// sanitizing writer or style it whole.
package present

import (
	"fmt"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// UsageLine is "in 12 (cached 0) · out 340 (reasoning 0) · total 352 ·
// cost $0.0012", or "" without usage.
func UsageLine(u *api.ResponseUsage) string {
	if u == nil {
		return ""
	}
	return fmt.Sprintf("in %s (cached %s) · out %s (reasoning %s) · total %s · cost %s",
		format.Int(u.InputTokens), format.Int(u.InputTokensDetails.CachedTokens),
		format.Int(u.OutputTokens), format.Int(u.OutputTokensDetails.ReasoningTokens),
		format.Int(u.TotalTokens), format.CostPtr(u.Cost))
}

// CostBreakdown is "upstream input $0.0004 · upstream output $0.0008 ·
// upstream total $0.0012", labelled, or "".
func CostBreakdown(u *api.ResponseUsage) string {
	if u == nil || u.CostDetails == nil {
		return ""
	}
	d := u.CostDetails
	s := "upstream input " + format.Cost(d.UpstreamInferenceInputCost) + " · upstream output " + format.Cost(d.UpstreamInferenceOutputCost)
	if d.UpstreamInferenceCost != nil {
		s += " · upstream total " + format.Cost(*d.UpstreamInferenceCost)
	}
	return s
}

// Timing is "ttft 0.61s · 85.2 tok/s · elapsed 4.20s": the rate only for
// a streamed answer (see api.Outcome.TokensPerSecond).
func Timing(o api.Outcome, now time.Time) string {
	var parts []string
	if ttft := o.TTFT(); ttft > 0 && o.Streamed {
		parts = append(parts, "ttft "+format.Seconds(ttft))
	}
	if tps, ok := o.TokensPerSecond(); ok {
		parts = append(parts, fmt.Sprintf("%.1f tok/s", tps))
	}
	parts = append(parts, "elapsed "+format.Seconds(o.Elapsed(now)))
	return strings.Join(parts, " · ")
}

// Summary is the one-line summary of a response: how it ended, its usage
// and cost, its timing and its generation id.
func Summary(o api.Outcome, now time.Time) string {
	parts := []string{o.Message()}
	if u := UsageLine(o.Usage()); u != "" {
		parts = append(parts, u)
	}
	parts = append(parts, Timing(o, now))
	if o.GenerationID != "" {
		parts = append(parts, "generation "+o.GenerationID)
	}
	return strings.Join(parts, " · ")
}

// Counts is "184 completed · 16 failed · 0 pending · 200 total", with the
// server's numbers as received.
func Counts(rc api.RequestCounts) string {
	return fmt.Sprintf("%s completed · %s failed · %s pending · %s total",
		format.Int(rc.Completed), format.Int(rc.Failed), format.Int(rc.Pending()), format.Int(rc.Total))
}

// Status renders a batch status; an unknown one says so.
func Status(s api.BatchStatus) string {
	if s.Known() {
		return string(s)
	}
	return "unknown status “" + string(s) + "”"
}
