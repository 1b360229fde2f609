package ui

// The model picker: the catalogue with prices at hand, a fuzzy filter as
// you type, free and router models marked; in compare mode it marks 2 to
// 4 models. A server without a catalogue gets a typed model id instead.

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
	"github.com/sahilm/fuzzy"
)

const maxCompareModels = 4

// The picker's columns, by name.
const (
	pickModel   = "model"
	pickIn      = "in"
	pickOut     = "out"
	pickContext = "context"
	pickParams  = "parameters"
	pickNote    = "note"
)

type modelPicker struct {
	c       *common
	w, h    int
	filter  textinput.Model
	keys    PickerKeys
	cat     *api.Catalogue
	matches []int
	nav     widgets.ListNav
	tbl     widgets.Table
	compare bool
	marked  []string
	current string
	err     error
}

func newModelPicker(c *common, cat *api.Catalogue, catErr error, current string, compare bool) *modelPicker {
	p := &modelPicker{c: c, filter: widgets.NewInput("› ", "type to filter models (or a model id)", 200, ""), keys: DefaultPickerKeys(), cat: cat, err: catErr,
		compare: compare, current: current,
		tbl: widgets.NewTable(
			widgets.Column{Name: pickModel, Title: "MODEL", Keep: 9, Min: 16},
			// Prices and context are what a model is picked by: the
			// name gives way before them.
			widgets.Column{Name: pickIn, Title: "IN $/M", Keep: 10, Min: 7, Max: 10, Right: true},
			widgets.Column{Name: pickOut, Title: "OUT $/M", Keep: 10, Min: 7, Max: 10, Right: true},
			widgets.Column{Name: pickContext, Title: "CONTEXT", Keep: 8, Min: 9, Max: 10, Right: true},
			widgets.Column{Name: pickParams, Title: "PARAMETERS", Keep: 2, Max: 48},
			widgets.Column{Name: pickNote, Title: "", Keep: 7, Max: 7},
		)}
	p.filter.Focus()
	if cat != nil {
		for i := range cat.Data {
			p.tbl.Measure(p.cells(i)...)
		}
	}
	p.apply()
	return p
}

// modelSource lets fuzzy search the catalogue's ids and names.
type modelSource []api.Model

func (m modelSource) String(i int) string { return m[i].ID + " " + m[i].Name }
func (m modelSource) Len() int            { return len(m) }

func (p *modelPicker) apply() {
	p.matches = p.matches[:0]
	if p.cat == nil {
		p.nav.SetCount(0)
		return
	}
	q := strings.TrimSpace(p.filter.Value())
	if q == "" {
		for i := range p.cat.Data {
			p.matches = append(p.matches, i)
		}
	} else {
		for _, m := range fuzzy.FindFrom(q, modelSource(p.cat.Data)) {
			p.matches = append(p.matches, m.Index)
		}
	}
	p.nav.SetCount(len(p.matches))
	p.nav.Cursor = 0
	if q == "" {
		for k, i := range p.matches {
			if p.cat.Data[i].ID == p.current {
				p.nav.Cursor = k
			}
		}
	}
	p.nav.Clamp()
}

func (p *modelPicker) cells(i int) []string {
	m := &p.cat.Data[i]
	ctx, note := present.ModelContext(m), present.ModelNote(m)
	params := strings.Join(m.SupportedParameters, ", ")
	if m.SupportedParameters == nil {
		params = "(not listed)"
	}
	id := m.ID
	if p.compare {
		if slices.Contains(p.marked, m.ID) {
			id = "● " + id
		} else {
			id = "  " + id
		}
	}
	return p.tbl.Cells(func(col string) string {
		switch col {
		case pickModel:
			return textsafe.Line(id)
		case pickIn:
			return present.Price(m.PriceOf("prompt"))
		case pickOut:
			return present.Price(m.PriceOf("completion"))
		case pickContext:
			return ctx
		case pickParams:
			return textsafe.Line(params)
		case pickNote:
			return note
		}
		return ""
	})
}

// highlighted is the model under the cursor, else the id typed.
func (p *modelPicker) highlighted() string {
	if id := p.selectedID(); id != "" {
		return id
	}
	return strings.TrimSpace(p.filter.Value())
}

func (p *modelPicker) selectedID() string {
	if p.nav.Cursor < len(p.matches) {
		return p.cat.Data[p.matches[p.nav.Cursor]].ID
	}
	return ""
}

// pickerResult is what a key in the picker decided.
type pickerResult int

