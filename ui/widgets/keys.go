package widgets

import "github.com/charmbracelet/bubbles/key"

// Each widget declares its keys once, in a KeyMap built by a Default…
// function: its Update matches keys only through key.Matches on these
// bindings, and help reads the same bindings. The dashboard's screens
// embed or adapt them (ui/keys.go) and never declare a widget's keys
// again.

// Bind is a binding with its help: the keys, the key shown and what it
// does.
func Bind(keys []string, helpKey, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

// ListKeys move through any list or table, and are shared by all of them.
type ListKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open, Back, Filter, Refresh             key.Binding
}

// DefaultListKeys returns the shared list keys.
func DefaultListKeys() ListKeys {
	return ListKeys{
		Up:       Bind([]string{"up", "k"}, "↑/k", "up"),
		Down:     Bind([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   Bind([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown: Bind([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Top:      Bind([]string{"home", "g"}, "g", "top"),
		Bottom:   Bind([]string{"end", "G"}, "G", "bottom"),
		Open:     Bind([]string{"enter"}, "enter", "open"),
		Back:     Bind([]string{"esc"}, "esc", "back"),
		Filter:   Bind([]string{"/"}, "/", "filter"),
		Refresh:  Bind([]string{"r"}, "r", "refresh"),
	}
}

// Nav is the moves of a list (ListNav.Key), for a help row.
func (k ListKeys) Nav() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// FilterKeys are the keys of a filter line while it is typed.
type FilterKeys struct{ Keep, Clear key.Binding }

// DefaultFilterKeys returns the filter line's keys.
func DefaultFilterKeys() FilterKeys {
	return FilterKeys{
		Keep:  Bind([]string{"enter"}, "enter", "keep filter"),
		Clear: Bind([]string{"esc"}, "esc", "clear filter"),
	}
}

// ShortHelp implements help.KeyMap.
func (k FilterKeys) ShortHelp() []key.Binding { return []key.Binding{k.Keep, k.Clear} }

// FullHelp implements help.KeyMap.
func (k FilterKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// ConfirmKeys answer a y/N question; N, n and esc all say no.
type ConfirmKeys struct{ Yes, No key.Binding }

// DefaultConfirmKeys returns the confirm prompt's keys.
func DefaultConfirmKeys() ConfirmKeys {
	return ConfirmKeys{
		Yes: Bind([]string{"y", "Y"}, "y", "yes"),
		No:  Bind([]string{"n", "N", "esc"}, "N/esc", "no"),
	}
}

// ShortHelp implements help.KeyMap.
func (k ConfirmKeys) ShortHelp() []key.Binding { return []key.Binding{k.Yes, k.No} }

// FullHelp implements help.KeyMap.
func (k ConfirmKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// InputKeys end a one-line input: enter accepts, esc cancels.
type InputKeys struct{ Accept, Cancel key.Binding }

// DefaultInputKeys returns an input's keys; accept says what enter does.
func DefaultInputKeys(accept string) InputKeys {
	return InputKeys{
		Accept: Bind([]string{"enter"}, "enter", accept),
		Cancel: Bind([]string{"esc"}, "esc", "cancel"),
	}
}

// ShortHelp implements help.KeyMap.
func (k InputKeys) ShortHelp() []key.Binding { return []key.Binding{k.Accept, k.Cancel} }

// FullHelp implements help.KeyMap.
func (k InputKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// PathKeys are the keys of a path input (export, save, submit).
type PathKeys struct{ Accept, Complete, Cancel key.Binding }

// DefaultPathKeys returns the path input's keys.
func DefaultPathKeys() PathKeys {
	return PathKeys{
		Accept:   Bind([]string{"enter"}, "enter", "accept"),
		Complete: Bind([]string{"tab"}, "tab", "complete path"),
		Cancel:   Bind([]string{"esc"}, "esc", "cancel"),
	}
}

// ShortHelp implements help.KeyMap.
func (k PathKeys) ShortHelp() []key.Binding { return []key.Binding{k.Accept, k.Complete, k.Cancel} }

// FullHelp implements help.KeyMap.
func (k PathKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// FormKeys are the keys of every form (settings, destination edit and
// create, the tool form).
type FormKeys struct {
	Next, Prev, Toggle, Left, Right key.Binding
	Save, Reveal, Open, Back        key.Binding
}

// DefaultFormKeys returns the forms' key map.
func DefaultFormKeys() FormKeys {
	return FormKeys{
		Next:   Bind([]string{"tab", "down"}, "tab/↓", "next field"),
		Prev:   Bind([]string{"shift+tab", "up"}, "shift+tab/↑", "previous field"),
		Toggle: Bind([]string{" "}, "space", "toggle"),
		Left:   Bind([]string{"left"}, "←", "previous choice"),
		Right:  Bind([]string{"right"}, "→", "next choice"),
		Save:   Bind([]string{"ctrl+s"}, "ctrl+s", "review & save"),
		Reveal: Bind([]string{"ctrl+r"}, "ctrl+r", "show/hide secret"),
		Open:   Bind([]string{"enter"}, "enter", "edit rules"),
		Back:   Bind([]string{"esc"}, "esc", "close (asks if edited)"),
	}
}

// ShortHelp implements help.KeyMap.
func (k FormKeys) ShortHelp() []key.Binding { return []key.Binding{k.Next, k.Toggle, k.Save, k.Back} }

// FullHelp implements help.KeyMap.
func (k FormKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Next, k.Prev, k.Toggle, k.Left, k.Right}, {k.Save, k.Reveal, k.Open, k.Back}}
}
