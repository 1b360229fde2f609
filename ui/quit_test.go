package ui

// No lost work: q never quits from inside a form, a field, a dialog or a
// picker; leaving with work kept nowhere asks first, once; a second
// ctrl+c quits.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/ui/widgets"
)

func oneDest() *fakeClient {
	name := "one"
	d := api.Destination{ID: "11111111-2222-4333-8444-555555555555", Name: &name, Type: "webhook", Enabled: true, Regions: []string{"global"}, SamplingRate: 1,
		Config: map[string]any{"url": "https://h.example/x"}}
	return &fakeClient{dests: []api.Destination{d}}
}

func ctrlC() tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyCtrlC} }

func TestQDoesNotQuitFromTheDestinationEditorOnACheckbox(t *testing.T) {
	m := stateModel(t, oneDest(), Options{View: "destinations"}, 140, 50)
	m = drive(m, keyMsg("enter"))
	e := destOf(m).editor()
	for e.form.Current().Kind != widgets.KindBool {
		m = drive(m, keyMsg("tab"))
	}
	m = drive(m, keyMsg("space")) // an edit
	m = drive(m, keyMsg("q"))
	if m.quitting || destOf(m).editor() == nil {
		t.Fatal("q quit from the editor with focus on a checkbox")
	}
	if !strings.Contains(m.notice, "q does nothing here") {
		t.Fatalf("q in a form says why it does nothing: %q", m.notice)
	}
	// The type picker is a dialog too.
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("y"))
	m = drive(m, keyMsg("n"))
	m = drive(m, keyMsg("q"))
	if m.quitting || destOf(m).types() == nil {
		t.Fatal("q quit from the type picker")
	}
}

func TestQDoesNotQuitFromTheSubmitFormOnItsNavigation(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{}, 120, 40)
	m = drive(m, keyMsg("s"))
	home := homeOf(m)
	if home.submitting() == nil {
		t.Fatal("s opens the submit form")
	}
	m = drive(m, keyMsg("down"))
	if home.submitting().row != submitEndpoint {
		t.Fatalf("focus on the endpoint row, got %d", home.submitting().row)
	}
	m = drive(m, keyMsg("q"))
	if m.quitting || home.submitting() == nil {
		t.Fatal("q quit from the submit form's endpoint row")
	}
}

// esc on a filled-in submit form asks before the form goes; an empty one
// closes at once.
func TestEscOnAFilledSubmitFormAsks(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{}, 120, 40)
	for _, k := range []string{"s", "b", "esc"} {
		m = drive(m, keyMsg(k))
	}
	home := homeOf(m)
	if home.submitting() == nil || !strings.Contains(viewOf(m), "discard this batch? It is not submitted") {
		t.Fatalf("esc threw the typed path away:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("n"))
	if d := home.submitting(); d == nil || d.path.Input.Value() != "b" || d.sub.open() {
		t.Fatal("n keeps the form as typed")
	}
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("y"))
	if home.submitting() != nil || !strings.Contains(m.notice, "nothing submitted") {
		t.Fatalf("y discards: %q", m.notice)
	}
	m = drive(m, keyMsg("s"))
	m = drive(m, keyMsg("esc"))
	if home.submitting() != nil {
		t.Fatal("esc on an untouched form closes it")
	}
}

// Filter rules given to a new destination are edits: esc asks before they
// go, and quitting names them.
func TestEscOnANewDestinationWithRulesAsks(t *testing.T) {
	m := stateModel(t, oneDest(), Options{View: "destinations"}, 140, 50)
	m = drive(m, keyMsg("n"))
	m = drive(m, keyMsg("enter")) // the first type
	e := destOf(m).editor()
	if e == nil || e.kind != editCreate {
		t.Fatal("n and enter open a create form")
	}
	e.rulesValue = &api.FilterRules{Enabled: true, Groups: []api.FilterGroup{{Logic: "and", Rules: []api.FilterRule{{Field: "model", Operator: "starts_with", Value: "openai/"}}}}}
	if destOf(m).Unsaved() == "" {
		t.Fatal("quitting would not name the rules given")
	}
	m = drive(m, keyMsg("esc"))
	if destOf(m).editor() == nil || !strings.Contains(viewOf(m), "discard your edits?") {
		t.Fatalf("esc dropped the rules without asking:\n%s", viewOf(m))
	}
}

