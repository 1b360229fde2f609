package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// column describes one column of a table: its name (how the code
// addresses it; the title when not given) and its sizing rule.
type column struct {
	name  string
	title string
	// max caps the column's width (0: no cap); min is what it keeps when
	// space is short (0: the title's width, or 4).
	min, max int
	// keep orders who gives up width first when space is short: lower
	// gives first. Ids give before status, model and error.
	keep  int
	right bool
	// tail keeps a cut cell's end ("…9379-ratelimited"): ids share
	// their prefix and differ at the end.
	tail bool
	// optional columns go whole, least kept first, before any other
	// column is cut (a progress bar beside the counts it draws).
	optional bool
}

// table lays out and draws rows whose columns are sized to their content:
// each column takes its content's width up to its cap, spare room widens
// the gaps a little, and when space is short the columns that matter
// least shrink first (then disappear), truncated with an ellipsis. It
// draws only the rows it is given: the caller passes the visible ones.
type table struct {
	cols    []column
	content []int // widest cell of each column, measured when rows change
	widths  []int // laid out
	width   int
	gap     int // cells between columns
}

func newTable(cols ...column) table {
	t := table{cols: cols, content: make([]int, len(cols)), widths: make([]int, len(cols))}
	for i, c := range cols {
		t.content[i] = cellWidth(c.title)
	}
	return t
}

// resetContent starts measuring again (the rows changed).
func (t *table) resetContent() {
	for i, c := range t.cols {
		t.content[i] = cellWidth(c.title)
	}
}

// measure widens the columns to fit one row's cells (up to their caps).
func (t *table) measure(cells ...string) {
	for i, c := range cells {
		if i >= len(t.content) {
			break
		}
		limit := t.cols[i].max
		if limit > 0 && t.content[i] >= limit {
			continue
		}
		if w := cellWidth(c); w > t.content[i] {
			t.content[i] = w
		}
	}
}

// measureWidths widens the columns to widths already measured (up to
// their caps).
func (t *table) measureWidths(ws ...int) {
	for i, w := range ws {
		if i >= len(t.content) {
			break
		}
		if limit := t.cols[i].max; limit > 0 {
			w = min(w, limit)
		}
		t.content[i] = max(t.content[i], w)
	}
}

// cellWidth is the width of a plain cell, fast for ASCII.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			return lipgloss.Width(s)
		}
	}
	return len(s)
}

const colGap = 1

// layout fits the columns into total cells (the marker's two cells
// included).
func (t *table) layout(total int) {
	t.width = total
	avail := total - 2 // the selection marker
	n := len(t.cols)
	want := make([]int, n)
	for i, c := range t.cols {
		w := t.content[i]
		if c.max > 0 {
			w = min(w, c.max)
		}
		want[i] = max(w, 1)
	}
	sum := func(ws []int) int {
		s := 0
		shown := 0
		for _, w := range ws {
			if w > 0 {
				s += w
				shown++
			}
		}
		return s + max(0, shown-1)*colGap
	}
	// Short of space: shrink the least kept first, to their minimum.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && t.cols[order[j]].keep < t.cols[order[j-1]].keep; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, i := range order {
		if t.cols[i].optional && sum(want) > avail {
			want[i] = 0
		}
	}
	for _, i := range order {
		over := sum(want) - avail
		if over <= 0 {
			break
		}
		if want[i] == 0 {
			continue
		}
		floor := t.cols[i].min
		if floor == 0 {
			floor = min(want[i], max(4, cellWidth(t.cols[i].title)))
		}
		want[i] = max(floor, want[i]-over)
	}
	// Still too wide: drop whole columns, least kept first.
	for _, i := range order {
		if sum(want) <= avail {
			break
		}
		want[i] = 0
	}
	// Room to spare: the gaps widen a little (up to three cells), so the
	// columns stay near their content instead of one column taking it all.
	t.gap = colGap
	shown := 0
	for _, w := range want {
		if w > 0 {
			shown++
		}
	}
	if extra := avail - sum(want); extra > 0 && shown > 1 {
		t.gap = colGap + min(2, extra/(shown-1))
	}
	copy(t.widths, want)
}

// header draws the titles.
func (t *table) header(s Styles) string {
	titles := make([]string, len(t.cols))
	for i, c := range t.cols {
		titles[i] = c.title
	}
	return s.TableHead.Render(t.line("  ", titles))
}

// row draws one row: the marker ("▸ " when selected), then the cells.
func (t *table) row(cells []string, selected bool) string {
	marker := "  "
	if selected {
		marker = "▸ "
	}
	return t.line(marker, cells)
}

func (t *table) line(marker string, cells []string) string {
	var b strings.Builder
	b.WriteString(marker)
	first := true
	for i, w := range t.widths {
		if w <= 0 {
			continue
		}
		if !first {
			b.WriteString(strings.Repeat(" ", max(colGap, t.gap)))
		}
		first = false
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		if t.cols[i].tail {
			cell = keepTail(cell, w)
		}
		b.WriteString(fit(cell, w, t.cols[i].right))
	}
	return b.String()
}

// fit pads or truncates a cell to w cells, with an ellipsis when cut.
func fit(s string, w int, right bool) string {
	cw := cellWidth(s)
	if cw > w {
		s = ansi.Truncate(s, w, "…")
		cw = lipgloss.Width(s)
	}
	pad := strings.Repeat(" ", max(0, w-cw))
	if right {
		return pad + s
	}
	return s + pad
}

// col is the position of the column named name (its name, or its title
// when it has none), or -1.
func (t *table) col(name string) int {
	for i, c := range t.cols {
		if c.name == name || (c.name == "" && c.title == name) {
			return i
		}
	}
	return -1
}

// cells lays a row's cells out in column order, asking cell for each
// column by name.
func (t *table) cells(cell func(name string) string) []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		name := c.name
		if name == "" {
			name = c.title
		}
		out[i] = cell(name)
	}
	return out
}

// set replaces the cell of the column named name.
func (t *table) set(cells []string, name, v string) {
	if i := t.col(name); i >= 0 && i < len(cells) {
		cells[i] = v
	}
}

// widthOf is the room laid out for the column named name (0: hidden).
func (t *table) widthOf(name string) int {
	if i := t.col(name); i >= 0 && i < len(t.widths) {
		return t.widths[i]
	}
	return 0
}
