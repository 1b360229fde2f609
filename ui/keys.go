package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/gwdash/gwdash/ui/widgets"
)

// Every component declares its keys once, in a KeyMap built by a Default…
// function. Update matches keys only through key.Matches on these
// bindings, and the help bar and the ? screen read the same bindings, so
// help cannot drift from what the keys do. The same key means the same
// thing everywhere: esc goes back, / filters, enter opens, tab and
// shift+tab move focus, space toggles, y/N confirm, r refreshes.
// The widgets' own keys (ListKeys, FilterKeys, InputKeys, ConfirmKeys,
// FormKeys, PathKeys) are in ui/widgets/keys.go; the maps here embed or
// adapt them.

func bind(keys []string, helpKey, desc string) key.Binding {
	return widgets.Bind(keys, helpKey, desc)
}

// GlobalKeys are the shell's keys (outside typing, but ctrl+c).
type GlobalKeys struct {
	Batches, Playground, Destinations key.Binding
	Logs                              key.Binding
	Help, Quit, ForceQuit, Dismiss    key.Binding
	// AnyHelp opens the help even while typing, where ? types.
	AnyHelp key.Binding
}

// DefaultGlobalKeys returns the shell's key map.
func DefaultGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Batches:      bind([]string{"1"}, "1", "batches"),
		Playground:   bind([]string{"2"}, "2", "playground"),
		Destinations: bind([]string{"3"}, "3", "destinations"),
		Logs:         bind([]string{"4"}, "4", "logs"),
		Help:         bind([]string{"?"}, "?", "all keys"),
		Quit:         bind([]string{"q"}, "q", "quit"),
		ForceQuit:    bind([]string{"ctrl+c"}, "ctrl+c", "quit (anywhere)"),
		Dismiss:      bind([]string{"x"}, "x", "dismiss error"),
		AnyHelp:      bind([]string{"f1"}, "f1", "all keys (also while typing)"),
	}
}

// ShortHelp implements help.KeyMap.
func (k GlobalKeys) ShortHelp() []key.Binding { return []key.Binding{k.Help, k.Quit} }

// FullHelp implements help.KeyMap.
func (k GlobalKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Batches, k.Playground, k.Destinations, k.Logs, k.Help, k.AnyHelp, k.Dismiss, k.Quit, k.ForceQuit}}
}

// HelpScreenKeys close and scroll the ? screen.
type HelpScreenKeys struct {
	widgets.ListKeys
	Close key.Binding
}

// DefaultHelpScreenKeys returns the help screen's keys.
func DefaultHelpScreenKeys() HelpScreenKeys {
	return HelpScreenKeys{ListKeys: widgets.DefaultListKeys(), Close: bind([]string{"?", "f1", "esc", "q"}, "?/esc", "close")}
}

// ShortHelp implements help.KeyMap.
func (k HelpScreenKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Close, bind([]string{"up", "down"}, "↑/↓", "scroll")}
}

// FullHelp implements help.KeyMap.
func (k HelpScreenKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Close, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}

// HomeKeys are the batches home's keys.
type HomeKeys struct {
	widgets.ListKeys
	Status, Sort, Delete, Submit key.Binding
	// FilterKeep is enter on the filter line: keep it, or open the id
	// typed there.
	FilterKeep key.Binding
	// Mark marks a batch for a diff (two at most), Diff compares the two
	// marked, Watch says when a batch ends (a terminal notification).
	Mark, Diff, Watch key.Binding
}

// DefaultHomeKeys returns the batches home's key map.
func DefaultHomeKeys() HomeKeys {
	l := widgets.DefaultListKeys()
	l.Filter = bind([]string{"/"}, "/", "filter, or type an id")
	return HomeKeys{ListKeys: l,
		Status:     bind([]string{"f"}, "f", "status: all/in flight/settled/failed/with failed requests"),
		Sort:       bind([]string{"o"}, "o", "order: created/status/cost"),
		Delete:     bind([]string{"d"}, "d", "delete (settled)"),
		Submit:     bind([]string{"s"}, "s", "submit a JSONL file"),
		FilterKeep: bind([]string{"enter"}, "enter", "keep (an id opens)"),
		Mark:       bind([]string{" "}, "space", "mark for a diff (two)"),
		Diff:       bind([]string{"D"}, "D", "diff the two marked"),
		Watch:      bind([]string{"n"}, "n", "notify when it ends"),
	}
}

