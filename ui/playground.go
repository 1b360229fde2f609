package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/charmbracelet/bubbles/cursor"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// ---- MSG ----

// streamOpenedMsg: the POST was answered (a stream, or an error).
type streamOpenedMsg struct {
	turn   int
	stream *api.Stream
	events chan streamItem
	err    error
}

type streamItem struct {
	ev  api.Event
	err error
}

// streamChunkMsg carries every event that arrived since the last one was
// taken: renders coalesce deltas instead of queueing them.
type streamChunkMsg struct {
	turn   int
	events []api.Event
	end    error // io.EOF, an interruption or the stop; nil while open
	closed bool
}

// responseDoneMsg is the answer of a non-streaming request.
type responseDoneMsg struct {
	turn int
	resp *api.Response
	err  error
}

type playTickMsg struct{ turn int }

type savedMsg struct {
	path string
	err  error
}

// ---- MODEL ----

type playFocus int

const (
	focusPrompt playFocus = iota
	focusModel
	focusSettings
	focusTranscript
)

// turn is one prompt and its answer.
type turn struct {
	prompt    string
	model     string
	answer    *mdStream
	reasoning []byte
	refusal   []byte
	events    []string // compact lines: tool calls, server tools
	status    string   // streaming, completed, incomplete, failed, interrupted, stopped, error
	detail    string   // reason or error message
	errorType string
	started   time.Time
	firstTok  time.Time
	ended     time.Time
	outTokens int
	final     *api.Response
	routing   *api.RoutingMetadata
	rates     []float64 // tokens per second, one sample per tick
	rateEMA   float64
	lastCount int
	lastTick  time.Time
	cache     []string // rendered lines once finished
	cacheW    int
	showReas  bool
}

type playground struct {
	c     *common
	keys  PlaygroundKeys
	w, h  int
	state *stateFile

	focus    playFocus
	prompt   textarea.Model
	model    textinput.Model
	models   []string
	settings []*setting
	setIdx   int

	md      *markdown
	turns   []*turn
	scroll  int
	cancel  context.CancelFunc
	events  <-chan streamItem // the live stream's events
	running bool
}

func newPlayground(c *common) *playground {
	ta := textarea.New()
	ta.Cursor.SetMode(cursor.CursorStatic) // no blink, as newInput: an idle dashboard must not redraw
	ta.Placeholder = "Ask something… (enter sends, alt+enter or ctrl+j adds a line)"
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.SetHeight(3)
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	model := c.opts.Model
	if model == "" && len(c.opts.SuggestedModels) > 0 {
		model = c.opts.SuggestedModels[0]
	}
	mi := newInput("model › ", "<provider>/<model>", 200, model)
	style := "light"
	if c.opts.DarkBackground {
		style = "dark"
	}
	p := &playground{c: c, keys: DefaultPlaygroundKeys(), prompt: ta, model: mi, settings: newSettings(),
		md: &markdown{style: style}, state: newStateFile(c.opts.StateDir), models: append([]string(nil), c.opts.SuggestedModels...)}
	p.prompt.Focus()
	return p
}

func (p *playground) Init() tea.Cmd { return nil }

func (p *playground) Capturing() bool {
	return p.focus == focusPrompt || p.focus == focusModel || p.focus == focusSettings
}

func (p *playground) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
}

func (p *playground) Busy() string {
	if p.running {
		return "streaming"
	}
	return ""
}

// ---- UPDATE ----

func (p *playground) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case recentLoadedMsg:
		p.models = appendMissing(p.models, msg.state.Models)
		return nil
	case streamOpenedMsg:
		return p.onOpened(msg)
	case streamChunkMsg:
		return p.onChunk(msg)
	case responseDoneMsg:
		return p.onDone(msg)
	case playTickMsg:
		if msg.turn != len(p.turns)-1 || !p.running {
			return nil
		}
		p.sampleRate(p.c.now())
		return p.tick()
	case savedMsg:
		if msg.err != nil {
			return msgCmd(failNotice("save failed: " + msg.err.Error()))
		}
		return msgCmd(notice("conversation saved to " + msg.path))
	case focusMsg:
		if msg.view == viewPlayground && p.focus == focusTranscript && !p.running {
			p.setFocus(focusPrompt)
		}
		return nil
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				p.scrollBy(3)
			case tea.MouseButtonWheelDown:
				p.scrollBy(-3)
			}
		}
		return nil
	case tea.KeyMsg:
		return p.onKey(msg)
	}
	return nil
}

