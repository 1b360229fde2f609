package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

type fieldKind int

const (
	fieldText   fieldKind = iota
	fieldSecret           // typed masked, revealed on request
	fieldBool             // space toggles
	fieldChoice           // ←/→ among options
	fieldMulti            // ←/→ moves, space toggles an option
	fieldAction           // enter opens an editor of its own (filter rules)
)

// formField is one row of a form: a label, a value of its kind, a hint
// and, beside the value, its error.
type formField struct {
	name  string // the member it feeds, as errors name it
	label string
	hint  string
	kind  fieldKind
	input textinput.Model
	on    bool
	// options of a choice (one picked) or a multi (a set picked).
	options []string
	pick    int
	picks   map[string]bool
	// summary is what an action field shows.
	summary string
	// placeholder of a secret that is not changed (the masked value).
	required bool
	reveal   bool
	err      string
}

func textField(name, label, hint, value string) *formField {
	f := &formField{name: name, label: label, hint: hint, kind: fieldText, input: newInput("", "", 4096, value)}
	if f.input.Value() != value {
		// The input cannot hold control characters: it shows the value
		// without them, and the form sends the field only if it is edited.
		f.hint = "⚠ the server's value holds control characters (shown without them); kept unless you edit it"
	}
	return f
}

func secretField(name, label, hint string) *formField {
	f := &formField{name: name, label: label, hint: hint, kind: fieldSecret, input: newInput("", "", 4096, "")}
	f.input.EchoMode = textinput.EchoPassword
	f.input.EchoCharacter = '•'
	return f
}

func boolField(name, label, hint string, on bool) *formField {
	return &formField{name: name, label: label, hint: hint, kind: fieldBool, on: on}
}

func choiceField(name, label, hint string, options []string, value string) *formField {
	f := &formField{name: name, label: label, hint: hint, kind: fieldChoice, options: options}
	for i, o := range options {
		if o == value {
			f.pick = i
		}
	}
	return f
}

func multiField(name, label, hint string, options []string, picked []string) *formField {
	f := &formField{name: name, label: label, hint: hint, kind: fieldMulti, options: options, picks: map[string]bool{}}
	for _, p := range picked {
		f.picks[p] = true
	}
	return f
}

// value is a text field's value.
func (f *formField) value() string { return f.input.Value() }

// choice is a choice field's value.
func (f *formField) choice() string {
	if f.pick < len(f.options) {
		return f.options[f.pick]
	}
	return ""
}

// picked is a multi field's values, in option order.
func (f *formField) picked() []string {
	var out []string
	for _, o := range f.options {
		if f.picks[o] {
			out = append(out, o)
		}
	}
	return out
}

// form is a list of fields with one focused; it scrolls when taller than
// its room and shows every field's error at once.
type form struct {
	fields   []*formField
	idx      int
	readOnly bool
	keys     FormKeys
	// base is each field's value when the form opened, to tell an edited
	// form from an untouched one.
	base []string
}

func newForm(fields ...*formField) *form {
	f := &form{fields: fields, keys: DefaultFormKeys()}
	f.base = f.snapshot()
	f.focus()
	return f
}

func (f *form) current() *formField {
	if f.idx < len(f.fields) {
		return f.fields[f.idx]
	}
	return nil
}

func (f *form) field(name string) *formField {
	for _, fl := range f.fields {
		if fl.name == name {
			return fl
		}
	}
	return nil
}

func (f *form) snapshot() []string {
	out := make([]string, len(f.fields))
	for i, fl := range f.fields {
		switch fl.kind {
		case fieldBool:
			out[i] = format.OnOff(fl.on)
		case fieldChoice:
			out[i] = fl.choice()
		case fieldMulti:
			out[i] = strings.Join(fl.picked(), ",")
		case fieldAction:
			out[i] = fl.summary
		default:
			out[i] = fl.input.Value()
		}
	}
	return out
}

