package ui

// The diff screen's drawing: the summary line, the table of rows, and a
// row's answers side by side (stacked when narrow), the text diff
// highlighted through the theme (and by [-…-] {+…+} without colour).

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/batchdiff"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"
)

// diffSideBySide is the narrowest screen that shows a row's answers side
// by side; narrower ones stack them.
const diffSideBySide = 100

// ---- VIEW ----

func (d *diffView) SetSize(w, h int) {
	d.w, d.h = w, h
	d.layout()
	d.layoutRow()
}

// layout sizes the table under the title, the summary (wrapped: it is
// long) and the bar.
func (d *diffView) layout() {
	d.tbl.Layout(d.w)
	d.sumLines = nil
	if d.rows != nil {
		d.sumLines = strings.Split(wrap(d.sum.Line(), max(20, d.w)), "\n")
	}
	d.nav.SetHeight(max(1, d.h-3-max(1, len(d.sumLines))))
	if d.row != nil {
		d.row.nav.SetHeight(max(1, d.h-2))
	}
}

func (d *diffView) View() string {
	s := d.c.styles
	if d.row != nil {
		return d.viewRow()
	}
	title := s.Title.Render("Diff") + "  " + s.Subtle.Render("A "+textsafe.Line(format.Middle(d.idA, 40))+"  ·  B "+textsafe.Line(format.Middle(d.idB, 40)))
	lines := []string{ansi.Truncate(title, max(1, d.w), "…")}
	switch {
	case d.loading:
		return strings.Join(append(lines, s.Muted.Render("reading both batches and comparing them…")), "\n")
	case d.err != nil:
		return strings.Join(append(lines, s.Error.Render(wrap("could not read "+d.why+": "+describeErr(d.err), max(20, d.w))), s.Muted.Render("esc back to all batches")), "\n")
	case d.why != "":
		return strings.Join(append(lines, s.Warning.Render(wrap(d.why, max(20, d.w))), s.Muted.Render("esc back to all batches")), "\n")
	}
	for _, l := range d.sumLines {
		lines = append(lines, s.Value.Render(cutLine(l, d.w)))
	}
	bar := "show " + diffShowNames[d.show] + " · " + format.Plural(len(d.view), "row", "rows") + " · f changes it · enter opens a row"
	if pos := d.nav.Position(); pos != "" {
		bar += " · " + pos
	}
	lines = append(lines, s.Muted.Render(ansi.Truncate(bar, max(1, d.w), "…")))
	lines = append(lines, d.tbl.Header(s))
	if len(d.view) == 0 {
		none := "no row " + diffShowNames[d.show] + ": f shows another kind"
		if d.show == diffShowDiffer {
			none = "every row is the same in A and B: f shows them"
		}
		return strings.Join(append(lines, s.Muted.Render("  "+none)), "\n")
	}
	a, b := d.nav.Visible()
	for k := a; k < b; k++ {
		r := &d.rows[d.view[k]]
		cells := d.cells(r)
		sel := k == d.nav.Cursor
		if !sel {
			cells[1] = s.Fg(d.changeRole(r.change), cells[1])
		}
		line := d.tbl.Row(cells, sel)
		if sel {
			line = s.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// cutLine cuts a one-line text to the width, with an ellipsis.
func cutLine(text string, w int) string { return ansi.Truncate(text, max(1, w), "…") }

// changeRole is a kind of change's colour.
func (d *diffView) changeRole(change string) lipgloss.AdaptiveColor {
	t := d.c.styles.Theme
	switch change {
	case batchdiff.Improved:
		return t.Success
	case batchdiff.Regressed:
		return t.Error
	case batchdiff.Changed:
		return t.Warning
	case batchdiff.Same:
		return t.Muted
	}
	return t.Info
}

func (d *diffView) viewRow() string {
	s := d.c.styles
	p := d.row
	r := &d.rows[p.idx]
	title := s.Title.Render("Row") + " " + s.Subtle.Render(textsafe.Line(r.id)+" · "+batchdiff.Words(r.change))
	if pos := p.nav.Position(); pos != "" {
		title += s.Muted.Render("  lines " + pos)
	}
	title = ansi.Truncate(title, max(1, d.w), "…")
	if p.loading {
		return title + "\n" + s.Muted.Render("reading both answers…")
	}
	a, b := p.nav.Visible()
	return title + "\n" + strings.Join(p.lines[a:b], "\n")
}

// ---- A ROW, SIDE BY SIDE ----

// span is a piece of one side's text, drawn as its op says.
type span struct {
	op   batchdiff.Op
	text string
}

// layoutRow lays the open row out for the width: one column per batch
// when there is room, else A above B.
func (d *diffView) layoutRow() {
	p := d.row
	if p == nil || p.loading || d.w <= 0 {
		return
	}
	r := &d.rows[p.idx]
	if d.w >= diffSideBySide {
		colW := (d.w - 3) / 2
		left := d.sideLines("A", d.idA, p.fa, r.ia, batchdiff.Deleted, colW)
		right := d.sideLines("B", d.idB, p.fb, r.ib, batchdiff.Inserted, colW)
		sep := d.c.styles.Muted.Render(" │ ")
		n := max(len(left), len(right))
		p.lines = make([]string, 0, n)
		for i := range n {
			l, rt := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				rt = right[i]
			}
			p.lines = append(p.lines, l+strings.Repeat(" ", max(0, colW-ansi.StringWidth(l)))+sep+rt)
		}
	} else {
		p.lines = append(d.sideLines("A", d.idA, p.fa, r.ia, batchdiff.Deleted, d.w), "")
		p.lines = append(p.lines, d.sideLines("B", d.idB, p.fb, r.ib, batchdiff.Inserted, d.w)...)
	}
	if p.cut {
		p.lines = append(p.lines, "", d.c.styles.Muted.Render(cutLine("(the first "+format.Plural(batchdiff.MaxText>>10, "KiB", "KiB")+" of each answer compared)", d.w)))
	}
	p.nav.SetCount(len(p.lines))
	p.nav.SetHeight(max(1, d.h-2))
}

// sideLines is one side of a row for a column of width w: a heading
// (which batch, its outcome, tokens and cost), then the answer with what
// only this side has (mine: Deleted for A, Inserted for B) highlighted,
// or the error, or why there is none.
func (d *diffView) sideLines(label, id string, f *api.ResultFacts, idx int32, mine batchdiff.Op, w int) []string {
	s := d.c.styles
	w = max(8, w)
	head := label + " " + textsafe.Line(format.Middle(id, 32)) + " · " + textsafe.Line(batchdiff.SideWords(f))
	if f != nil {
		if t, ok := batchdiff.Tokens(f); ok {
			head += " · " + format.Plural(t, "token", "tokens")
		}
		if f.Cost != nil {
			head += " · " + format.Cost(*f.Cost)
		}
	}
	lines := []string{s.Label.Render(ansi.Truncate(head, w, "…"))}
	switch {
	case f == nil || idx < 0:
		return append(lines, s.Muted.Render(cutLine("this custom_id is not in "+label, w)))
	case f.Failed:
		msg := f.ErrorMessage
		if msg == "" {
			msg = "no message"
		}
		return append(lines, strings.Split(s.Error.Render(wrap(textsafe.Clean(msg), w)), "\n")...)
	}
	other := batchdiff.Inserted
	if mine == batchdiff.Inserted {
		other = batchdiff.Deleted
	}
	var pieces []span
	if d.row.segs != nil {
		for _, sg := range d.row.segs {
			if sg.Op != other {
				pieces = append(pieces, span{op: sg.Op, text: sg.Text})
			}
		}
	} else {
		pieces = []span{{op: batchdiff.Equal, text: f.Text}}
	}
	if len(pieces) == 0 || len(pieces) == 1 && pieces[0].text == "" {
		return append(lines, s.Muted.Render("(no text)"))
	}
	plain := s.Renderer.ColorProfile() == termenv.Ascii
	style := s.Error.Bold(true)
	open, close := "[-", "-]"
	if mine == batchdiff.Inserted {
		style, open, close = s.Success.Bold(true), "{+", "+}"
	}
	for i := range pieces {
		t := strings.ReplaceAll(textsafe.Clean(pieces[i].text), "\t", "    ")
		if plain && pieces[i].op != batchdiff.Equal {
			t = open + t + close // without colour the change shows by its marks
		}
		pieces[i].text = t
	}
	for _, line := range wrapSpans(pieces, w) {
		var b strings.Builder
		for _, sp := range line {
			if sp.op == batchdiff.Equal {
				b.WriteString(sp.text)
			} else {
				b.WriteString(style.Render(sp.text))
			}
		}
		lines = append(lines, b.String())
	}
	return lines
}

// wrapSpans breaks pieces of text into lines of at most w cells (as a
// terminal counts them): at newlines, and when a line is full after its
// last space (or within a word longer than the line); a piece keeps its
// op on every line it spans, so that each line's styles open and close
// on that line.
func wrapSpans(pieces []span, w int) [][]span {
	type cell struct {
		r  rune
		op batchdiff.Op
	}
	var cs []cell
	for _, p := range pieces {
		for _, r := range p.text {
			cs = append(cs, cell{r: r, op: p.op})
		}
	}
	spansOf := func(cs []cell) []span {
		var out []span
		var b strings.Builder
		for i, c := range cs {
			if i > 0 && c.op != cs[i-1].op {
				out = append(out, span{op: cs[i-1].op, text: b.String()})
				b.Reset()
			}
			b.WriteRune(c.r)
		}
		if len(cs) > 0 {
			out = append(out, span{op: cs[len(cs)-1].op, text: b.String()})
		}
		return out
	}
	var lines [][]span
	for start := 0; ; {
		end, cells, lastSpace := start, 0, -1
		for end < len(cs) && cs[end].r != '\n' {
			rw := runewidth.RuneWidth(cs[end].r)
			if cells+rw > w && end > start {
				break
			}
			if cs[end].r == ' ' {
				lastSpace = end
			}
			cells += rw
			end++
		}
		next := end
		switch {
		case end < len(cs) && cs[end].r == '\n':
			next = end + 1
		case end < len(cs) && lastSpace > start:
			end, next = lastSpace+1, lastSpace+1
		}
		lines = append(lines, spansOf(cs[start:end]))
		if next >= len(cs) {
			if next == len(cs) && end < len(cs) { // a last newline: an empty line after it
				lines = append(lines, nil)
			}
			return lines
		}
		start = next
	}
}
