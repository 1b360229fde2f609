package ui

// Two batches compared (D in the batches home, with two batches marked by
// space): the summary, a table of rows matched by custom_id (filtered by
// kind of change), and a row's answers side by side with the text diff
// highlighted. The comparison is internal/batchdiff's, as `gwdash batch
// diff` prints it; the results come from the batches held in full, or
// one GET each (the inspector's bounded path).

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/batchdiff"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// ---- MSG ----

// diffLoadedMsg is both batches read and compared.
type diffLoadedMsg struct {
	gen  int
	a, b *api.BatchData
	rows []diffRow
	sum  batchdiff.Summary
	// why is what stopped the diff, in words ("" with err, or none).
	why string
	err error
}

// diffRowMsg is a row's two answers and their text diff, for the side
// by side.
type diffRowMsg struct {
	gen    int
	idx    int
	fa, fb *api.ResultFacts
	segs   []batchdiff.Segment
	cut    bool
}

// diffClosed is the diff screen's value when esc leaves it.
type diffClosed struct{}

// ---- MODEL ----

// diffShowNames are the diff's filters: the rows that differ, one kind of
// change (batchdiff.Kinds, in order), or every row.
var diffShowNames = []string{"differ", "improved", "regressed", "changed", "same", "only in A", "only in B", "all"}

const (
	diffShowDiffer = 0
	diffShowAll    = 7
)

// diffRow is one row of a diff, as its table draws it (the answers are
// read again from the batches when the row is opened).
type diffRow struct {
	id     string
	change string
	ia, ib int32 // places in A and B (-1: absent)
	sides  string
	tokens string
	cost   string
}

type diffView struct {
	c    *common
	keys DiffKeys
	rk   DiffRowKeys
	w, h int

	idA, idB string
	gen      int
	ctx      context.Context
	cancel   context.CancelFunc
	loading  bool
	why      string
	err      error

	a, b *api.BatchData
	rows []diffRow
	sum  batchdiff.Summary
	// sumLines is the summary wrapped to the width (layout).
	sumLines []string
	show     int
	view     []int
	nav      widgets.ListNav
	tbl      widgets.Table

	// row is the row open side by side (nil: the table).
	row *diffRowPane
}

// diffRowPane is one row's answers, side by side (or stacked when
// narrow), laid out for the width.
type diffRowPane struct {
	idx     int
	loading bool
	fa, fb  *api.ResultFacts
	segs    []batchdiff.Segment
	cut     bool
	lines   []string
	nav     widgets.ListNav
}

func newDiffView(c *common, idA, idB string) *diffView {
	v := &diffView{c: c, keys: DefaultDiffKeys(), rk: DefaultDiffRowKeys(), idA: idA, idB: idB, loading: true, gen: c.tagBase(),
		tbl: widgets.NewTable(
			widgets.Column{Title: "CUSTOM_ID", Keep: 2, Min: 10, Tail: true},
			widgets.Column{Title: "CHANGE", Keep: 9, Max: 10},
			widgets.Column{Title: "STATUS A → B", Keep: 1, Min: 14, Max: 48},
			widgets.Column{Title: "TOKENS Δ", Keep: 6, Max: 12, Right: true},
			widgets.Column{Title: "COST Δ", Keep: 7, Max: 14, Right: true},
		)}
	v.ctx, v.cancel = context.WithCancel(c.ctx)
	return v
}

// ---- HOME HOOKS ----

// markKey marks the selected batch for a diff, or unmarks it; two at
// most (a third says so).
func (v *batchesView) markKey() tea.Cmd {
	r := v.selected()
	if r == nil {
		return say("no batch is selected: nothing to mark")
	}
	id := r.b.ID
	for i, m := range v.marks {
		if m == id {
			v.marks = append(v.marks[:i], v.marks[i+1:]...)
			v.apply()
			return say("unmarked " + textsafe.Line(id))
		}
	}
	if len(v.marks) >= 2 {
		return say("two batches are marked already (A and B): space on one of them unmarks it")
	}
	v.marks = append(v.marks, id)
	v.apply()
	if len(v.marks) == 1 {
		return say("marked " + textsafe.Line(id) + " as A: mark another as B, then D compares them")
	}
	return say("marked " + textsafe.Line(id) + " as B: D compares A and B")
}

// markOf is a batch's mark: "A", "B" or "".
func (v *batchesView) markOf(id string) string {
	for i, m := range v.marks {
		if m == id {
			return "[" + string(rune('A'+i)) + "] "
		}
	}
	return ""
}