// ShortHelp implements help.KeyMap.
func (k HomeKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Filter, k.Status, k.Submit, k.Delete}
}

// FullHelp implements help.KeyMap.
func (k HomeKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Open, k.Filter, k.Status, k.Sort, k.Refresh}, {k.Submit, k.Delete, k.Mark, k.Diff, k.Watch}}
}

// DiffKeys are the diff screen's keys (two batches compared).
type DiffKeys struct {
	widgets.ListKeys
	Show key.Binding
}

// DefaultDiffKeys returns the diff screen's key map.
func DefaultDiffKeys() DiffKeys {
	l := widgets.DefaultListKeys()
	l.Open = bind([]string{"enter"}, "enter", "answers side by side")
	l.Back = bind([]string{"esc"}, "esc", "back to all batches")
	return DiffKeys{ListKeys: l,
		Show: bind([]string{"f"}, "f", "show: differ/improved/regressed/changed/same/only in A/only in B/all"),
	}
}

// ShortHelp implements help.KeyMap.
func (k DiffKeys) ShortHelp() []key.Binding { return []key.Binding{k.Open, k.Show, k.Back} }

// FullHelp implements help.KeyMap.
func (k DiffKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Open, k.Show, k.Back}}
}

// DiffRowKeys are the keys of one row of a diff, side by side.
type DiffRowKeys struct {
	widgets.ListKeys
}

// DefaultDiffRowKeys returns the key map of a diff's row.
func DefaultDiffRowKeys() DiffRowKeys {
	l := widgets.DefaultListKeys()
	l.Back = bind([]string{"esc"}, "esc", "back to the rows")
	return DiffRowKeys{ListKeys: l}
}

// ShortHelp implements help.KeyMap.
func (k DiffRowKeys) ShortHelp() []key.Binding {
	return []key.Binding{bind([]string{"up", "down"}, "↑/↓", "scroll"), k.Back}
}

// FullHelp implements help.KeyMap.
func (k DiffRowKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.Nav(), {k.Back}} }

// BatchKeys are one batch's keys (its results table).
type BatchKeys struct {
	widgets.ListKeys
	Show, ErrorType, Sort, Export, Copy key.Binding
	// Watch says when the batch ends (a terminal notification).
	Watch key.Binding
	// Retry opens the retry of the failed rows; Effective toggles the
	// latest attempt of each row across the retries made here.
	Retry, Effective key.Binding
}

// DefaultBatchKeys returns the batch view's key map.
func DefaultBatchKeys() BatchKeys {
	l := widgets.DefaultListKeys()
	l.Open = bind([]string{"enter"}, "enter", "result detail")
	l.Back = bind([]string{"esc"}, "esc", "back to all batches")
	l.Refresh = bind([]string{"r"}, "r", "poll now")
	l.Filter = bind([]string{"/"}, "/", "search custom_id")
	return BatchKeys{ListKeys: l,
		Show:      bind([]string{"f"}, "f", "show: all/succeeded/failed"),
		ErrorType: bind([]string{"t"}, "t", "error type"),
		Sort:      bind([]string{"o"}, "o", "order: as sent/custom_id/tokens"),
		Export:    bind([]string{"e"}, "e", "export shown results"),
		Copy:      bind([]string{"y"}, "y", "copy result JSON"),
		Watch:     bind([]string{"n"}, "n", "notify when it ends"),
		Retry:     bind([]string{"R"}, "R", "retry failed rows"),
		Effective: bind([]string{"E"}, "E", "effective results (latest attempts)"),
	}
}

// ShortHelp implements help.KeyMap.
func (k BatchKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Filter, k.Show, k.Refresh, k.Back}
}

// FullHelp implements help.KeyMap.
func (k BatchKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Open, k.Filter, k.Show, k.ErrorType, k.Sort}, {k.Refresh, k.Export, k.Copy, k.Watch, k.Back}, {k.Retry, k.Effective}}
}

// RetryKeys are the retry dialog's keys: choose the error types, change
// the model, then y/N (default no).
type RetryKeys struct {
	Up, Down, Toggle, Model, Yes, No key.Binding
}

