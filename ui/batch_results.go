package ui

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// Filters of the results.
const (
	showAll = iota
	showOK
	showFailed
)

var showNames = []string{"all", "succeeded", "failed"}

// Orders of the results.
const (
	orderSent = iota
	orderCustomID
	orderTokens
)

var orderNames = []string{"as sent", "custom_id", "tokens"}

// results is a batch's results as a table: one compact row per result
// (api.BatchData), the filtered and sorted view of them, the cursor, and
// the table that draws only the visible rows. Nothing per frame grows
// with the number of results.
type results struct {
	data    *api.BatchData
	view    []int32 // indices into data.Rows, filtered and sorted
	nav     widgets.ListNav
	tbl     widgets.Table
	show    int
	errType string
	order   int
	search  widgets.FilterLine
	errList []string
}

func newResults(d *api.BatchData) *results {
	r := &results{data: d, search: widgets.NewFilterLine("custom_id contains…"),
		tbl: widgets.NewTable(
			widgets.Column{Title: "CUSTOM_ID", Keep: 1, Min: 8, Tail: true},
			widgets.Column{Title: "OUTCOME", Keep: 5, Max: 28},
			widgets.Column{Title: "MODEL", Keep: 4, Max: 40},
			widgets.Column{Title: "TOKENS", Keep: 3, Max: 12, Right: true},
			widgets.Column{Title: "FINISH", Keep: 2, Max: 24},
		)}
	r.errList = d.ErrorTypeNames()
	r.measure()
	r.apply()
	return r
}

// measure sizes the columns to every row's content without building the
// cells (a million rows would be a million strings): widths come from the
// bytes, and each distinct word is measured once.
func (r *results) measure() {
	d := r.data
	words := make([]int, len(d.Words))
	for i, w := range d.Words {
		words[i] = widgets.CellWidth(textsafe.Line(w))
	}
	var cid, out, model, tok, fin int
	for i := range d.Rows {
		row := &d.Rows[i]
		b := d.CustomIDBytes(i)
		if w := len(b); w > cid {
			if plainASCII(b) {
				cid = w
			} else {
				cid = max(cid, widgets.CellWidth(textsafe.Line(string(b))))
			}
		}
		switch {
		case row.ErrType != 0:
			out = max(out, words[row.ErrType])
		case row.Status != 0:
			out = max(out, digits(int64(row.Status)))
		case row.Failed:
			out = max(out, len("error"))
		}
		model, fin = max(model, words[row.Model]), max(fin, words[row.Finish])
		if row.Tokens > 0 {
			n := digits(int64(row.Tokens))
			tok = max(tok, n+(n-1)/3) // with thousands commas
		}
	}
	r.tbl.MeasureWidths(cid, out, model, tok, fin)
}

// digits is the decimal length of n (with its sign).
func digits(n int64) int {
	s := 1
	if n < 0 {
		s, n = 2, -n
	}
	for n >= 10 {
		n /= 10
		s++
	}
	return s
}

// plainASCII reports whether b is printable ASCII (one cell a byte).
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// cells are the plain cells of row i.
func (r *results) cells(i int) []string {
	row := &r.data.Rows[i]
	outcome := ""
	switch {
	case row.ErrType != 0:
		outcome = r.data.Word(row.ErrType)
	case row.Status != 0:
		outcome = strconv.Itoa(int(row.Status))
	case row.Failed:
		outcome = "error"
	}
	tok := ""
	if row.Tokens > 0 {
		tok = format.Int(int(row.Tokens))
	}
	return []string{textsafe.Line(r.data.CustomID(i)), textsafe.Line(outcome), textsafe.Line(r.data.Word(row.Model)), tok, textsafe.Line(r.data.Word(row.Finish))}
}

// apply recomputes the view after a filter, search or order change,
// keeping the selected result selected.
func (r *results) apply() {
	sel := int32(-1)
	if r.nav.Cursor < len(r.view) {
		sel = r.view[r.nav.Cursor]
	}
	r.view = r.view[:0]
	q := r.search.Query()
	et := uint16(0)
	if r.errType != "" {
		for i, w := range r.data.Words {
			if w == r.errType {
				et = uint16(i)
			}
		}
	}
	for i := range r.data.Rows {
		row := &r.data.Rows[i]
		switch {
		case r.show == showOK && row.Failed, r.show == showFailed && !row.Failed:
			continue
		case r.errType != "" && row.ErrType != et:
			continue
		case q != "" && !widgets.ContainsFold(r.data.CustomIDBytes(i), q):
			continue
		}
		r.view = append(r.view, int32(i))
	}
	rows := r.data.Rows
	switch r.order {
	case orderCustomID:
		d := r.data
		slices.SortStableFunc(r.view, func(a, b int32) int { return bytes.Compare(d.CustomIDBytes(int(a)), d.CustomIDBytes(int(b))) })
	case orderTokens:
		slices.SortStableFunc(r.view, func(a, b int32) int { return int(rows[b].Tokens) - int(rows[a].Tokens) })
	}
	r.nav.SetCount(len(r.view))
	r.nav.Cursor = 0
	for i, v := range r.view {
		if v == sel {
			r.nav.Cursor = i
			break
		}
	}
	r.nav.Clamp()
}

// selected is the index (into data.Rows) under the cursor, or -1.
func (r *results) selected() int {
	if r.nav.Cursor < 0 || r.nav.Cursor >= len(r.view) {
		return -1
	}
	return int(r.view[r.nav.Cursor])
}

func (r *results) setSize(w, h int) {
	r.tbl.Layout(w)
	r.nav.SetHeight(max(1, h-1)) // the header
}

// filtered reports whether anything narrows the view.
func (r *results) filtered() bool {
	return r.show != showAll || r.errType != "" || r.search.Query() != ""
}

// clearFilters drops the filter, the error type and the search.
func (r *results) clearFilters() {
	r.show, r.errType = showAll, ""
	r.search.Clear()
	r.apply()
}

// render draws the header and the visible rows.
func (r *results) render(s Styles) string {
	var b strings.Builder
	b.WriteString(r.tbl.Header(s))
	if len(r.view) == 0 {
		b.WriteString("\n" + s.Muted.Render("  no results match"))
		return b.String()
	}
	a, z := r.nav.Visible()
	for i := a; i < z; i++ {
		idx := int(r.view[i])
		line := r.tbl.Row(r.cells(idx), i == r.nav.Cursor)
		b.WriteByte('\n')
		switch {
		case i == r.nav.Cursor:
			b.WriteString(s.Selected.Render(line))
		case r.data.Rows[idx].Failed:
			b.WriteString(s.Error.Render(line))
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

// position is "Results 41-60 of 340 (filtered from 10,000)", or the
// selected row's number when all fit.
func (r *results) position() string {
	total := len(r.data.Rows)
	s := ""
	switch {
	case len(r.view) == 0:
		s = "0 of " + format.Int(total)
	case r.nav.Position() != "":
		s = r.nav.Position() + " · row " + format.Int(r.nav.Cursor+1)
	default: // all shown
		s = "1-" + format.Int(len(r.view)) + " of " + format.Int(len(r.view)) + " · row " + format.Int(r.nav.Cursor+1)
	}
	if len(r.view) != total && len(r.view) > 0 {
		s += " (filtered from " + format.Int(total) + ")"
	}
	return s
}

// nextOf cycles "" -> list[0] -> ... -> "".
func nextOf(list []string, cur string) string {
	if cur == "" {
		if len(list) == 0 {
			return ""
		}
		return list[0]
	}
	for i, x := range list {
		if x == cur && i+1 < len(list) {
			return list[i+1]
		}
	}
	return ""
}
