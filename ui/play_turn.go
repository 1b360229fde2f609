package ui

// A turn: one prompt and its answer, with the answer's outcome (the one
// api.Outcome, never re-derived here), its generation record, and its
// rendering as a column of pieces that a window walks from the end.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/transcript"
)

const maxEventLines = 200

type turn struct {
	prompt    string
	model     string
	answer    *transcript.Doc
	reasoning *transcript.Doc
	refusal   *transcript.Doc
	events    []string
	out       api.Outcome
	running   bool
	gen       *api.Generation
	genErr    error
	genWait   bool
	estimate  api.Estimate
	showReas  bool
	// live rate: one sample per tick, smoothed
	rates     []float64
	rateEMA   float64
	lastCount int
	lastTick  time.Time
	// limit is the most text (answer, reasoning and refusal) the turn
	// keeps; capped says text was cut at it.
	limit  int64
	capped bool
	// lay is the turn's own lines (head, foot), kept for a width so that
	// a frame does not draw them again for every turn of the history.
	lay layout
	// schema is a structured answer's view (play_turn_schema.go), calls the
	// function calls (play_turn_calls.go): nil when the request asked for
	// neither; cont is set on a turn that sends tool results.
	schema *turnSchema
	calls  *turnCalls
	cont   *continuation
}

// layout caches a turn's lines that are not a doc's. The head depends on
// the prompt and the width only; the foot (state line and usage card) is
// kept once the turn has ended, until setGeneration or a new end changes
// it.
type layout struct {
	headW, footW int
	head, foot   []string
	footOK       bool
}

func newTurn(prompt, model string, width int, started time.Time) *turn {
	t := &turn{prompt: prompt, model: model, answer: transcript.New(true, width), reasoning: transcript.New(false, width), refusal: transcript.New(false, width),
		running: true, lastTick: started, limit: api.DefaultAnswerCap}
	t.out = api.Outcome{State: api.EndOpen, Model: model, Started: started, LastSeq: -1}
	return t
}

// kept is the text the turn holds, counted against its limit.
func (t *turn) kept() int64 { return t.answer.Size() + t.reasoning.Size() + t.refusal.Size() }

// take appends s to d within the turn's limit; past it, s is cut (at a
// rune start), capped is set and take reports false.
func (t *turn) take(d *transcript.Doc, s string) bool {
	room := t.limit - t.kept()
	if int64(len(s)) <= room {
		d.Append(s)
		return true
	}
	d.Append(format.CutBytes(s, int(max(room, 0))))
	t.capped = true
	return false
}

// apply folds the text of events into the turn's docs (the outcome comes
// from the stream, whole). It stops at the limit: false then says the
// text was cut and the stream must stop.
func (t *turn) apply(evs []api.Event) bool {
	for i := range evs {
		ev := &evs[i]
		var d *transcript.Doc
		switch ev.Type {
		case api.EventOutputTextDelta:
			d = t.answer
		case api.EventReasoningDelta, api.EventReasoningSummary:
			d = t.reasoning
		case api.EventRefusalDelta:
			d = t.refusal
		}
		if d != nil {
			txt := textsafe.Clean(ev.Delta)
			if !t.take(d, txt) {
				return false
			}
			if d == t.answer {
				t.schema.feed(txt)
			}
			continue
		}
		if t.calls.apply(*ev) {
			continue
		}
		switch ev.Type {
		case api.EventFunctionArgsDone:
			t.event("tool call arguments: " + textsafe.Line(ansi.Truncate(ev.Text, 200, "…")))
		case api.EventOutputItemAdded:
			if ev.Item != nil && ev.Item.Type != "message" && ev.Item.Type != "reasoning" {
				t.event("→ " + textsafe.Line(ev.Item.Type) + " " + textsafe.Line(ev.Item.Name))
			}
		case api.EventWebSearchProgress, api.EventWebSearchSearching, api.EventWebSearchCompleted:
			t.event("web search: " + strings.TrimPrefix(ev.Type, "response.web_search_call."))
		}
	}
	return true
}

func (t *turn) event(line string) {
	if len(t.events) < maxEventLines {
		t.events = append(t.events, line)
	}
}

// end settles a turn: its outcome, the rest of its text (within the
// limit: an answer cut there ends truncated, whatever the server said).
func (t *turn) end(o api.Outcome) {
	if t.answer.Size() == 0 && t.refusal.Size() == 0 && o.FinalText != "" {
		t.take(t.answer, textsafe.Clean(o.FinalText))
	}
	if t.capped {
		o = o.Truncated(o.Ended, t.limit)
	}
	t.out, t.running = o, false
	t.lay.footOK = false
	t.answer.Finish()
	t.reasoning.Finish()
	t.refusal.Finish()
	t.schema.end(t)
	if t.calls != nil {
		t.calls.rev++
	}
}

