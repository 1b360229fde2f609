package ui

// One shape for every sub-screen (a form, a dialog, a picker, a review, a
// question): it implements screen and lives on a stack owned by its view.
// The top of the stack gets keys (and the results of its own commands)
// first. A sub-screen never touches its view: what it wants done it
// returns as an action, which the view handles in one place. Adding a
// dialog to a view is its own file plus one line where the view pushes it.

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// screen is a sub-screen.
type screen interface {
	// Update is the only place its state changes; it returns a command
	// for I/O and what the view should do (actNone to stay open).
	Update(msg tea.Msg) (tea.Cmd, action)
	// View draws it at the size of the last SetSize; it changes nothing.
	View() string
	SetSize(w, h int)
	KeyMap() help.KeyMap // its keys, read by its Update and by help
	Help() string        // what the user is doing ("choosing a type")
	Typing() bool        // a text field has focus: letters type
}

// Optional facets of a screen, asked through the stack.
type (
	// unsavedScreen names work it holds that is kept nowhere else.
	unsavedScreen interface{ Unsaved() string }
	// busyScreen says what it waits for.
	busyScreen interface{ Busy() string }
	// inlineScreen is drawn on one line of its view (a y/N question)
	// instead of in its place.
	inlineScreen interface{ Inline() bool }
	// pageScreen is a screen that says whether it keeps q (a dialog)
	// or lets the shell quit on it (a page such as an open batch); a
	// screen without it is a dialog.
	pageScreen interface{ Dialog() bool }
)

// actionKind is what a screen asks of its view.
type actionKind int

const (
	actNone   actionKind = iota // stay open
	actDone                     // finished, with a value; it is closed
	actCancel                   // closed, nothing to do
	actEvent                    // stay open, the view acts on the value
)

// action is a screen's request to its view; value is the screen's own
// type (a chosen type name, a y/N answer, a saved destination).
type action struct {
	kind  actionKind
	value any
}

var noAction = action{}

func done(v any) action  { return action{kind: actDone, value: v} }
func event(v any) action { return action{kind: actEvent, value: v} }

var cancelled = action{kind: actCancel}

// stack is a view's open sub-screens, the top last.
type stack struct {
	items []screen
	w, h  int
}

// push opens s on top, sized to the view.
func (st *stack) push(s screen) {
	s.SetSize(st.w, st.h)
	st.items = append(st.items, s)
}

// top is the screen that gets keys, or nil.
func (st *stack) top() screen {
	if len(st.items) == 0 {
		return nil
	}
	return st.items[len(st.items)-1]
}

func (st *stack) open() bool { return len(st.items) > 0 }

// pop closes the top screen.
func (st *stack) pop() {
	if n := len(st.items); n > 0 {
		st.items[n-1] = nil
		st.items = st.items[:n-1]
	}
}

// drop closes s and every screen above it.
func (st *stack) drop(s screen) {
	for i := len(st.items) - 1; i >= 0; i-- {
		if st.items[i] == s {
			for len(st.items) > i {
				st.pop()
			}
			return
		}
	}
}

// update gives msg to the top screen and closes it when it is done or
// cancelled; the action goes back to the view.
func (st *stack) update(msg tea.Msg) (tea.Cmd, action) {
	s := st.top()
	if s == nil {
		return nil, noAction
	}
	cmd, act := s.Update(msg)
	if (act.kind == actDone || act.kind == actCancel) && st.top() == s {
		st.pop()
	}
	return cmd, act
}

// SetSize sizes every open screen.
func (st *stack) SetSize(w, h int) {
	st.w, st.h = w, h
	for _, s := range st.items {
		s.SetSize(w, h)
	}
}

// full is the drawing of the screen that takes the view's place: the
// topmost one not drawn on a line (a question over a form leaves the
// form on screen).
func (st *stack) full() (string, bool) {
	for i := len(st.items) - 1; i >= 0; i-- {
		if !isInline(st.items[i]) {
			return st.items[i].View(), true
		}
	}
	return "", false
}

// covers reports whether a screen takes the view's place.
func (st *stack) covers() bool {
	for _, s := range st.items {
		if !isInline(s) {
			return true
		}
	}
	return false
}

// inline is the top screen's line when it is drawn inside the view.
func (st *stack) inline() (string, bool) {
	if s := st.top(); s != nil && isInline(s) {
		return s.View(), true
	}
	return "", false
}

func isInline(s screen) bool {
	i, ok := s.(inlineScreen)
	return ok && i.Inline()
}

// unsaved is what quitting would lose in any open screen.
func (st *stack) unsaved() string {
	for i := len(st.items) - 1; i >= 0; i-- {
		if u, ok := st.items[i].(unsavedScreen); ok {
			if w := u.Unsaved(); w != "" {
				return w
			}
		}
	}
	return ""
}

// dialog reports whether the top screen keeps q from the shell.
func (st *stack) dialog() bool {
	s := st.top()
	if s == nil {
		return false
	}
	if p, ok := s.(pageScreen); ok {
		return p.Dialog()
	}
	return true
}

// busy is what the top screen waits for.
func (st *stack) busy() string {
	if b, ok := st.top().(busyScreen); ok {
		return b.Busy()
	}
	return ""
}

// find is the open screen of type T nearest the top.
func find[T screen](st *stack) (T, bool) {
	for i := len(st.items) - 1; i >= 0; i-- {
		if s, ok := st.items[i].(T); ok {
			return s, true
		}
	}
	var zero T
	return zero, false
}