func (p *playground) setFocus(f playFocus) {
	p.focus = f
	p.prompt.Blur()
	p.model.Blur()
	for _, s := range p.settings {
		s.input.Blur()
	}
	switch f {
	case focusPrompt:
		p.prompt.Focus()
	case focusModel:
		p.model.Focus()
	case focusSettings:
		p.settings[p.setIdx].input.Focus()
	}
}

func (p *playground) onKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	// Keys that work wherever the focus is.
	switch {
	case key.Matches(msg, k.Stop):
		if p.running {
			p.Stop()
			return nil
		}
		if p.focus != focusTranscript {
			p.setFocus(focusTranscript)
			return nil
		}
	case key.Matches(msg, k.Settings):
		if p.focus == focusSettings {
			p.setFocus(focusPrompt)
		} else {
			p.setFocus(focusSettings)
		}
		return nil
	case key.Matches(msg, k.Model):
		p.setFocus(focusModel)
		return nil
	case key.Matches(msg, k.NewChat):
		if p.running {
			return msgCmd(failNotice("stop the stream first (esc)"))
		}
		p.turns, p.scroll = nil, 0
		return msgCmd(notice("new conversation"))
	case key.Matches(msg, k.Copy):
		return p.copyAnswer()
	case key.Matches(msg, k.Save):
		return p.save()
	case key.Matches(msg, k.ScrollUp):
		p.scrollBy(max(1, p.transcriptHeight()-2))
		return nil
	case key.Matches(msg, k.ScrollDown):
		p.scrollBy(-max(1, p.transcriptHeight()-2))
		return nil
	case key.Matches(msg, k.ToggleReasoning):
		p.toggleReasoning()
		return nil
	}
	switch p.focus {
	case focusPrompt:
		if key.Matches(msg, k.Send) {
			return p.send()
		}
		var cmd tea.Cmd
		p.prompt, cmd = p.prompt.Update(msg)
		return cmd
	case focusModel:
		switch msg.Type {
		case tea.KeyEnter, tea.KeyTab:
			if err := api.ValidateModel(strings.TrimSpace(p.model.Value())); err != nil {
				return msgCmd(failNotice(err.Error()))
			}
			p.setFocus(focusPrompt)
			return nil
		case tea.KeyUp, tea.KeyDown:
			p.cycleModel(msg.Type == tea.KeyDown)
			return nil
		}
		var cmd tea.Cmd
		p.model, cmd = p.model.Update(msg)
		return cmd
	case focusSettings:
		switch msg.Type {
		case tea.KeyTab, tea.KeyDown, tea.KeyEnter:
			p.setIdx = (p.setIdx + 1) % len(p.settings)
			p.setFocus(focusSettings)
			p.checkSettings()
			return nil
		case tea.KeyShiftTab, tea.KeyUp:
			p.setIdx = (p.setIdx - 1 + len(p.settings)) % len(p.settings)
			p.setFocus(focusSettings)
			p.checkSettings()
			return nil
		}
		s := p.settings[p.setIdx]
		var cmd tea.Cmd
		s.input, cmd = s.input.Update(msg)
		p.checkSettings()
		return cmd
	}
	// The transcript has focus: single keys act.
	switch msg.String() {
	case "i", "enter":
		p.setFocus(focusPrompt)
	case "s":
		p.setFocus(focusSettings)
	case "m":
		p.setFocus(focusModel)
	case "y":
		return p.copyAnswer()
	case "up", "k":
		p.scrollBy(1)
	case "down", "j":
		p.scrollBy(-1)
	case "G", "end":
		p.scroll = 0
	}
	return nil
}

func (p *playground) cycleModel(down bool) {
	if len(p.models) == 0 {
		return
	}
	cur := strings.TrimSpace(p.model.Value())
	i := -1
	for j, m := range p.models {
		if m == cur {
			i = j
		}
	}
	if down {
		i = (i + 1) % len(p.models)
	} else {
		i = (i - 1 + len(p.models)) % len(p.models)
	}
	p.model.SetValue(p.models[i])
	p.model.CursorEnd()
}

// checkSettings validates the panel as the user types.
func (p *playground) checkSettings() {
	var req api.ResponseRequest
	req.Input, req.Model = api.Input{Text: "x"}, "x/x"
	applySettings(p.settings, &req)
}

func (p *playground) toggleReasoning() {
	if n := len(p.turns); n > 0 {
		t := p.turns[n-1]
		t.showReas = !t.showReas
		t.cache = nil
	}
}