func TestQuitWithAnEditedFormAsksOnceAndASecondCtrlCQuits(t *testing.T) {
	m := stateModel(t, oneDest(), Options{View: "destinations"}, 140, 50)
	m = drive(m, keyMsg("enter"))
	for _, r := range "x" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, ctrlC())
	if m.quitting || m.quitAsk == nil || !strings.Contains(viewOf(m), "quit and lose it?") || !strings.Contains(viewOf(m), "edits to 'one' not saved") {
		t.Fatalf("ctrl+c with an edited form must ask:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("n"))
	if m.quitting || m.quitAsk != nil || destOf(m).editor().form.Field("name").Value() != "onex" {
		t.Fatal("n keeps the work and the dashboard")
	}
	m = drive(m, ctrlC())
	m = drive(m, ctrlC())
	if !m.quitting {
		t.Fatal("a second ctrl+c quits")
	}
	// Without edits, ctrl+c quits at once.
	m = stateModel(t, oneDest(), Options{View: "destinations"}, 140, 50)
	m = drive(m, ctrlC())
	if !m.quitting {
		t.Fatal("nothing to lose: ctrl+c quits at once")
	}
}

func TestQuitWithAnUnsavedAnswerAsksAndYQuits(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{View: "playground"}, 120, 40)
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("h"))
	m = drive(m, keyMsg("enter"))
	if lastTurn(m) == nil {
		t.Fatal("no answer")
	}
	// A new conversation asks first, too.
	m = drive(m, keyMsg("n"))
	if !asking(playOf(m)) || !strings.Contains(viewOf(m), "start a new chat? 1 answer is not saved") {
		t.Fatalf("n with an answer kept nowhere must ask:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("n"))
	if len(playOf(m).turns) != 1 {
		t.Fatal("n (no) keeps the conversation")
	}
	m = drive(m, keyMsg("q"))
	if m.quitting || !strings.Contains(viewOf(m), "1 answer is not saved") {
		t.Fatalf("q with an answer kept nowhere must ask:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("y"))
	if !m.quitting {
		t.Fatal("y quits")
	}
}

func TestSavedAnswersQuitAtOnce(t *testing.T) {
	dir := t.TempDir()
	m := stateModel(t, fakeBatches(), Options{View: "playground", ExportDir: dir}, 120, 40)
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("h"))
	m = drive(m, keyMsg("enter"))
	m = drive(m, keyMsg("w"))
	m = drive(m, keyMsg("enter"))
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != 1 {
		t.Fatalf("saved: %v", files)
	}
	if s := playOf(m).Unsaved(); s != "" {
		t.Fatalf("a saved answer is kept: %q", s)
	}
	m = drive(m, keyMsg("q"))
	if !m.quitting {
		t.Fatal("q quits when everything is saved")
	}
	_ = os.RemoveAll(dir)
}

func TestNewCompareOverUnsavedComparedAnswersAsks(t *testing.T) {
	fc := fakeBatches()
	m := stateModel(t, fc, Options{View: "playground"}, 160, 50)
	p := playOf(m)
	p.startCompare([]string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4"})
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("h"))
	m = drive(m, keyMsg("enter"))
	if !p.unsavedCompared() {
		t.Fatal("the compared answers are kept nowhere")
	}
	first := p.cmp.panes[0].turn
	// A new compare asks; N keeps the answers.
	m = drive(m, keyMsg("c"))
	if !asking(p) || !strings.Contains(viewOf(m), "start a new compare?") {
		t.Fatalf("c over unsaved compared answers must ask:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("n"))
	if p.picker() != nil || p.cmp.panes[0].turn != first {
		t.Fatal("n keeps the compared answers")
	}
	// A new prompt over them asks too.
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("k"))
	m = drive(m, keyMsg("enter"))
	if !asking(p) || p.cmp.panes[0].turn != first {
		t.Fatal("a new prompt over unsaved compared answers must ask first")
	}
	if drive(m, keyMsg("y")); p.cmp.panes[0].turn == first {
		t.Fatal("y sends the new prompt")
	}
}

func TestRefusedSubmitFocusesTheWrongField(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{}, 120, 40)
	m = drive(m, keyMsg("s"))
	d := homeOf(m).submitting()
	// enter on an empty path: refused at once, the focus stays on it.
	m = drive(m, keyMsg("enter"))
	if d.row != submitPath || d.fieldErr[submitPath] == "" {
		t.Fatalf("an empty path keeps the focus: row %d errs %v", d.row, d.fieldErr)
	}
	// A file with problems: the focus goes back to the path.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"custom_id\":\"a\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.path.Input.SetValue(bad)
	m = drive(m, keyMsg("enter"))
	if d.checked == nil || len(d.checked.errs) == 0 || d.row != submitPath {
		t.Fatalf("a file with problems: the focus goes to the path, got row %d", d.row)
	}
	// A good file and a bad model: ctrl+s focuses the model.
	good := filepath.Join(t.TempDir(), "good.jsonl")
	if err := os.WriteFile(good, []byte("{\"custom_id\":\"a\",\"body\":{}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.path.Input.SetValue(good)
	m = drive(m, keyMsg("enter"))
	d.model.SetValue("no-slash")
	m = drive(m, keyMsg("up"))
	m = drive(m, keyMsg("up")) // back on the path
	if drive(m, keyMsg("ctrl+s")); d.row != submitModel || d.fieldErr[submitModel] == "" {
		t.Fatalf("a refused submit focuses the model: row %d errs %v", d.row, d.fieldErr)
	}
}

func TestPlaygroundSettingsKeepOnlyValidAndEscAsks(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{View: "playground"}, 140, 60)
	p := playOf(m)
	m = drive(m, keyMsg("s"))
	if !inSettings(p) {
		t.Fatal("s opens the settings")
	}
	// q on a choice field (not a text field) does not quit.
	for p.settings.Current().Kind != widgets.KindChoice {
		m = drive(m, keyMsg("tab"))
	}
	if m = drive(m, keyMsg("q")); m.quitting || !inSettings(p) {
		t.Fatal("q quit from the settings on a choice field")
	}
	p.settings.Field(setMaxOut).Input.SetValue("zero")
	p.settings.Field(setTemperature).Input.SetValue("5")
	m = drive(m, keyMsg("ctrl+s"))
	if !inSettings(p) {
		t.Fatal("ctrl+s kept invalid settings")
	}
	if p.settings.Field(setTemperature).Err == "" || p.settings.Field(setMaxOut).Err == "" {
		t.Fatalf("every error at once: temperature %q, max output %q", p.settings.Field(setTemperature).Err, p.settings.Field(setMaxOut).Err)
	}
	if p.settings.Current().Name != setMaxOut || !strings.Contains(m.errText, "temperature") {
		t.Fatalf("focus on the first error, and the status names both: %q", m.errText)
	}
	// esc with changes asks; y puts them back.
	m = drive(m, keyMsg("esc"))
	if !asking(p) || !strings.Contains(viewOf(m), "discard the changed settings?") {
		t.Fatalf("esc with changes must ask:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("y"))
	if p.mode != playNav || p.settings.Field(setTemperature).Value() != "" {
		t.Fatalf("y discards: mode %d temperature %q", p.mode, p.settings.Field(setTemperature).Value())
	}
	// Valid changes are kept by ctrl+s; esc after that does not ask.
	m = drive(m, keyMsg("s"))
	p.settings.Field(setTemperature).Input.SetValue("0.5")
	m = drive(m, keyMsg("ctrl+s"))
	if p.mode != playNav || p.settings.Field(setTemperature).Value() != "0.5" {
		t.Fatal("ctrl+s keeps valid settings")
	}
	m = drive(m, keyMsg("s"))
	m = drive(m, keyMsg("esc"))
	if asking(p) || p.mode != playNav {
		t.Fatal("esc without changes closes at once")
	}
}

func TestReadOnlyRefusesEveryWriteFromTheDashboard(t *testing.T) {
	fc := fakeBatches()
	fc.dests = oneDest().dests
	m := stateModel(t, fc, Options{ReadOnly: true}, 140, 40)
	// The home: batch-done is settled; D and s are refused with the reason.
	for homeOf(m).selected().b.ID != "batch-done" {
		m = drive(m, keyMsg("down"))
	}
	m = drive(m, keyMsg("d"))
	if homeOf(m).stack.open() || !strings.Contains(m.notice, "read-only: deleting a batch is disabled") {
		t.Fatalf("delete in read-only: %q", m.notice)
	}
	m = drive(m, keyMsg("s"))
	if homeOf(m).submitting() != nil || !strings.Contains(m.notice, "read-only: submitting a batch is disabled") {
		t.Fatalf("submit in read-only: %q", m.notice)
	}
	// Destinations: create, toggle and delete, each with its reason.
	m = drive(m, keyMsg("3"))
	for k, what := range map[string]string{"n": "creating a destination", "space": "enabling or disabling", "D": "deleting a destination"} {
		m = drive(m, keyMsg(k))
		if !strings.Contains(m.notice, "read-only: "+what) || destOf(m).Dialog() {
			t.Fatalf("%s in read-only: %q", k, m.notice)
		}
	}
	// And the client the views hold refuses every write anyway.
	if _, err := m.c.client.SubmitBatch(m.c.ctx, "/v1/responses", "a/b", nil); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("the client of a read-only session sends writes: %v", err)
	}
	if err := m.c.client.DeleteDestination(m.c.ctx, "x"); err == nil {
		t.Fatal("the client of a read-only session deletes")
	}
	for _, c := range fc.calls {
		switch c {
		case "SubmitBatch", "DeleteBatch", "CreateDestination", "UpdateDestination", "DeleteDestination":
			t.Fatalf("a write reached the client: %v", fc.calls)
		}
	}
}

func TestWebhookFormChecksURLAndHeaders(t *testing.T) {
	fc := &fakeClient{}
	m := stateModel(t, fc, Options{View: "destinations"}, 140, 60)
	m = drive(m, keyMsg("n"))
	webhook := -1
	for i, s := range api.DestinationTypeSpecs {
		if s.Name == "webhook" {
			webhook = i
		}
	}
	for destOf(m).types().nav.Cursor < webhook {
		m = drive(m, keyMsg("down"))
	}
	m = drive(m, keyMsg("enter"))
	e := destOf(m).editor()
	if e == nil || e.typ != "webhook" {
		t.Fatal("the webhook form")
	}
	if !e.form.Field("enabled").On {
		t.Fatal("a new destination starts enabled, as dest create makes it")
	}
	e.form.Field("name").Input.SetValue("hook")
	e.form.Field("config.url").Input.SetValue("ftp://h.example/x")
	e.form.Field("config.headers").Input.SetValue(`{"X-Team": 1}`)
	m = drive(m, keyMsg("ctrl+s"))
	if e.form.Field("config.url").Err == "" || e.form.Field("config.headers").Err == "" || e.stage != stageForm {
		t.Fatalf("url %q headers %q:\n%s", e.form.Field("config.url").Err, e.form.Field("config.headers").Err, viewOf(m))
	}
	e.form.Field("config.url").Input.SetValue("https://h.example/x")
	e.form.Field("config.headers").Input.SetValue(`{"X-Team": "infra"}`)
	m = drive(m, keyMsg("ctrl+s"))
	if e.stage != stageReview {
		t.Fatalf("a valid webhook goes to review:\n%s", viewOf(m))
	}
}

func TestDashboardErrorsSpeakPlainly(t *testing.T) {
	c, err := api.New(api.Options{BaseURL: "http://127.0.0.1:1/api/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Client: FromAPI(c, ""), Renderer: plainRenderer(), Now: func() time.Time { return fixedNow },
		Tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}
	m := New(o)
	next, _ := m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	m = driveCmd(next.(Model), m.Init())
	v := viewOf(m)
	if strings.Contains(v, "dial tcp") || !strings.Contains(v, "nothing answers at 127.0.0.1:1") {
		t.Fatalf("a refused connection in the user's words:\n%s", v)
	}
}

// noGetOne is a server without GET of one destination.
type noGetOne struct{ *fakeClient }

func (noGetOne) GetDestination(context.Context, string) (*api.Destination, error) {
	return nil, &api.APIError{Status: 405, Message: "method not allowed"}
}

func TestToggleWithoutGetOfOneDestinationGoesOn(t *testing.T) {
	fc := oneDest()
	o := Options{View: "destinations", Client: noGetOne{fc}, Renderer: plainRenderer(), Now: func() time.Time { return fixedNow },
		Tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}
	m := New(o)
	next, _ := m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	m = driveCmd(next.(Model), m.Init())
	m = drive(m, keyMsg("space"))
	m = drive(m, keyMsg("y"))
	if !strings.Contains(strings.Join(fc.calls, " "), "UpdateDestination") || destOf(m).rows[0].Enabled {
		t.Fatalf("a 405 on the re-read must not stop the change: %v %q %q", fc.calls, m.notice, m.errText)
	}
}

func TestAnswersInTheRequestLogQuitAtOnce(t *testing.T) {
	rec := requestLog(t)
	m := stateModel(t, fakeBatches(), Options{View: "playground"}, 120, 40)
	// Given after start, so that no command waits on the log's problems
	// (the state tests run commands in line).
	playOf(m).c.opts.Requests = rec
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("h"))
	m = drive(m, keyMsg("enter"))
	if lastTurn(m) == nil {
		t.Fatal("no answer")
	}
	if s := playOf(m).Unsaved(); s != "" {
		t.Fatalf("an answer in the request log is kept: %q", s)
	}
	m = drive(m, keyMsg("q"))
	if !m.quitting {
		t.Fatal("q quits when every answer is in the request log")
	}
	// A closed log keeps nothing more: the answer counts as kept nowhere.
	rec.Close(10 * time.Second)
	if !strings.Contains(playOf(m).unsavedAnswers(), "not saved") {
		t.Fatal("with the log closed the answer is kept nowhere")
	}
}

// At 80 columns the whole question shows, y/N included, and the bars say
// that a question is open (not "typing" and the field's keys).
func TestQuitQuestionFitsAndTheBarsSayIt(t *testing.T) {
	m := stateModel(t, oneDest(), Options{View: "destinations"}, 80, 24)
	m = drive(m, keyMsg("enter"))
	m = drive(m, keyMsg("x"))
	m = drive(m, ctrlC())
	v := viewOf(m)
	if !strings.Contains(v, "y/N") || !strings.Contains(v, "QUIT?") || !strings.Contains(v, "ctrl+c") {
		t.Fatalf("the question at 80 columns:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if lipgloss.Width(l) > 80 {
			t.Fatalf("a line of %d cells:\n%s", lipgloss.Width(l), v)
		}
	}
}