// sample records the live rate since the last sample.
func (t *turn) sample(now time.Time) {
	dt := now.Sub(t.lastTick).Seconds()
	if dt <= 0 {
		return
	}
	n := t.out.Deltas
	r := float64(n-t.lastCount) / dt
	t.lastCount, t.lastTick = n, now
	if t.rateEMA == 0 {
		t.rateEMA = r
	} else {
		t.rateEMA = 0.7*t.rateEMA + 0.3*r
	}
	t.rates = append(t.rates, r)
	if len(t.rates) > 60 {
		t.rates = t.rates[len(t.rates)-60:]
	}
}

// setGeneration records the generation's record (or why there is none).
func (t *turn) setGeneration(rec *api.Generation, err error) {
	t.genWait, t.gen, t.genErr = false, rec, err
	t.lay.footOK = false
}

// waitGeneration says the generation's record is being fetched.
func (t *turn) waitGeneration() {
	t.genWait = true
	t.lay.footOK = false
}

func (t *turn) resize(width int) {
	t.answer.Resize(width)
	t.reasoning.Resize(width)
	t.refusal.Resize(width)
	t.schema.resize(width)
}

// ---- pieces ----

// piece is a run of lines of a column: its height, and how to draw it.
// Blocks of a doc name their doc and index (drawn on demand, so that
// walking past a block costs nothing), and whether a gap line comes
// first; other pieces carry their lines.
type piece struct {
	h     int
	fixed []string
	doc   *transcript.Doc
	block int
	gap   bool
}

// lines draws the piece.
func (p piece) lines() []string {
	if p.doc == nil {
		return p.fixed
	}
	ls := p.doc.BlockLines(p.block)
	if p.gap {
		return append([]string{""}, ls...)
	}
	return ls
}

// pieces yields the turn's pieces from the last to the first; it stops
// when yield returns false.
func (t *turn) pieces(s *Styles, width int, now time.Time, yield func(piece) bool) {
	small := func(lines []string) bool {
		return len(lines) == 0 || yield(piece{h: len(lines), fixed: lines})
	}
	if !small(t.foot(s, width, now)) {
		return
	}
	if !t.depthPieces(s, width, yield) || !docPieces(t.shown(), yield) {
		return
	}
	if t.refusal.Size() > 0 {
		if !small([]string{s.Refusal.Render("refusal:")}) {
			return
		}
		if !docPieces(t.refusal, yield) {
			return
		}
	}
	if len(t.events) > 0 {
		ev := make([]string, len(t.events))
		for i, e := range t.events {
			ev[i] = s.Info.Render(ansi.Truncate("  · "+e, width, "…"))
		}
		if !small(ev) {
			return
		}
	}
	if t.reasoning.Size() > 0 {
		if t.showReas {
			if !docPieces(t.reasoning, yield) {
				return
			}
			if !small([]string{s.Reasoning.Render("▾ reasoning (R folds it)")}) {
				return
			}
		} else {
			last := strings.TrimSpace(t.reasoning.Tail())
			if last == "" && t.reasoning.Blocks() > 0 {
				b := t.reasoning.Block(t.reasoning.Blocks() - 1)
				last = strings.TrimSpace(t.reasoning.Slice(b.Start, b.End))
			}
			if i := strings.LastIndexByte(last, '\n'); i >= 0 {
				last = last[i+1:]
			}
			line := fmt.Sprintf("▸ reasoning, %s (R shows it): %s", format.Plural(int(t.reasoning.Size()), "character", "characters"), textsafe.Line(last))
			if !small([]string{s.Reasoning.Render(ansi.Truncate(line, width, "…"))}) {
				return
			}
		}
	}
	small(t.head(s, width))
}

// docPieces yields a doc's tail and blocks, last first.
func docPieces(d *transcript.Doc, yield func(piece) bool) bool {
	if tl := d.TailLines(); len(tl) > 0 {
		lines := tl
		if d.Blocks() > 0 {
			lines = append([]string{""}, tl...)
		}
		if !yield(piece{h: len(lines), fixed: lines}) {
			return false
		}
	}
	for i := d.Blocks() - 1; i >= 0; i-- {
		h := int(d.Block(i).Height)
		if i > 0 {
			h++
		}
		if !yield(piece{h: h, doc: d, block: i, gap: i > 0}) {
			return false
		}
	}
	return true
}

// head is headLines, kept for the width.
func (t *turn) head(s *Styles, width int) []string {
	if t.lay.head == nil || t.lay.headW != width {
		t.lay.head, t.lay.headW = t.headLines(s, width), width
	}
	return t.lay.head
}

// foot is footLines: drawn each time while the turn runs (it is one
// line), kept for the width once it has ended.
func (t *turn) foot(s *Styles, width int, now time.Time) []string {
	if t.running || t.out.Ended.IsZero() {
		return t.footLines(s, width, now)
	}
	if !t.lay.footOK || t.lay.footW != width {
		t.lay.foot, t.lay.footW, t.lay.footOK = t.footLines(s, width, now), width, true
	}
	return t.lay.foot
}

func (t *turn) headLines(s *Styles, width int) []string {
	if t.cont != nil {
		return t.cont.head(s, width, t.model)
	}
	head := []string{"", s.Title.Render("you") + " " + s.Muted.Render("→ "+textsafe.Line(t.model))}
	head = append(head, transcript.PlainLines(textsafe.Clean(t.prompt), width)...)
	return append(head, s.Title.Render("assistant"))
}

