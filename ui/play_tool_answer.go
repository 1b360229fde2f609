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
	"github.com/gwdash/gwdash/ui/widgets"
)

// playDepth is the keys of answering the model's function calls (the
// input itself is a toolAnswer on the playground's stack).
type playDepth struct {
	keys ToolAnswerKeys
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
		cmds = append(cmds, checkAnswerCmd(t, s.format, t.answer.Text()))
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
		return p.act(p.stack.update(msg)) // the answer input's
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
	p.closeAnswer()
	return p.start(req, nt, stream)
}

// ---- the answer input ----

// toolAnswer is the input answering one call at a time: typed text, or
// a file picked (path completes with tab). It is a screen on the
// playground's stack drawn in the prompt's place: its line above the
// model line, its input where the prompt was (the prompt keeps what was
// typed there). Its own stack holds the file's path and the question
// before typed text is dropped. It closes with callsAnswered once the
// last call has its result.
type toolAnswer struct {
	c       *common
	t       *turn
	idx     int
	text    textarea.Model
	sub     stack
	keys    ToolAnswerKeys
	reading bool // the picked file is being read
	w, rows int  // the width, and the prompt's height it takes
}

// callsAnswered is the input's value: every call of t has its result.
type callsAnswered struct{ t *turn }

// answerInput is the answer input while open, or nil.
func (p *playground) answerInput() *toolAnswer { a, _ := find[*toolAnswer](&p.stack); return a }

// closeAnswer closes the answer input (a new prompt, a new chat, the
// results sent).
func (p *playground) closeAnswer() {
	if a := p.answerInput(); a != nil {
		p.stack.drop(a)
	}
}

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
	a := &toolAnswer{c: p.c, t: t, idx: t.calls.unanswered(), text: ta, keys: p.depth.keys}
	a.placeholder()
	p.stack.push(a)
	a.fit(p.w, p.promptHeight())
	return a.text.Focus()
}

func (a *toolAnswer) placeholder() {
	a.text.Placeholder = "the result of " + textsafe.Line(a.t.calls.list()[a.idx].Name) + ": JSON or text"
}

// SetSize takes the view's width; the height is the prompt's (fit).
func (a *toolAnswer) SetSize(w, _ int) { a.fit(w, a.rows) }

// fit sizes the input to the prompt's place.
func (a *toolAnswer) fit(w, rows int) {
	a.w, a.rows = w, rows
	a.text.SetWidth(max(10, w-2))
	a.text.SetHeight(rows)
	a.sub.SetSize(w, rows)
}

func (a *toolAnswer) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case toolFileMsg:
		if a.t != msg.t || a.idx != msg.idx {
			return nil, noAction
		}
		a.reading = false
		if msg.err != nil {
			return fail("the result was not read: " + textsafe.Line(present.Plain(msg.err))), noAction
		}
		return a.answered(api.ToolResultText(msg.data), "file "+msg.path)
	case widgets.PathCompletedMsg:
		return a.fromSub(a.sub.update(msg))
	case tea.KeyMsg:
		if a.sub.open() {
			return a.fromSub(a.sub.update(msg))
		}
		return a.key(msg)
	}
	return nil, noAction
}

// fromSub acts on the path picked or the question answered.
func (a *toolAnswer) fromSub(cmd tea.Cmd, act action) (tea.Cmd, action) {
	switch v := act.value.(type) {
	case pathChosen:
		a.reading = true
		return tea.Batch(cmd, readToolFileCmd(a.t, a.idx, string(v))), noAction
	case answer:
		if !v.yes {
			return tea.Batch(cmd, say("still answering: enter sends the result")), noAction
		}
		return tea.Batch(cmd, say("the typed result is dropped · a answers the call again")), cancelled
	}
	if act.kind == actCancel { // no file picked
		return tea.Batch(cmd, a.text.Focus()), noAction
	}
	return cmd, noAction
}