// reset puts every field back to its value when the form opened (or was
// last kept).
func (f *form) reset() {
	for i, fl := range f.fields {
		if i >= len(f.base) {
			break
		}
		b := f.base[i]
		switch fl.kind {
		case fieldBool:
			fl.on = b == "on"
		case fieldChoice:
			for j, o := range fl.options {
				if o == b {
					fl.pick = j
				}
			}
		case fieldMulti:
			fl.picks = map[string]bool{}
			for _, o := range strings.Split(b, ",") {
				if o != "" {
					fl.picks[o] = true
				}
			}
		case fieldAction:
			fl.summary = b
		default:
			fl.input.SetValue(b)
		}
	}
}

// changed reports whether the named field differs from when the form
// opened.
func (f *form) changed(name string) bool {
	now := f.snapshot()
	for i, fl := range f.fields {
		if fl.name == name {
			return now[i] != f.base[i]
		}
	}
	return false
}

// edited reports whether any field differs from when the form opened.
func (f *form) edited() bool {
	now := f.snapshot()
	for i := range now {
		if now[i] != f.base[i] {
			return true
		}
	}
	return false
}

// errorSummary names the fields in error (each error itself is shown
// beside its field) and moves the focus to the first of them.
func (f *form) errorSummary() string {
	var names []string
	first := -1
	for i, fl := range f.fields {
		if fl.err != "" {
			names = append(names, fl.label)
			if first < 0 {
				first = i
			}
		}
	}
	if first >= 0 {
		f.idx = first
		f.focus()
	}
	return format.Plural(len(names), "field needs", "fields need") + " fixing (marked ✗): " + strings.Join(names, ", ")
}

// changeLine says how many fields differ from when the form opened.
func (f *form) changeLine() string {
	now, n := f.snapshot(), 0
	for i := range now {
		if now[i] != f.base[i] {
			n++
		}
	}
	if n == 0 {
		return "no changes yet"
	}
	return format.Plural(n, "field", "fields") + " changed"
}

// typing reports whether the focused field takes typed text.
func (f *form) typing() bool {
	c := f.current()
	return c != nil && (c.kind == fieldText || c.kind == fieldSecret) && !f.readOnly
}

func (f *form) focus() {
	for i, fl := range f.fields {
		if i == f.idx && (fl.kind == fieldText || fl.kind == fieldSecret) && !f.readOnly {
			fl.input.Focus()
		} else {
			fl.input.Blur()
		}
	}
}

func (f *form) move(d int) {
	if len(f.fields) == 0 {
		return
	}
	f.idx = (f.idx + d + len(f.fields)) % len(f.fields)
	f.focus()
}

// setErrors puts every error beside its field (and clears the others);
// errors that name no field are returned.
func (f *form) setErrors(errs []*api.ValidationError) []*api.ValidationError {
	for _, fl := range f.fields {
		fl.err = ""
	}
	var rest []*api.ValidationError
	for _, e := range errs {
		fl := f.field(e.Field)
		if fl == nil {
			// a sub-member (filter_rules.groups[0]...) lands on its field
			for _, x := range f.fields {
				if strings.HasPrefix(e.Field, x.name+".") || strings.HasPrefix(e.Field, x.name+"[") {
					fl = x
					break
				}
			}
		}
		if fl == nil {
			rest = append(rest, e)
			continue
		}
		if fl.err == "" {
			fl.err = e.Rule
		}
	}
	return rest
}

