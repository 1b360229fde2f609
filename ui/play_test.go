package ui

// The playground over real HTTP to the embedded gateway: streaming, stop,
// failures, settings, history, save, escapes, the model picker, compare
// mode, generations and credits.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

// typePrompt moves the focus into the prompt (i), types and sends.
func (u *ui) typePrompt(text string) {
	u.runes("i")
	u.until("typing", func(m Model) bool { return playOf(m).mode == playTyping })
	u.runes(text)
	u.key(tea.KeyEnter)
}

func TestPlaygroundStreamsToCompletion(t *testing.T) {
	// 120 tokens at 200 a second: the deltas span ~0.6 s of server time.
	srv, c := startGW(t, gateway.Options{TokensPerSecond: 200, ThinkTime: 30 * time.Millisecond})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 40)
	u.typePrompt("Explain routing")
	var out api.Outcome
	view := u.until("completed", func(m Model) bool {
		if !ended(api.EndCompleted)(m) {
			return false
		}
		out = lastTurn(m).out
		return true
	})
	for _, want := range []string{"✓ completed", "usage in", "charged $", "ttft"} {
		if !strings.Contains(view, want) {
			t.Fatalf("final screen lacks %q:\n%s", want, view)
		}
	}
	// A rate is stated exactly when one was measured: a client starved
	// of CPU (a loaded machine under -race) can read every delta in one
	// burst, and then no rate is the true screen.
	rate, measured := out.TokensPerSecond()
	if strings.Contains(view, "tok/s") != measured {
		t.Fatalf("rate %v measured %v, but the screen says otherwise:\n%s", rate, measured, view)
	}
	// The generation's record is fetched once it exists (GenerationDelay).
	u.screen("generation provider")
	m := u.quit()
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 1 {
		t.Fatalf("one prompt, %d POSTs", n)
	}
	tn := lastTurn(m)
	want, err := c.CreateResponse(context.Background(), api.ResponseRequest{Input: api.Input{Text: "Explain routing"}, Model: "openai/gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	if tn.answer.Text() != want.OutputTextAll() {
		t.Fatal("the streamed text differs from the answer")
	}
	if u := tn.out.Usage(); u == nil || int(u.OutputTokens) != tn.out.Deltas {
		t.Fatalf("usage %+v vs %d deltas", u, tn.out.Deltas)
	}
	if tn.out.TTFT() < 30*time.Millisecond {
		t.Fatalf("ttft %v is below the gateway's think time", tn.out.TTFT())
	}
	if tn.gen == nil || tn.gen.ID != tn.out.GenerationID {
		t.Fatalf("generation %+v for %q", tn.gen, tn.out.GenerationID)
	}
}

func TestPlaygroundWaitsForTheFirstTokenHonestly(t *testing.T) {
	_, c := startGW(t, gateway.Options{ThinkTime: 30 * time.Second})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 30)
	u.typePrompt("hello")
	v := u.screen("waiting for the first token")
	if strings.Contains(v, "▍ streaming") {
		t.Fatalf("nothing streams yet:\n%s", v)
	}
	u.key(tea.KeyEsc)
	u.until("stopped", ended(api.EndStopped))
	u.quit()
}

func TestPlaygroundNonStreamingShowsNoRate(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 40)
	u.runes("s")
	u.until("settings", func(m Model) bool { return inSettings(playOf(m)) })
	u.until("streaming field", func(m Model) bool {
		f := playOf(m).settings
		for i, fl := range f.Fields {
			if fl.Name == setStream {
				f.Cursor = i
			}
		}
		f.Focus()
		return f.Current().Name == setStream
	})
	u.key(tea.KeyRight)                       // on -> off
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS}) // keeps the settings
	u.typePrompt("plain please")
	v := u.until("completed", ended(api.EndCompleted))
	if strings.Contains(v, "tok/s") {
		t.Fatalf("a rate for an answer that did not stream:\n%s", v)
	}
	u.quit()
}

func TestPlaygroundStopKeepsWhatArrived(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 10})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 100, 30)
	u.typePrompt("slow please")
	u.until("some tokens", func(m Model) bool { t := lastTurn(m); return t != nil && t.out.Deltas >= 3 })
	u.key(tea.KeyEsc)
	view := u.until("stopped", ended(api.EndStopped))
	if !strings.Contains(view, "■ stopped") {
		t.Fatalf("no stopped mark:\n%s", view)
	}
	m := u.quit()
	if lastTurn(m).answer.Text() == "" {
		t.Fatal("the text so far must stay")
	}
}

