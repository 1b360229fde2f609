package ui

import (
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// confirmPrompt is the one y/N question of the app: y answers yes; N, n
// and esc say no (the default). With a word set, the user must type that
// word and press enter instead (deleting a destination asks for its
// name). The word is compared as shown: a name with an invisible rune is
// typed with its marker ("<U+200B>"), never matched by the name it looks
// like.
type confirmPrompt struct {
	question string
	word     string
	input    textinput.Model
	keys     ConfirmKeys
	// tag says what the answer is about (a row id).
	tag string
}

func newConfirm(question, tag string) *confirmPrompt {
	return &confirmPrompt{question: question, tag: tag, keys: DefaultConfirmKeys()}
}

func newTypedConfirm(question, word, tag string) *confirmPrompt {
	c := newConfirm(question, tag)
	c.word = word
	c.input = newInput("› ", "type it here", max(256, utf8.RuneCountInString(word)+16), "")
	c.input.Focus()
	return c
}

// typing reports whether the prompt takes typed text.
func (c *confirmPrompt) typing() bool { return c.word != "" }

// key answers: done reports an answer, yes what it was.
func (c *confirmPrompt) key(msg tea.KeyMsg) (cmd tea.Cmd, done, yes bool) {
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

// view is the question line (and the typed answer).
func (c *confirmPrompt) view(s Styles) string {
	if c.word == "" {
		return s.Warning.Render(textsafe.Line(c.question) + " y/N")
	}
	return s.Warning.Render(textsafe.Line(c.question)) + "\n" + c.input.View() + s.Muted.Render("  enter confirms · esc cancels")
}

// KeyMap is the prompt's keys.
func (c *confirmPrompt) KeyMap() keyMap {
	if c.word != "" {
		ik := DefaultInputKeys("confirm")
		return keyMap{short: ik.ShortHelp(), full: ik.FullHelp()}
	}
	return keyMap{short: c.keys.ShortHelp(), full: c.keys.FullHelp()}
}

// question is a confirmPrompt as a screen, drawn on its view's line; it
// is done with an answer.
type question struct {
	c    *common
	p    *confirmPrompt
	help string
}

// answer is how a question was answered; tag and typed say which
// question it was (a row id; a typed-word confirmation).
type answer struct {
	tag   string
	yes   bool
	typed bool
}

// newQuestion puts p on a screen; help says what the user is doing.
func newQuestion(c *common, p *confirmPrompt, help string) *question {
	return &question{c: c, p: p, help: help}
}

func (q *question) Update(msg tea.Msg) (tea.Cmd, action) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, noAction
	}
	cmd, d, yes := q.p.key(km)
	if !d {
		return cmd, noAction
	}
	return cmd, done(answer{tag: q.p.tag, yes: yes, typed: q.p.word != ""})
}

func (q *question) View() string        { return q.p.view(q.c.styles) }
func (q *question) SetSize(int, int)    {}
func (q *question) KeyMap() help.KeyMap { return q.p.KeyMap() }
func (q *question) Help() string        { return q.help }
func (q *question) Typing() bool        { return q.p.typing() }
func (q *question) Inline() bool        { return true }
func (q *question) focus() tea.Cmd      { return q.p.input.Focus() }
