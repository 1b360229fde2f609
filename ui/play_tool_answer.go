package ui

// Answering the model's function calls in the playground. When an answer
// ends with calls, each waits for its result: a opens an input in place
// of the prompt (the prompt keeps what was typed there), where the result
// is typed (JSON or text) or read from a file (ctrl+o, with path
// completion); enter keeps it and moves to the next call of the answer.
// Once every call has its result, the conversation goes on: the results
// are sent as function_call_output items after the calls, as the SDK's
// tool loop does (api.ContinueWith), and the model's next answer streams
// as a turn of its own. With a file of canned results (by tool name),
// the calls are answered from it without asking, up to api.MaxToolTurns
// turns in a row.
//
// The settings choose the format and the tools (api.SettingsTable puts
// them into the request); a turn reads them from the request it sent, and
// the canned results file through toolResultsFile.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// playDepth is the input answering the model's function calls.
type playDepth struct {
	keys   ToolAnswerKeys
	answer *toolAnswer // open while a call is answered
}

// toolResultsFile is the file of canned results the settings name (""
// for none: the user answers each call).
func (p *playground) toolResultsFile() string {
	if p.settings == nil {
		return ""
	}
	return p.settings.ToolResultsFile
}

// expect readies a turn for what its request asks: an indented,
// checked structured answer, and calls to follow.
func (t *turn) expect(req api.ResponseRequest, width int) {
	if req.Text != nil {
		t.schema = newTurnSchema(req.Text.Format, width)
	}
	t.calls = newTurnCalls(toolsOf(req))
}

// ---- after an answer ----

// afterAnswer starts what an ended answer of the transcript needs: the
// check of a structured answer, the checks of its calls, and the canned
// results (or says that the calls wait).
func (p *playground) afterAnswer(t *turn) tea.Cmd {
	var cmds []tea.Cmd
	if s := t.schema; s != nil && s.state == schemaChecking {
		cmds = append(cmds, checkAnswerCmd(t, s.format, t.answer.text()))
	}
	cmds = append(cmds, p.checkCalls(t))
	if t.answerable() {
		if f := p.toolResultsFile(); f != "" {
			cmds = append(cmds, readToolResultsCmd(t, f))
		} else {
			cmds = append(cmds, say(callsWaitNotice(t)))
		}
	}
	return tea.Batch(cmds...)
}

// callsWaitNotice says which calls wait for a result.
func callsWaitNotice(t *turn) string {
	var names []string
	for _, c := range t.calls.list() {
		names = append(names, textsafe.Line(c.Name))
	}
	them := "it"
	if len(names) > 1 {
		them = "them"
	}
	return "the model called " + strings.Join(names, ", ") + ": a answers " + them
}

// checkCalls starts a check of each call that arrived whole.
func (p *playground) checkCalls(t *turn) tea.Cmd {
	c := t.calls
	if c == nil {
		return nil
	}
	var cmds []tea.Cmd
	for i, call := range c.list() {
		if call.Done && !call.Truncated && !c.items[i].checkAsked {
			c.items[i].checkAsked = true
			cmds = append(cmds, checkArgsCmd(t, i, call, c.tools))
		}
	}
	return tea.Batch(cmds...)
}

// callsWait reports calls of the last answer waiting for results.
func (p *playground) callsWait() bool {
	if p.running() || p.cmp != nil || len(p.turns) == 0 {
		return false
	}
	t := p.turns[len(p.turns)-1]
	return t.answerable() && t.calls.unanswered() >= 0
}

// onDepthMsg takes the results of the commands above.
func (p *playground) onDepthMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case answerCheckedMsg:
		msg.t.schema.checked(msg.chk, msg.err)
	case argsCheckedMsg:
		if c := msg.t.calls; c != nil && msg.idx < len(c.items) {
			c.items[msg.idx].checked, c.items[msg.idx].argErr = true, msg.err
			c.rev++
		}
	case toolResultsMsg:
		return p.onResults(msg)
	case toolFileMsg:
		a := p.depth.answer
		if a == nil || a.t != msg.t || a.idx != msg.idx {
			return nil
		}
		a.reading = false
		if msg.err != nil {
			return fail("the result was not read: " + textsafe.Line(present.Plain(msg.err)))
		}
		return p.answered(a, api.ToolResultText(msg.data), "file "+msg.path)
	}
	return nil
}