func TestPlaygroundFailureStates(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	for model, want := range map[string][]string{
		gateway.ModelFailMidstream: {"✗ response failed", "provider_unavailable"},
		gateway.ModelDrop:          {"⚠ interrupted", "what arrived is kept"},
		gateway.ModelRateLimited:   {"429", "7s"},
		gateway.ModelErrorEvent:    {"✗ response failed", "provider_overloaded"},
		gateway.ModelRefusal:       {"refusal", "✓ completed"},
	} {
		u := start(t, Options{Client: c, View: "playground", Model: model}, 120, 30)
		u.typePrompt("go")
		u.screen(want...)
		u.quit()
	}
}

func TestPlaygroundInvalidSettingsAreNotSent(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 50)
	u.runes("s")
	u.until("settings", func(m Model) bool { return inSettings(playOf(m)) })
	// two bad values: temperature and max tool calls
	u.until("fields set", func(m Model) bool {
		f := playOf(m).settings
		f.Field(setTemperature).Input.SetValue("3")
		f.Field(setMaxTools).Input.SetValue("31")
		return true
	})
	// ctrl+s keeps only valid settings: both errors at once, and the
	// settings stay open; esc asks, and y puts them back.
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	v := u.screen("settings not kept: 2 fields need fixing", "temperature", "max tool calls")
	if !strings.Contains(v, "✗ ") {
		t.Fatalf("each error beside its field:\n%s", v)
	}
	u.key(tea.KeyEsc)
	u.screen("discard the changed settings?")
	u.runes("y")
	u.until("discarded", func(m Model) bool {
		return playOf(m).mode == playNav && playOf(m).settings.Field(setTemperature).Value() == ""
	})
	u.quit()
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 0 {
		t.Fatalf("%d requests sent with invalid settings", n)
	}
	// An invalid model is refused by name.
	u = start(t, Options{Client: c, View: "playground", Model: "nomodel"}, 120, 30)
	u.typePrompt("hello")
	u.until("refused", func(m Model) bool { return strings.Contains(m.errText, "not sent: model") })
	u.quit()
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 0 {
		t.Fatalf("%d requests sent for an invalid model", n)
	}
}

func TestPlaygroundConversationHistoryAndSave(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", ExportDir: dir}, 120, 40)
	u.typePrompt("first question")
	u.until("first answer", ended(api.EndCompleted))
	u.typePrompt("second question")
	u.until("second answer", func(m Model) bool { return len(playOf(m).turns) == 2 && ended(api.EndCompleted)(m) })
	// n asks before dropping turns that are not saved; N keeps them.
	u.runes("n")
	u.screen("start a new chat? 2 answers are not saved")
	u.runes("N")
	u.until("kept", func(m Model) bool { return len(playOf(m).turns) == 2 && !asking(playOf(m)) })
	u.runes("w")
	u.screen("save to")
	u.key(tea.KeyEnter)
	u.until("saved", func(m Model) bool { return strings.Contains(m.notice, "conversation saved to "+dir) })
	// Saved: n no longer asks.
	u.runes("n")
	u.until("new chat", func(m Model) bool { return len(playOf(m).turns) == 0 })
	u.quit()
	posts := srv.RequestsTo("POST", "/api/v1/responses")
	var body struct {
		Input []api.InputMessage `json:"input"`
	}
	if err := json.Unmarshal(posts[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Input) != 3 || body.Input[0].Content != "first question" || body.Input[1].Role != "assistant" || body.Input[2].Content != "second question" {
		t.Fatalf("second request input: %+v", body.Input)
	}
	if strings.Contains(string(posts[1].Body), "previous_response_id") {
		t.Fatal("a previous-response reference was sent")
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("saved files %v", files)
	}
	data, _ := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if !strings.Contains(string(data), `"second question"`) || !strings.Contains(string(data), `"usage"`) || strings.Contains(string(data), gateway.DemoAPIKey) {
		t.Fatalf("saved conversation: %.300s", data)
	}
	if fi, _ := os.Stat(filepath.Join(dir, files[0].Name())); fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved with mode %v", fi.Mode().Perm())
	}
}

func TestPlaygroundEscapesAreInert(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelEscapes}, 120, 30)
	u.typePrompt("go")
	view := u.until("completed", ended(api.EndCompleted))
	if !strings.Contains(view, "Plain start") {
		t.Fatalf("text missing:\n%s", view)
	}
	for _, bad := range []string{"\x1b]", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(view, bad) {
			t.Fatalf("%q reached the screen", bad)
		}
	}
	if !strings.Contains(view, "␛]0;pwned-title␇") {
		t.Fatalf("the escapes must show inert:\n%s", view)
	}
	u.quit()
}

func TestModelPickerChoosesFromTheCatalogue(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 140, 40)
	u.runes("m")
	u.screen("anthropic/claude-sonnet-4", "IN $/M", "CONTEXT")
	u.runes("claude-sonnet-4")
	u.until("filtered", func(m Model) bool {
		p := playOf(m).picker()
		return p != nil && p.selectedID() == "anthropic/claude-sonnet-4"
	})
	u.key(tea.KeyEnter)
	u.until("chosen", func(m Model) bool { return playOf(m).model == "anthropic/claude-sonnet-4" })
	v := u.screen("model anthropic/claude-sonnet-4", "in $3.00/M", "200,000 context")
	_ = v
	// A prompt shows its estimate before sending.
	u.runes("i")
	u.runes("a prompt of some length")
	u.screen("estimate: input")
	u.quit()
}

