package ui

// Function calls in the transcript: each call of an answer as it streams
// (its name, its arguments indented, then checked against the tool's
// parameters), and once the answer ended, the result each call got. The
// events are read by api.Calls (one home for how deltas join a call);
// the check is api.CheckArguments, in a command.
//
// A turn that sends tool results back (a continuation) is drawn with the
// results in place of a prompt; the conversation sent later holds the
// calls and their results as the items they were.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/jsonschema"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// Bounds of a call's drawing: the arguments shown (the whole is checked
// and sent) and the lines of one result shown.
const (
	maxArgsShown    = 16 << 10
	maxArgsLines    = 200
	maxResultLineIn = 512
)

// turnCalls is the function calls of one answer.
type turnCalls struct {
	acc   api.Calls
	tools []api.FunctionTool
	items []callItem // by the call's place in acc.List()
	// continued is set once the results were sent (a continuation turn
	// follows).
	continued bool
	rev       int
	lay       pieceCache
}

// callItem is what the dashboard knows of one call beyond its events.
type callItem struct {
	checkAsked bool // a check command was started
	checked    bool
	argErr     error
	answered   bool
	output     string // sent as the function_call_output
	from       string // where the result came from (typed, a file)
	// args is the arguments' lines, kept for the width and the length
	// they were drawn at: a chunk redraws only the call it grew.
	args    []string
	argsKey [3]int
}

// continuation is what a turn that sends tool results carries: the turn
// whose calls it answers and the results, in the calls' order.
type continuation struct {
	from    *turn
	outputs []api.ToolOutput
	names   []string
	// auto counts the turns in a row answered from the results file.
	auto int
}

// newTurnCalls is the call state of a request with function tools; nil
// without tools.
func newTurnCalls(tools []api.FunctionTool) *turnCalls {
	if len(tools) == 0 {
		return nil
	}
	return &turnCalls{tools: tools}
}

// apply folds an event in; it reports whether the event was a call's
// (drawn by the call piece, not as an event line).
func (c *turnCalls) apply(ev api.Event) bool {
	if c == nil {
		return false
	}
	switch ev.Type {
	case api.EventFunctionArgsDelta, api.EventFunctionArgsDone:
		c.acc.Apply(ev)
		c.sync()
		return true
	case api.EventOutputItemAdded, api.EventOutputItemDone:
		if ev.Item == nil || ev.Item.Type != "function_call" {
			return false
		}
		c.acc.Apply(ev)
		c.sync()
		return true
	case api.EventCompleted, api.EventIncomplete:
		c.acc.Apply(ev)
		c.sync()
	}
	return false
}

// fromResponse reads the calls of a plain (not streamed) answer.
func (c *turnCalls) fromResponse(r *api.Response) {
	if c == nil || r == nil {
		return
	}
	c.acc.Apply(api.Event{Type: api.EventCompleted, Response: r})
	c.sync()
}

func (c *turnCalls) sync() {
	for n := len(c.acc.List()); len(c.items) < n; {
		c.items = append(c.items, callItem{})
	}
	c.rev++
}

// list is the calls so far.
func (c *turnCalls) list() []api.Call {
	if c == nil {
		return nil
	}
	return c.acc.List()
}

// unanswered is the index of the first call without a result, or -1.
func (c *turnCalls) unanswered() int {
	if c == nil {
		return -1
	}
	for i := range c.items {
		if !c.items[i].answered {
			return i
		}
	}
	return -1
}

// answer records a call's result.
func (c *turnCalls) answer(i int, output, from string) {
	c.items[i].answered, c.items[i].output, c.items[i].from = true, output, from
	c.rev++
}

// outputs are the results in the calls' order (all answered).
func (c *turnCalls) outputs() ([]api.ToolOutput, []string) {
	calls := c.list()
	outs := make([]api.ToolOutput, 0, len(calls))
	names := make([]string, 0, len(calls))
	for i, call := range calls {
		outs = append(outs, api.ToolOutput{CallID: call.CallID, Output: c.items[i].output})
		names = append(names, call.Name)
	}
	return outs, names
}