// dropMark forgets a mark (its batch is gone).
func (v *batchesView) dropMark(id string) {
	for i, m := range v.marks {
		if m == id {
			v.marks = append(v.marks[:i], v.marks[i+1:]...)
			return
		}
	}
}

// openDiff compares the two marked batches: both must be settled.
func (v *batchesView) openDiff() tea.Cmd {
	if len(v.marks) != 2 {
		return say("D compares two batches: mark them with space first (" + format.Plural(len(v.marks), "batch is", "batches are") + " marked)")
	}
	var unsettled []string
	for i, id := range v.marks {
		r := v.byID[id]
		if r == nil {
			continue // read below: the server says
		}
		if !r.b.Status.Settled() {
			unsettled = append(unsettled, string(rune('A'+i))+" ("+textsafe.Line(id)+") is "+present.Status(r.b.Status))
		}
	}
	if len(unsettled) > 0 {
		return say("a diff needs both batches settled: " + strings.Join(unsettled, ", and ") + "; results come when a batch ends")
	}
	d := newDiffView(v.c, v.marks[0], v.marks[1])
	v.stack.push(d)
	return d.load(v.held.get(d.idA), v.held.get(d.idB))
}

// holdDiffed keeps the batches the diff downloaded, so that opening
// them downloads nothing.
func (v *batchesView) holdDiffed(msg diffLoadedMsg) {
	for _, d := range []*api.BatchData{msg.a, msg.b} {
		if d != nil && d.Rows != nil && d.Batch.Status.Terminal() && v.held.get(d.Batch.ID) == nil {
			v.held.put(d.Batch.ID, d)
		}
	}
}

// ---- LOAD ----

// load reads both batches (what is held is not downloaded again) and
// compares them, off the UI loop.
func (d *diffView) load(heldA, heldB *api.BatchData) tea.Cmd {
	d.gen++
	client, ctx, gen, idA, idB := d.c.client, d.ctx, d.gen, d.idA, d.idB
	return func() tea.Msg {
		m := diffLoadedMsg{gen: gen}
		get := func(label, id string, held *api.BatchData) (*api.BatchData, bool) {
			if held != nil {
				return held, true
			}
			data, err := client.GetBatchData(ctx, id)
			if err != nil {
				m.err = client.Explain404(ctx, err)
				m.why = label + " (" + textsafe.Line(id) + ")"
				return nil, false
			}
			if data.Rows == nil {
				m.why = "a diff needs both batches settled: " + label + " (" + textsafe.Line(id) + ") is " + present.Status(data.Batch.Status) + ": its results are not there"
				return nil, false
			}
			return data, true
		}
		var ok bool
		if m.a, ok = get("A", idA, heldA); !ok {
			return m
		}
		if m.b, ok = get("B", idB, heldB); !ok {
			return m
		}
		m.sum, _ = batchdiff.Compare(m.a, m.b, batchdiff.Options{Same: true}, func(r batchdiff.Row) error {
			m.rows = append(m.rows, diffRowOf(r))
			return nil
		})
		return m
	}
}

// diffRowOf keeps what the table draws of a row.
func diffRowOf(r batchdiff.Row) diffRow {
	row := diffRow{id: r.CustomID, change: r.Change, ia: int32(r.IndexA), ib: int32(r.IndexB),
		sides: batchdiff.SideWords(r.A) + " → " + batchdiff.SideWords(r.B), tokens: "—", cost: "—"}
	if r.AnswerChanged {
		row.sides = "answer changed"
	}
	ta, okA := batchdiff.Tokens(r.A)
	tb, okB := batchdiff.Tokens(r.B)
	if okA && okB {
		row.tokens = format.SignedInt(tb - ta)
	}
	if ca, cb := batchdiff.Cost(r.A), batchdiff.Cost(r.B); ca != nil && cb != nil {
		row.cost = format.SignedCost(format.RoundCost(*cb - *ca))
	}
	return row
}

// openRow reads a row's two answers and diffs them, off the UI loop.
func (d *diffView) openRow(idx int) tea.Cmd {
	d.row = &diffRowPane{idx: idx, loading: true}
	d.layoutRow()
	a, b, r, gen := d.a, d.b, d.rows[idx], d.gen
	return func() tea.Msg {
		m := diffRowMsg{gen: gen, idx: idx}
		if r.ia >= 0 {
			f := batchdiff.FactsAt(a, int(r.ia))
			m.fa = &f
		}
		if r.ib >= 0 {
			f := batchdiff.FactsAt(b, int(r.ib))
			m.fb = &f
		}
		if m.fa != nil && m.fb != nil && !m.fa.Failed && !m.fb.Failed {
			m.segs, m.cut = batchdiff.Segments(m.fa.Text, m.fb.Text)
		}
		return m
	}
}

