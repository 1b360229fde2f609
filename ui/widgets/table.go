package widgets

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/ui/styles"
)

// Column describes one column of a table: its name (how the code
// addresses it; the title when not given) and its sizing rule.
type Column struct {
	Name  string
	Title string
	// Max caps the column's width (0: no cap); Min is what it keeps when
	// space is short (0: the title's width, or 4).
	Min, Max int
	// Keep orders who gives up width first when space is short: lower
	// gives first. Ids give before status, model and error.
	Keep  int
	Right bool
	// Tail keeps a cut cell's end ("…9379-ratelimited"): ids share
	// their prefix and differ at the end.
	Tail bool
	// Optional columns go whole, least kept first, before any other
	// column is cut (a progress bar beside the counts it draws).
	Optional bool
}

// Table lays out and draws rows whose columns are sized to their content:
// each column takes its content's width up to its cap, spare room widens
// the gaps a little, and when space is short the columns that matter
// least shrink first (then disappear), truncated with an ellipsis. It
// draws only the rows it is given: the caller passes the visible ones.
type Table struct {
	cols    []Column
	content []int // widest cell of each column, measured when rows change
	Widths  []int // laid out (0: the column is hidden)
	width   int
	gap     int // cells between columns
}

// NewTable is a table of the columns in the order drawn.
func NewTable(cols ...Column) Table {
	t := Table{cols: cols, content: make([]int, len(cols)), Widths: make([]int, len(cols))}
	for i, c := range cols {
		t.content[i] = CellWidth(c.Title)
	}
	return t
}

// ResetContent starts measuring again (the rows changed).
func (t *Table) ResetContent() {
	for i, c := range t.cols {
		t.content[i] = CellWidth(c.Title)
	}
}

// Measure widens the columns to fit one row's cells (up to their caps).
func (t *Table) Measure(cells ...string) {
	for i, c := range cells {
		if i >= len(t.content) {
			break
		}
		limit := t.cols[i].Max
		if limit > 0 && t.content[i] >= limit {
			continue
		}
		if w := CellWidth(c); w > t.content[i] {
			t.content[i] = w
		}
	}
}

// MeasureWidths widens the columns to widths already measured (up to
// their caps).
func (t *Table) MeasureWidths(ws ...int) {
	for i, w := range ws {
		if i >= len(t.content) {
			break
		}
		if limit := t.cols[i].Max; limit > 0 {
			w = min(w, limit)
		}
		t.content[i] = max(t.content[i], w)
	}
}

// CellWidth is the width of a plain cell, fast for ASCII.
func CellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			return lipgloss.Width(s)
		}
	}
	return len(s)
}

const colGap = 1

// Layout fits the columns into total cells (the marker's two cells
// included).
func (t *Table) Layout(total int) {
	t.width = total
	avail := total - 2 // the selection marker
	n := len(t.cols)
	want := make([]int, n)
	for i, c := range t.cols {
		w := t.content[i]
		if c.Max > 0 {
			w = min(w, c.Max)
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
		for j := i; j > 0 && t.cols[order[j]].Keep < t.cols[order[j-1]].Keep; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, i := range order {
		if t.cols[i].Optional && sum(want) > avail {
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
		floor := t.cols[i].Min
		if floor == 0 {
			floor = min(want[i], max(4, CellWidth(t.cols[i].Title)))
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
	copy(t.Widths, want)
}

// Header draws the titles.
func (t *Table) Header(s styles.Styles) string {
	titles := make([]string, len(t.cols))
	for i, c := range t.cols {
		titles[i] = c.Title
	}
	return s.TableHead.Render(t.line("  ", titles))
}

// Row draws one row: the marker ("▸ " when selected), then the cells.
func (t *Table) Row(cells []string, selected bool) string {
	marker := "  "
	if selected {
		marker = "▸ "
	}
	return t.line(marker, cells)
}

func (t *Table) line(marker string, cells []string) string {
	var b strings.Builder
	b.WriteString(marker)
	first := true
	for i, w := range t.Widths {
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
		if t.cols[i].Tail {
			cell = KeepTail(cell, w)
		}
		b.WriteString(Fit(cell, w, t.cols[i].Right))
	}
	return b.String()
}

// Fit pads or truncates a cell to w cells, with an ellipsis when cut.
func Fit(s string, w int, right bool) string {
	cw := CellWidth(s)
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

// KeepTail cuts s to w cells from the left, "…" first, so that the end
// that tells ids apart stays; a cell that fits is unchanged.
func KeepTail(s string, w int) string {
	cw := CellWidth(s)
	if cw <= w || w < 2 {
		return s
	}
	return ansi.TruncateLeft(s, cw-w+1, "…")
}

// Col is the position of the column named name (its name, or its title
// when it has none), or -1.
func (t *Table) Col(name string) int {
	for i, c := range t.cols {
		if c.Name == name || (c.Name == "" && c.Title == name) {
			return i
		}
	}
	return -1
}

// Cells lays a row's cells out in column order, asking cell for each
// column by name.
func (t *Table) Cells(cell func(name string) string) []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		name := c.Name
		if name == "" {
			name = c.Title
		}
		out[i] = cell(name)
	}
	return out
}

// Set replaces the cell of the column named name.
func (t *Table) Set(cells []string, name, v string) {
	if i := t.Col(name); i >= 0 && i < len(cells) {
		cells[i] = v
	}
}

// WidthOf is the room laid out for the column named name (0: hidden).
func (t *Table) WidthOf(name string) int {
	if i := t.Col(name); i >= 0 && i < len(t.Widths) {
		return t.Widths[i]
	}
	return 0
}
