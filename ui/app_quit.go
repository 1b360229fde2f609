package ui

// Leaving the dashboard without losing work: the shell's one hook before
// it quits. q quits only from a list or a reader (inside a form, a field,
// a dialog or a picker it is the view's key: typed there, or ignored with
// a word); q or ctrl+c with unsaved work asks first, once, and a second
// ctrl+c quits.

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/ui/widgets"
)

// dialogView is a view that can have a form, a field, a dialog or a
// picker open: q is then its key, never the shell's quit.
type dialogView interface{ Dialog() bool }

// unsavedView is a view that can hold work kept nowhere else (an edited
// form, an answer not saved): it says what leaving would lose ("" for
// nothing). It is the single predicate asked before quitting; whatever
// later keeps the work (a request log) makes it say "".
type unsavedView interface{ Unsaved() string }

// inDialog reports whether v has a form, a field, a dialog or a picker
// open.
func inDialog(v view) bool {
	d, ok := v.(dialogView)
	return v.Typing() || ok && d.Dialog()
}

// unsavedWork says what quitting now would lose, over every view (the
// active one first); "" for nothing.
func (m Model) unsavedWork() string {
	var parts []string
	order := []int{m.active}
	for i := range m.views {
		if i != m.active {
			order = append(order, i)
		}
	}
	for _, i := range order {
		if u, ok := m.views[i].(unsavedView); ok {
			if s := u.Unsaved(); s != "" {
				parts = append(parts, viewNames[i]+": "+s)
			}
		}
	}
	return strings.Join(parts, "; ")
}

// quitHook handles the keys that may leave: ctrl+c anywhere, q outside
// forms, fields, dialogs and pickers, and the answer to "quit anyway?".
// done is false when the key is not about quitting.
func (m Model) quitHook(msg tea.KeyMsg) (next Model, cmd tea.Cmd, done bool) {
	g := m.c.keys
	if m.quitAsk != nil {
		if key.Matches(msg, g.ForceQuit) { // a second ctrl+c quits
			return m.quitNow()
		}
		_, answered, yes := m.quitAsk.Key(msg)
		if answered {
			m.quitAsk = nil
			if yes {
				return m.quitNow()
			}
			return m, say("not quitting: your work is still here"), true
		}
		return m, nil, true // the question takes every key until answered
	}
	force := key.Matches(msg, g.ForceQuit)
	if !force && (!key.Matches(msg, g.Quit) || m.helpOpen || inDialog(m.views[m.active])) {
		return m, nil, false
	}
	if lost := m.unsavedWork(); lost != "" {
		again := ""
		if force {
			again = " (ctrl+c again quits)"
		}
		m.quitAsk = widgets.NewConfirm("quit and lose it? "+lost+again, "")
		return m, nil, true
	}
	return m.quitNow()
}

func (m Model) quitNow() (Model, tea.Cmd, bool) {
	next, cmd := m.quit()
	return next.(Model), cmd, true
}
