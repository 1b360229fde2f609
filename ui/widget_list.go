package ui

import (
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// listNav is the cursor and scroll position of every list and table in
// the app: it knows how many rows there are and how many fit, and moves
// with the shared ListKeys and the mouse wheel.
type listNav struct {
	cursor, offset, height, n int
}

func (l *listNav) setCount(n int) {
	l.n = max(0, n)
	l.clamp()
}

func (l *listNav) setHeight(h int) {
	l.height = max(1, h)
	l.clamp()
}

func (l *listNav) move(d int) {
	l.cursor += d
	l.clamp()
}

func (l *listNav) clamp() {
	if l.height < 1 {
		l.height = 1
	}
	l.cursor = max(0, min(l.cursor, l.n-1))
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	l.offset = max(0, min(l.offset, l.n-l.height))
}

// key moves the cursor for a navigation key; it reports whether the key
// was one.
func (l *listNav) key(msg tea.KeyMsg, k ListKeys) bool {
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-l.height)
	case key.Matches(msg, k.PageDown):
		l.move(l.height)
	case key.Matches(msg, k.Top):
		l.move(-l.n)
	case key.Matches(msg, k.Bottom):
		l.move(l.n)
	default:
		return false
	}
	return true
}

// wheel scrolls by the mouse wheel: three rows a notch.
func (l *listNav) wheel(msg tea.MouseMsg) bool {
	if msg.Action != tea.MouseActionPress {
		return false
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		l.move(-3)
	case tea.MouseButtonWheelDown:
		l.move(3)
	default:
		return false
	}
	return true
}

// visible is the range of rows on screen.
func (l *listNav) visible() (int, int) {
	return l.offset, min(l.n, l.offset+l.height)
}

// position is "41-60 of 100,000" when the rows overflow, "" otherwise.
func (l *listNav) position() string {
	if l.n <= l.height {
		return ""
	}
	a, b := l.visible()
	return format.Int(a+1) + "-" + format.Int(b) + " of " + format.Int(l.n)
}

// scrollPosition is position for a pane of lines (offset, height, total).
func scrollPosition(offset, height, total int) string {
	if total <= height || height <= 0 {
		return ""
	}
	a := max(0, min(offset, total-1))
	b := min(total, a+height)
	return format.Int(a+1) + "-" + format.Int(b) + " of " + format.Int(total)
}

// newInput builds every one-line text field of the dashboard. Its cursor
// does not blink: a blinking cursor is a timer that redraws forever, and an
// idle dashboard must not redraw.
func newInput(prompt, placeholder string, limit int, value string) textinput.Model {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Prompt = prompt
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.SetValue(value)
	return in
}

// filterLine is the one filter of every list: "/" starts typing it, the
// list narrows as it changes, enter keeps it, esc clears it. Its line
// shows the query and "12 of 340".
type filterLine struct {
	input  textinput.Model
	typing bool
	keys   FilterKeys
}

func newFilterLine(placeholder string) filterLine {
	return filterLine{input: newInput("/ ", placeholder, 256, ""), keys: DefaultFilterKeys()}
}

// start begins typing.
func (f *filterLine) start() tea.Cmd {
	f.typing = true
	return f.input.Focus()
}

// query is the current filter text, lowercased; "" when none.
func (f *filterLine) query() string { return strings.ToLower(strings.TrimSpace(f.input.Value())) }

// active reports whether a filter is set or being typed.
func (f *filterLine) active() bool { return f.typing || f.input.Value() != "" }

// clear removes the filter.
func (f *filterLine) clear() {
	f.input.SetValue("")
	f.stop()
}

func (f *filterLine) stop() {
	f.typing = false
	f.input.Blur()
}

// key handles a key while typing. done reports that typing ended (kept or
// cleared); changed that the query changed.
func (f *filterLine) key(msg tea.KeyMsg) (cmd tea.Cmd, done, changed bool) {
	before := f.input.Value()
	switch {
	case key.Matches(msg, f.keys.Keep):
		f.stop()
		return nil, true, false
	case key.Matches(msg, f.keys.Clear):
		f.clear()
		return nil, true, before != ""
	}
	f.input, cmd = f.input.Update(msg)
	return cmd, false, f.input.Value() != before
}

// line renders the filter line with the count, e.g. "/ fail  12 of 340".
func (f *filterLine) line(s Styles, shown, total int) string {
	if !f.active() {
		return ""
	}
	count := s.Muted.Render("  " + format.Int(shown) + " of " + format.Int(total))
	if f.typing {
		return f.input.View() + count
	}
	return s.Label.Render("/ ") + s.Value.Render(f.input.Value()) + count + s.Muted.Render("  (/ to change, esc clears)")
}

// containsFold reports whether s contains the lowercase q, ignoring ASCII
// case, without allocating.
func containsFold[S string | []byte](s S, q string) bool {
	if q == "" {
		return true
	}
	n := len(q)
	for i := 0; i+n <= len(s); i++ {
		ok := true
		for j := 0; j < n; j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != q[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func asErr(err error, target any) bool { return errors.As(err, target) }

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
