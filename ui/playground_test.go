package ui

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func playOf(m Model) *playground { return m.views[viewPlayground].(*playground) }

func lastTurn(m Model) *turn {
	p := playOf(m)
	if len(p.turns) == 0 {
		return nil
	}
	return p.turns[len(p.turns)-1]
}

// ended waits for the final status and for the stream to be closed, so
// that the next prompt can be sent.
func ended(status string) func(Model) bool {
	return func(m Model) bool { t := lastTurn(m); return t != nil && t.status == status && !playOf(m).running }
}

func TestPlaygroundEndsWhenEOFComesLate(t *testing.T) {
	c := &common{styles: NewStyles(DefaultTheme())}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	p := newPlayground(c)
	p.SetSize(100, 30)
	tn := &turn{answer: newMDStream(p.md, 80), status: "streaming"}
	p.turns, p.running = []*turn{tn}, true
	p.onChunk(streamChunkMsg{turn: 0, events: []api.Event{{Type: api.EventCompleted, Response: &api.Response{Status: api.ResponseCompleted}}}})
	if tn.status != "completed" || !p.running {
		t.Fatalf("after the terminal event: %s running=%v", tn.status, p.running)
	}
	p.onChunk(streamChunkMsg{turn: 0, end: io.EOF})
	if p.running {
		t.Fatalf("the EOF in a later chunk must close the stream")
	}
}

func TestPlaygroundStreamsToCompletion(t *testing.T) {
	srv, c := startGW(t, gateway.Options{TokensPerSecond: 2000, ThinkTime: 30 * time.Millisecond})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 40)
	u.runes("Explain routing")
	u.key(tea.KeyEnter)
	view := u.until("completed", ended("completed"))
	if !strings.Contains(view, "✓ completed") || !strings.Contains(view, "tokens in") || !strings.Contains(view, "cost $") || !strings.Contains(view, "ttft") {
		t.Fatalf("final screen lacks the status or usage card:\n%s", view)
	}
	m := u.quit()
	if len(srv.RequestsTo("POST", "/api/v1/responses")) != 1 {
		t.Fatalf("one prompt, one POST")
	}
	tn := lastTurn(m)
	want, err := c.CreateResponse(context.Background(), api.ResponseRequest{Input: api.Input{Text: "Explain routing"}, Model: "openai/gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	if tn.answer.text() != want.OutputTextAll() {
		t.Fatalf("streamed text differs from the answer")
	}
	if tn.final == nil || tn.final.Usage == nil || tn.final.Usage.OutputTokens != tn.outTokens {
		t.Fatalf("usage %+v vs %d deltas", tn.final, tn.outTokens)
	}
	if tn.firstTok.Sub(tn.started) < 30*time.Millisecond || exactRate(tn) <= 0 {
		t.Fatalf("ttft %v rate %v", tn.firstTok.Sub(tn.started), exactRate(tn))
	}
}

func TestPlaygroundStopWithEsc(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 40})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 100, 30)
	u.runes("slow please")
	u.key(tea.KeyEnter)
	u.until("some tokens", func(m Model) bool { t := lastTurn(m); return t != nil && t.outTokens >= 3 })
	u.key(tea.KeyEsc)
	view := u.until("stopped", ended("stopped"))
	if !strings.Contains(view, "■ stopped") {
		t.Fatalf("no stopped mark:\n%s", view)
	}
	m := u.quit()
	if lastTurn(m).answer.text() == "" {
		t.Fatalf("the text so far must stay")
	}
}

func TestPlaygroundFailureStates(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	for model, want := range map[string][]string{
		gateway.ModelFailMidstream: {"✗ failed: server_error", "provider_unavailable"},
		gateway.ModelDrop:          {"⚠ interrupted"},
		gateway.ModelRateLimited:   {"HTTP 429", "retry after 7s"},
		gateway.ModelErrorEvent:    {"✗ failed: provider_overloaded"},
		gateway.ModelRefusal:       {"refusal:", "✓ completed"},
	} {
		u := start(t, Options{Client: c, View: "playground", Model: model}, 120, 30)
		u.runes("go")
		u.key(tea.KeyEnter)
		u.screen(want...)
		u.quit()
	}
}

func TestPlaygroundInvalidSettingBlocksSend(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 40)
	u.key(tea.KeyCtrlO)
	for i := 0; i < 9; i++ { // to "max tool calls"
		u.key(tea.KeyTab)
	}
	u.runes("31")
	u.screen("max tool calls", "✗ must be 0 to 30")
	u.key(tea.KeyCtrlO)
	u.runes("hello")
	u.key(tea.KeyEnter)
	u.screen("not sent: max_tool_calls")
	// An invalid model is refused too.
	u.key(tea.KeyCtrlL)
	for i := 0; i < 30; i++ {
		u.key(tea.KeyBackspace)
	}
	u.runes("nomodel")
	u.key(tea.KeyEnter)
	u.screen("model: must be <provider>/<model>")
	u.quit()
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 0 {
		t.Fatalf("%d requests sent with invalid settings", n)
	}
}

