package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// fakeScreen answers every key with the action it was given.
type fakeScreen struct {
	act     action
	keys    int
	w, h    int
	unsaved string
	inline  bool
}

func (f *fakeScreen) Update(tea.Msg) (tea.Cmd, action) { f.keys++; return nil, f.act }
func (f *fakeScreen) View() string                     { return "fake" }
func (f *fakeScreen) SetSize(w, h int)                 { f.w, f.h = w, h }
func (f *fakeScreen) KeyMap() help.KeyMap              { return keyMap{} }
func (f *fakeScreen) Help() string                     { return "faking" }
func (f *fakeScreen) Typing() bool                     { return false }
func (f *fakeScreen) Unsaved() string                  { return f.unsaved }
func (f *fakeScreen) Inline() bool                     { return f.inline }

func TestStackTopGetsKeysAndActionsClose(t *testing.T) {
	var st stack
	st.SetSize(80, 24)
	under := &fakeScreen{unsaved: "edits to x not saved"}
	over := &fakeScreen{act: event("tick"), inline: true}
	st.push(under)
	st.push(over)
	if over.w != 80 || over.h != 24 {
		t.Fatalf("a pushed screen is sized to the view: %dx%d", over.w, over.h)
	}
	if _, a := st.update(tea.KeyMsg{}); a.kind != actEvent || a.value != "tick" || over.keys != 1 || under.keys != 0 || st.top() != over {
		t.Fatalf("the top gets the key and stays open on an event: %+v", a)
	}
	if l, ok := st.inline(); !ok || l != "fake" {
		t.Fatal("an inline screen is drawn on its view's line")
	}
	if _, ok := st.full(); !ok || !st.covers() {
		t.Fatal("a screen under an inline one keeps the view's place (a question over a form leaves the form drawn)")
	}
	var alone stack
	alone.push(&fakeScreen{inline: true})
	if _, ok := alone.full(); ok || alone.covers() {
		t.Fatal("an inline screen does not take the view's place")
	}
	if !alone.dialog() || st.dialog() != true {
		t.Fatal("a screen that does not say is a dialog: q is its key")
	}
	if st.unsaved() != "edits to x not saved" {
		t.Fatal("work under the top screen is still asked for before quitting")
	}
	over.act = done(42)
	if _, a := st.update(tea.KeyMsg{}); a.kind != actDone || a.value != 42 || st.top() != under {
		t.Fatal("done closes the top screen and hands its value back")
	}
	under.act = cancelled
	st.update(tea.KeyMsg{})
	if st.open() {
		t.Fatal("cancelled closes the screen")
	}
	if _, a := st.update(tea.KeyMsg{}); a != noAction {
		t.Fatal("an empty stack does nothing")
	}
	if got, ok := find[*fakeScreen](&st); ok || got != nil {
		t.Fatal("find on an empty stack")
	}
}

// The destination editor keeps its own screens: esc with edits asks on
// the editor's stack, and only "y" closes the editor (the view's stack).
func TestDestEditorAsksOnItsOwnStack(t *testing.T) {
	name := "one"
	d := api.Destination{ID: "11111111-2222-4333-8444-555555555555", Name: &name, Type: "webhook", Regions: []string{"global"}, SamplingRate: 1,
		Config: map[string]any{"url": "https://h"}}
	m := stateModel(t, &fakeClient{dests: []api.Destination{d}}, Options{View: "destinations"}, 120, 40)
	m = drive(m, keyMsg("enter"))
	e := destOf(m).editor()
	if e == nil {
		t.Fatal("enter opens the editor")
	}
	e.form.Field("name").Input.SetValue("two")
	m = drive(m, keyMsg("esc"))
	if q, ok := destOf(m).editor().sub.top().(*question); !ok || q.p.Question != "discard your edits?" {
		t.Fatalf("esc with edits asks first: %T", destOf(m).editor().sub.top())
	}
	if !destOf(m).Dialog() || destOf(m).Unsaved() == "" {
		t.Fatal("the open question keeps q the view's and the edits unsaved")
	}
	m = drive(m, keyMsg("n"))
	if destOf(m).editor() == nil || destOf(m).editor().sub.open() {
		t.Fatal("no keeps the editor and closes the question")
	}
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("y"))
	if destOf(m).editor() != nil || destOf(m).stack.open() || !strings.Contains(m.notice, "edits discarded") {
		t.Fatalf("yes closes the editor: %q", m.notice)
	}
}

