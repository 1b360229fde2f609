package ui

// The Logs view's drawing: the spend chart, the search line, the table of
// the visible rows, and a row opened whole.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// measure sizes the columns to the rows' content.
func (v *logsView) measure() {
	v.table.ResetContent()
	for i := range v.rows {
		v.table.Measure(v.cells(&v.rows[i])...)
	}
	v.table.Layout(v.w)
}

// cells are a row's cells, inert.
func (v *logsView) cells(e *reqlog.Entry) []string {
	model := e.Model
	if e.Kind == reqlog.KindBatch {
		model = "batch · " + model
	}
	ttft := "—"
	if e.TTFTMillis != nil {
		ttft = format.Seconds(time.Duration(*e.TTFTMillis) * time.Millisecond)
	}
	return []string{e.Time.Local().Format("01-02 15:04"), textsafe.Line(model), orDashUI(textsafe.Line(e.Provider)), present.LogTokens(e),
		format.CostPtr(e.Cost), ttft, textsafe.Line(e.State), textsafe.Line(firstLineOf(e.Input))}
}

func orDashUI(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// View implements view.
func (v *logsView) View() string {
	s := v.c.styles
	if v.c.opts.Requests == nil {
		return s.Muted.Render("The request log is off (log = false in the profile, or --no-log): nothing is recorded.")
	}
	if d := v.open(); d != nil {
		return d.View()
	}
	lines := []string{v.chart()}
	if p, ok := v.stack.top().(*spendScreen); ok {
		return strings.Join(append(lines, p.View()), "\n")
	}
	if l := v.search.Line(s, len(v.rows), v.total); l != "" {
		lines = append(lines, l)
	} else {
		lines = append(lines, s.Muted.Render("/ searches (words, model: provider: state: since:7d) · enter opens · r playground · c compare · y curl"))
	}
	st := listState{err: v.err, loaded: v.loaded, total: v.total, shown: len(v.rows), width: v.w, header: v.table.Header(s),
		loading: "reading the request log…", empty: "nothing logged yet: requests sent from the playground, compare or respond appear here",
		noMatch: "no logged request matches: esc clears the search"}
	if v.total == 0 && v.search.Input.Value() != "" {
		st.total = 1 // a search that finds nothing is "no match", not "nothing logged"
	}
	top, rows := st.top(s)
	lines = append(lines, top...)
	if rows {
		a, b := v.nav.Visible()
		for i := a; i < b; i++ {
			line := v.table.Row(v.cells(&v.rows[i]), i == v.nav.Cursor)
			if i == v.nav.Cursor {
				line = s.Selected.Render(line)
			}
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// chart is the header line: the spend per day of the last 30 days.
func (v *logsView) chart() string {
	s := v.c.styles
	total, today := 0.0, 0.0
	for _, c := range v.spend {
		total += c
	}
	if n := len(v.spend); n > 0 {
		today = v.spend[n-1]
	}
	head := fmt.Sprintf("%s logged", format.Plural(v.total, "request", "requests"))
	if v.search.Input.Value() != "" {
		head = fmt.Sprintf("%s of %s", format.Int(len(v.rows)), format.Plural(v.total, "match", "matches"))
	}
	return s.Title.Render("Logs") + "  " + s.Muted.Render(head) + "  " + s.Label.Render("logged spend 30d ") +
		s.Busy.Render(sparkline(v.spend, spendDays)) + " " + s.Value.Render(format.Cost(total)) + s.Muted.Render(" · today "+format.Cost(today))
}

// detailLines lays a row out: what it was, its input, answer, usage,
// generation record and the request as JSON.
// answer is the answer rendered as markdown (nil: shown plain until it is).
func detailLines(e reqlog.Entry, s Styles, w int, answer []string) []string {
	var out []string
	for _, r := range present.LogEntryRows(&e) {
		if r[0] == "id" || r[0] == "kind" || r[0] == "profile" || r[0] == "host" {
			continue // the title and the view say these
		}
		out = append(out, s.Label.Render(fmt.Sprintf("%-14s", r[0]))+s.Value.Render(textsafe.Line(r[1])))
	}
	section := func(title, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		out = append(out, "", s.Title.Render("── "+title+" ──"))
		out = append(out, strings.Split(wrap(textsafe.Clean(body), w), "\n")...)
	}
	section("instructions", e.Instructions)
	section("input", e.Input)
	const longer = "(the answer was longer: the log keeps its first 2 MiB)"
	if answer != nil {
		out = append(out, "", s.Title.Render("── answer ──"))
		out = append(out, answer...)
		if e.AnswerTruncated {
			out = append(out, s.Muted.Render(longer))
		}
	} else {
		text := e.Answer
		if e.AnswerTruncated {
			text += "\n" + longer
		}
		section("answer", text)
	}
	if e.Generation != "" {
		var g api.Generation
		if json.Unmarshal([]byte(e.Generation), &g) == nil {
			var rows []string
			for _, r := range present.GenerationRows(&g) {
				rows = append(rows, fmt.Sprintf("%-16s %s", r[0], r[1]))
			}
			section("generation record", strings.Join(rows, "\n"))
		}
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(e.Request), "", "  ") == nil {
		section("request (JSON)", pretty.String())
	}
	return out
}
