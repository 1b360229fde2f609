package ui

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/ui/widgets"
)

// question is a widgets.ConfirmPrompt as a screen, drawn on its view's
// line; it is done with an answer.
type question struct {
	c    *common
	p    *widgets.ConfirmPrompt
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
func newQuestion(c *common, p *widgets.ConfirmPrompt, help string) *question {
	return &question{c: c, p: p, help: help}
}

func (q *question) Update(msg tea.Msg) (tea.Cmd, action) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, noAction
	}
	cmd, d, yes := q.p.Key(km)
	if !d {
		return cmd, noAction
	}
	return cmd, done(answer{tag: q.p.Tag, yes: yes, typed: q.p.Typing()})
}

func (q *question) View() string        { return q.p.View(q.c.styles) }
func (q *question) SetSize(int, int)    {}
func (q *question) KeyMap() help.KeyMap { return q.p.KeyMap() }
func (q *question) Help() string        { return q.help }
func (q *question) Typing() bool        { return q.p.Typing() }
func (q *question) Inline() bool        { return true }
func (q *question) focus() tea.Cmd      { return q.p.Focus() }