func (a *toolAnswer) key(msg tea.KeyMsg) (tea.Cmd, action) {
	k := a.keys
	switch {
	case a.reading:
		return say("reading the result file…"), noAction
	case key.Matches(msg, k.Cancel):
		if strings.TrimSpace(a.text.Value()) != "" {
			a.sub.push(newQuestion(a.c, widgets.NewConfirm("drop the typed result?", "drop result"), "answering y/N"))
			return nil, noAction
		}
		return say("the call waits for its result · a answers it"), cancelled
	case key.Matches(msg, k.File):
		pp := newPathPrompt(a.c, "result file › ", "", "picking a result file", "no file picked: the typed result is kept")
		a.sub.push(pp)
		return pp.focus(), noAction
	case key.Matches(msg, k.Send):
		v := a.text.Value()
		if strings.TrimSpace(v) == "" {
			return say("type the result first, or ctrl+o reads it from a file"), noAction
		}
		return a.answered(api.ToolResultText([]byte(v)), "typed")
	}
	var cmd tea.Cmd
	a.text, cmd = a.text.Update(msg)
	return cmd, noAction
}

// answered keeps a call's result and moves to the next call; after the
// last, the input closes and the playground sends the results.
func (a *toolAnswer) answered(output, from string) (tea.Cmd, action) {
	if len(output) > api.MaxToolOutputBytes {
		return fail(fmt.Sprintf("the result is %s; at most %s is sent", api.SizeText(int64(len(output))), api.SizeText(api.MaxToolOutputBytes))), noAction
	}
	a.t.calls.answer(a.idx, output, from)
	next := a.t.calls.unanswered()
	if next < 0 {
		return nil, done(callsAnswered{t: a.t})
	}
	a.idx = next
	a.text.Reset()
	a.placeholder()
	return say(fmt.Sprintf("result kept · now call %d of %d", next+1, len(a.t.calls.items))), noAction
}

// input is what takes the prompt's place: the text, or the file's path.
func (a *toolAnswer) input() string {
	if _, picking := a.sub.top().(*pathPrompt); picking {
		line, _ := a.sub.inline()
		return fitBlock(line, a.w, a.rows)
	}
	return a.text.View()
}

// View is the line above the input: which call, and how (or the
// question before typed text is dropped).
func (a *toolAnswer) View() string {
	s := a.c.styles
	if q, ok := a.sub.top().(*question); ok {
		return ansi.Truncate(q.View(), a.w, "…")
	}
	calls := a.t.calls.list()
	line := "result of " + textsafe.Line(calls[a.idx].Name)
	if len(calls) > 1 {
		line += fmt.Sprintf(" (call %d of %d)", a.idx+1, len(calls))
	}
	switch {
	case a.reading:
		line += " · reading the file…"
	case a.sub.open():
		line += " · the file's content is the result"
	default:
		line += " · JSON or text · ctrl+o reads it from a file"
	}
	return s.Warning.Render(ansi.Truncate(line, a.w, "…"))
}

// Inline: the input is drawn in the prompt's place, not the transcript's.
func (a *toolAnswer) Inline() bool { return true }

// KeyMap is the input's keys (the path's or the question's when open).
func (a *toolAnswer) KeyMap() help.KeyMap {
	if s := a.sub.top(); s != nil {
		return s.KeyMap()
	}
	return a.keys
}

// Help says what the user is doing.
func (a *toolAnswer) Help() string {
	if s := a.sub.top(); s != nil {
		return s.Help()
	}
	return "answering a tool call"
}

func (a *toolAnswer) Typing() bool {
	if s := a.sub.top(); s != nil {
		return s.Typing()
	}
	return true
}

// Unsaved says what quitting would lose here: a result typed, not sent.
func (a *toolAnswer) Unsaved() string {
	if strings.TrimSpace(a.text.Value()) != "" {
		return "a tool result typed, not sent"
	}
	return ""
}

// promptView is the prompt, or the answer input in its place.
func (p *playground) promptView() string {
	if a := p.answerInput(); a != nil {
		return a.input()
	}
	return p.prompt.View()
}
