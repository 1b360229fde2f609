package ui

// Creating a destination starts with its type: the 17 known types with a
// line on each, and "another type" for one gwdash does not know yet.

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

const otherType = "another type…"

// typePicker is the screen that chooses the type of a new destination;
// it is done with a typeChosen.
type typePicker struct {
	c     *common
	nav   widgets.ListNav
	keys  TypeKeys
	other textinput.Model
	typed bool
	w, h  int
}

// typeChosen is the type a typePicker chose.
type typeChosen string

func newTypePicker(c *common) *typePicker {
	k := DefaultTypeKeys()
	t := &typePicker{c: c, keys: k, other: widgets.NewInput("type › ", "the type's name, e.g. acme-traces", 64, "")}
	t.nav.SetCount(len(api.DestinationTypeSpecs) + 1)
	return t
}

func (t *typePicker) Update(msg tea.Msg) (tea.Cmd, action) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, noAction
	}
	if t.typed {
		switch ik := widgets.DefaultInputKeys("use this type"); {
		case key.Matches(km, ik.Cancel):
			t.typed = false
			t.other.Blur()
			return nil, noAction
		case key.Matches(km, ik.Accept):
			name := strings.TrimSpace(t.other.Value())
			if err := (api.DestinationCreate{Type: name, Name: "x"}).Validate(); err != nil && strings.HasPrefix(err.Error(), "type") {
				return fail("not a type name: lowercase letters, digits and dashes"), noAction
			}
			return nil, done(typeChosen(name))
		}
		var cmd tea.Cmd
		t.other, cmd = t.other.Update(km)
		return cmd, noAction
	}
	switch {
	case t.nav.Key(km, t.keys.ListKeys):
	case key.Matches(km, t.keys.Back):
		return say("nothing created"), cancelled
	case key.Matches(km, t.keys.Choose):
		if t.nav.Cursor == len(api.DestinationTypeSpecs) {
			t.typed = true
			return t.other.Focus(), noAction
		}
		return nil, done(typeChosen(api.DestinationTypeSpecs[t.nav.Cursor].Name))
	default:
		return unknownKey(km), noAction
	}
	return nil, noAction
}

func (t *typePicker) SetSize(w, h int) {
	t.w, t.h = w, h
	t.nav.SetHeight(max(1, h-3))
}

func (t *typePicker) KeyMap() help.KeyMap {
	if t.typed {
		return widgets.DefaultInputKeys("use this type")
	}
	return t.keys
}

func (t *typePicker) Help() string { return "choosing a destination type" }
func (t *typePicker) Typing() bool { return t.typed }
func (t *typePicker) View() string { return t.view(t.c.styles, t.w, t.h) }

func (t *typePicker) view(s Styles, w, h int) string {
	lines := []string{s.Title.Render("New destination: choose its type"), s.Muted.Render("↑/↓ · enter chooses · esc cancels")}
	a, b := t.nav.Visible()
	for i := a; i < b; i++ {
		var name, about string
		if i < len(api.DestinationTypeSpecs) {
			spec := api.DestinationTypeSpecs[i]
			name, about = spec.Name, spec.About+" · needs "+strings.Join(spec.Required, ", ")
		} else {
			name, about = otherType, "a newer type the server knows: its config is typed as JSON"
		}
		line := fitCell(name, 16) + " " + s.Muted.Render(about)
		if i == t.nav.Cursor {
			line = s.Selected.Render("▸ " + fitCell(name, 16) + " " + about)
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if pos := t.nav.Position(); pos != "" {
		lines = append(lines, s.Muted.Render(pos))
	}
	if t.typed {
		lines = append(lines, "", t.other.View())
	}
	return textsafe.Frame(strings.Join(lines, "\n"))
}

func fitCell(s string, w int) string { return widgets.Fit(s, w, false) }
