package ui

// The playground's settings: a form built from the settings table
// (api.SettingsTable: each setting's name, kind, default, help, rule,
// request member and the models that support it), whose every value is
// checked as it is typed (all errors at once, each beside its field) and
// whose settings the chosen model does not list are flagged. Files (a
// schema, tools, canned tool results) are read by a command when their
// path is typed and each time the settings open, never in Update.

import (
	"errors"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// Settings field names used outside the table (tests, replay): the
// table's own names.
const (
	setInstructions = "instructions"
	setMaxOut       = "max_output_tokens"
	setTemperature  = "temperature"
	setMaxTools     = "max_tool_calls"
	setStream       = "stream"
	setFormat       = "text.format"
	setSchema       = "text.format.schema"
	setTools        = "tools"
	setToolResults  = "tool results"
	setOrder        = "provider.order"
	setOnly         = "provider.only"
	setFallbacks    = "provider.allow_fallbacks"
)

// requestSettings is the settings form and what its settings send beside
// the request, kept in step with the form each time it is checked.
type requestSettings struct {
	*widgets.Form
	// table is the settings the form shows (api.SettingsTable).
	table []api.Setting

	// Format is the response format sent (nil: plain text).
	Format *api.TextFormat
	// Tools are the function tools sent (to check and answer calls).
	Tools []api.FunctionTool
	// ToolResults are canned results by tool name (nil: the user
	// answers each call); ToolResultsFile is where they were read.
	ToolResults     map[string]string
	ToolResultsFile string

	// files are the file settings read by a command, by setting name.
	files map[string]settingFile
	// built is what the settings sent when last checked (in Update): the
	// model line draws its estimate and flags from it, changing nothing.
	built api.Settings
}

// settingFile is a file setting's content as last read (or why not).
type settingFile struct {
	path string
	data []byte
	err  error
}

// settingFileMsg is a file setting read off the UI loop.
type settingFileMsg struct {
	name string
	file settingFile
}

func newSettingsForm() *requestSettings { return newSettingsFrom(api.SettingsTable) }

// newSettingsFrom builds the form of a settings table: a field per row,
// of its kind, with its default and its help.
func newSettingsFrom(table []api.Setting) *requestSettings {
	fields := make([]*widgets.Field, 0, len(table))
	for _, st := range table {
		switch st.Kind {
		case api.SettingChoice:
			fields = append(fields, widgets.ChoiceField(st.Name, st.Label, st.Help, st.Options, st.Default))
		default:
			fields = append(fields, widgets.TextField(st.Name, st.Label, st.Help, st.Default))
		}
	}
	f := widgets.NewForm(fields...)
	f.Keys = DefaultSettingsKeys()
	ps := &requestSettings{Form: f, table: table, files: map[string]settingFile{}}
	ps.built, _ = api.ApplySettings(table, ps)
	return ps
}

// Value implements api.SettingValues.
func (ps *requestSettings) Value(name string) string {
	fl := ps.Field(name)
	switch {
	case fl == nil:
		return ""
	case fl.Kind == widgets.KindChoice:
		return fl.Choice()
	}
	return fl.Value()
}

// File implements api.SettingValues: the content read for the path the
// field holds now.
func (ps *requestSettings) File(name string) ([]byte, error) {
	f, ok := ps.files[name]
	if !ok || f.path != strings.TrimSpace(ps.Value(name)) {
		return nil, errors.New("is being read: try again in a moment")
	}
	return f.data, f.err
}

// readFiles reads the file settings whose path changed (all of them
// when again is set: the settings were opened and files may have
// changed on disk).
func (ps *requestSettings) readFiles(again bool) tea.Cmd {
	var cmds []tea.Cmd
	for _, st := range ps.table {
		v := strings.TrimSpace(ps.Value(st.Name))
		if st.Kind != api.SettingFile || v == "" || api.Pasted(v) {
			continue
		}
		if f, ok := ps.files[st.Name]; ok && f.path == v && !again {
			continue
		}
		name, limit := st.Name, st.MaxBytes
		cmds = append(cmds, func() tea.Msg {
			data, err := readBounded(v, limit)
			return settingFileMsg{name: name, file: settingFile{path: v, data: data, err: err}}
		})
	}
	return tea.Batch(cmds...)
}

// gotFile keeps a file read for its field, unless the path changed since.
func (ps *requestSettings) gotFile(msg settingFileMsg) bool {
	if strings.TrimSpace(ps.Value(msg.name)) != msg.file.path {
		return false
	}
	ps.files[msg.name] = msg.file
	return true
}

// applySettings fills req from the form (its input and model are kept).
// Every invalid field gets its error; the model's unsupported settings
// are flagged in their hints. It reports whether to stream, and every
// error.
func applySettings(ps *requestSettings, req *api.ResponseRequest, model *api.Model) (stream bool, errs []*api.ValidationError) {
	s, errs := api.ApplySettings(ps.table, ps)
	ps.built = s
	in, name := req.Input, req.Model
	*req = s.Request
	req.Input, req.Model = in, name
	ps.Format, ps.Tools, ps.ToolResults = s.Format(), s.Tools, s.ToolResults
	ps.ToolResultsFile = ""
	if s.ToolResults != nil {
		ps.ToolResultsFile = strings.TrimSpace(ps.Value(setToolResults))
	}
	ps.SetErrors(errs)
	ps.flagUnsupported(model)
	return s.Stream, errs
}

// inputChars is what the settings send as input tokens (the rows marked
// Input: the instructions, a schema, the tools), for the estimate.
func (ps *requestSettings) inputChars() int {
	n := 0
	for _, st := range ps.table {
		if !st.Input {
			continue
		}
		v := strings.TrimSpace(ps.Value(st.Name))
		if st.Kind == api.SettingFile && v != "" && !api.Pasted(v) {
			if f, ok := ps.files[st.Name]; ok && f.path == v {
				n += len(f.data)
			}
			continue
		}
		n += len(v)
	}
	return n
}

// flagUnsupported marks the settings the model does not list (the
// table's Params); they are still sent if the user insists (enter
// again), but never silently.
func (ps *requestSettings) flagUnsupported(model *api.Model) {
	for _, st := range ps.table {
		fl := ps.Field(st.Name)
		if fl == nil || st.Params == nil {
			continue
		}
		fl.Hint = strings.TrimSuffix(fl.Hint, unsupportedNote)
		if model == nil || model.SupportedParameters == nil || strings.TrimSpace(ps.Value(st.Name)) == st.Default {
			continue
		}
		supported := false
		for _, p := range st.Params {
			supported = supported || model.Supports(p)
		}
		if !supported {
			fl.Hint += unsupportedNote
		}
	}
}

const unsupportedNote = " · ⚠ not listed by this model"

// load puts a request's settings in the form (what the table can say
// back; a file path cannot be, so files are left empty).
func (ps *requestSettings) load(req api.ResponseRequest) {
	for _, st := range ps.table {
		fl := ps.Field(st.Name)
		if fl == nil || st.Load == nil {
			continue
		}
		ps.set(st.Name, st.Load(&req))
	}
	ps.built, _ = api.ApplySettings(ps.table, ps)
}

// set puts a value in a field: a choice picks the option (unknown ones
// are ignored), text is typed in (made one inert line).
func (ps *requestSettings) set(name, v string) {
	fl := ps.Field(name)
	if fl == nil {
		return
	}
	if fl.Kind == widgets.KindChoice {
		for i, o := range fl.Options {
			if o == v {
				fl.Pick = i
			}
		}
		return
	}
	fl.Input.SetValue(textsafe.Line(v))
}

// settingsMap is the settings that are set, for saving with a
// conversation.
func settingsMap(f *requestSettings) map[string]string {
	out := map[string]string{}
	for _, fl := range f.Fields {
		switch fl.Kind {
		case widgets.KindChoice:
			out[fl.Name] = fl.Choice()
		default:
			if v := strings.TrimSpace(fl.Value()); v != "" {
				out[fl.Name] = v
			}
		}
	}
	return out
}