// footLines is the turn's state line and, once it ended, its usage card.
func (t *turn) footLines(s *Styles, width int, now time.Time) []string {
	o := t.out
	if t.running {
		return []string{s.Busy.Render("▍ " + o.Message())}
	}
	var st string
	switch o.State {
	case api.EndCompleted:
		st = s.Success.Render("✓ completed")
	case api.EndIncomplete:
		st = s.Warning.Render("◐ " + textsafe.Line(o.Message()))
	case api.EndFailed:
		st = s.Error.Render("✗ " + textsafe.Line(o.Message()))
	case api.EndStopped:
		st = s.Muted.Render("■ " + o.Message())
	case api.EndTruncated:
		st = s.Warning.Render("✂ " + textsafe.Line(o.Message()))
	case api.EndInterrupted, api.EndNoFinal, api.EndMalformed, api.EndTimedOut:
		st = s.Warning.Render("⚠ " + textsafe.Line(o.Message()))
	default:
		st = s.Error.Render("✗ " + textsafe.Line(describeErr(o.Err)))
	}
	out := strings.Split(ansi.Wrap(st, max(10, width), " "), "\n")
	return append(out, t.card(s, width, now)...)
}

// card is the usage card: the one usage and cost line (present), the cost
// breakdown, timing, routing, and the generation's record once fetched.
func (t *turn) card(s *Styles, width int, now time.Time) []string {
	o := t.out
	var lines []string
	label := func(l, v string) string { return s.Label.Render(l) + " " + v }
	if u := o.Usage(); u != nil {
		lines = append(lines, label("usage", present.UsageLine(u)))
		if b := present.CostBreakdown(u); b != "" {
			lines = append(lines, label("cost detail", b))
		}
	}
	if t.estimate.InputKnown || t.estimate.MaxOutputKnown {
		lines = append(lines, label("estimate before sending", present.Estimate(t.estimate)))
	}
	lines = append(lines, label("timing", present.Timing(o, now)))
	if f := o.Final; f != nil {
		if f.ServiceTier != nil {
			lines = append(lines, label("tier", textsafe.Line(*f.ServiceTier)))
		}
		if m := f.OpenRouterMetadata; m != nil {
			r := "provider " + textsafe.Line(orText(m.SelectedProvider(), "?"))
			if m.Strategy != nil {
				r += " · strategy " + textsafe.Line(*m.Strategy)
			}
			if m.Endpoints != nil {
				r += " · " + format.Plural(m.Endpoints.Total, "endpoint", "endpoints") + " considered"
			}
			lines = append(lines, label("routing", r))
		}
	}
	switch {
	case t.gen != nil:
		lines = append(lines, label("generation", present.GenerationLine(t.gen)))
	case t.genWait:
		lines = append(lines, s.Muted.Render("fetching the generation's record…"))
	case t.genErr != nil && api.IsNotOffered(t.genErr):
		lines = append(lines, s.Muted.Render("generation "+textsafe.Line(o.GenerationID)+": this server keeps no generation records"))
	case t.genErr != nil:
		lines = append(lines, s.Muted.Render("generation record: "+describeErr(t.genErr)))
	case o.GenerationID != "":
		lines = append(lines, label("generation", textsafe.Line(o.GenerationID)))
	}
	// Wrapped, not cut: in a narrow compare pane every figure still shows.
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Wrap(l, max(10, width), " ·"), "\n")...)
	}
	return out
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// height is the turn's lines: what pieces yields, summed without visiting
// the blocks (each doc keeps its own total), so that it costs the same at
// 1 KB and at 50 MiB.
func (t *turn) height(s *Styles, width int, now time.Time) int {
	h := len(t.foot(s, width, now)) + t.shown().Height() + t.depthHeight(s, width) + len(t.events) + len(t.head(s, width))
	if t.refusal.Size() > 0 {
		h += 1 + t.refusal.Height()
	}
	if t.reasoning.Size() > 0 {
		h++ // the fold line
		if t.showReas {
			h += t.reasoning.Height()
		}
	}
	return h
}

// columnHeight is the lines of a column of turns.
func columnHeight(turns []*turn, s *Styles, width int, now time.Time) int {
	h := 0
	for _, t := range turns {
		h += t.height(s, width, now)
	}
	return h
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

// liveLine is a running turn's stats: elapsed, first token, tokens, rate.
func (t *turn) liveLine(s Styles, now time.Time) string {
	o := t.out
	parts := []string{"elapsed " + format.Seconds(o.Elapsed(now))}
	if ttft := o.TTFT(); ttft > 0 {
		parts = append(parts, "ttft "+format.Seconds(ttft), format.Plural(o.Deltas, "token", "tokens"), format.Float(t.rateEMA, 0)+" tok/s")
	} else {
		parts = append(parts, "waiting for the first token")
	}
	return s.Busy.Render(strings.Join(parts, " · ")) + " " + s.Busy.Render(sparkline(t.rates, 24))
}
