// Package widgets holds the dashboard's building blocks that know nothing
// of its screens: the list cursor and its filter line, the table sized to
// content, the form and its fields, the y/N question and the path input,
// each with its KeyMap (keys.go). It imports none of ui's packages but
// styles; ui builds its screens from these.
package widgets

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/ui/styles"
)

// ListNav is the cursor and scroll position of every list and table in
// the app: it knows how many rows there are and how many fit, and moves
// with the shared ListKeys and the mouse wheel.
type ListNav struct {
	Cursor, Offset, Height, n int
}

// SetCount says how many rows there are.
func (l *ListNav) SetCount(n int) {
	l.n = max(0, n)
	l.Clamp()
}

// SetHeight says how many rows fit.
func (l *ListNav) SetHeight(h int) {
	l.Height = max(1, h)
	l.Clamp()
}

// Move moves the cursor by d rows, within the list.
func (l *ListNav) Move(d int) {
	l.Cursor += d
	l.Clamp()
}

// Clamp keeps the cursor on a row and the window around the cursor.
func (l *ListNav) Clamp() {
	if l.Height < 1 {
		l.Height = 1
	}
	l.Cursor = max(0, min(l.Cursor, l.n-1))
	if l.Cursor < l.Offset {
		l.Offset = l.Cursor
	}
	if l.Cursor >= l.Offset+l.Height {
		l.Offset = l.Cursor - l.Height + 1
	}
	l.Offset = max(0, min(l.Offset, l.n-l.Height))
}

// Key moves the cursor for a navigation key; it reports whether the key
// was one.
func (l *ListNav) Key(msg tea.KeyMsg, k ListKeys) bool {
	switch {
	case key.Matches(msg, k.Up):
		l.Move(-1)
	case key.Matches(msg, k.Down):
		l.Move(1)
	case key.Matches(msg, k.PageUp):
		l.Move(-l.Height)
	case key.Matches(msg, k.PageDown):
		l.Move(l.Height)
	case key.Matches(msg, k.Top):
		l.Move(-l.n)
	case key.Matches(msg, k.Bottom):
		l.Move(l.n)
	default:
		return false
	}
	return true
}

// Wheel scrolls by the mouse wheel: three rows a notch.
func (l *ListNav) Wheel(msg tea.MouseMsg) bool {
	if msg.Action != tea.MouseActionPress {
		return false
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		l.Move(-3)
	case tea.MouseButtonWheelDown:
		l.Move(3)
	default:
		return false
	}
	return true
}

// Visible is the range of rows on screen.
func (l *ListNav) Visible() (int, int) {
	return l.Offset, min(l.n, l.Offset+l.Height)
}

// Position is "41-60 of 100,000" when the rows overflow, "" otherwise.
func (l *ListNav) Position() string {
	if l.n <= l.Height {
		return ""
	}
	a, b := l.Visible()
	return format.Int(a+1) + "-" + format.Int(b) + " of " + format.Int(l.n)
}

// ScrollPosition is Position for a pane of lines (offset, height, total).
func ScrollPosition(offset, height, total int) string {
	if total <= height || height <= 0 {
		return ""
	}
	a := max(0, min(offset, total-1))
	b := min(total, a+height)
	return format.Int(a+1) + "-" + format.Int(b) + " of " + format.Int(total)
}

// NewInput builds every one-line text field of the dashboard. Its cursor
// does not blink: a blinking cursor is a timer that redraws forever, and an
// idle dashboard must not redraw.
func NewInput(prompt, placeholder string, limit int, value string) textinput.Model {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Prompt = prompt
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.SetValue(value)
	return in
}

// FilterLine is the one filter of every list: "/" starts typing it, the
// list narrows as it changes, enter keeps it, esc clears it. Its line
// shows the query and "12 of 340".
type FilterLine struct {
	Input  textinput.Model
	Typing bool
	Keys   FilterKeys
}

// NewFilterLine is an empty filter line; placeholder says what it
// searches.
func NewFilterLine(placeholder string) FilterLine {
	return FilterLine{Input: NewInput("/ ", placeholder, 256, ""), Keys: DefaultFilterKeys()}
}

// Start begins typing.
func (f *FilterLine) Start() tea.Cmd {
	f.Typing = true
	return f.Input.Focus()
}

// Query is the current filter text, lowercased; "" when none.
func (f *FilterLine) Query() string { return strings.ToLower(strings.TrimSpace(f.Input.Value())) }

// Active reports whether a filter is set or being typed.
func (f *FilterLine) Active() bool { return f.Typing || f.Input.Value() != "" }

// Clear removes the filter.
func (f *FilterLine) Clear() {
	f.Input.SetValue("")
	f.Stop()
}

// Stop ends typing and keeps the filter.
func (f *FilterLine) Stop() {
	f.Typing = false
	f.Input.Blur()
}

// Key handles a key while typing. done reports that typing ended (kept or
// cleared); changed that the query changed.
func (f *FilterLine) Key(msg tea.KeyMsg) (cmd tea.Cmd, done, changed bool) {
	before := f.Input.Value()
	switch {
	case key.Matches(msg, f.Keys.Keep):
		f.Stop()
		return nil, true, false
	case key.Matches(msg, f.Keys.Clear):
		f.Clear()
		return nil, true, before != ""
	}
	f.Input, cmd = f.Input.Update(msg)
	return cmd, false, f.Input.Value() != before
}

// Line renders the filter line with the count, e.g. "/ fail  12 of 340".
func (f *FilterLine) Line(s styles.Styles, shown, total int) string {
	if !f.Active() {
		return ""
	}
	count := s.Muted.Render("  " + format.Int(shown) + " of " + format.Int(total))
	if f.Typing {
		return f.Input.View() + count
	}
	return s.Label.Render("/ ") + s.Value.Render(f.Input.Value()) + count + s.Muted.Render("  (/ to change, esc clears)")
}

// ContainsFold reports whether s contains the lowercase q, ignoring ASCII
// case, without allocating.
func ContainsFold[S string | []byte](s S, q string) bool {
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
