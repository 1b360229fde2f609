package ui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
)

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
