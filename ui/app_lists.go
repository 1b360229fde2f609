package ui

import (
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// What a list of the dashboard says around its rows: its state before
// the rows, and its walk of the server's pages. The list itself (cursor,
// filter line, table) is in ui/widgets; these know the app's words.

// listState is what a list has, to say before its rows.
type listState struct {
	err          error // the last load failed
	loaded       bool  // a first page arrived
	total, shown int   // rows held, rows after the filters
	loading      string
	empty        string // nothing at all, and what to do
	noMatch      string // nothing after the filters, and what to do
	width        int
	header       string // the table's header line
}

// top is what a list draws above its rows: the error when there is
// nothing to show (and how to retry), "loading", or the header and, when
// no row is shown, why. rows says whether rows follow.
func (st listState) top(s Styles) (lines []string, rows bool) {
	switch {
	case st.err != nil && st.total == 0:
		return []string{s.Error.Render(wrap(describeErr(st.err), max(20, st.width))), s.Muted.Render("r tries again")}, false
	case !st.loaded:
		return []string{s.Muted.Render(st.loading)}, false
	}
	lines = []string{st.header}
	if st.shown == 0 {
		msg := st.empty
		if st.total > 0 {
			msg = st.noMatch
		}
		lines = append(lines, s.Muted.Render("  "+msg))
	}
	return lines, true
}

// newPager starts a walk of a list's pages with the dashboard's bounds.
func newPager(o Options) *api.Pager {
	if o.ListBounds == (api.ListBounds{}) {
		return api.NewPager()
	}
	return api.NewPagerWith(o.ListBounds)
}

// pagingNote is the line a list draws when its walk of pages ended early
// or the list changed under it ("" when neither): the same words in every
// view that pages (api.Pager says why).
func pagingNote(p *api.Pager) string {
	switch {
	case p == nil:
		return ""
	case p.Changed != nil:
		return p.Changed.Error() + " (r reloads)"
	case p.Stopped != nil:
		return "paging " + p.Stopped.Error() + " · r reloads"
	}
	return ""
}

// noMatchYet words a filter that matches nothing: while the server has
// rows not read yet, it says they are being read (a filter searches
// every row, not only the loaded ones).
func noMatchYet(none string, p *api.Pager, loaded int, hint string) string {
	if p != nil && p.More() {
		return none + " in the " + format.Int(loaded) + " read so far: reading the rest…"
	}
	return none + ": " + hint
}