const (
	pickerOpen pickerResult = iota
	pickerCancelled
	pickerChosen   // chosen holds one model
	pickerCompared // marked holds 2-4 models
)

// key handles a key; chosen is the model (or models) picked.
func (p *modelPicker) key(msg tea.KeyMsg) (tea.Cmd, pickerResult, string) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, pickerCancelled, ""
	case key.Matches(msg, k.Up):
		p.nav.Move(-1)
		return nil, pickerOpen, ""
	case key.Matches(msg, k.Down):
		p.nav.Move(1)
		return nil, pickerOpen, ""
	case key.Matches(msg, k.Mark):
		if !p.compare {
			return say("tab marks models in compare mode (c)"), pickerOpen, ""
		}
		id := p.selectedID()
		if id == "" {
			id = strings.TrimSpace(p.filter.Value())
			if api.ValidateModel(id) != nil {
				return say("no model to mark: type a model id or pick one"), pickerOpen, ""
			}
		}
		if i := slices.Index(p.marked, id); i >= 0 {
			p.marked = slices.Delete(p.marked, i, i+1)
		} else if len(p.marked) >= maxCompareModels {
			return say("compare at most 4 models: unmark one first"), pickerOpen, ""
		} else {
			p.marked = append(p.marked, id)
		}
		p.tbl.ResetContent()
		if p.cat != nil {
			for i := range p.cat.Data {
				p.tbl.Measure(p.cells(i)...)
			}
		}
		return nil, pickerOpen, ""
	case key.Matches(msg, k.Choose):
		if p.compare {
			if n := len(p.marked); n < 2 {
				return say("mark 2 to 4 models with tab, then enter"), pickerOpen, ""
			}
			return nil, pickerCompared, ""
		}
		id := p.selectedID()
		if id == "" {
			id = strings.TrimSpace(p.filter.Value())
		}
		if err := api.ValidateModel(id); err != nil {
			return fail("not a model: " + err.Error()), pickerOpen, ""
		}
		return nil, pickerChosen, id
	}
	before := p.filter.Value()
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	if p.filter.Value() != before {
		p.apply()
	}
	return cmd, pickerOpen, ""
}

// setSize lays the table out and gives the list the rows left under the
// title, the filter, the marks, the count and the header.
func (p *modelPicker) setSize(w, h int) {
	p.tbl.Layout(w)
	head := 4
	if p.compare {
		head++
	}
	p.nav.SetHeight(max(1, h-head))
	p.nav.SetCount(len(p.matches))
}

func (p *modelPicker) view(s Styles, w, h int) string {
	title := "Pick a model"
	if p.compare {
		title = "Compare models: mark 2 to 4 with tab, then enter"
	}
	lines := []string{s.Title.Render(title), p.filter.View()}
	if p.compare {
		marked := "marked: none"
		if len(p.marked) > 0 {
			marked = "marked: " + textsafe.Line(strings.Join(p.marked, ", "))
		}
		lines = append(lines, s.Subtle.Render(marked))
	}
	switch {
	case p.cat == nil && api.IsNotOffered(p.err):
		lines = append(lines, "", s.Warning.Render("this server does not offer a models catalogue: type a model id (<provider>/<model>) and press enter"))
		return strings.Join(lines, "\n")
	case p.cat == nil && p.err != nil:
		lines = append(lines, "", s.Error.Render("the catalogue could not be read: "+describeErr(p.err)), s.Muted.Render("type a model id and press enter, or ctrl+r tries again"))
		return strings.Join(lines, "\n")
	case p.cat == nil:
		lines = append(lines, "", s.Muted.Render("reading the catalogue… (a model id can be typed meanwhile)"))
		return strings.Join(lines, "\n")
	}
	nav := p.nav
	count := format.Int(len(p.matches)) + " of " + format.Plural(len(p.cat.Data), "model", "models")
	if p.cat.Truncated {
		count += " (the server lists more: only the first " + format.Int(len(p.cat.Data)) + " were read)"
	}
	if pos := nav.Position(); pos != "" {
		count += " · " + pos
	}
	lines = append(lines, s.Muted.Render(count), p.tbl.Header(s))
	a, b := nav.Visible()
	for k := a; k < b; k++ {
		i := p.matches[k]
		line := p.tbl.Row(p.cells(i), k == nav.Cursor)
		if k == nav.Cursor {
			line = s.Selected.Render(line)
		} else if p.cat.Data[i].ID == p.current {
			line = s.Focused.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
