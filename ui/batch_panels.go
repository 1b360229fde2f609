package ui

// The panels of a batch: the header card, progress, usage and cost, and
// the timeline, each from the batch's metadata only.

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// panels lays the panels out for the view's size.
func (v *batchView) panels() string {
	s := v.c.styles
	var parts []string
	card := v.headerCard()
	switch {
	case v.w >= 110 && !v.compact():
		parts = append(parts, lipgloss.JoinHorizontal(lipgloss.Top, card, " ", v.usagePanel()))
	case v.compact() || v.h < 34:
		parts = append(parts, card, v.usageLine())
	default:
		parts = append(parts, card, v.usagePanel())
	}
	parts = append(parts, v.progress(), v.pollLine())
	if !v.compact() {
		parts = append(parts, v.timeline())
	}
	if v.payment != nil {
		parts = append(parts, s.Warning.Render(wrap("payment required (402): the batch finished, but its final charge could not be settled, so the results are held. Add credits; polling goes on slowly and the results come once it is settled.", max(20, v.w))))
	}
	if e := v.meta.Error; e != nil && e.Message != "" && v.payment == nil {
		parts = append(parts, s.Error.Render(wrap("batch failed: "+textsafe.Clean(e.Message), max(20, v.w))))
	}
	return strings.Join(parts, "\n")
}

// badge is the batch's status badge: the one the home table uses too.
func badgeFor(s Styles, b *api.Batch, payment bool) string {
	word := string(b.Status)
	switch {
	case payment:
		word = "payment required"
	case !b.Status.Known():
		word = "unknown status"
	case b.Status == api.BatchCompleted && b.RequestCounts.Failed > 0:
		word = "completed with errors"
	}
	role := s.StatusRole(b.Status, b.RequestCounts.Failed > 0)
	if payment {
		role = s.Theme.Warning
	}
	return s.Badge(word, role)
}

// headerCard shows id, endpoint, model, status, times and window.
func (v *batchView) headerCard() string {
	s := v.c.styles
	b := v.meta
	now := v.c.now()
	badge := badgeFor(s, b, v.payment != nil)
	if v.compact() {
		return ansi.Truncate(badge+" "+s.Value.Render(textsafe.Line(b.ID))+" "+s.Muted.Render(textsafe.Line(b.Model)), max(1, v.w), "…")
	}
	row := func(l, val string) string { return s.Label.Render(fmt.Sprintf("%-10s", l)) + " " + orDash(val) }
	status := ""
	if !b.Status.Known() {
		status = s.Warning.Render(" “" + textsafe.Line(string(b.Status)) + "”")
	}
	fin := "—"
	if t := b.FinalizedTime(); !t.IsZero() {
		fin = format.LocalTime(t) + " (" + format.Age(t, now) + ")"
	}
	lines := []string{
		badge + status + "  " + s.Title.Render(textsafe.Line(b.ID)),
		row("endpoint", textsafe.Line(b.Endpoint)) + "   " + s.Label.Render("window") + " " + orDash(textsafe.Line(b.CompletionWindow)),
		row("model", textsafe.Line(b.Model)),
		row("created", format.LocalTime(b.CreatedTime())+" ("+format.Age(b.CreatedTime(), now)+")"),
		row("finalized", fin),
	}
	return s.Card.Width(v.cardWidth()).Render(strings.Join(lines, "\n"))
}

// cardWidth is a panel's width without its border: two side by side on
// wide terminals, one across otherwise.
func (v *batchView) cardWidth() int {
	if v.w >= 110 && !v.compact() {
		return min(76, (v.w-1)/2-2)
	}
	return max(10, min(76, v.w-2))
}

// progress shows completed and failed separately, the phase, and a note
// when the server's counts cannot be right (they are shown as received).
func (v *batchView) progress() string {
	s := v.c.styles
	b := v.meta
	rc := b.RequestCounts
	width := max(10, min(50, v.w-50))
	line := v.countsLine(width)
	phase := ""
	switch b.Status {
	case api.BatchValidating:
		phase = "validating the input"
	case api.BatchFinalizing:
		phase = "finalizing: collecting results"
	case api.BatchCancelling:
		phase = "cancelling"
	case api.BatchInProgress:
		phase = "in progress"
	}
	if phase != "" {
		line += "  " + s.Info.Render(phase)
	}
	line = ansi.Truncate(line, max(1, v.w), "…")
	note := v.decision.Inconsistent
	if note == "" {
		note = rc.Problems(nil)
	}
	if note != "" { // a line of its own: it must not be cut off
		line += "\n" + s.Warning.Render(wrap("inconsistent counts from server: "+textsafe.Line(note)+" (shown as received)", max(20, v.w)))
	}
	return line
}

// progressBar draws completed (success colour) and failed (error colour)
// as separate segments; it is full only when every request is done. Any
// counts, negative or overflowing, draw a bar of exactly width cells.
func progressBar(s Styles, rc api.RequestCounts, width int) string {
	width = max(1, width)
	if rc.Total <= 0 {
		return s.Muted.Render(strings.Repeat("░", width))
	}
	part := func(n int) int {
		if n <= 0 {
			return 0
		}
		if n >= rc.Total {
			return width
		}
		return int(int64(n) * int64(width) / int64(rc.Total))
	}
	ok := part(rc.Completed)
	bad := part(rc.Failed)
	if rc.Failed > 0 && bad == 0 {
		bad = 1
	}
	done := rc.Done()
	switch {
	case done >= rc.Total && rc.Completed >= 0 && rc.Failed >= 0:
		bad = max(0, width-ok) // all done: a full bar, whatever the rounding
	case ok+bad >= width:
		// never a full bar while work remains
		if ok > 0 {
			ok = max(0, width-bad-1)
		} else {
			bad = max(0, width-1)
		}
	}
	ok = max(0, min(ok, width))
	bad = max(0, min(bad, width-ok))
	rest := width - ok - bad
	return s.Success.Render(strings.Repeat("█", ok)) + s.Error.Render(strings.Repeat("█", bad)) + s.Muted.Render(strings.Repeat("░", rest))
}