// onResults answers the calls from the canned results; what the file
// has no result for is asked.
func (p *playground) onResults(msg toolResultsMsg) tea.Cmd {
	t := msg.t
	if len(p.turns) == 0 || p.turns[len(p.turns)-1] != t || !t.answerable() {
		return nil // a newer turn, or answered meanwhile
	}
	name := textsafe.Line(msg.path)
	if msg.err != nil {
		return fail("the tool results were not read: " + textsafe.Line(present.Plain(msg.err)) + " · a answers the calls by hand")
	}
	calls := t.calls.list()
	outputs, missing := api.AnswerCalls(calls, msg.results)
	for _, o := range outputs {
		for i, c := range calls {
			if c.CallID == o.CallID && !t.calls.items[i].answered {
				t.calls.answer(i, o.Output, "from "+msg.path)
			}
		}
	}
	if len(missing) > 0 {
		return say(name + " has no result for " + textsafe.Line(missing[0].Name) + ": a answers it")
	}
	if t.cont != nil && t.cont.auto >= api.MaxToolTurns {
		return say(fmt.Sprintf("the model still calls tools after %d turns answered from %s: a sends these results", api.MaxToolTurns, name))
	}
	return p.continueCalls(t, true)
}

// continueCalls sends the results of the last turn's calls: the
// conversation so far, the turn's output items, then one
// function_call_output per call.
func (p *playground) continueCalls(t *turn, auto bool) tea.Cmd {
	n := len(p.turns) - 1
	if n < 0 || p.turns[n] != t || p.running() {
		return nil
	}
	outputs, names := t.calls.outputs()
	first, err := conversationItems(p.turns, n)
	if err != nil {
		return fail("not sent: " + present.Plain(err))
	}
	own, err := turnInput(t)
	if err != nil {
		return fail("not sent: " + present.Plain(err))
	}
	var previous []api.OutputItem
	if t.out.Final != nil {
		previous = t.out.Final.Output
	}
	input, err := api.ContinueWith(api.Input{Items: append(first, own...)}, previous, outputs)
	if err != nil {
		return fail("not sent: " + textsafe.Line(present.Plain(err)))
	}
	req, stream, errs := p.buildRequest(input, t.model)
	if len(errs) > 0 {
		return p.refuse(errs)
	}
	nt := newTurn("", t.model, p.contentWidth(), p.c.now())
	nt.cont = &continuation{from: t, outputs: outputs, names: names}
	if auto {
		nt.cont.auto = 1
		if t.cont != nil {
			nt.cont.auto = t.cont.auto + 1
		}
	}
	t.calls.continued = true
	t.calls.rev++
	p.depth.answer = nil
	return p.start(req, nt, stream)
}

// ---- the answer input ----

// toolAnswer is the input answering one call at a time: typed text, or
// a file picked (path completes with tab).
type toolAnswer struct {
	t       *turn
	idx     int
	text    textarea.Model
	path    *pathInput
	confirm *confirmPrompt // esc asks before dropping typed text
	keys    ToolAnswerKeys
	reading bool // the picked file is being read
}

// answering reports the answer input open.
func (p *playground) answering() bool { return p.depth.answer != nil }

// openAnswer opens the input for the first call without a result.
func (p *playground) openAnswer() tea.Cmd {
	switch {
	case p.running():
		return say("an answer is still streaming: its calls are answered once it ends")
	case p.cmp != nil:
		return say("calls are answered outside compare mode")
	case !p.callsWait():
		return say("no tool call waits for a result")
	}
	t := p.turns[len(p.turns)-1]
	ta := textarea.New()
	ta.Cursor.SetMode(cursor.CursorStatic) // no blink: an idle dashboard must not redraw
	ta.ShowLineNumbers = false
	ta.Prompt = promptGlyph(true)
	ta.CharLimit = api.MaxToolOutputBytes
	ta.KeyMap.InsertNewline = p.depth.keys.Newline
	a := &toolAnswer{t: t, idx: t.calls.unanswered(), text: ta, keys: p.depth.keys}
	p.depth.answer = a
	a.placeholder()
	p.depth.setSize(p.w, p.promptHeight())
	return a.text.Focus()
}

func (a *toolAnswer) placeholder() {
	a.text.Placeholder = "the result of " + textsafe.Line(a.t.calls.list()[a.idx].Name) + ": JSON or text"
}

// setSize fits the input to the prompt's place.
func (d *playDepth) setSize(w, h int) {
	if a := d.answer; a != nil {
		a.text.SetWidth(max(10, w-2))
		a.text.SetHeight(h)
		if a.path != nil {
			a.path.setWidth(w)
		}
	}
}

