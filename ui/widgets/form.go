package widgets

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/styles"
)

// FieldKind is what a field holds and how it is edited.
type FieldKind int

const (
	KindText   FieldKind = iota
	KindSecret           // typed masked, revealed on request
	KindBool             // space toggles
	KindChoice           // ←/→ among options
	KindMulti            // ←/→ moves, space toggles an option
	KindAction           // enter opens an editor of its own (filter rules)
)

// Field is one row of a form: a label, a value of its kind, a hint
// and, beside the value, its error.
type Field struct {
	Name  string // the member it feeds, as errors name it
	Label string
	Hint  string
	Kind  FieldKind
	Input textinput.Model
	On    bool
	// Options of a choice (one picked) or a multi (a set picked); Pick is
	// the option under the cursor, Picks the set picked.
	Options []string
	Pick    int
	Picks   map[string]bool
	// Summary is what an action field shows.
	Summary string
	// Required fields are marked with "*".
	Required bool
	reveal   bool
	// Err is the field's error, shown beside it ("" when none).
	Err string
}

// TextField is a one-line text field holding value.
func TextField(name, label, hint, value string) *Field {
	f := &Field{Name: name, Label: label, Hint: hint, Kind: KindText, Input: NewInput("", "", 4096, value)}
	if f.Input.Value() != value {
		// The input cannot hold control characters: it shows the value
		// without them, and the form sends the field only if it is edited.
		f.Hint = "⚠ the server's value holds control characters (shown without them); kept unless you edit it"
	}
	return f
}

// SecretField is a text field typed masked (ctrl+r shows it).
func SecretField(name, label, hint string) *Field {
	f := &Field{Name: name, Label: label, Hint: hint, Kind: KindSecret, Input: NewInput("", "", 4096, "")}
	f.Input.EchoMode = textinput.EchoPassword
	f.Input.EchoCharacter = '•'
	return f
}

// BoolField is an on/off field.
func BoolField(name, label, hint string, on bool) *Field {
	return &Field{Name: name, Label: label, Hint: hint, Kind: KindBool, On: on}
}

// ChoiceField picks one of options, value first.
func ChoiceField(name, label, hint string, options []string, value string) *Field {
	f := &Field{Name: name, Label: label, Hint: hint, Kind: KindChoice, Options: options}
	for i, o := range options {
		if o == value {
			f.Pick = i
		}
	}
	return f
}

// MultiField picks a set of options, picked first.
func MultiField(name, label, hint string, options []string, picked []string) *Field {
	f := &Field{Name: name, Label: label, Hint: hint, Kind: KindMulti, Options: options, Picks: map[string]bool{}}
	for _, p := range picked {
		f.Picks[p] = true
	}
	return f
}

// Value is a text field's value.
func (f *Field) Value() string { return f.Input.Value() }

// Choice is a choice field's value.
func (f *Field) Choice() string {
	if f.Pick < len(f.Options) {
		return f.Options[f.Pick]
	}
	return ""
}

// Picked is a multi field's values, in option order.
func (f *Field) Picked() []string {
	var out []string
	for _, o := range f.Options {
		if f.Picks[o] {
			out = append(out, o)
		}
	}
	return out
}

// Form is a list of fields with one focused; it scrolls when taller than
// its room and shows every field's error at once.
type Form struct {
	Fields   []*Field
	Cursor   int // the focused field
	ReadOnly bool
	Keys     FormKeys
	// Base is each field's value when the form opened (or was last
	// kept), to tell an edited form from an untouched one.
	Base []string
}

// NewForm is a form of fields, the first focused.
func NewForm(fields ...*Field) *Form {
	f := &Form{Fields: fields, Keys: DefaultFormKeys()}
	f.Base = f.Snapshot()
	f.Focus()
	return f
}

// Current is the focused field (nil when none).
func (f *Form) Current() *Field {
	if f.Cursor < len(f.Fields) {
		return f.Fields[f.Cursor]
	}
	return nil
}

// Field is the field named name (nil when none).
func (f *Form) Field(name string) *Field {
	for _, fl := range f.Fields {
		if fl.Name == name {
			return fl
		}
	}
	return nil
}

// Snapshot is every field's value as text, in order.
func (f *Form) Snapshot() []string {
	out := make([]string, len(f.Fields))
	for i, fl := range f.Fields {
		switch fl.Kind {
		case KindBool:
			out[i] = format.OnOff(fl.On)
		case KindChoice:
			out[i] = fl.Choice()
		case KindMulti:
			out[i] = strings.Join(fl.Picked(), ",")
		case KindAction:
			out[i] = fl.Summary
		default:
			out[i] = fl.Input.Value()
		}
	}
	return out
}