// ---- UPDATE ----

// Update is the diff's one entry; esc on the list closes it.
func (d *diffView) Update(msg tea.Msg) (tea.Cmd, action) {
	if km, ok := msg.(tea.KeyMsg); ok && d.row == nil && key.Matches(km, d.keys.Back) {
		d.cancel()
		return nil, done(diffClosed{})
	}
	cmd := d.update(msg)
	d.layout()
	return cmd, noAction
}

// Dialog is false: the diff is a page, q quits from it.
func (d *diffView) Dialog() bool { return false }

func (d *diffView) Typing() bool { return false }

func (d *diffView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case diffLoadedMsg:
		if msg.gen != d.gen {
			return nil
		}
		d.loading = false
		d.why, d.err = msg.why, msg.err
		if msg.err != nil || msg.why != "" {
			if msg.err != nil {
				return fail("diff: " + msg.why + ": " + describeErr(msg.err))
			}
			return fail(msg.why)
		}
		d.a, d.b, d.rows, d.sum = msg.a, msg.b, msg.rows, msg.sum
		d.apply()
		return nil
	case diffRowMsg:
		if msg.gen != d.gen || d.row == nil || d.row.idx != msg.idx {
			return nil
		}
		d.row.loading = false
		d.row.fa, d.row.fb, d.row.segs, d.row.cut = msg.fa, msg.fb, msg.segs, msg.cut
		d.layoutRow()
		return nil
	case tea.MouseMsg:
		if d.row != nil {
			d.row.nav.Wheel(msg)
		} else {
			d.nav.Wheel(msg)
		}
		return nil
	case tea.KeyMsg:
		return d.onKey(msg)
	}
	return nil
}

func (d *diffView) onKey(msg tea.KeyMsg) tea.Cmd {
	if d.row != nil {
		switch {
		case d.row.nav.Key(msg, d.rk.ListKeys):
		case key.Matches(msg, d.rk.Back):
			d.row = nil
		default:
			return unknownKey(msg)
		}
		return nil
	}
	k := d.keys
	switch {
	case d.rows == nil:
		if d.loading {
			return say("the two batches are still being read")
		}
		return unknownKey(msg)
	case d.nav.Key(msg, k.ListKeys):
	case key.Matches(msg, k.Show):
		d.show = (d.show + 1) % len(diffShowNames)
		d.apply()
	case key.Matches(msg, k.Open):
		if d.nav.Cursor < 0 || d.nav.Cursor >= len(d.view) {
			return say("no row is selected: nothing to open")
		}
		return d.openRow(d.view[d.nav.Cursor])
	default:
		return unknownKey(msg)
	}
	return nil
}

// keeps reports whether the filter shows a kind of change.
func (d *diffView) keeps(change string) bool {
	switch d.show {
	case diffShowAll:
		return true
	case diffShowDiffer:
		return change != batchdiff.Same
	}
	return batchdiff.Kinds[d.show-1] == change
}

// apply recomputes the rows shown.
func (d *diffView) apply() {
	d.view = d.view[:0]
	d.tbl.ResetContent()
	for i := range d.rows {
		if d.keeps(d.rows[i].change) {
			d.view = append(d.view, i)
			d.tbl.Measure(d.cells(&d.rows[i])...)
		}
	}
	d.nav.SetCount(len(d.view))
}

func (d *diffView) cells(r *diffRow) []string {
	return []string{textsafe.Line(r.id), batchdiff.Words(r.change), textsafe.Line(r.sides), r.tokens, r.cost}
}

// ---- HELP ----

// KeyMap is the focused part's keys.
func (d *diffView) KeyMap() help.KeyMap {
	if d.row != nil {
		return d.rk
	}
	if d.rows == nil {
		return keyMap{short: []key.Binding{d.keys.Back}, full: [][]key.Binding{{d.keys.Back}}}
	}
	return d.keys
}

// Help says what the user is doing.
func (d *diffView) Help() string {
	if d.row != nil {
		return "a row of the diff: A and B"
	}
	return "comparing two batches"
}

func (d *diffView) Busy() string {
	switch {
	case d.loading:
		return "reading both batches"
	case d.row != nil && d.row.loading:
		return "comparing the answers"
	}
	return ""
}
