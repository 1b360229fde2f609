package ui

// Creating a destination starts with its type: the 17 known types with a
// line on each, and "another type" for one gwdash does not know yet.

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
)

const otherType = "another type…"

type typePicker struct {
	nav   listNav
	keys  TypeKeys
	other textinput.Model
	typed bool
}

func newTypePicker() *typePicker {
	k := DefaultTypeKeys()
	t := &typePicker{keys: k, other: newInput("type › ", "the type's name, e.g. acme-traces", 64, "")}
	t.nav.setCount(len(api.DestinationTypeSpecs) + 1)
	return t
}

func (v *destView) typeKey(msg tea.KeyMsg) tea.Cmd {
	t := v.types
	if t.typed {
		switch ik := DefaultInputKeys("use this type"); {
		case key.Matches(msg, ik.Cancel):
			t.typed = false
			t.other.Blur()
			return nil
		case key.Matches(msg, ik.Accept):
			name := strings.TrimSpace(t.other.Value())
			if err := (api.DestinationCreate{Type: name, Name: "x"}).Validate(); err != nil && strings.HasPrefix(err.Error(), "type") {
				return fail("not a type name: lowercase letters, digits and dashes")
			}
			return v.startCreate(name)
		}
		var cmd tea.Cmd
		t.other, cmd = t.other.Update(msg)
		return cmd
	}
	switch {
	case t.nav.key(msg, t.keys.ListKeys):
	case key.Matches(msg, t.keys.Back):
		v.types = nil
		return say("nothing created")
	case key.Matches(msg, t.keys.Choose):
		if t.nav.cursor == len(api.DestinationTypeSpecs) {
			t.typed = true
			return t.other.Focus()
		}
		return v.startCreate(api.DestinationTypeSpecs[t.nav.cursor].Name)
	default:
		return unknownKey(msg)
	}
	return nil
}

func (v *destView) startCreate(typ string) tea.Cmd {
	v.types = nil
	v.editor = newCreateEditor(v.c, typ)
	v.editor.setSize(v.w, v.h)
	return nil
}

func (t *typePicker) view(s Styles, w, h int) string {
	lines := []string{s.Title.Render("New destination: choose its type"), s.Muted.Render("↑/↓ · enter chooses · esc cancels")}
	a, b := t.nav.visible()
	for i := a; i < b; i++ {
		var name, about string
		if i < len(api.DestinationTypeSpecs) {
			spec := api.DestinationTypeSpecs[i]
			name, about = spec.Name, spec.About+" · needs "+strings.Join(spec.Required, ", ")
		} else {
			name, about = otherType, "a newer type the server knows: its config is typed as JSON"
		}
		line := fitCell(name, 16) + " " + s.Muted.Render(about)
		if i == t.nav.cursor {
			line = s.Selected.Render("▸ " + fitCell(name, 16) + " " + about)
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if pos := t.nav.position(); pos != "" {
		lines = append(lines, s.Muted.Render(pos))
	}
	if t.typed {
		lines = append(lines, "", t.other.View())
	}
	return textsafe.Frame(strings.Join(lines, "\n"))
}

func fitCell(s string, w int) string { return fit(s, w, false) }