// Reset puts every field back to its value when the form opened (or was
// last kept).
func (f *Form) Reset() {
	for i, fl := range f.Fields {
		if i >= len(f.Base) {
			break
		}
		b := f.Base[i]
		switch fl.Kind {
		case KindBool:
			fl.On = b == "on"
		case KindChoice:
			for j, o := range fl.Options {
				if o == b {
					fl.Pick = j
				}
			}
		case KindMulti:
			fl.Picks = map[string]bool{}
			for _, o := range strings.Split(b, ",") {
				if o != "" {
					fl.Picks[o] = true
				}
			}
		case KindAction:
			fl.Summary = b
		default:
			fl.Input.SetValue(b)
		}
	}
}

// Changed reports whether the named field differs from when the form
// opened.
func (f *Form) Changed(name string) bool {
	now := f.Snapshot()
	for i, fl := range f.Fields {
		if fl.Name == name {
			return now[i] != f.Base[i]
		}
	}
	return false
}

// Edited reports whether any field differs from when the form opened.
func (f *Form) Edited() bool {
	now := f.Snapshot()
	for i := range now {
		if now[i] != f.Base[i] {
			return true
		}
	}
	return false
}

// ErrorSummary names the fields in error (each error itself is shown
// beside its field) and moves the focus to the first of them.
func (f *Form) ErrorSummary() string {
	var names []string
	first := -1
	for i, fl := range f.Fields {
		if fl.Err != "" {
			names = append(names, fl.Label)
			if first < 0 {
				first = i
			}
		}
	}
	if first >= 0 {
		f.Cursor = first
		f.Focus()
	}
	return format.Plural(len(names), "field needs", "fields need") + " fixing (marked ✗): " + strings.Join(names, ", ")
}

// ChangeLine says how many fields differ from when the form opened.
func (f *Form) ChangeLine() string {
	now, n := f.Snapshot(), 0
	for i := range now {
		if now[i] != f.Base[i] {
			n++
		}
	}
	if n == 0 {
		return "no changes yet"
	}
	return format.Plural(n, "field", "fields") + " changed"
}

// Typing reports whether the focused field takes typed text.
func (f *Form) Typing() bool {
	c := f.Current()
	return c != nil && (c.Kind == KindText || c.Kind == KindSecret) && !f.ReadOnly
}

// Focus focuses the field at Cursor (when it takes text).
func (f *Form) Focus() {
	for i, fl := range f.Fields {
		if i == f.Cursor && (fl.Kind == KindText || fl.Kind == KindSecret) && !f.ReadOnly {
			fl.Input.Focus()
		} else {
			fl.Input.Blur()
		}
	}
}

// Move moves the focus by d fields, round.
func (f *Form) Move(d int) {
	if len(f.Fields) == 0 {
		return
	}
	f.Cursor = (f.Cursor + d + len(f.Fields)) % len(f.Fields)
	f.Focus()
}

// SetErrors puts every error beside its field (and clears the others);
// errors that name no field are returned.
func (f *Form) SetErrors(errs []*api.ValidationError) []*api.ValidationError {
	for _, fl := range f.Fields {
		fl.Err = ""
	}
	var rest []*api.ValidationError
	for _, e := range errs {
		fl := f.Field(e.Field)
		if fl == nil {
			// a sub-member (filter_rules.groups[0]...) lands on its field
			for _, x := range f.Fields {
				if strings.HasPrefix(e.Field, x.Name+".") || strings.HasPrefix(e.Field, x.Name+"[") {
					fl = x
					break
				}
			}
		}
		if fl == nil {
			rest = append(rest, e)
			continue
		}
		if fl.Err == "" {
			fl.Err = e.Rule
		}
	}
	return rest
}