// answerKey handles a key while the input is open.
func (p *playground) answerKey(msg tea.KeyMsg) tea.Cmd {
	a := p.depth.answer
	if a.confirm != nil {
		_, done, yes := a.confirm.key(msg)
		if !done {
			return nil
		}
		a.confirm = nil
		if !yes {
			return say("still answering: enter sends the result")
		}
		p.depth.answer = nil
		return say("the typed result is dropped · a answers the call again")
	}
	if a.path != nil {
		cmd, done, path := a.path.key(msg)
		if !done {
			return cmd
		}
		a.path = nil
		if path == "" {
			return tea.Batch(a.text.Focus(), say("no file picked: the typed result is kept"))
		}
		a.reading = true
		return readToolFileCmd(a.t, a.idx, path)
	}
	k := a.keys
	switch {
	case a.reading:
		return say("reading the result file…")
	case key.Matches(msg, k.Cancel):
		if strings.TrimSpace(a.text.Value()) != "" {
			a.confirm = newConfirm("drop the typed result?", "drop result")
			return nil
		}
		p.depth.answer = nil
		return say("the call waits for its result · a answers it")
	case key.Matches(msg, k.File):
		pi := newPathInput("result file › ", "")
		pi.setWidth(p.w)
		a.path = &pi
		return pi.focus()
	case key.Matches(msg, k.Send):
		v := a.text.Value()
		if strings.TrimSpace(v) == "" {
			return say("type the result first, or ctrl+o reads it from a file")
		}
		return p.answered(a, api.ToolResultText([]byte(v)), "typed")
	}
	var cmd tea.Cmd
	a.text, cmd = a.text.Update(msg)
	return cmd
}

// answered keeps a call's result and moves to the next call; after the
// last, the results are sent.
func (p *playground) answered(a *toolAnswer, output, from string) tea.Cmd {
	if len(output) > api.MaxToolOutputBytes {
		return fail(fmt.Sprintf("the result is %s; at most %s is sent", api.SizeText(int64(len(output))), api.SizeText(api.MaxToolOutputBytes)))
	}
	a.t.calls.answer(a.idx, output, from)
	next := a.t.calls.unanswered()
	if next < 0 {
		p.depth.answer = nil
		return p.continueCalls(a.t, false)
	}
	a.idx = next
	a.text.Reset()
	a.placeholder()
	return say(fmt.Sprintf("result kept · now call %d of %d", next+1, len(a.t.calls.items)))
}

// promptView is the prompt, or the answer input in its place.
func (p *playground) promptView() string {
	a := p.depth.answer
	switch {
	case a == nil:
		return p.prompt.View()
	case a.path != nil:
		return fitBlock(a.path.view(p.c.styles), p.w, p.promptHeight())
	}
	return a.text.View()
}

// answerLine is the line above the input: which call, and how.
func (p *playground) answerLine() string {
	a := p.depth.answer
	s := p.c.styles
	if a.confirm != nil {
		return ansi.Truncate(a.confirm.view(s), p.w, "…")
	}
	calls := a.t.calls.list()
	line := "result of " + textsafe.Line(calls[a.idx].Name)
	if len(calls) > 1 {
		line += fmt.Sprintf(" (call %d of %d)", a.idx+1, len(calls))
	}
	switch {
	case a.reading:
		line += " · reading the file…"
	case a.path != nil:
		line += " · the file's content is the result"
	default:
		line += " · JSON or text · ctrl+o reads it from a file"
	}
	return s.Warning.Render(ansi.Truncate(line, p.w, "…"))
}

// answerKeyMap is the input's keys (the path's or the question's when
// open).
func (p *playground) answerKeyMap() help.KeyMap {
	a := p.depth.answer
	switch {
	case a.confirm != nil:
		return a.confirm.KeyMap()
	case a.path != nil:
		return a.path.keys
	}
	return a.keys
}

// answerHelp says what the user is doing.
func (p *playground) answerHelp() string {
	if p.depth.answer.path != nil {
		return "picking a result file"
	}
	return "answering a tool call"
}

// unsaved says what quitting would lose here: a result typed, not sent.
func (d *playDepth) unsaved() string {
	if a := d.answer; a != nil && strings.TrimSpace(a.text.Value()) != "" {
		return "a tool result typed, not sent"
	}
	return ""
}