// DefaultRetryKeys returns the retry dialog's key map.
func DefaultRetryKeys() RetryKeys {
	return RetryKeys{
		Up:     bind([]string{"up", "k"}, "↑/k", "previous error type"),
		Down:   bind([]string{"down", "j"}, "↓/j", "next error type"),
		Toggle: bind([]string{" "}, "space", "retry this type or not"),
		Model:  bind([]string{"m"}, "m", "another model"),
		Yes:    bind([]string{"y", "Y"}, "y", "submit the retry"),
		No:     bind([]string{"n", "N", "esc"}, "N/esc", "cancel"),
	}
}

// ShortHelp implements help.KeyMap.
func (k RetryKeys) ShortHelp() []key.Binding { return []key.Binding{k.Toggle, k.Model, k.Yes, k.No} }

// FullHelp implements help.KeyMap.
func (k RetryKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Toggle}, {k.Model, k.Yes, k.No}}
}

// DetailKeys are a result detail's keys.
type DetailKeys struct {
	widgets.ListKeys
	Raw, Reasoning, Logprobs, Copy key.Binding
}

// DefaultDetailKeys returns the result detail's key map.
func DefaultDetailKeys() DetailKeys {
	l := widgets.DefaultListKeys()
	l.Back = bind([]string{"esc"}, "esc", "back to results")
	return DetailKeys{ListKeys: l,
		Raw:       bind([]string{"J"}, "J", "raw JSON"),
		Reasoning: bind([]string{"R"}, "R", "reasoning"),
		Logprobs:  bind([]string{"L"}, "L", "logprobs"),
		Copy:      bind([]string{"y"}, "y", "copy JSON"),
	}
}

// ShortHelp implements help.KeyMap.
func (k DetailKeys) ShortHelp() []key.Binding { return []key.Binding{k.Back, k.Raw, k.Copy} }

// FullHelp implements help.KeyMap.
func (k DetailKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Back, k.Raw, k.Reasoning, k.Logprobs, k.Copy}}
}

// WorkspaceKeys choose the destinations' workspace: a known one by
// tab/shift+tab, or a typed UUID.
type WorkspaceKeys struct{ Next, Prev, Accept, Cancel key.Binding }

// DefaultWorkspaceKeys returns the workspace chooser's keys.
func DefaultWorkspaceKeys() WorkspaceKeys {
	return WorkspaceKeys{
		Next:   bind([]string{"tab", "down"}, "tab/↓", "next known workspace"),
		Prev:   bind([]string{"shift+tab", "up"}, "shift+tab/↑", "previous known workspace"),
		Accept: bind([]string{"enter"}, "enter", "use workspace"),
		Cancel: bind([]string{"esc"}, "esc", "cancel"),
	}
}

// ShortHelp implements help.KeyMap.
func (k WorkspaceKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.Accept, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k WorkspaceKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// SubmitKeys are the submit dialog's keys.
type SubmitKeys struct {
	Up, Down, Complete, Left, Right, Check, Send, Cancel key.Binding
}

// DefaultSubmitKeys returns the submit dialog's key map.
func DefaultSubmitKeys() SubmitKeys {
	return SubmitKeys{
		Up:       bind([]string{"up", "shift+tab"}, "↑", "previous field"),
		Down:     bind([]string{"down"}, "↓", "next field"),
		Complete: bind([]string{"tab"}, "tab", "complete path / next"),
		Left:     bind([]string{"left"}, "←", "previous endpoint"),
		Right:    bind([]string{"right", " "}, "→/space", "next endpoint"),
		Check:    bind([]string{"enter"}, "enter", "check the file / next"),
		Send:     bind([]string{"ctrl+s"}, "ctrl+s", "submit"),
		Cancel:   bind([]string{"esc"}, "esc", "cancel"),
	}
}

// ShortHelp implements help.KeyMap.
func (k SubmitKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Check, k.Complete, k.Send, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k SubmitKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Complete, k.Left, k.Right}, {k.Check, k.Send, k.Cancel}}
}

// PlaygroundKeys are the playground's keys.
type PlaygroundKeys struct {
	Edit, Send, Newline, Stop, Leave               key.Binding
	Model, Settings, Compare, NewChat, Copy, Save  key.Binding
	Reasoning, ScrollUp, ScrollDown, Top, Bottom   key.Binding
	PageUp, PageDown, NextPane, PrevPane, EndEarly key.Binding
	// Providers opens the providers panel of the model.
	Providers key.Binding
	// AddTool opens the tool form from the settings.
	AddTool key.Binding
}

