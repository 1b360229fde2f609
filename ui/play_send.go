package ui

// Sending a prompt and following its answers: the request built from the
// conversation and the settings, the stream messages of each turn (or
// compare pane) and how each ends.

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gwdash/gwdash/internal/reqlog"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// history is the conversation so far, sent whole in input: the service
// stores nothing and refuses a previous-response reference.
func (p *playground) history(prompt string) api.Input {
	if p.usesItems() {
		// Calls were answered: the calls and their results go with
		// the messages, as the items they were (play_turn_calls.go).
		items, err := conversationItems(p.turns, len(p.turns))
		b, err2 := json.Marshal(api.InputMessage{Type: "message", Role: "user", Content: prompt})
		if err == nil && err2 == nil {
			return api.Input{Items: append(items, b)}
		}
	}
	var msgs []api.InputMessage
	for _, t := range p.turns {
		if t.out.State == api.EndNoAnswer {
			continue
		}
		msgs = append(msgs, api.InputMessage{Type: "message", Role: "user", Content: t.prompt})
		if a := t.answer.Text(); a != "" {
			msgs = append(msgs, api.InputMessage{Type: "message", Role: "assistant", Content: a})
		}
	}
	if len(msgs) == 0 {
		return api.Input{Text: prompt}
	}
	msgs = append(msgs, api.InputMessage{Type: "message", Role: "user", Content: prompt})
	return api.Input{Messages: msgs}
}

// buildRequest makes the request from the prompt and the settings; every
// problem is placed beside its setting.
func (p *playground) buildRequest(input api.Input, model string) (api.ResponseRequest, bool, []*api.ValidationError) {
	req := api.ResponseRequest{Input: input, Model: model}
	stream, errs := applySettings(p.settings, &req, p.cat.Find(model))
	if err := api.ValidateModel(model); err != nil {
		errs = append(errs, err.(*api.ValidationError))
	}
	return req, stream, errs
}

// send validates and starts the request; nothing is sent when invalid.
func (p *playground) send() tea.Cmd {
	if p.running() {
		return say("an answer is still streaming: esc stops it")
	}
	prompt := p.prompt.Value()
	if strings.TrimSpace(prompt) == "" {
		return say("the prompt is empty: type something first")
	}
	if p.cmp != nil {
		return p.sendCompare(prompt)
	}
	req, stream, errs := p.buildRequest(p.history(prompt), p.model)
	if len(errs) > 0 {
		return p.refuse(errs)
	}
	if un := api.Unsupported(p.selectedModel(), &req); len(un) > 0 && !p.insist {
		p.insist = true
		return fail("not sent yet: " + textsafe.Line(p.model) + " does not list " + strings.Join(un, ", ") + " · enter again sends anyway, s opens settings")
	}
	p.insist = false
	t := newTurn(prompt, p.model, p.contentWidth(), p.c.now())
	t.estimate = p.estimate(p.selectedModel(), prompt, req)
	p.prompt.Reset()
	p.setMode(playNav)
	saved := p.remember(req.Model)
	return tea.Batch(saved, p.start(req, t, stream))
}

// start sends req and follows its answer as the new last turn t (a
// prompt, or tool results sent back).
func (p *playground) start(req api.ResponseRequest, t *turn, stream bool) tea.Cmd {
	p.gen++
	// A replay reopened from the Logs view is linked to its row once.
	ctx, cancel := context.WithCancel(reqlog.WithReplay(p.c.ctx, p.replayOf))
	p.replayOf = 0
	p.cancel = cancel
	p.scroll = 0
	p.closeAnswer()
	now := t.out.Started
	t.limit = p.answerCap()
	t.out.Streamed = stream
	t.expect(req, p.contentWidth())
	p.turns = append(p.turns, t)
	p.live[0] = &liveStream{turn: t, cancel: cancel}
	if !stream {
		return tea.Batch(rateTick(p.c, p.gen), answerCmd(p.c.client, ctx, req, p.gen, 0, now))
	}
	return tea.Batch(rateTick(p.c, p.gen), openStreamCmd(p.c.client, ctx, req, p.gen, 0))
}

// answerCap is the most text one answer keeps (Options.AnswerCap, else
// api.DefaultAnswerCap).
func (p *playground) answerCap() int64 {
	if n := p.c.opts.AnswerCap; n > 0 {
		return n
	}
	return api.DefaultAnswerCap
}

func maxOut(req api.ResponseRequest) int {
	if req.MaxOutputTokens != nil {
		return *req.MaxOutputTokens
	}
	return 0
}