func TestPlaygroundConversationSendsHistory(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", ExportDir: dir}, 120, 40)
	u.runes("first question")
	u.key(tea.KeyEnter)
	u.until("first answer", ended("completed"))
	u.runes("second question")
	u.key(tea.KeyEnter)
	u.until("second answer", func(m Model) bool { return len(playOf(m).turns) == 2 && lastTurn(m).status == "completed" })
	u.key(tea.KeyCtrlS)
	u.screen("conversation saved to")
	m := u.quit()
	posts := srv.RequestsTo("POST", "/api/v1/responses")
	var body struct {
		Input []api.InputMessage `json:"input"`
	}
	if err := json.Unmarshal(posts[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	first := playOf(m).turns[0].answer.text()
	if len(body.Input) != 3 || body.Input[0].Content != "first question" || body.Input[1].Role != "assistant" || body.Input[1].Content != first || body.Input[2].Content != "second question" {
		t.Fatalf("second request input: %+v", body.Input)
	}
	if strings.Contains(string(posts[1].Body), "previous_response_id") {
		t.Fatalf("a previous-response reference was sent")
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("saved files %v", files)
	}
	data, _ := os.ReadFile(dir + "/" + files[0].Name())
	if !strings.Contains(string(data), `"second question"`) || !strings.Contains(string(data), `"usage"`) || strings.Contains(string(data), gateway.DemoAPIKey) {
		t.Fatalf("saved conversation: %.300s", data)
	}
}

func TestPlaygroundEscapesAreInert(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelEscapes}, 120, 30)
	u.runes("go")
	u.key(tea.KeyEnter)
	view := u.until("completed", ended("completed"))
	if !strings.Contains(view, "Plain start") {
		t.Fatalf("text missing:\n%s", view)
	}
	for _, bad := range []string{"\x1b]", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(view, bad) {
			t.Fatalf("%q reached the screen", bad)
		}
	}
	// What the model sent stays visible, inert.
	if !strings.Contains(view, "␛]0;pwned-title␇") {
		t.Fatalf("the escapes must show inert:\n%s", view)
	}
	u.quit()
}

// benchFrame feeds deltas into a transcript of the given size and measures
// one frame: the Update of a chunk of deltas plus View.
func benchPlayground(b *testing.B, transcript int) {
	c := &common{styles: NewStyles(DefaultTheme()), opts: Options{DarkBackground: true}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	p := newPlayground(c)
	p.SetSize(120, 40)
	p.setFocus(focusTranscript)
	t := &turn{prompt: "bench", model: "a/b", answer: newMDStream(p.md, p.contentWidth()), status: "streaming", started: time.Now()}
	p.turns, p.running = []*turn{t}, true
	word := "lorem ipsum dolor sit amet "
	para := strings.Repeat(word, 20) + "\n\n"
	for t.answer.src = nil; len(t.answer.src) < transcript; {
		t.answer.append(para)
	}
	p.events = nil
	// A realistic chunk: a few words, and a paragraph ends now and then.
	msg := streamChunkMsg{turn: 0, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: word}, {Type: api.EventOutputTextDelta, Delta: "consectetur "}}}
	end := api.Event{Type: api.EventOutputTextDelta, Delta: "elit.\n\n"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%40 == 39 {
			p.applyEvent(t, &end)
		}
		for j := range msg.events {
			p.applyEvent(t, &msg.events[j])
		}
		_ = p.View()
	}
}

func BenchmarkPlaygroundFrame1KB(b *testing.B) { benchPlayground(b, 1<<10) }
func BenchmarkPlaygroundFrame1MB(b *testing.B) { benchPlayground(b, 1<<20) }

func TestMarkdownStreamTail(t *testing.T) {
	md := &markdown{style: "dark"}
	m := newMDStream(md, 40)
	m.append("first line of a paragraph that is long enough to wrap around\nsecond")
	if tl := m.tail(); len(tl) < 3 || !strings.Contains(strings.Join(tl, "\n"), "second") {
		t.Fatalf("tail %q", tl)
	}
	m.append(" line\n\n```go\ncode\n\nmore code\n```\n\nafter")
	if len(m.lines) == 0 || strings.Contains(strings.Join(m.lines, "\n"), "after") {
		t.Fatalf("blocks %q", m.lines)
	}
	if !strings.Contains(ansi.Strip(strings.Join(m.lines, "\n")), "more code") {
		t.Fatalf("a blank line inside a fence must not end the block: %q", m.lines)
	}
	if tl := m.tail(); len(tl) != 1 || !strings.Contains(tl[0], "after") {
		t.Fatalf("tail after blocks %q", tl)
	}
	m.finish()
	if m.tail() != nil || !strings.Contains(strings.Join(m.lines, "\n"), "after") {
		t.Fatalf("finish")
	}
	m.resize(80)
	if !strings.Contains(strings.Join(m.lines, "\n"), "after") || m.text() == "" {
		t.Fatalf("resize lost text")
	}
}

func TestPlaygroundScrollStaysWithinTheTranscript(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 100, 20)
	u.runes("hi")
	u.key(tea.KeyEnter)
	u.until("answer", ended("completed"))
	u.key(tea.KeyEsc) // leave the prompt
	for i := 0; i < 500; i++ {
		u.key(tea.KeyUp)
	}
	u.until("scrolled to the top, no further", func(m Model) bool {
		p := playOf(m)
		return p.scroll > 0 && p.scroll == p.maxScroll(p.segments())
	})
	u.runes("G")
	u.until("back at the end", func(m Model) bool { return playOf(m).scroll == 0 })
	u.quit()
}