func TestModelPickerWithoutACatalogue(t *testing.T) {
	fc := fakeBatches() // Models answers 404: not offered
	m := stateModel(t, fc, Options{View: "playground", SuggestedModels: []string{"x/one", "y/two"}}, 120, 40)
	m = drive(m, keyMsg("m"))
	v := viewOf(m)
	if !strings.Contains(v, "does not offer a models catalogue") || !strings.Contains(v, "type a model id") {
		t.Fatalf("without a catalogue the picker says so and takes a typed id:\n%s", v)
	}
	for _, r := range "z/typed" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("enter"))
	if playOf(m).model != "z/typed" {
		t.Fatalf("a typed id is taken: %q", playOf(m).model)
	}
}

func TestCompareThreeModels(t *testing.T) {
	srv, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 160, 48)
	u.runes("c")
	u.screen("Compare models")
	u.until("three marked", func(m Model) bool {
		p := playOf(m).picker()
		if p == nil || p.cat == nil {
			return false
		}
		p.marked = []string{"openai/gpt-4o-mini", gateway.ModelFailMidstream, "anthropic/claude-sonnet-4"}
		return true
	})
	u.key(tea.KeyEnter)
	u.until("compare mode", func(m Model) bool { return playOf(m).cmp != nil && len(playOf(m).cmp.panes) == 3 })
	u.typePrompt("same prompt")
	u.until("all ended", func(m Model) bool {
		p := playOf(m)
		for _, pn := range p.cmp.panes {
			if pn.turn == nil || pn.turn.running {
				return false
			}
		}
		return !p.running()
	})
	u.screen("first token:", "cost:")
	fm := u.quit()
	for _, pn := range playOf(fm).cmp.panes {
		want := api.EndCompleted
		if pn.model == gateway.ModelFailMidstream {
			want = api.EndFailed
		}
		if pn.turn.out.State != want || pn.turn.answer.Size() == 0 {
			t.Fatalf("one failing model must not disturb the others: %s ended %s with %d bytes", pn.model, pn.turn.out.State, pn.turn.answer.Size())
		}
	}
	posts := srv.RequestsTo("POST", "/api/v1/responses")
	if len(posts) != 3 {
		t.Fatalf("%d POSTs for three models", len(posts))
	}
	seen := map[string]bool{}
	for _, p := range posts {
		var body struct {
			Model string `json:"model"`
			Input any    `json:"input"`
		}
		json.Unmarshal(p.Body, &body)
		seen[body.Model] = true
	}
	if len(seen) != 3 {
		t.Fatalf("models sent: %v", seen)
	}
	for _, pn := range playOf(fm).cmp.panes {
		if pn.turn.prompt != "same prompt" {
			t.Fatalf("pane %s prompt %q", pn.model, pn.turn.prompt)
		}
	}
}

func TestCreditsInTheStatusBarAndA402(t *testing.T) {
	_, c := startGW(t, gateway.Options{KeyLimit: 1, KeyUsage: 1})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 140, 30)
	u.screen("$0.00 of $1.00 left")
	u.typePrompt("hello")
	v := u.until("refused", func(m Model) bool { t := lastTurn(m); return t != nil && !t.running })
	if !strings.Contains(v, "402") {
		t.Fatalf("a 402 must say so:\n%s", v)
	}
	u.quit()
}

func TestUnlistedSettingsAreFlaggedBeforeSending(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/o4-mini"}, 140, 50)
	u.until("catalogue", func(m Model) bool { return playOf(m).cat != nil })
	u.runes("s")
	u.until("temperature set", func(m Model) bool {
		p := playOf(m)
		p.settings.Field(setTemperature).Input.SetValue("0.5")
		p.checkSettings()
		return true
	})
	u.screen("temperature", "⚠ not listed by this model")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS}) // valid: kept
	u.typePrompt("hello")
	u.until("held back", func(m Model) bool { return strings.Contains(m.errText, "does not list temperature") })
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 0 {
		t.Fatalf("sent at once despite an unlisted setting (%d)", n)
	}
	u.key(tea.KeyEnter) // enter again: the user insists
	u.until("sent", func(m Model) bool { t := lastTurn(m); return t != nil && !t.running })
	u.quit()
	posts := srv.RequestsTo("POST", "/api/v1/responses")
	if len(posts) != 1 || !strings.Contains(string(posts[0].Body), `"temperature":0.5`) {
		t.Fatalf("insisting sends the setting: %d posts", len(posts))
	}
}
