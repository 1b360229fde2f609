package ui

// The playground's screens as they sit on its stack: the model picker,
// the providers panel and the settings. Each returns what it decided as
// an action; the playground acts on it in one place (playground.act).

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// What the playground's screens decide.
type (
	modelChosen    string   // the picker chose one model
	modelsCompared []string // the picker marked 2-4 models to compare
	providersOf    string   // the picker asks for a model's providers
	// providersChosen is the panel's marks: the provider order to use,
	// or (race) the providers to race.
	providersChosen struct {
		model  string
		marked []string
		race   bool
	}
	toolAsked       struct{} // the settings ask for the tool form
	settingsEdited  struct{} // a setting changed: check it, read its files
	settingsKeep    struct{} // ctrl+s: keep the settings if all are valid
	settingsDiscard struct{} // esc on changed settings: ask first
)

// ---- the model picker ----

func (p *modelPicker) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		p.nav.Wheel(msg)
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.Refresh):
			return catalogueCmd(p.c.client, p.c.ctx, true), noAction
		case key.Matches(msg, p.keys.Providers):
			return nil, event(providersOf(p.highlighted()))
		}
		cmd, res, chosen := p.key(msg)
		switch res {
		case pickerCancelled:
			return say("model unchanged: " + textsafe.Line(p.current)), cancelled
		case pickerChosen:
			return cmd, done(modelChosen(chosen))
		case pickerCompared:
			return cmd, done(modelsCompared(p.marked))
		}
		return cmd, noAction
	}
	return nil, noAction
}

func (p *modelPicker) SetSize(w, h int) {
	p.w, p.h = w, h
	p.setSize(w, h)
}

func (p *modelPicker) View() string        { return p.view(p.c.styles, p.w, p.h) }
func (p *modelPicker) KeyMap() help.KeyMap { return p.keys }
func (p *modelPicker) Help() string        { return "picking a model" }
func (p *modelPicker) Typing() bool        { return true }

// ---- the providers panel ----

func (pp *providersPanel) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case endpointsMsg:
		pp.got(msg)
	case tea.MouseMsg:
		pp.nav.Wheel(msg)
	case tea.KeyMsg:
		cmd, res := pp.key(msg, pp.c.client, pp.c.ctx)
		switch res {
		case providersClosed:
			return say("providers unchanged"), cancelled
		case providersOrdered, providersRaced:
			return cmd, done(providersChosen{model: pp.model, marked: pp.marked, race: res == providersRaced})
		}
		return cmd, noAction
	}
	return nil, noAction
}

func (pp *providersPanel) SetSize(w, h int)    { pp.setSize(w, h) }
func (pp *providersPanel) View() string        { return pp.view(pp.c.styles, pp.w, pp.h) }
func (pp *providersPanel) KeyMap() help.KeyMap { return pp.keys }
func (pp *providersPanel) Help() string        { return "choosing providers" }
func (pp *providersPanel) Typing() bool        { return false } // the panel takes no text

// ---- the settings ----

// settingsScreen edits the playground's request settings (the form is
// the playground's own: what is kept stays in it).
type settingsScreen struct {
	c    *common
	form *requestSettings
	add  key.Binding // ctrl+t: the tool form (PlaygroundKeys.AddTool)
	w, h int
}

func newSettingsScreen(c *common, form *requestSettings, add key.Binding) *settingsScreen {
	form.Focus()
	return &settingsScreen{c: c, form: form, add: add}
}

func (st *settingsScreen) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				st.form.Move(-1)
			case tea.MouseButtonWheelDown:
				st.form.Move(1)
			}
		}
	case tea.KeyMsg:
		k := st.form.Keys
		switch {
		case key.Matches(msg, st.add):
			return nil, event(toolAsked{})
		case key.Matches(msg, k.Save):
			return nil, event(settingsKeep{})
		case key.Matches(msg, k.Back):
			if st.form.Edited() {
				return nil, event(settingsDiscard{})
			}
			st.blur()
			return nil, cancelled
		}
		cmd, changed, used := st.form.Key(msg)
		if !used {
			return unknownKey(msg), noAction
		}
		if changed {
			return cmd, event(settingsEdited{})
		}
		return cmd, noAction
	}
	return nil, noAction
}

// blur leaves the fields: no cursor is drawn once the screen closes.
func (st *settingsScreen) blur() {
	for _, f := range st.form.Fields {
		f.Input.Blur()
	}
}

func (st *settingsScreen) SetSize(w, h int) { st.w, st.h = w, h }

func (st *settingsScreen) View() string {
	s := st.c.styles
	return s.Title.Render("Settings") + s.Muted.Render("  each value is checked as you type · ctrl+s keeps them · esc asks before dropping changes") +
		"\n" + st.form.View(s, st.w, max(1, st.h-1))
}

func (st *settingsScreen) KeyMap() help.KeyMap {
	fk := st.form.Keys
	return keyMap{short: append(fk.ShortHelp(), st.add), full: append(fk.FullHelp(), []key.Binding{st.add})}
}

func (st *settingsScreen) Help() string { return "settings" }
func (st *settingsScreen) Typing() bool { return st.form.Typing() }

// Unsaved names changed settings not kept.
func (st *settingsScreen) Unsaved() string {
	if st.form.Edited() {
		return "changed settings not kept (ctrl+s keeps them)"
	}
	return ""
}
