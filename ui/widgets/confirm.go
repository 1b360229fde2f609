package widgets

import (
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/styles"
)

// ConfirmPrompt is the one y/N question of the app: y answers yes; N, n
// and esc say no (the default). With a word set, the user must type that
// word and press enter instead (deleting a destination asks for its
// name). The word is compared as shown: a name with an invisible rune is
// typed with its marker ("<U+200B>"), never matched by the name it looks
// like.
type ConfirmPrompt struct {
	Question string // what is asked
	word     string
	input    textinput.Model
	keys     ConfirmKeys
	// Tag says what the answer is about (a row id).
	Tag string
}

// NewConfirm is a y/N question; tag says what it is about.
func NewConfirm(question, tag string) *ConfirmPrompt {
	return &ConfirmPrompt{Question: question, Tag: tag, keys: DefaultConfirmKeys()}
}

// NewTypedConfirm is a question answered by typing word and enter.
func NewTypedConfirm(question, word, tag string) *ConfirmPrompt {
	c := NewConfirm(question, tag)
	c.word = word
	c.input = NewInput("› ", "type it here", max(256, utf8.RuneCountInString(word)+16), "")
	c.input.Focus()
	return c
}

// Typing reports whether the prompt takes typed text (a typed-word
// confirmation).
func (c *ConfirmPrompt) Typing() bool { return c.word != "" }

// Focus focuses the typed answer.
func (c *ConfirmPrompt) Focus() tea.Cmd { return c.input.Focus() }

// Key answers: done reports an answer, yes what it was.
func (c *ConfirmPrompt) Key(msg tea.KeyMsg) (cmd tea.Cmd, done, yes bool) {
	if c.word == "" {
		switch {
		case key.Matches(msg, c.keys.Yes):
			return nil, true, true
		case key.Matches(msg, c.keys.No):
			return nil, true, false
		}
		return nil, false, false // any other key keeps the question open
	}
	switch ik := DefaultInputKeys("confirm"); {
	case key.Matches(msg, ik.Cancel):
		return nil, true, false
	case key.Matches(msg, ik.Accept):
		return nil, true, textsafe.SameShown(c.input.Value(), c.word)
	}
	c.input, cmd = c.input.Update(msg)
	return cmd, false, false
}

// View is the question line (and the typed answer).
func (c *ConfirmPrompt) View(s styles.Styles) string {
	if c.word == "" {
		return s.Warning.Render(textsafe.Line(c.Question) + " y/N")
	}
	return s.Warning.Render(textsafe.Line(c.Question)) + "\n" + c.input.View() + s.Muted.Render("  enter confirms · esc cancels")
}

// KeyMap is the prompt's keys: y/N, or enter and esc for a typed word.
func (c *ConfirmPrompt) KeyMap() help.KeyMap {
	if c.word != "" {
		return DefaultInputKeys("confirm")
	}
	return c.keys
}