// Key handles a key in the form. It reports what it did: moved or
// changed, or nothing (the caller may act on it).
func (f *Form) Key(msg tea.KeyMsg) (cmd tea.Cmd, changed, used bool) {
	fl := f.Current()
	if fl == nil {
		return nil, false, false
	}
	switch {
	case key.Matches(msg, f.Keys.Next):
		f.Move(1)
		return nil, false, true
	case key.Matches(msg, f.Keys.Prev):
		f.Move(-1)
		return nil, false, true
	case key.Matches(msg, f.Keys.Reveal) && fl.Kind == KindSecret:
		fl.reveal = !fl.reveal
		if fl.reveal {
			fl.Input.EchoMode = textinput.EchoNormal
		} else {
			fl.Input.EchoMode = textinput.EchoPassword
		}
		return nil, false, true
	}
	if f.ReadOnly {
		return nil, false, false
	}
	switch fl.Kind {
	case KindBool:
		if key.Matches(msg, f.Keys.Toggle) {
			fl.On = !fl.On
			return nil, true, true
		}
	case KindChoice:
		switch {
		case key.Matches(msg, f.Keys.Right), key.Matches(msg, f.Keys.Toggle):
			fl.Pick = (fl.Pick + 1) % max(1, len(fl.Options))
			return nil, true, true
		case key.Matches(msg, f.Keys.Left):
			fl.Pick = (fl.Pick + len(fl.Options) - 1) % max(1, len(fl.Options))
			return nil, true, true
		}
	case KindMulti:
		switch {
		case key.Matches(msg, f.Keys.Right):
			fl.Pick = (fl.Pick + 1) % max(1, len(fl.Options))
			return nil, false, true
		case key.Matches(msg, f.Keys.Left):
			fl.Pick = (fl.Pick + len(fl.Options) - 1) % max(1, len(fl.Options))
			return nil, false, true
		case key.Matches(msg, f.Keys.Toggle):
			o := fl.Options[fl.Pick]
			fl.Picks[o] = !fl.Picks[o]
			return nil, true, true
		}
	case KindText, KindSecret:
		before := fl.Input.Value()
		fl.Input, cmd = fl.Input.Update(msg)
		return cmd, fl.Input.Value() != before, true
	}
	return nil, false, false
}

// View draws the fields that fit in h lines: each field is its label
// (required ones marked), then its value with its error beside it, or its
// hint. The focused field is marked; a scroll position shows when the
// form is taller than its room.
func (f *Form) View(s styles.Styles, w, h int) string {
	const per = 2
	room := max(1, h/per)
	start := 0
	if len(f.Fields) > room {
		start = max(0, min(f.Cursor-room/2, len(f.Fields)-room))
	}
	var lines []string
	for i := start; i < len(f.Fields) && i < start+room; i++ {
		fl := f.Fields[i]
		label := fl.Label
		if fl.Required {
			label += " *"
		}
		if i == f.Cursor {
			lines = append(lines, s.Focused.Render("▸ "+label))
		} else {
			lines = append(lines, s.Label.Render("  "+label))
		}
		val := "  " + f.ValueView(s, fl, i == f.Cursor)
		aside := s.Muted.Render(fl.Hint)
		if fl.Err != "" {
			aside = s.FieldErr.Render("✗ " + textsafe.Line(fl.Err))
		}
		lines = append(lines, ansi.Truncate(val+"   "+aside, max(1, w), "…"))
	}
	if pos := ScrollPosition(start*per, room*per, len(f.Fields)*per); pos != "" {
		lines = append(lines, s.Muted.Render("fields "+ScrollPosition(start, room, len(f.Fields))))
	}
	return strings.Join(lines, "\n")
}

// ValueView draws a field's value.
func (f *Form) ValueView(s styles.Styles, fl *Field, focused bool) string {
	switch fl.Kind {
	case KindBool:
		if fl.On {
			return s.Success.Render("[x] on")
		}
		return s.Muted.Render("[ ] off")
	case KindChoice:
		return s.Value.Render("‹ " + fl.Choice() + " ›")
	case KindMulti:
		var opts []string
		for j, o := range fl.Options {
			box := "[ ]"
			if fl.Picks[o] {
				box = "[x]"
			}
			text := box + " " + o
			if focused && j == fl.Pick {
				// › marks the option the cursor is on, with or
				// without colour.
				text = s.Selected.Render("›" + text)
			}
			opts = append(opts, text)
		}
		return strings.Join(opts, "  ")
	case KindAction:
		return s.Value.Render(textsafe.Line(fl.Summary))
	}
	if f.ReadOnly {
		v := fl.Input.Value()
		if fl.Kind == KindSecret && !fl.reveal {
			v = strings.Repeat("•", len([]rune(v)))
		}
		if v == "" {
			v = fl.Input.Placeholder
		}
		return s.Muted.Render(textsafe.Line(v))
	}
	return fl.Input.View()
}