// key handles a key in the form. It reports what it did: moved or
// changed, or nothing (the caller may act on it).
func (f *form) key(msg tea.KeyMsg) (cmd tea.Cmd, changed, used bool) {
	fl := f.current()
	if fl == nil {
		return nil, false, false
	}
	switch {
	case key.Matches(msg, f.keys.Next):
		f.move(1)
		return nil, false, true
	case key.Matches(msg, f.keys.Prev):
		f.move(-1)
		return nil, false, true
	case key.Matches(msg, f.keys.Reveal) && fl.kind == fieldSecret:
		fl.reveal = !fl.reveal
		if fl.reveal {
			fl.input.EchoMode = textinput.EchoNormal
		} else {
			fl.input.EchoMode = textinput.EchoPassword
		}
		return nil, false, true
	}
	if f.readOnly {
		return nil, false, false
	}
	switch fl.kind {
	case fieldBool:
		if key.Matches(msg, f.keys.Toggle) {
			fl.on = !fl.on
			return nil, true, true
		}
	case fieldChoice:
		switch {
		case key.Matches(msg, f.keys.Right), key.Matches(msg, f.keys.Toggle):
			fl.pick = (fl.pick + 1) % max(1, len(fl.options))
			return nil, true, true
		case key.Matches(msg, f.keys.Left):
			fl.pick = (fl.pick + len(fl.options) - 1) % max(1, len(fl.options))
			return nil, true, true
		}
	case fieldMulti:
		switch {
		case key.Matches(msg, f.keys.Right):
			fl.pick = (fl.pick + 1) % max(1, len(fl.options))
			return nil, false, true
		case key.Matches(msg, f.keys.Left):
			fl.pick = (fl.pick + len(fl.options) - 1) % max(1, len(fl.options))
			return nil, false, true
		case key.Matches(msg, f.keys.Toggle):
			o := fl.options[fl.pick]
			fl.picks[o] = !fl.picks[o]
			return nil, true, true
		}
	case fieldText, fieldSecret:
		before := fl.input.Value()
		fl.input, cmd = fl.input.Update(msg)
		return cmd, fl.input.Value() != before, true
	}
	return nil, false, false
}

// view draws the fields that fit in h lines: each field is its label
// (required ones marked), then its value with its error beside it, or its
// hint. The focused field is marked; a scroll position shows when the
// form is taller than its room.
func (f *form) view(s Styles, w, h int) string {
	const per = 2
	room := max(1, h/per)
	start := 0
	if len(f.fields) > room {
		start = max(0, min(f.idx-room/2, len(f.fields)-room))
	}
	var lines []string
	for i := start; i < len(f.fields) && i < start+room; i++ {
		fl := f.fields[i]
		label := fl.label
		if fl.required {
			label += " *"
		}
		if i == f.idx {
			lines = append(lines, s.Focused.Render("▸ "+label))
		} else {
			lines = append(lines, s.Label.Render("  "+label))
		}
		val := "  " + f.valueView(s, fl, i == f.idx)
		aside := s.Muted.Render(fl.hint)
		if fl.err != "" {
			aside = s.FieldErr.Render("✗ " + textsafe.Line(fl.err))
		}
		lines = append(lines, ansi.Truncate(val+"   "+aside, max(1, w), "…"))
	}
	if pos := scrollPosition(start*per, room*per, len(f.fields)*per); pos != "" {
		lines = append(lines, s.Muted.Render("fields "+scrollPosition(start, room, len(f.fields))))
	}
	return strings.Join(lines, "\n")
}

func (f *form) valueView(s Styles, fl *formField, focused bool) string {
	switch fl.kind {
	case fieldBool:
		if fl.on {
			return s.Success.Render("[x] on")
		}
		return s.Muted.Render("[ ] off")
	case fieldChoice:
		return s.Value.Render("‹ " + fl.choice() + " ›")
	case fieldMulti:
		var opts []string
		for j, o := range fl.options {
			box := "[ ]"
			if fl.picks[o] {
				box = "[x]"
			}
			text := box + " " + o
			if focused && j == fl.pick {
				// › marks the option the cursor is on, with or
				// without colour.
				text = s.Selected.Render("›" + text)
			}
			opts = append(opts, text)
		}
		return strings.Join(opts, "  ")
	case fieldAction:
		return s.Value.Render(textsafe.Line(fl.summary))
	}
	if f.readOnly {
		v := fl.input.Value()
		if fl.kind == fieldSecret && !fl.reveal {
			v = strings.Repeat("•", len([]rune(v)))
		}
		if v == "" {
			v = fl.input.Placeholder
		}
		return s.Muted.Render(textsafe.Line(v))
	}
	return fl.input.View()
}