// DefaultPlaygroundKeys returns the playground's key map.
func DefaultPlaygroundKeys() PlaygroundKeys {
	return PlaygroundKeys{
		Edit:       bind([]string{"i", "enter"}, "i/enter", "type a prompt"),
		Send:       bind([]string{"enter"}, "enter", "send"),
		Newline:    bind([]string{"alt+enter", "ctrl+j"}, "alt+enter", "new line"),
		Stop:       bind([]string{"esc"}, "esc", "stop the answer"),
		Leave:      bind([]string{"esc"}, "esc", "stop typing"),
		Model:      bind([]string{"m"}, "m", "pick model"),
		Settings:   bind([]string{"s"}, "s", "settings"),
		AddTool:    bind([]string{"ctrl+t"}, "ctrl+t", "define a tool"),
		Compare:    bind([]string{"c"}, "c", "compare models"),
		NewChat:    bind([]string{"n"}, "n", "new chat"),
		Copy:       bind([]string{"y"}, "y", "copy answer"),
		Save:       bind([]string{"w"}, "w", "save as JSON"),
		Reasoning:  bind([]string{"R"}, "R", "fold reasoning"),
		ScrollUp:   bind([]string{"up", "k"}, "↑/k", "scroll up"),
		ScrollDown: bind([]string{"down", "j"}, "↓/j", "scroll down"),
		PageUp:     bind([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:   bind([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Top:        bind([]string{"home", "g"}, "g", "top"),
		Bottom:     bind([]string{"end", "G"}, "G", "end (follow)"),
		NextPane:   bind([]string{"tab"}, "tab", "next pane"),
		PrevPane:   bind([]string{"shift+tab"}, "shift+tab", "previous pane"),
		EndEarly:   bind([]string{"ctrl+x"}, "ctrl+x", "leave compare"),
		Providers:  bind([]string{"p"}, "p", "providers"),
	}
}

// PickerKeys are the model picker's keys (typing filters).
type PickerKeys struct{ Up, Down, Choose, Mark, Cancel, Refresh, Providers key.Binding }

// DefaultPickerKeys returns the picker's key map.
func DefaultPickerKeys() PickerKeys {
	return PickerKeys{
		Up:      bind([]string{"up", "ctrl+p"}, "↑", "up"),
		Down:    bind([]string{"down", "ctrl+n"}, "↓", "down"),
		Choose:  bind([]string{"enter"}, "enter", "choose"),
		Mark:    bind([]string{"tab"}, "tab", "mark for compare"),
		Cancel:  bind([]string{"esc"}, "esc", "cancel"),
		Refresh: bind([]string{"ctrl+r"}, "ctrl+r", "reload catalogue"),
		// Letters type the filter: the providers panel is a ctrl key.
		Providers: bind([]string{"ctrl+o"}, "ctrl+o", "providers"),
	}
}

// ShortHelp implements help.KeyMap.
func (k PickerKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Choose, k.Mark, k.Cancel, k.Providers}
}

// FullHelp implements help.KeyMap.
func (k PickerKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Choose, k.Mark, k.Cancel, k.Refresh, k.Providers}}
}

// ProvidersKeys are the providers panel's keys: the list's moves, marking
// providers in order, sorting, and what the marks are for.
type ProvidersKeys struct {
	widgets.ListKeys
	Mark, Sort, Reverse, Order, Race, Clear, Reload, Close key.Binding
}

// DefaultProvidersKeys returns the providers panel's key map.
func DefaultProvidersKeys() ProvidersKeys {
	return ProvidersKeys{
		ListKeys: widgets.DefaultListKeys(),
		Mark:     bind([]string{" "}, "space", "mark in order"),
		Sort:     bind([]string{"s"}, "s", "sort by next column"),
		Reverse:  bind([]string{"S"}, "S", "reverse the sort"),
		Order:    bind([]string{"enter"}, "enter", "use the marked order"),
		Race:     bind([]string{"c"}, "c", "race the marked providers"),
		Clear:    bind([]string{"u"}, "u", "unmark all"),
		Reload:   bind([]string{"ctrl+r"}, "ctrl+r", "read again"),
		Close:    bind([]string{"esc"}, "esc", "close"),
	}
}

// ShortHelp implements help.KeyMap.
func (k ProvidersKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Mark, k.Order, k.Race, k.Sort, k.Close}
}