// history is the conversation so far, sent whole in input: the service
// stores nothing and refuses a previous-response reference.
func (p *playground) history(prompt string) api.Input {
	if len(p.turns) == 0 {
		return api.Input{Text: prompt}
	}
	var msgs []api.InputMessage
	for _, t := range p.turns {
		if t.status == "error" {
			continue
		}
		msgs = append(msgs, api.InputMessage{Type: "message", Role: "user", Content: t.prompt})
		if a := t.answer.text(); a != "" {
			msgs = append(msgs, api.InputMessage{Type: "message", Role: "assistant", Content: a})
		}
	}
	msgs = append(msgs, api.InputMessage{Type: "message", Role: "user", Content: prompt})
	return api.Input{Messages: msgs}
}

func (p *playground) buildRequest(prompt string) (api.ResponseRequest, bool, error) {
	req := api.ResponseRequest{Input: p.history(prompt), Model: strings.TrimSpace(p.model.Value())}
	stream, err := applySettings(p.settings, &req)
	return req, stream, err
}

// send validates and starts the request; nothing is sent when invalid.
func (p *playground) send() tea.Cmd {
	if p.running {
		return msgCmd(failNotice("a response is still streaming: esc stops it"))
	}
	prompt := p.prompt.Value()
	if strings.TrimSpace(prompt) == "" {
		return msgCmd(failNotice("the prompt is empty"))
	}
	req, stream, err := p.buildRequest(prompt)
	if err != nil {
		var ve *api.ValidationError
		if errors.As(err, &ve) && ve.Field != "model" && ve.Field != "input" {
			p.setIdx = p.settingIndex(ve.Field)
		}
		return msgCmd(failNotice("not sent: " + err.Error()))
	}
	ctx, cancel := context.WithCancel(p.c.ctx)
	p.cancel = cancel
	p.running = true
	p.scroll = 0
	t := &turn{prompt: prompt, model: req.Model, answer: newMDStream(p.md, p.contentWidth()), status: "streaming", started: p.c.now(), lastTick: p.c.now()}
	p.turns = append(p.turns, t)
	p.prompt.Reset()
	idx := len(p.turns) - 1
	client := p.c.client
	remember := p.state.rememberCmd(func(s *recentState) *[]string { return &s.Models }, req.Model)
	if !slices.Contains(p.models, req.Model) {
		p.models = append([]string{req.Model}, p.models...)
	}
	if !stream {
		return tea.Batch(remember, p.tick(), func() tea.Msg {
			r, err := client.CreateResponse(ctx, req)
			return responseDoneMsg{turn: idx, resp: r, err: err}
		})
	}
	return tea.Batch(remember, p.tick(), func() tea.Msg {
		s, err := client.StreamResponse(ctx, req)
		if err != nil {
			return streamOpenedMsg{turn: idx, err: err}
		}
		ch := make(chan streamItem, 4096)
		go pump(ctx, s, ch)
		return streamOpenedMsg{turn: idx, stream: s, events: ch}
	})
}

func (p *playground) settingIndex(field string) int {
	for i, s := range p.settings {
		if s.name == field || strings.HasPrefix(field, s.name) {
			return i
		}
	}
	return p.setIdx
}