// The Logs view keeps a row opened and the spend panel on its stack: the
// top screen takes the keys (its help lists only what works there), esc
// or $ closes it, and the list is as it was.
func TestLogsScreensAreOnTheStack(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	rec := requestLog(t)
	rec.Record(reqlog.Entry{Kind: reqlog.KindResponse, Model: "demo/echo", State: "completed", Input: "hello there", Answer: "hi back"})
	rec.Flush()
	u := start(t, Options{Client: c, View: "logs", Requests: rec}, 120, 40)
	u.screen("1 request logged", "hello there")
	u.key(tea.KeyEnter)
	u.screen("Request ", "── input ──", "hello there")
	u.until("the row on the stack, without search or spend in its keys", func(m Model) bool {
		d := logsOf(m).open()
		if d == nil || logsOf(m).stack.top() != screen(d) {
			return false
		}
		var keys []string
		for _, b := range d.KeyMap().ShortHelp() {
			if b.Enabled() {
				keys = append(keys, b.Help().Key)
			}
		}
		all := strings.Join(keys, " ")
		return !strings.Contains(all, "/") && !strings.Contains(all, "$") && strings.Contains(all, "y")
	})
	u.runes("$")
	u.screen("$ does nothing here")
	u.key(tea.KeyEsc)
	u.until("back on the list", func(m Model) bool { return !logsOf(m).stack.open() })
	u.runes("$")
	u.screen("Spend, last 30 days")
	u.runes("$")
	u.until("the panel closed by $", func(m Model) bool { return !logsOf(m).stack.open() })
	u.screen("hello there", "1 request logged")
	u.quit()
}

// The settings opened while an answer streams: esc stops the answer
// first, and the help says so instead of "close".
func TestSettingsHelpWhileAnAnswerStreams(t *testing.T) {
	m := stateModel(t, &fakeClient{}, Options{View: "playground"}, 120, 40)
	m = drive(m, keyMsg("s"))
	p := playOf(m)
	words := func() string {
		var out []string
		for _, b := range p.KeyMap().ShortHelp() {
			out = append(out, b.Help().Key+" "+b.Help().Desc)
		}
		return strings.Join(out, " · ")
	}
	if !inSettings(p) || !strings.Contains(words(), "esc close") {
		t.Fatalf("settings, nothing running: %q", words())
	}
	tn := newTurn("hi", "m/x", 80, fixedNow)
	p.turns = append(p.turns, tn)
	p.live[0] = &liveStream{turn: tn, cancel: func() {}}
	if w := words(); strings.Contains(w, "close") || !strings.Contains(w, "esc stop the answer") {
		t.Fatalf("settings while streaming: %q", w)
	}
	m = drive(m, keyMsg("esc"))
	if playOf(m).running() {
		t.Fatal("esc stops the answer")
	}
}

// ctrl+t in the settings opens a small form for one tool: its problems
// show beside its fields, esc asks before dropping what was typed, and
// ctrl+s adds it to the tools setting (as pasted JSON) with the tools
// already set.
func TestToolFormAddsATool(t *testing.T) {
	m := stateModel(t, &fakeClient{}, Options{View: "playground"}, 140, 50)
	m = drive(m, keyMsg("s"))
	p := playOf(m)
	p.settings.Field(setTools).Input.SetValue(`[{"name":"get_weather","parameters":{"type":"object"}}]`)
	p.checkSettings()
	m = drive(m, tea.KeyMsg{Type: tea.KeyCtrlT})
	tf, ok := p.stack.top().(*toolForm)
	if !ok || !p.Dialog() || p.Help() != "defining a tool" {
		t.Fatalf("ctrl+t opens the tool form: %T", p.stack.top())
	}
	m = drive(m, keyMsg("get weather")) // a space is not in a name
	m = drive(m, keyMsg("ctrl+s"))
	if tf.form.Field("name").Err == "" || !p.stack.open() {
		t.Fatal("a bad name is refused beside its field, the form stays")
	}
	tf.form.Field("name").Input.SetValue("get_weather")
	m = drive(m, keyMsg("ctrl+s"))
	if !strings.Contains(tf.form.Field("name").Err, "unique") {
		t.Fatalf("a name already set is refused: %q", tf.form.Field("name").Err)
	}
	tf.form.Field("name").Input.SetValue("get_time")
	tf.form.Field("parameters").Input.SetValue(`{"type":"object","properties":{"zone":{"type":"string"}}}`)
	m = drive(m, keyMsg("esc"))
	if _, ok := tf.sub.top().(*question); !ok || p.Unsaved() == "" {
		t.Fatal("esc with a typed tool asks first, and quitting would name it")
	}
	m = drive(m, keyMsg("n"))
	m = drive(m, keyMsg("ctrl+s"))
	if _, back := p.stack.top().(*settingsScreen); !back {
		t.Fatal("ctrl+s adds the tool and goes back to the settings")
	}
	if n := len(p.settings.Tools); n != 2 || p.settings.Tools[1].Name != "get_time" {
		t.Fatalf("tools after the form: %+v", p.settings.Tools)
	}
	m = drive(m, tea.KeyMsg{Type: tea.KeyCtrlT})
	m = drive(m, keyMsg("x"))
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("y"))
	if _, back := p.stack.top().(*settingsScreen); !back || len(p.settings.Tools) != 2 || !strings.Contains(m.notice, "no tool added") {
		t.Fatalf("yes drops the typed tool: %q", m.notice)
	}
}