// pollLine is the polling state: "next in 12s · r polls now", a failure
// with its retry, or a wait the server asked for, counting down.
func (v *batchView) pollLine() string {
	s := v.c.styles
	now := v.c.now()
	left := max(0, v.nextPoll.Sub(now))
	switch {
	case v.stopped:
		return s.Muted.Render("polling stopped by you · r polls again")
	case v.done:
		return s.Muted.Render("polling stopped: the batch is " + statusWord(v.meta.Status))
	case v.loading:
		return s.Muted.Render("polling…")
	case v.decision.Capped:
		return s.Warning.Render(fmt.Sprintf("the server asked to wait %s; waiting %s (at most %s)", api.HumanDuration(v.decision.Asked), format.Duration(left), api.HumanDuration(api.MaxServerWait))) +
			s.Muted.Render(" · r polls now · esc stops polling")
	case v.pollErr != nil:
		return ansi.Truncate(s.Warning.Render("last poll failed: "+describeErr(v.pollErr))+s.Muted.Render(" · retry in "+format.Duration(left)+" · r now"), max(1, v.w), "…")
	case v.payment != nil:
		return s.Muted.Render("next poll in " + format.Duration(left) + " · r polls now")
	}
	return s.Muted.Render("next poll in " + format.Duration(left) + " · r polls now")
}

// timeline is created → finalized, with the window's end.
func (v *batchView) timeline() string {
	s := v.c.styles
	b := v.meta
	created := b.CreatedTime()
	parts := []string{"created " + format.LocalTime(created)}
	if fin := b.FinalizedTime(); !fin.IsZero() {
		parts = append(parts, "finalized "+format.Duration(fin.Sub(created))+" later")
	} else if b.CompletionWindow == "24h" {
		parts = append(parts, "the 24h window ends "+format.Age(created.Add(24*time.Hour), v.c.now()))
	}
	return s.Muted.Render(ansi.Truncate("timeline: "+strings.Join(parts, " → "), max(1, v.w), "…"))
}

// usageRows are the usage panel's labelled values.
func usageRows(u *api.BatchUsage) [][2]string {
	rows := [][2]string{
		{"prompt", format.Int(u.PromptTokens)}, {"completion", format.Int(u.CompletionTokens)},
		{"total", format.Int(u.TotalTokens)}, {"cost", format.CostPtr(u.Cost)},
	}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
		rows = append(rows, [2]string{"cached", format.Int(*d.CachedTokens)})
	}
	if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
		rows = append(rows, [2]string{"reasoning", format.Int(*d.ReasoningTokens)})
	}
	if u.IsBYOK != nil {
		rows = append(rows, [2]string{"BYOK", format.OnOff(*u.IsBYOK)})
	}
	if u.ServiceTier != nil {
		rows = append(rows, [2]string{"tier", textsafe.Line(*u.ServiceTier)})
	}
	for _, p := range present.CostDetailParts(u.CostDetails) {
		rows = append(rows, [2]string{p[0], p[1]})
	}
	return rows
}

// usagePanel shows tokens, cost and billing details, labelled.
func (v *batchView) usagePanel() string {
	s := v.c.styles
	u := v.meta.Usage
	if u == nil {
		return s.Card.Width(v.cardWidth()).Render(s.Label.Render("usage") + " " + s.Muted.Render("not reported yet"))
	}
	lines := []string{s.Title.Render("Usage & cost")}
	rows := usageRows(u)
	for i := 0; i < len(rows); i += 2 {
		line := s.Label.Render(fmt.Sprintf("%-11s", rows[i][0])) + " " + fmt.Sprintf("%-12s", rows[i][1])
		if i+1 < len(rows) {
			line += " " + s.Label.Render(fmt.Sprintf("%-11s", rows[i+1][0])) + " " + rows[i+1][1]
		}
		lines = append(lines, line)
	}
	return s.Card.Width(v.cardWidth()).Render(strings.Join(lines, "\n"))
}

// usageLine is the usage panel on one line, for short terminals.
func (v *batchView) usageLine() string {
	s := v.c.styles
	u := v.meta.Usage
	if u == nil {
		return s.Label.Render("usage") + " " + s.Muted.Render("not reported yet")
	}
	var parts []string
	for _, r := range usageRows(u) {
		parts = append(parts, s.Label.Render(r[0])+" "+r[1])
	}
	return ansi.Truncate(strings.Join(parts, " · "), max(1, v.w), "…")
}

// failureSummary is "failures: timeout 4 · content_policy_violation 3".
func (v *batchView) failureSummary() string {
	if v.data == nil {
		return ""
	}
	counts := v.data.ErrorTypeCounts()
	if len(counts) == 0 {
		return "no failures"
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		if name == "" {
			name = "other"
		}
		parts = append(parts, fmt.Sprintf("%s %s", textsafe.Line(name), format.Int(counts[k])))
	}
	return "failures: " + strings.Join(parts, " · ")
}

// orDash shows an empty value as a dash, so a label never reads as the
// value of the one before it.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
