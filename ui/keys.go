package ui

import "github.com/charmbracelet/bubbles/key"

// GlobalKeys are the keys of the shell.
type GlobalKeys struct {
	Batches, Playground, Destinations, Next key.Binding
	Help, Quit, ForceQuit                   key.Binding
}

// DefaultGlobalKeys returns the shell's key map.
func DefaultGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Batches:      key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "batches")),
		Playground:   key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "playground")),
		Destinations: key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "destinations")),
		Next:         key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:         key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

// BatchKeys are the batch view's keys.
type BatchKeys struct {
	Open, Refresh, Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Enter, Back, Filter, ErrorType, Search, Sort, RawJSON  key.Binding
	Reasoning, Logprobs, Export, Copy                      key.Binding
}

// DefaultBatchKeys returns the batch view's key map.
func DefaultBatchKeys() BatchKeys {
	return BatchKeys{
		Open:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open batch")),
		Refresh:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "poll now")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Enter:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "all/ok/failed")),
		ErrorType: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "error type")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search id")),
		Sort:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		RawJSON:   key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "raw JSON")),
		Reasoning: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "reasoning")),
		Logprobs:  key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "logprobs")),
		Export:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export JSONL")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy JSON")),
	}
}

// PlaygroundKeys are the playground's keys.
type PlaygroundKeys struct {
	Send, Newline, Stop, Settings, Model, NewChat key.Binding
	Copy, Save, ScrollUp, ScrollDown, Focus       key.Binding
	ToggleReasoning                               key.Binding
}

// DefaultPlaygroundKeys returns the playground's key map.
func DefaultPlaygroundKeys() PlaygroundKeys {
	return PlaygroundKeys{
		Send:            key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:         key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter/ctrl+j", "new line")),
		Stop:            key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop / leave")),
		Settings:        key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "settings")),
		Model:           key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "model")),
		NewChat:         key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new chat")),
		Copy:            key.NewBinding(key.WithKeys("ctrl+y"), key.WithHelp("ctrl+y", "copy answer")),
		Save:            key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save chat")),
		ScrollUp:        key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
		ScrollDown:      key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		Focus:           key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "edit prompt")),
		ToggleReasoning: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "reasoning")),
	}
}

// DestKeys are the destinations view's keys.
type DestKeys struct {
	Up, Down, Top, Bottom, Toggle, Edit, Workspace key.Binding
	Filter, Refresh                                key.Binding
	Confirm, Cancel, Save, NextField, PrevField    key.Binding
}

// DefaultDestKeys returns the destinations view's key map.
func DefaultDestKeys() DestKeys {
	return DestKeys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Toggle:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "enable/disable")),
		Edit:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit")),
		Workspace: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "workspace")),
		Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Refresh:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Confirm:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm")),
		Cancel:    key.NewBinding(key.WithKeys("esc", "n"), key.WithHelp("esc/n", "cancel")),
		Save:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "review & save")),
		NextField: key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		PrevField: key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field")),
	}
}