// pump is the one goroutine per stream: it reads events and hands them to
// the UI through ch; it ends with the stream, or when ctx ends.
func pump(ctx context.Context, s *api.Stream, ch chan<- streamItem) {
	defer close(ch)
	defer s.Close()
	for {
		ev, err := s.Next()
		select {
		case ch <- streamItem{ev: ev, err: err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// readChunk waits for one event, then takes every event already waiting.
func readChunk(turn int, ch <-chan streamItem) tea.Cmd {
	return func() tea.Msg {
		it, ok := <-ch
		if !ok {
			return streamChunkMsg{turn: turn, closed: true}
		}
		msg := streamChunkMsg{turn: turn}
		for {
			if it.err != nil {
				msg.end = it.err
				return msg
			}
			msg.events = append(msg.events, it.ev)
			if len(msg.events) >= 8192 {
				return msg
			}
			select {
			case it, ok = <-ch:
				if !ok {
					msg.closed = true
					return msg
				}
			default:
				return msg
			}
		}
	}
}

func (p *playground) tick() tea.Cmd {
	idx := len(p.turns) - 1
	return tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return playTickMsg{turn: idx} })
}

func (p *playground) current(idx int) *turn {
	if idx != len(p.turns)-1 || idx < 0 {
		return nil
	}
	return p.turns[idx]
}

func (p *playground) onOpened(msg streamOpenedMsg) tea.Cmd {
	t := p.current(msg.turn)
	if t == nil {
		return nil
	}
	if msg.err != nil {
		p.endTurn(t, msg.err, nil)
		return msgCmd(failNotice(describeErr(msg.err)))
	}
	p.events = msg.events
	return readChunk(msg.turn, msg.events)
}

// onChunk folds a batch of events into the live turn.
func (p *playground) onChunk(msg streamChunkMsg) tea.Cmd {
	t := p.current(msg.turn)
	if t == nil || !p.running {
		return nil // a stream already ended (stopped, or a new chat)
	}
	for i := range msg.events {
		p.applyEvent(t, &msg.events[i])
	}
	if msg.end != nil || msg.closed {
		end := msg.end
		if end == nil {
			end = context.Canceled
		}
		p.endTurn(t, end, nil)
		return p.endNotice(t)
	}
	return readChunk(msg.turn, p.events)
}

func (p *playground) applyEvent(t *turn, ev *api.Event) {
	switch ev.Type {
	case api.EventOutputTextDelta:
		p.mark(t, ev)
		t.answer.append(textsafe.Clean(ev.Delta))
		t.outTokens++
	case api.EventReasoningDelta, api.EventReasoningSummary:
		p.mark(t, ev)
		t.reasoning = append(t.reasoning, textsafe.Clean(ev.Delta)...)
		t.outTokens++
	case api.EventRefusalDelta:
		p.mark(t, ev)
		t.refusal = append(t.refusal, textsafe.Clean(ev.Delta)...)
	case api.EventFunctionArgsDone:
		t.events = append(t.events, "tool call arguments: "+textsafe.Line(ansi.Truncate(ev.Text, 120, "…")))
	case api.EventOutputItemAdded:
		if ev.Item != nil && ev.Item.Type != "message" && ev.Item.Type != "reasoning" {
			t.events = append(t.events, "→ "+textsafe.Line(ev.Item.Type)+" "+textsafe.Line(ev.Item.Name))
		}
	case api.EventWebSearchProgress, api.EventWebSearchSearching, api.EventWebSearchCompleted:
		t.events = append(t.events, "web search: "+strings.TrimPrefix(ev.Type, "response.web_search_call."))
	case api.EventCompleted, api.EventIncomplete, api.EventFailed:
		t.final, t.ended = ev.Response, p.c.now()
		if ev.Response != nil && ev.Response.OpenRouterMetadata != nil {
			t.routing = ev.Response.OpenRouterMetadata
		}
		if t.answer.text() == "" && ev.Response != nil {
			t.answer.append(textsafe.Clean(ev.Response.OutputTextAll()))
		}
		switch {
		case ev.Type == api.EventFailed:
			t.status = "failed"
		case ev.Type == api.EventIncomplete || ev.Response != nil && ev.Response.Status == api.ResponseIncomplete:
			t.status = "incomplete"
			if ev.Response != nil && ev.Response.IncompleteDetails != nil {
				t.detail = ev.Response.IncompleteDetails.Reason
			}
		default:
			t.status = "completed"
		}
		if ev.Error != nil {
			t.detail, t.errorType = failureText(ev.Error), ev.Error.ErrorType
		}
	case api.EventError:
		t.status, t.ended = "failed", p.c.now()
		if ev.Error != nil {
			t.detail, t.errorType = failureText(ev.Error), ev.Error.ErrorType
		}
	}
}

func failureText(e *api.StreamError) string {
	s := e.Message
	if e.Code != "" {
		s = e.Code + ": " + s
	}
	return textsafe.Line(s)
}

func (p *playground) mark(t *turn, ev *api.Event) {
	if t.firstTok.IsZero() {
		t.firstTok = ev.ReceivedAt
		if t.firstTok.IsZero() {
			t.firstTok = p.c.now()
		}
	}
}

// sampleRate adds a tokens-per-second sample (smoothed) for the sparkline.
func (p *playground) sampleRate(now time.Time) {
	t := p.turns[len(p.turns)-1]
	dt := now.Sub(t.lastTick).Seconds()
	if dt <= 0 {
		return
	}
	r := float64(t.outTokens-t.lastCount) / dt
	t.lastCount, t.lastTick = t.outTokens, now
	if t.rateEMA == 0 {
		t.rateEMA = r
	} else {
		t.rateEMA = 0.7*t.rateEMA + 0.3*r
	}
	t.rates = append(t.rates, r)
	if len(t.rates) > 40 {
		t.rates = t.rates[len(t.rates)-40:]
	}
}

// endTurn settles the final state of a turn.
func (p *playground) endTurn(t *turn, end error, resp *api.Response) {
	p.running = false
	if p.cancel != nil {
		p.cancel()
	}
	if t.ended.IsZero() {
		t.ended = p.c.now()
	}
	t.answer.finish()
	if t.status == "streaming" {
		var ie *api.EndError
		switch {
		case end == io.EOF:
			t.status = "completed"
		case errors.Is(end, context.Canceled):
			t.status, t.detail = "stopped", "stopped by you; the text so far is kept"
		case errors.As(end, &ie):
			t.status, t.detail = "interrupted", textsafe.Line(ie.Error())
		default:
			t.status, t.detail = "error", describeErr(end)
		}
	}
	t.cache = nil
}

func (p *playground) endNotice(t *turn) tea.Cmd {
	switch t.status {
	case "completed":
		return nil
	case "stopped":
		return msgCmd(notice("stream stopped"))
	}
	return msgCmd(failNotice(t.status + ": " + t.detail))
}

func (p *playground) onDone(msg responseDoneMsg) tea.Cmd {
	t := p.current(msg.turn)
	if t == nil || t.status != "streaming" {
		return nil
	}
	if msg.err != nil {
		p.endTurn(t, msg.err, nil)
		return msgCmd(failNotice(describeErr(msg.err)))
	}
	r := msg.resp
	ev := api.Event{Type: api.EventCompleted, Response: r, ReceivedAt: p.c.now()}
	switch r.Status {
	case api.ResponseFailed:
		ev.Type = api.EventFailed
		ev.Error = &api.StreamError{Message: "the response failed"}
		if r.Error != nil {
			ev.Error = &api.StreamError{Code: r.Error.Code, Message: r.Error.Message}
		}
		if r.ErrorType != nil {
			ev.Error.ErrorType = string(*r.ErrorType)
		}
	case api.ResponseIncomplete:
		ev.Type = api.EventIncomplete
	}
	p.mark(t, &ev)
	p.applyEvent(t, &ev)
	if r.Usage != nil {
		t.outTokens = r.Usage.OutputTokens
	}
	p.endTurn(t, io.EOF, r)
	return p.endNotice(t)
}

func (p *playground) copyAnswer() tea.Cmd {
	if len(p.turns) == 0 {
		return nil
	}
	return copyCmd(p.c, p.turns[len(p.turns)-1].answer.text(), "the answer's markdown")
}

// save writes the conversation, its settings and usage as JSON (never a
// key: the client's keys are not reachable from here).
func (p *playground) save() tea.Cmd {
	if len(p.turns) == 0 {
		return msgCmd(failNotice("nothing to save yet"))
	}
	type savedTurn struct {
		Prompt    string               `json:"prompt"`
		Model     string               `json:"model"`
		Answer    string               `json:"answer"`
		Reasoning string               `json:"reasoning,omitempty"`
		Refusal   string               `json:"refusal,omitempty"`
		Status    string               `json:"status"`
		Detail    string               `json:"detail,omitempty"`
		ErrorType string               `json:"error_type,omitempty"`
		Usage     *api.ResponseUsage   `json:"usage,omitempty"`
		Routing   *api.RoutingMetadata `json:"routing,omitempty"`
		TTFTMS    int64                `json:"time_to_first_token_ms,omitempty"`
	}
	out := struct {
		SavedAt  time.Time         `json:"saved_at"`
		Gateway  string            `json:"gateway"`
		Settings map[string]string `json:"settings"`
		Turns    []savedTurn       `json:"turns"`
	}{SavedAt: p.c.now().UTC(), Settings: map[string]string{}}
	if p.c.client != nil {
		out.Gateway = p.c.client.Host()
	}
	for _, s := range p.settings {
		if v := strings.TrimSpace(s.input.Value()); v != "" {
			out.Settings[s.name] = v
		}
	}
	for _, t := range p.turns {
		st := savedTurn{Prompt: t.prompt, Model: t.model, Answer: t.answer.text(), Reasoning: string(t.reasoning), Refusal: string(t.refusal),
			Status: t.status, Detail: t.detail, ErrorType: t.errorType, Routing: t.routing}
		if t.final != nil {
			st.Usage = t.final.Usage
		}
		if !t.firstTok.IsZero() {
			st.TTFTMS = t.firstTok.Sub(t.started).Milliseconds()
		}
		out.Turns = append(out.Turns, st)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return msgCmd(failNotice("save failed: " + err.Error()))
	}
	name := "gwdash-chat-" + p.c.now().Format("20060102-150405") + ".json"
	dir := p.c.opts.ExportDir
	return func() tea.Msg {
		path, err := filepath.Abs(filepath.Join(dir, name))
		if err == nil {
			err = writeFileAtomic(path, data, 0o600)
		}
		return savedMsg{path: path, err: err}
	}
}

// ---- VIEW ----

func (p *playground) SetSize(w, h int) {
	p.w, p.h = w, h
	p.prompt.SetWidth(max(10, w-2))
	p.prompt.SetHeight(p.promptHeight())
	p.model.Width = max(10, w-12)
	for _, t := range p.turns {
		t.answer.resize(p.contentWidth())
		t.cache = nil
	}
}

func (p *playground) contentWidth() int { return max(20, p.w-2) }

func (p *playground) promptHeight() int {
	if p.h < compactH {
		return 1
	}
	return 3
}

func (p *playground) transcriptHeight() int {
	used := p.promptHeight() + 3 // model line, footer, prompt border line
	if p.focus == focusSettings {
		used += p.settingsHeight()
	}
	return max(1, p.h-used)
}

func (p *playground) settingsHeight() int { return min(len(p.settings)+2, max(3, p.h/2)) }

func (p *playground) View() string {
	s := p.c.styles
	var parts []string
	parts = append(parts, p.transcriptView())
	if p.focus == focusSettings {
		parts = append(parts, p.settingsView())
	}
	parts = append(parts, p.footer())
	modelLine := p.model.View()
	if p.focus != focusModel {
		modelLine = s.Label.Render("model ") + s.Value.Render(textsafe.Line(p.model.Value())) + s.Muted.Render("  (ctrl+l to change)")
	}
	parts = append(parts, modelLine, p.prompt.View())
	return strings.Join(parts, "\n")
}

// segments are the transcript's lines, turn by turn (finished turns cached).
func (p *playground) segments() [][]string {
	var segs [][]string
	for i, t := range p.turns {
		segs = append(segs, p.turnLines(t, i == len(p.turns)-1)...)
	}
	return segs
}

// maxScroll is how far the transcript can scroll up from its end.
func (p *playground) maxScroll(segs [][]string) int {
	n := 0
	for _, sg := range segs {
		n += len(sg)
	}
	return max(0, n-p.transcriptHeight())
}

// scrollBy moves the view up (positive) or down, within the transcript; at
// 0 the view follows the end.
func (p *playground) scrollBy(d int) {
	p.scroll = max(0, min(p.scroll+d, p.maxScroll(p.segments())))
}

func (p *playground) transcriptView() string {
	h := p.transcriptHeight()
	if len(p.turns) == 0 {
		s := p.c.styles
		intro := []string{s.Title.Render("Playground"),
			s.Muted.Render("Type a prompt and press enter; the answer streams here."),
			s.Muted.Render("esc stops a stream · ctrl+o settings · ctrl+l model · ctrl+n new chat · ctrl+s save · ctrl+y copy")}
		return fitBlock(strings.Join(intro, "\n"), p.w, h)
	}
	segs := p.segments()
	lines := lastLines(segs, h, min(p.scroll, p.maxScroll(segs)))
	for len(lines) < h {
		lines = append([]string{""}, lines...)
	}
	return strings.Join(lines, "\n")
}

// turnLines returns a turn as segments of lines; a finished turn is
// rendered once and cached.
func (p *playground) turnLines(t *turn, live bool) [][]string {
	w := p.contentWidth()
	if t.status != "streaming" && t.cache != nil && t.cacheW == w {
		return [][]string{t.cache}
	}
	s := p.c.styles
	head := []string{"", s.Title.Render("you") + " " + s.Muted.Render("→ "+textsafe.Line(t.model))}
	head = append(head, plainLines(textsafe.Clean(t.prompt), w)...)
	head = append(head, s.Title.Render("assistant"))
	segs := [][]string{head}
	if len(t.reasoning) > 0 {
		if t.showReas {
			rl := plainLines(string(t.reasoning), w-2)
			for i := range rl {
				rl[i] = s.Reasoning.Render("│ " + rl[i])
			}
			segs = append(segs, append([]string{s.Reasoning.Render("▾ reasoning (ctrl+r to fold)")}, rl...))
		} else {
			last := string(t.reasoning)
			if i := strings.LastIndexByte(strings.TrimRight(last, "\n"), '\n'); i >= 0 {
				last = last[i+1:]
			}
			segs = append(segs, []string{s.Reasoning.Render(ansi.Truncate(fmt.Sprintf("▸ reasoning, %d chars (ctrl+r): %s", len(t.reasoning), textsafe.Line(last)), w, "…"))})
		}
	}
	if len(t.events) > 0 {
		ev := make([]string, len(t.events))
		for i, e := range t.events {
			ev[i] = s.Info.Render("  · " + ansi.Truncate(e, w-4, "…"))
		}
		segs = append(segs, ev)
	}
	if len(t.refusal) > 0 {
		rl := plainLines("refusal: "+string(t.refusal), w)
		for i := range rl {
			rl[i] = s.Refusal.Render(rl[i])
		}
		segs = append(segs, rl)
	}
	segs = append(segs, t.answer.lines, t.answer.tail())
	segs = append(segs, p.statusLines(t))
	if t.status != "streaming" {
		var flat []string
		for _, sg := range segs {
			flat = append(flat, sg...)
		}
		t.cache, t.cacheW = flat, w
		return [][]string{flat}
	}
	return segs
}

// statusLines is a turn's final status and its usage card.
func (p *playground) statusLines(t *turn) []string {
	s := p.c.styles
	switch t.status {
	case "streaming":
		return []string{s.Busy.Render("▍")}
	}
	var out []string
	var st string
	switch t.status {
	case "completed":
		st = s.Success.Render("✓ completed")
	case "incomplete":
		st = s.Warning.Render("◐ incomplete: " + orText(t.detail, "unknown reason"))
	case "failed":
		st = s.Error.Render("✗ failed: " + orText(t.detail, "no reason given"))
		if t.errorType != "" {
			st += s.Error.Render(" [" + textsafe.Line(t.errorType) + "]")
		}
	case "interrupted":
		st = s.Warning.Render("⚠ interrupted: the connection ended without a final event — " + t.detail)
	case "stopped":
		st = s.Muted.Render("■ stopped: " + t.detail)
	default:
		st = s.Error.Render("✗ " + t.detail)
	}
	out = append(out, ansi.Wrap(st, p.contentWidth(), " "))
	out = append(out, p.usageCard(t)...)
	return out
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// usageCard shows tokens, cost, tier and routing of a finished turn.
func (p *playground) usageCard(t *turn) []string {
	s := p.c.styles
	var lines []string
	if t.final != nil && t.final.Usage != nil {
		u := t.final.Usage
		lines = append(lines, fmt.Sprintf("%s in %s (cached %s) · out %s (reasoning %s) · total %s",
			s.Label.Render("tokens"), format.Int(u.InputTokens), format.Int(u.InputTokensDetails.CachedTokens),
			format.Int(u.OutputTokens), format.Int(u.OutputTokensDetails.ReasoningTokens), format.Int(u.TotalTokens)))
		cost := s.Label.Render("cost") + " " + format.CostPtr(u.Cost)
		if d := u.CostDetails; d != nil {
			cost += fmt.Sprintf(" (upstream in %s · out %s", format.Cost(d.UpstreamInferenceInputCost), format.Cost(d.UpstreamInferenceOutputCost))
			if d.UpstreamInferenceCost != nil {
				cost += " · total " + format.Cost(*d.UpstreamInferenceCost)
			}
			cost += ")"
		}
		if t.final.ServiceTier != nil {
			cost += "  " + s.Label.Render("tier") + " " + textsafe.Line(*t.final.ServiceTier)
		}
		lines = append(lines, cost)
	}
	timing := []string{}
	if !t.firstTok.IsZero() {
		timing = append(timing, "ttft "+format.Seconds(t.firstTok.Sub(t.started)))
	}
	if !t.ended.IsZero() {
		timing = append(timing, "elapsed "+format.Seconds(t.ended.Sub(t.started)))
		if r := exactRate(t); r > 0 {
			timing = append(timing, fmt.Sprintf("%.1f tok/s", r))
		}
	}
	if len(timing) > 0 {
		lines = append(lines, s.Label.Render("timing")+" "+strings.Join(timing, " · "))
	}
	if m := t.routing; m != nil {
		r := s.Label.Render("routing") + " provider " + textsafe.Line(orText(m.SelectedProvider(), "?"))
		if m.Strategy != nil {
			r += " · strategy " + textsafe.Line(*m.Strategy)
		}
		if m.Endpoints != nil {
			r += fmt.Sprintf(" · %d endpoints considered", m.Endpoints.Total)
		}
		if m.GenerationTime != nil {
			r += fmt.Sprintf(" · generation %.0fms", *m.GenerationTime)
		}
		lines = append(lines, r)
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], p.contentWidth(), "…")
	}
	return lines
}

// exactRate is output tokens from usage over the generation time.
func exactRate(t *turn) float64 {
	n := t.outTokens
	if t.final != nil && t.final.Usage != nil {
		n = t.final.Usage.OutputTokens
	}
	start := t.firstTok
	if start.IsZero() {
		start = t.started
	}
	d := t.ended.Sub(start).Seconds()
	if d <= 0 || n == 0 {
		return 0
	}
	return float64(n) / d
}

var sparks = []rune("▁▂▃▄▅▆▇█")

func sparkline(vals []float64, width int) string {
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	hi := 0.0
	for _, v := range vals {
		hi = max(hi, v)
	}
	out := make([]rune, len(vals))
	for i, v := range vals {
		k := 0
		if hi > 0 {
			k = int(v / hi * float64(len(sparks)-1))
		}
		out[i] = sparks[max(0, min(k, len(sparks)-1))]
	}
	return string(out)
}

// footer is the live line while streaming, or the key hints.
func (p *playground) footer() string {
	s := p.c.styles
	if n := len(p.turns); n > 0 && p.running {
		t := p.turns[n-1]
		now := p.c.now()
		parts := []string{"elapsed " + format.Seconds(now.Sub(t.started))}
		if !t.firstTok.IsZero() {
			parts = append(parts, "ttft "+format.Seconds(t.firstTok.Sub(t.started)))
		} else {
			parts = append(parts, "waiting for the first token")
		}
		parts = append(parts, format.Int(t.outTokens)+" tokens", fmt.Sprintf("%.0f tok/s", t.rateEMA))
		return ansi.Truncate(s.Busy.Render(strings.Join(parts, " · "))+" "+s.Busy.Render(sparkline(t.rates, 24))+s.Muted.Render("  esc stops"), p.w, "…")
	}
	hint := "enter send · alt+enter/ctrl+j new line · esc leave prompt · ctrl+o settings"
	if p.focus == focusTranscript {
		hint = "i edit prompt · s settings · m model · y copy · ↑/↓ scroll · 1/3 other views"
	}
	if p.focus == focusModel {
		hint = "↑/↓ recent models · enter done"
	}
	return s.Muted.Render(ansi.Truncate(hint, p.w, "…"))
}

func (p *playground) settingsView() string {
	s := p.c.styles
	h := p.settingsHeight()
	lines := []string{s.Title.Render("Settings") + s.Muted.Render("  tab/↑/↓ move · ctrl+o close · invalid values block sending")}
	start := max(0, min(p.setIdx-(h-3)/2, len(p.settings)-(h-1)))
	for i := start; i < len(p.settings) && len(lines) < h; i++ {
		st := p.settings[i]
		label := fmt.Sprintf("%-18s", st.label)
		if i == p.setIdx {
			label = s.Focused.Render("▸ " + label)
		} else {
			label = s.Label.Render("  " + label)
		}
		val := st.input.View()
		line := label + " " + val
		pad := max(1, 52-lipgloss.Width(line))
		line += strings.Repeat(" ", pad) + s.Muted.Render(st.rule)
		if st.err != "" {
			line += " " + s.FieldErr.Render("✗ "+st.err)
		}
		lines = append(lines, ansi.Truncate(line, p.w, "…"))
	}
	return strings.Join(lines, "\n")
}

// ---- HELP ----

func (p *playground) ShortHelp() []key.Binding {
	k := p.keys
	if p.running {
		return []key.Binding{k.Stop}
	}
	return []key.Binding{k.Send, k.Newline, k.Settings, k.Stop}
}

func (p *playground) FullHelp() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{
		{k.Send, k.Newline, k.Stop, k.Focus},
		{k.Settings, k.Model, k.NewChat, k.ToggleReasoning},
		{k.Copy, k.Save, k.ScrollUp, k.ScrollDown},
	}
}