// answerable reports whether the turn's calls wait for results: the
// answer completed and every call arrived whole.
func (t *turn) answerable() bool {
	c := t.calls
	if c == nil || t.running || !t.out.OK() || c.continued || len(c.items) == 0 {
		return false
	}
	for _, call := range c.list() {
		if !call.Done || call.Truncated || call.CallID == "" {
			return false
		}
	}
	return true
}

// ---- drawing ----

// lines is the call piece, kept for the width until a call changes.
func (c *turnCalls) lines(st *Styles, width int, t *turn) []string {
	if c == nil || len(c.items) == 0 {
		return nil
	}
	return c.lay.get(width, c.rev, func() []string { return c.draw(st, width, t) })
}

func (c *turnCalls) draw(st *Styles, width int, t *turn) []string {
	var out []string
	w := max(10, width)
	add := func(style func(...string) string, line string) {
		out = append(out, style(ansi.Truncate(line, w, "…")))
	}
	calls := c.list()
	ready := t.answerable()
	for i, call := range calls {
		it := &c.items[i]
		name := textsafe.Line(call.Name)
		head := "  ⚙ call " + name
		if call.CallID != "" {
			head += " · " + textsafe.Line(call.CallID)
		}
		if len(calls) > 1 {
			head += fmt.Sprintf(" · %d of %d", i+1, len(calls))
		}
		if !call.Done && t.running {
			head += " · arguments arriving…"
		}
		add(st.Info.Render, head)
		if key := [3]int{w, len(call.Arguments), boolInt(call.Done)}; it.args == nil || it.argsKey != key {
			it.args, it.argsKey = argumentLines(st, call.Arguments, w), key
		}
		out = append(out, it.args...)
		switch {
		case call.Truncated:
			add(st.Error.Render, fmt.Sprintf("    ✗ the arguments are over %s and were cut", api.SizeText(api.MaxArgumentBytes)))
		case !call.Done && !t.running:
			add(st.Warning.Render, "    ⚠ the call did not arrive whole (what arrived is kept)")
		case it.checked && it.argErr == nil:
			add(st.Success.Render, "    ✓ the arguments fit "+name+"'s parameters")
		case it.checked:
			out = append(out, argErrLines(st, name, it.argErr, w)...)
		case call.Done:
			add(st.Busy.Render, "    checking the arguments against "+name+"'s parameters…")
		}
		switch {
		case it.answered:
			add(st.Muted.Render, "    ↳ result ("+textsafe.Line(it.from)+"): "+textsafe.Line(headOf(it.output, maxResultLineIn)))
		case ready:
			add(st.Warning.Render, "    ⧗ waits for its result · a answers it")
		}
	}
	if c.acc.Dropped > 0 {
		add(st.Warning.Render, fmt.Sprintf("  ⚠ %s more past the %d kept", format.Plural(c.acc.Dropped, "call", "calls"), api.MaxCalls))
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// argumentLines are a call's arguments indented as JSON, bounded.
func argumentLines(st *Styles, args string, width int) []string {
	if args == "" {
		return nil
	}
	shown := headOf(args, maxArgsShown)
	pretty := api.PrettyPartialJSON(textsafe.Clean(shown))
	var out []string
	for _, l := range strings.Split(pretty, "\n") {
		for _, wl := range strings.Split(ansi.Wrap(l, max(10, width-4), " "), "\n") {
			if len(out) == maxArgsLines {
				return append(out, st.Muted.Render(fmt.Sprintf("    … the arguments go on (%s in all)", api.SizeText(int64(len(args))))))
			}
			out = append(out, "    "+wl)
		}
	}
	if len(shown) < len(args) {
		out = append(out, st.Muted.Render(fmt.Sprintf("    … %s more of the arguments (the whole is checked and sent)", api.SizeText(int64(len(args)-len(shown))))))
	}
	return out
}

// argErrLines words a failed check: every violation at its pointer.
func argErrLines(st *Styles, name string, err error, width int) []string {
	var e *jsonschema.Error
	if errors.As(err, &e) {
		head := st.Error.Render(ansi.Truncate("    ✗ the arguments do not fit "+name+"'s parameters: "+format.Plural(len(e.Problems)+e.Omitted, "violation", "violations"), width, "…"))
		return append([]string{head}, problemLines(st, e.Problems, e.Omitted, width)...)
	}
	return strings.Split(ansi.Wrap(st.Error.Render("    ✗ "+textsafe.Line(err.Error())), width, " "), "\n")
}

// headOf is s cut to at most n bytes, at a rune start.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// contHead is a continuation's head: the results sent, in place of a
// prompt.
func (c *continuation) head(st *Styles, width int, model string) []string {
	head := []string{"", st.Title.Render("tool results") + " " + st.Muted.Render("→ "+textsafe.Line(model))}
	for i, o := range c.outputs {
		line := "  ↳ " + textsafe.Line(c.names[i]) + ": " + textsafe.Line(headOf(o.Output, maxResultLineIn))
		head = append(head, ansi.Truncate(line, max(10, width), "…"))
	}
	return append(head, st.Title.Render("assistant"))
}

// depthPieces yields the call piece and the verdict piece (last first);
// false when yield stopped.
func (t *turn) depthPieces(st *Styles, width int, yield func(piece) bool) bool {
	if ls := t.calls.lines(st, width, t); len(ls) > 0 {
		if !yield(piece{h: len(ls), fixed: ls}) {
			return false
		}
	}
	if t.schema != nil {
		if ls := t.schema.lines(st, width); len(ls) > 0 {
			return yield(piece{h: len(ls), fixed: ls})
		}
	}
	return true
}

// depthHeight is the lines of depthPieces (cached lines: no drawing).
func (t *turn) depthHeight(st *Styles, width int) int {
	h := len(t.calls.lines(st, width, t))
	if t.schema != nil {
		h += len(t.schema.lines(st, width))
	}
	return h
}

// ---- the conversation sent ----

// usesItems reports whether the conversation holds tool calls answered:
// it is then sent as items (messages, calls and results), not messages.
func (p *playground) usesItems() bool {
	for _, t := range p.turns {
		if t.cont != nil {
			return true
		}
	}
	return false
}

// conversationItems is the input items of the first n turns: each turn's
// own input (the prompt, or the results sent) and what it answered (its
// output items when a later turn answered its calls, else its text).
func conversationItems(turns []*turn, n int) ([]json.RawMessage, error) {
	answered := map[*turn]bool{}
	for _, t := range turns {
		if t.cont != nil && t.out.State != api.EndNoAnswer {
			answered[t.cont.from] = true
		}
	}
	var items []json.RawMessage
	add := func(v any) error {
		b, err := json.Marshal(v)
		if err == nil {
			items = append(items, b)
		}
		return err
	}
	for _, t := range turns[:n] {
		if t.out.State == api.EndNoAnswer {
			continue
		}
		in, err := turnInput(t)
		if err != nil {
			return nil, err
		}
		items = append(items, in...)
		if answered[t] && t.out.Final != nil {
			for _, it := range t.out.Final.Output {
				if err := add(it); err != nil {
					return nil, err
				}
			}
			continue
		}
		if a := t.answer.Text(); a != "" {
			if err := add(api.InputMessage{Type: "message", Role: "assistant", Content: a}); err != nil {
				return nil, err
			}
		}
	}
	return items, nil
}

// turnInput is what a turn sent new: its prompt, or the results.
func turnInput(t *turn) ([]json.RawMessage, error) {
	if t.cont == nil {
		b, err := json.Marshal(api.InputMessage{Type: "message", Role: "user", Content: t.prompt})
		return []json.RawMessage{b}, err
	}
	var items []json.RawMessage
	for _, o := range t.cont.outputs {
		b, err := json.Marshal(map[string]string{"type": "function_call_output", "call_id": o.CallID, "output": o.Output})
		if err != nil {
			return nil, err
		}
		items = append(items, b)
	}
	return items, nil
}

// toolsOf reads the function tools of a request (other tools, the
// service's own, are not called back).
func toolsOf(req api.ResponseRequest) []api.FunctionTool {
	var out []api.FunctionTool
	for _, raw := range req.Tools {
		var t struct {
			Type string `json:"type"`
			api.FunctionTool
		}
		if json.Unmarshal(raw, &t) == nil && t.Type == "function" {
			out = append(out, t.FunctionTool)
		}
	}
	return out
}
