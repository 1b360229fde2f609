package ui

// pathPrompt asks for a file path on one line of its view (where to
// export, where to save), with completion; it closes with pathChosen or
// cancelled.

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/ui/widgets"
)

type pathPrompt struct {
	c    *common
	path widgets.PathInput
	help string // what the user is doing
	none string // what esc says
}

// pathChosen is the prompt's value: the path, for what it was asked.
type pathChosen string

func newPathPrompt(c *common, prompt, value, help, none string) *pathPrompt {
	return &pathPrompt{c: c, path: widgets.NewPathInput(prompt, value), help: help, none: none}
}

func (p *pathPrompt) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case widgets.PathCompletedMsg:
		p.path.Completed(msg)
	case tea.KeyMsg:
		cmd, finished, path := p.path.Key(msg)
		switch {
		case !finished:
			return cmd, noAction
		case path == "":
			return say(p.none), cancelled
		}
		return cmd, done(pathChosen(path))
	}
	return nil, noAction
}

func (p *pathPrompt) focus() tea.Cmd      { return p.path.Focus() }
func (p *pathPrompt) View() string        { return p.path.View(p.c.styles) }
func (p *pathPrompt) SetSize(w, _ int)    { p.path.SetWidth(w) }
func (p *pathPrompt) KeyMap() help.KeyMap { return p.path.Keys }
func (p *pathPrompt) Help() string        { return p.help }
func (p *pathPrompt) Typing() bool        { return true }
func (p *pathPrompt) Inline() bool        { return true }