// FullHelp implements help.KeyMap.
func (k ProvidersKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Mark, k.Clear, k.Order, k.Race}, {k.Sort, k.Reverse, k.Reload, k.Close}}
}

// DefaultToolFormKeys are the tool form's keys: a form's, where ctrl+s
// adds the tool to the settings.
func DefaultToolFormKeys() widgets.FormKeys {
	k := widgets.DefaultFormKeys()
	k.Save = bind([]string{"ctrl+s"}, "ctrl+s", "add the tool")
	return k
}

// DefaultSettingsKeys returns the playground settings' key map: a form
// whose ctrl+s keeps the settings (only when every field is valid).
func DefaultSettingsKeys() widgets.FormKeys {
	k := widgets.DefaultFormKeys()
	k.Save = bind([]string{"ctrl+s"}, "ctrl+s", "keep settings")
	k.Back = bind([]string{"esc"}, "esc", "close (asks if changed)")
	// The settings hold no secret and no rules: ctrl+r and enter do
	// nothing there, so they are neither matched nor listed.
	k.Reveal.SetEnabled(false)
	k.Open.SetEnabled(false)
	return k
}

// DestKeys are the destinations list's keys.
type DestKeys struct {
	widgets.ListKeys
	Toggle, Edit, New, Delete, Workspace key.Binding
	// FilterKeep is enter on the filter line: keep it, or open the one
	// match (as in the batches home).
	FilterKeep key.Binding
}

// DefaultDestKeys returns the destinations list's key map.
func DefaultDestKeys() DestKeys {
	l := widgets.DefaultListKeys()
	l.Open = bind([]string{"enter"}, "enter", "edit")
	return DestKeys{ListKeys: l,
		Toggle:     bind([]string{" "}, "space", "enable/disable"),
		Edit:       l.Open,
		New:        bind([]string{"n"}, "n", "new destination"),
		Delete:     bind([]string{"D"}, "D", "delete (type its name)"),
		Workspace:  bind([]string{"w"}, "w", "workspace"),
		FilterKeep: bind([]string{"enter"}, "enter", "keep (one match opens)"),
	}
}

// readOnly is the list's keys in a read-only session: enter opens a
// destination to read, not to edit.
func (k DestKeys) readOnly() DestKeys {
	k.Open = bind([]string{"enter"}, "enter", "view")
	k.Edit = k.Open
	return k
}

// ShortHelp implements help.KeyMap.
func (k DestKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Toggle, k.Edit, k.New, k.Filter}
}

// FullHelp implements help.KeyMap.
func (k DestKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Toggle, k.Edit, k.New, k.Delete}, {k.Filter, k.Workspace, k.Refresh}}
}

// TypeKeys are the type picker's keys.
type TypeKeys struct {
	widgets.ListKeys
	Choose key.Binding
}

// DefaultTypeKeys returns the type picker's keys.
func DefaultTypeKeys() TypeKeys {
	return TypeKeys{ListKeys: widgets.DefaultListKeys(), Choose: bind([]string{"enter"}, "enter", "choose")}
}

// ShortHelp implements help.KeyMap.
func (k TypeKeys) ShortHelp() []key.Binding { return []key.Binding{k.Choose, k.Back} }

// FullHelp implements help.KeyMap.
func (k TypeKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.Nav(), {k.Choose, k.Back}}
}

// ReviewKeys are the review screen's keys (and the conflict choices).
type ReviewKeys struct{ Send, OnTop, Reload, Back key.Binding }

// DefaultReviewKeys returns the review screen's key map.
func DefaultReviewKeys() ReviewKeys {
	return ReviewKeys{
		Send:   bind([]string{"y"}, "y", "send"),
		OnTop:  bind([]string{"a"}, "a", "apply mine on top"),
		Reload: bind([]string{"l"}, "l", "reload theirs (drop mine)"),
		Back:   bind([]string{"esc", "n", "N"}, "esc", "back to the form"),
	}
}

// RulesKeys are the filter-rules editor's keys.
type RulesKeys struct {
	Up, Down, NextCol, PrevCol, Change, Prev key.Binding
	AddRule, AddGroup, Delete, Enable, Clear key.Binding
	Done                                     key.Binding
}

