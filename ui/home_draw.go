package ui

// The batches home's drawing: the summary line, the filter line and the
// table of rows, sized to the terminal.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// ---- VIEW ----

func (v *batchesView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.layout()
	v.stack.SetSize(w, h)
}

func (v *batchesView) layout() {
	v.tbl.Layout(v.w)
	v.nav.SetHeight(max(1, v.h-3-btoi(v.notOffered)-btoi(pagingNote(v.pager) != "")))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cells are a row's plain cells.
func (v *batchesView) cells(r *homeRow) []string {
	b := &r.b
	status := v.markOf(b.ID) + textsafe.Line(present.Status(b.Status)) + v.watch.badge(b.ID) // as `batch list` says it
	id := v.c.lineageMark(b.ID) + textsafe.Line(b.ID)                                        // "…3a6a45 -> " before a retry made here
	switch {
	case r.fromRecord:
		id += " (remembered)"
	case r.stopped:
		id += " (not polled: r tries again)"
	}
	return v.tbl.Cells(func(col string) string {
		switch col {
		case homeStatus:
			return status
		case homeID:
			return id
		case homeModel:
			return textsafe.Line(b.Model)
		case homeProgress:
			return "────────────"
		case homeCounts:
			return present.ShortCounts(b.RequestCounts)
		case homeCreated:
			return format.Age(b.CreatedTime(), v.c.now())
		case homeCost:
			return present.BatchCost(b)
		}
		return ""
	})
}

func (v *batchesView) View() string {
	if full, ok := v.stack.full(); ok {
		return full
	}
	s := v.c.styles
	var lines []string
	lines = append(lines, v.summary())
	if v.notOffered {
		lines = append(lines, s.Warning.Render("this server does not list batches: these are the batches opened or submitted from this machine"))
	}
	if note := pagingNote(v.pager); note != "" {
		lines = append(lines, s.Warning.Render(ansi.Truncate(note, max(1, v.w), "…")))
	}
	question, asking := v.stack.inline()
	switch {
	case asking:
		lines = append(lines, question)
	case v.filter.Active():
		lines = append(lines, v.filter.Line(s, len(v.view), len(v.rows)))
	default:
		bar := "order " + homeOrderNames[v.order] + " · showing " + homeFilterNames[v.status] + " · list read every " + format.Duration(v.listEvery)
		if pos := v.nav.Position(); pos != "" {
			bar += " · " + pos
		}
		lines = append(lines, s.Muted.Render(bar))
	}
	top, rows := listState{err: v.err, loaded: v.loaded, total: len(v.rows), shown: len(v.view), width: v.w,
		loading: "loading your batches…",
		empty:   "no batches yet: s submits a JSON Lines file, / and an id opens one",
		noMatch: noMatchYet("no batch matches", v.pager, len(v.rows), "esc clears the filters"),
		header:  v.tbl.Header(s)}.top(s)
	lines = append(lines, top...)
	if !rows {
		return strings.Join(lines, "\n")
	}
	a, b := v.nav.Visible()
	for k := a; k < b; k++ {
		r := v.rows[v.view[k]]
		sel := k == v.nav.Cursor
		cells := v.cells(r)
		if !sel {
			// colour inside the cells: the status badge and the bar
			v.tbl.Set(cells, homeStatus, s.Fg(s.StatusRole(r.b.Status, r.b.RequestCounts.Failed > 0), cells[v.tbl.Col(homeStatus)]))
		}
		if w := v.tbl.WidthOf(homeProgress); w > 0 {
			v.tbl.Set(cells, homeProgress, progressBar(s, r.b.RequestCounts, w))
		}
		line := v.tbl.Row(cells, sel)
		switch {
		case sel:
			line = s.Selected.Render(line)
		case r.fromRecord:
			line = s.Muted.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// summary is "in flight 3 · completed 12 · failed 2 · total cost shown $4.21".
func (v *batchesView) summary() string {
	s := v.c.styles
	var inFlight, completed, failed int
	var cost float64
	for _, i := range v.view {
		b := &v.rows[i].b
		switch {
		case !b.Status.Terminal():
			inFlight++
		case b.Status == api.BatchCompleted:
			completed++
		default:
			failed++
		}
		if c := costOf(b); c > 0 {
			cost += c
		}
	}
	line := fmt.Sprintf("in flight %s · completed %s · failed or ended %s · total cost shown %s",
		format.Int(inFlight), format.Int(completed), format.Int(failed), format.Cost(cost))
	return s.Title.Render("Batches") + "  " + s.Subtle.Render(line)
}
