package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// secretHint is what a review shows of a secret the user typed: its last
// four characters at most ("…wxyz"), and nothing of a short one; the
// secret itself is sent in full.
func secretHint(v string) string {
	r := []rune(v)
	if len(r) < 12 {
		return "(set, hidden)"
	}
	return "…" + string(r[len(r)-4:])
}

// changeLine is the line above the editor's form: a new destination is
// new, not "8 fields changed"; an edit counts its changed fields.
func (e *destEditor) changeLine() string {
	if e.kind == editCreate {
		return "new destination: nothing is sent before the review (ctrl+s)"
	}
	return e.form.ChangeLine()
}

// filterEnter is enter on the filter line, as in the batches home: when
// the text matches one destination, it opens (its editor) and the filter
// goes; otherwise the filter is kept.
func (v *destView) filterEnter() tea.Cmd {
	text := strings.TrimSpace(v.filter.Input.Value())
	v.filter.Stop()
	if len(v.view) != 1 || text == "" {
		return v.maybeMore()
	}
	d := v.rows[v.view[0]]
	v.filter.Clear()
	v.apply()
	v.stack.push(newEditEditor(v.c, d))
	return nil
}