// remember puts the model first among the recent ones in this machine's
// record (off the UI loop; the picker and a new playground read it there).
func (p *playground) remember(model string) tea.Cmd {
	return p.c.remember(func(st *record.Store, base string) { st.UseModel(base, model) })
}

// newChat drops the conversation: nothing keeps its turns after this
// (the compare panes go too).
func (p *playground) newChat() {
	p.turns, p.scroll, p.cmp, p.savedTurns, p.replayOf = nil, 0, nil, 0, 0
	p.closeAnswer()
}

// refuse says why nothing was sent: a bad model by name, bad settings by
// opening them at the first field in error (each error is beside its
// field; the status line names the fields).
func (p *playground) refuse(errs []*api.ValidationError) tea.Cmd {
	for _, e := range errs {
		if e.Field == "model" {
			return fail("not sent: " + e.Error() + " (m picks a model)")
		}
	}
	p.setMode(playNav)
	p.openSettings()
	return fail("not sent: " + p.settings.ErrorSummary())
}

// turnFor is the turn a message of (gen, pane) is about, or nil when it is
// stale.
func (p *playground) turnFor(gen, pane int) *turn {
	if gen != p.gen {
		return nil
	}
	if p.cmp != nil {
		if pane < len(p.cmp.panes) {
			return p.cmp.panes[pane].turn
		}
		return nil
	}
	if len(p.turns) == 0 {
		return nil
	}
	return p.turns[len(p.turns)-1]
}

func (p *playground) onOpened(msg streamOpenedMsg) tea.Cmd {
	l := p.live[msg.pane]
	if msg.gen != p.gen || l == nil {
		return nil
	}
	if msg.err != nil {
		return p.finish(msg.pane, api.OpenFailed(l.turn.model, msg.err, l.turn.out.Started, msg.at))
	}
	l.events = msg.events
	return readChunk(msg.gen, msg.pane, msg.events)
}

// onChunk folds a chunk of events into its turn.
func (p *playground) onChunk(msg streamChunkMsg) tea.Cmd {
	l := p.live[msg.pane]
	if msg.gen != p.gen || l == nil {
		return nil // a stream already ended (stopped, or a new chat)
	}
	whole := l.turn.apply(msg.events)
	if msg.outcome.Started.IsZero() {
		msg.outcome = l.turn.out
		msg.outcome.State = api.EndStopped
	}
	l.turn.out = msg.outcome
	checks := p.checkCalls(l.turn)
	if !whole {
		// The answer reached its cap: its stream stops here (the pump
		// ends with its context), what arrived is kept.
		return tea.Batch(checks, p.finish(msg.pane, msg.outcome.Truncated(p.c.now(), l.turn.limit)))
	}
	if msg.ended {
		return tea.Batch(checks, p.finish(msg.pane, msg.outcome))
	}
	return tea.Batch(checks, readChunk(msg.gen, msg.pane, l.events))
}

func (p *playground) onAnswer(msg answerMsg) tea.Cmd {
	l := p.live[msg.pane]
	if msg.gen != p.gen || l == nil {
		return nil
	}
	if msg.resp != nil {
		if txt := msg.resp.OutputTextAll(); txt != "" {
			l.turn.take(l.turn.answer, textsafe.Clean(txt))
		} else if r := msg.resp.RefusalText(); r != "" {
			l.turn.take(l.turn.refusal, textsafe.Clean(r))
		}
		l.turn.calls.fromResponse(msg.resp)
	}
	return p.finish(msg.pane, msg.outcome)
}

// finish settles a turn, fetches its generation record and the credit.
func (p *playground) finish(pane int, o api.Outcome) tea.Cmd {
	l := p.live[pane]
	delete(p.live, pane)
	if l.cancel != nil {
		l.cancel() // its request is over (or stopped at the cap)
	}
	t := l.turn
	t.end(o)
	o = t.out
	cmds := []tea.Cmd{msgCmd(creditsStaleMsg{})}
	if p.cmp == nil {
		cmds = append(cmds, p.afterAnswer(t))
	}
	if o.GenerationID != "" && o.State != api.EndNoAnswer {
		t.waitGeneration()
		cmds = append(cmds, generationCmd(p.c.client, p.c.ctx, o.GenerationID, p.gen, pane))
	}
	if !p.running() && p.cancel != nil {
		p.cancel()
	}
	switch {
	case o.OK(), p.cmp != nil:
	case o.State == api.EndStopped:
		cmds = append(cmds, say("stopped: what arrived is kept"))
	default:
		cmds = append(cmds, fail(textsafe.Line(t.model)+": "+textsafe.Line(o.Message())))
	}
	return tea.Batch(cmds...)
}