// DefaultRulesKeys returns the rules editor's key map.
func DefaultRulesKeys() RulesKeys {
	return RulesKeys{
		Up:       bind([]string{"up"}, "↑", "previous rule"),
		Down:     bind([]string{"down"}, "↓", "next rule"),
		NextCol:  bind([]string{"tab"}, "tab", "field/operator/value"),
		PrevCol:  bind([]string{"shift+tab"}, "shift+tab", "back a column"),
		Change:   bind([]string{"right", " "}, "→/space", "next choice"),
		Prev:     bind([]string{"left"}, "←", "previous choice"),
		AddRule:  bind([]string{"ctrl+n"}, "ctrl+n", "add rule"),
		AddGroup: bind([]string{"ctrl+g"}, "ctrl+g", "add group"),
		Delete:   bind([]string{"ctrl+d"}, "ctrl+d", "delete rule/group"),
		Enable:   bind([]string{"ctrl+e"}, "ctrl+e", "enable/disable set"),
		Clear:    bind([]string{"ctrl+x"}, "ctrl+x", "clear to null"),
		Done:     bind([]string{"esc"}, "esc", "done"),
	}
}

// ShortHelp implements help.KeyMap.
func (k RulesKeys) ShortHelp() []key.Binding { return []key.Binding{k.NextCol, k.AddRule, k.Done} }

// FullHelp implements help.KeyMap.
func (k RulesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.NextCol, k.PrevCol, k.Change, k.Prev}, {k.AddRule, k.AddGroup, k.Delete, k.Enable, k.Clear, k.Done}}
}

// keyMap is a help.KeyMap made of given rows (a component whose keys
// depend on its state builds one).
type keyMap struct {
	short []key.Binding
	full  [][]key.Binding
}

func (k keyMap) ShortHelp() []key.Binding  { return k.short }
func (k keyMap) FullHelp() [][]key.Binding { return k.full }

// LogsKeys are the Logs view's keys: the list's, and what a logged
// request can do (r, c and y act on the selected row, or the one open).
type LogsKeys struct {
	List                                widgets.ListKeys
	Replay, Rerace, Curl, Reload, Spend key.Binding
	// SpendClose closes the spend panel.
	SpendClose key.Binding
}

// DefaultLogsKeys returns the Logs view's key map.
func DefaultLogsKeys() LogsKeys {
	l := widgets.DefaultListKeys()
	l.Filter = bind([]string{"/"}, "/", "search")
	return LogsKeys{
		List:       l,
		Replay:     bind([]string{"r"}, "r", "reopen in the playground"),
		Rerace:     bind([]string{"c"}, "c", "re-race in compare mode"),
		Curl:       bind([]string{"y"}, "y", "copy as curl"),
		Reload:     bind([]string{"R"}, "R", "reload"),
		Spend:      bind([]string{"$"}, "$", "spend panel"),
		SpendClose: bind([]string{"$", "esc"}, "$/esc", "close the spend panel"),
	}
}

// ShortHelp implements help.KeyMap.
func (k LogsKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.List.Open, k.List.Filter, k.Replay, k.Rerace, k.Curl, k.Spend}
}

// FullHelp implements help.KeyMap.
func (k LogsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.List.Nav(), {k.List.Open, k.List.Back, k.List.Filter, k.Reload, k.Spend}, {k.Replay, k.Rerace, k.Curl}}
}

// ToolAnswerKeys answer the model's function calls in the playground: a
// opens the input in the prompt's place, enter keeps the typed result,
// ctrl+o reads the result from a file.
type ToolAnswerKeys struct{ Open, Send, Newline, File, Cancel key.Binding }

// DefaultToolAnswerKeys returns the call answer's key map.
func DefaultToolAnswerKeys() ToolAnswerKeys {
	return ToolAnswerKeys{
		Open:    bind([]string{"a"}, "a", "answer the tool calls"),
		Send:    bind([]string{"enter"}, "enter", "send the result"),
		Newline: bind([]string{"alt+enter", "ctrl+j"}, "alt+enter", "new line"),
		File:    bind([]string{"ctrl+o"}, "ctrl+o", "result from a file"),
		Cancel:  bind([]string{"esc"}, "esc", "close (asks if typed)"),
	}
}

// ShortHelp implements help.KeyMap.
func (k ToolAnswerKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.File, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k ToolAnswerKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
