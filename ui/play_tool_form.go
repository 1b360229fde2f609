package ui

// A small form that defines one function tool without a file (ctrl+t in
// the playground settings): name, description and parameters (a JSON
// Schema object). It is a screen on the playground's stack; ctrl+s checks
// the tool as the tools file is checked (api.ValidateTools, names unique
// among the tools already set) and is done with the tools setting's new
// value: every tool as pasted JSON. esc asks before dropping what was
// typed.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// toolsDefined is the tools setting's value after a tool was added.
type toolsDefined string

type toolForm struct {
	c        *common
	form     *widgets.Form
	existing []api.FunctionTool
	sub      stack // "discard this tool?"
	w, h     int
}

func newToolForm(c *common, existing []api.FunctionTool) *toolForm {
	f := widgets.NewForm(
		widgets.TextField("name", "name", api.NameRule, ""),
		widgets.TextField("description", "description", "what it does, for the model", ""),
		widgets.TextField("parameters", "parameters", `a JSON Schema object, e.g. {"type":"object","properties":{"city":{"type":"string"}}}; empty = none`, ""),
	)
	f.Field("name").Required = true
	f.Keys = DefaultToolFormKeys()
	f.Base = make([]string, len(f.Fields)) // any value typed is an edit
	return &toolForm{c: c, form: f, existing: existing}
}

func (t *toolForm) Update(msg tea.Msg) (tea.Cmd, action) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, noAction
	}
	if t.sub.open() {
		cmd, a := t.sub.update(km)
		if ans, ok := a.value.(answer); ok && ans.yes {
			return say("no tool added"), cancelled
		}
		return cmd, noAction
	}
	k := t.form.Keys
	switch {
	case key.Matches(km, k.Back):
		if t.form.Edited() {
			t.sub.push(newQuestion(t.c, widgets.NewConfirm("discard this tool?", ""), "answering y/N"))
			return nil, noAction
		}
		return say("no tool added"), cancelled
	case key.Matches(km, k.Save):
		value, err := t.build()
		if err != nil {
			return fail("cannot add the tool: " + t.form.ErrorSummary()), noAction
		}
		return say("tool added to the settings: ctrl+s keeps them"), done(toolsDefined(value))
	}
	cmd, _, used := t.form.Key(km)
	if !used {
		return unknownKey(km), noAction
	}
	return cmd, noAction
}

// build checks the tool beside its fields and returns every tool as the
// tools setting's pasted JSON.
func (t *toolForm) build() (string, error) {
	tool := api.FunctionTool{
		Name:        strings.TrimSpace(t.form.Field("name").Value()),
		Description: strings.TrimSpace(t.form.Field("description").Value()),
	}
	if p := strings.TrimSpace(t.form.Field("parameters").Value()); p != "" {
		tool.Parameters = json.RawMessage(p)
	}
	all := append(append([]api.FunctionTool{}, t.existing...), tool)
	field := fmt.Sprintf("tools[%d]", len(all)-1)
	var err error
	if tool.Parameters != nil && !json.Valid(tool.Parameters) {
		err = &api.ValidationError{Field: field + ".parameters", Rule: "must be a JSON object"}
	} else {
		err = api.ValidateTools(all)
	}
	if err != nil {
		ve, ok := err.(*api.ValidationError)
		if !ok {
			ve = &api.ValidationError{Field: "name", Rule: textsafe.Line(err.Error())}
		}
		// an error about this tool lands beside its field
		name := strings.TrimPrefix(ve.Field, field+".")
		if name == ve.Field || t.form.Field(name) == nil {
			name = "name"
		}
		t.form.SetErrors([]*api.ValidationError{{Field: name, Rule: ve.Rule}})
		return "", err
	}
	t.form.SetErrors(nil)
	b, err := json.Marshal(all)
	return string(b), err
}

func (t *toolForm) View() string {
	s := t.c.styles
	lines := []string{s.Title.Render("New tool") + s.Muted.Render("  ctrl+s adds it to the tools setting · esc asks before dropping it")}
	if q, ok := t.sub.inline(); ok {
		lines = append(lines, q)
	} else if n := len(t.existing); n > 0 {
		lines = append(lines, s.Muted.Render(fmt.Sprintf("%d tools set already; names must differ", n)))
	} else {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, t.form.View(s, t.w, max(1, t.h-2))), "\n")
}

func (t *toolForm) SetSize(w, h int) {
	t.w, t.h = w, h
	for _, f := range t.form.Fields {
		f.Input.Width = max(10, w/2)
	}
}

func (t *toolForm) KeyMap() help.KeyMap {
	if s := t.sub.top(); s != nil {
		return s.KeyMap()
	}
	return t.form.Keys
}

func (t *toolForm) Help() string { return "defining a tool" }

func (t *toolForm) Typing() bool { return !t.sub.open() && t.form.Typing() }

// Unsaved names a tool typed but not added.
func (t *toolForm) Unsaved() string {
	if t.form.Edited() {
		return "a tool not added to the settings"
	}
	return ""
}
