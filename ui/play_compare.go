package ui

// Compare mode: the same prompt and settings sent to 2 to 4 models at
// once, streamed side by side (one at a time, with a switcher, when the
// terminal is too narrow), each pane with its own status, time to first token, rate sparkline, tokens
// and cost, and its own scroll. One model failing does not disturb the
// others; esc stops them all; a summary ranks them when all have ended.

import (
	"context"
	"strings"
	"time"

	"github.com/gwdash/gwdash/internal/reqlog"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/transcript"
	"github.com/gwdash/gwdash/ui/widgets"
)

type comparePane struct {
	model string
	// provider is the one provider this pane's request may use (a race
	// across providers); "" lets the service route.
	provider string
	turn     *turn
	scroll   int
	// laid out: where the pane is, and its inner size
	x, y, w, h int
}

type compareState struct {
	models []string
	// providers are the providers raced (one model across them), or nil.
	providers []string
	panes     []*comparePane
	focus     int
	prompt    string
	stacked   bool
}

func (p *playground) startCompare(models []string) {
	p.cmp = &compareState{models: append([]string(nil), models...)}
	for _, m := range models {
		p.cmp.panes = append(p.cmp.panes, &comparePane{model: m})
	}
	p.cmp.layout(p.w, p.transcriptHeight()+1)
}

// startRace races one model across providers: a pane per provider, each
// request pinned to its provider with no fallback.
func (p *playground) startRace(model string, providers []string) {
	p.cmp = &compareState{providers: append([]string(nil), providers...)}
	for _, pr := range providers {
		p.cmp.models = append(p.cmp.models, model)
		p.cmp.panes = append(p.cmp.panes, &comparePane{model: model, provider: pr})
	}
	p.cmp.layout(p.w, p.transcriptHeight()+1)
}

// pinned is req sent to one provider only, without fallbacks: the
// routing settings that would choose another (order, ignore, sort, the
// fallback models) are left out, the others kept.
func pinned(req api.ResponseRequest, provider string) api.ResponseRequest {
	pref := api.ProviderPreferences{}
	if req.Provider != nil {
		pref = *req.Provider
	}
	no := false
	pref.Order, pref.Ignore, pref.Sort = nil, nil, ""
	pref.Only, pref.AllowFallbacks = []string{provider}, &no
	req.Provider, req.Models = &pref, nil
	return req
}

// label is what the model line says: the models compared, or the model
// and the providers raced.
func (c *compareState) label() (string, string) {
	if c.providers != nil && len(c.models) > 0 {
		return "race ", c.models[0] + " across " + strings.Join(c.providers, ", ")
	}
	return "compare ", strings.Join(c.models, ", ")
}

// doing is what the user is doing, for the status bar.
func (c *compareState) doing() string {
	if c.providers != nil {
		return "racing " + format.Plural(len(c.providers), "provider", "providers")
	}
	return "comparing " + format.Plural(len(c.models), "model", "models")
}

// layout places the panes: side by side when each gets 36 columns, else
// one at a time (stacked: the focused one, under a switcher line).
// w and h are the room above the playground's footer.
func (c *compareState) layout(w, h int) {
	n := len(c.panes)
	h -= summaryLines
	c.stacked = w/n < 36
	for i, pn := range c.panes {
		if c.stacked { // one pane at a time, under its switcher line
			pn.x, pn.y, pn.w, pn.h = 0, 1, w, max(5, h-1)
		} else {
			pw := w / n
			pn.x, pn.y, pn.w, pn.h = i*pw, 0, pw, h
		}
		if pn.turn != nil {
			pn.turn.resize(pn.innerWidth())
		}
	}
}

// name is what the pane is called: its provider in a race, else its
// model.
func (pn *comparePane) name() string {
	if pn.provider != "" {
		return pn.provider
	}
	return pn.model
}

func (pn *comparePane) innerWidth() int { return max(10, pn.w-2) }

// bodyHeight is the pane's lines inside its border, under its title and
// stats lines.
func (pn *comparePane) bodyHeight() int { return max(1, pn.h-4) }

func (c *compareState) paneAt(x, y int) *comparePane {
	if c.stacked {
		return c.panes[c.focus] // the one shown
	}
	for _, pn := range c.panes {
		if x >= pn.x && x < pn.x+pn.w && y >= pn.y && y < pn.y+pn.h {
			return pn
		}
	}
	return nil
}

// sendCompare sends the prompt to every model; the requests are checked
// first, each model's unsupported settings flagged.
func (p *playground) sendCompare(prompt string) tea.Cmd {
	c := p.cmp
	var reqs []api.ResponseRequest
	stream := true
	for _, m := range c.models {
		req, st, errs := p.buildRequest(api.Input{Text: prompt}, m)
		if len(errs) > 0 {
			return p.refuse(errs)
		}
		if pr := c.panes[len(reqs)].provider; pr != "" {
			req = pinned(req, pr)
		}
		stream = st
		reqs = append(reqs, req)
	}
	if !p.insist {
		var flagged []string
		for i, m := range c.models {
			if un := api.Unsupported(p.cat.Find(m), &reqs[i]); len(un) > 0 {
				flagged = append(flagged, m+" ("+strings.Join(un, ", ")+")")
			}
		}
		if len(flagged) > 0 {
			p.insist = true
			return fail("not sent yet: unlisted settings for " + textsafe.Line(strings.Join(flagged, "; ")) + " · enter again sends anyway")
		}
	}
	p.insist = false
	p.gen++
	// One race: the request log files every pane in one compare group.
	ctx, cancel := context.WithCancel(reqlog.WithRace(p.c.ctx))
	p.cancel = cancel
	now := p.c.now()
	c.prompt = prompt
	cmds := []tea.Cmd{rateTick(p.c, p.gen)}
	for i, pn := range c.panes {
		t := newTurn(prompt, pn.model, pn.innerWidth(), now)
		t.limit = p.answerCap()
		t.estimate = api.EstimateCostChars(p.cat.Find(pn.model), p.settings.inputChars()+len(prompt), maxOut(reqs[i]))
		t.out.Streamed = stream
		pn.turn, pn.scroll = t, 0
		// Each pane's request has its own context under the shared one:
		// esc stops them all, the answer cap stops one.
		pctx, pcancel := context.WithCancel(ctx)
		p.live[i] = &liveStream{turn: t, cancel: pcancel}
		cmds = append(cmds, p.remember(pn.model))
		if stream {
			cmds = append(cmds, openStreamCmd(p.c.client, pctx, reqs[i], p.gen, i))
		} else {
			cmds = append(cmds, answerCmd(p.c.client, pctx, reqs[i], p.gen, i, now))
		}
	}
	p.prompt.Reset()
	p.setMode(playNav)
	return tea.Batch(cmds...)
}

// compareKey handles the panes' own keys: focus moves, scrolling the
// focused pane, leaving compare mode.
func (p *playground) compareKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	c := p.cmp
	k := p.keys
	pn := c.panes[c.focus]
	page := max(1, pn.bodyHeight()-1)
	switch {
	case key.Matches(msg, k.NextPane):
		c.focus = (c.focus + 1) % len(c.panes)
	case key.Matches(msg, k.PrevPane):
		c.focus = (c.focus + len(c.panes) - 1) % len(c.panes)
	case key.Matches(msg, k.ScrollUp):
		pn.scroll++
	case key.Matches(msg, k.ScrollDown):
		pn.scroll--
	case key.Matches(msg, k.PageUp):
		pn.scroll += page
	case key.Matches(msg, k.PageDown):
		pn.scroll -= page
	case key.Matches(msg, k.Top):
		pn.scroll = 1 << 30
	case key.Matches(msg, k.Bottom):
		pn.scroll = 0
	case key.Matches(msg, k.EndEarly):
		if p.running() {
			return say("answers are still streaming: esc stops them first"), true
		}
		p.cmp = nil
		return say("compare mode left: back to " + textsafe.Line(p.model)), true
	case key.Matches(msg, k.Copy):
		if pn.turn == nil {
			return say("this pane has no answer yet"), true
		}
		return copyCmd(p.c, pn.turn.answer.Text(), pn.name()+"'s answer"), true
	case key.Matches(msg, k.Reasoning):
		if pn.turn == nil || pn.turn.reasoning.Size() == 0 {
			return say("this pane's answer has no reasoning"), true
		}
		pn.turn.showReas = !pn.turn.showReas
	default:
		return nil, false
	}
	c.clamp(&p.c.styles, p.c.now())
	return nil, true
}

func (c *compareState) clamp(st *Styles, now time.Time) {
	for _, pn := range c.panes {
		if pn.turn == nil {
			pn.scroll = 0
			continue
		}
		total := pn.turn.height(st, pn.innerWidth(), now)
		pn.scroll = max(0, min(pn.scroll, total-pn.bodyHeight()))
	}
}

// visit reports the visible doc blocks of every pane.
func (c *compareState) visit(st *Styles, now time.Time, need func(*transcript.Doc, int)) {
	for _, pn := range c.panes {
		if pn.turn == nil {
			continue
		}
		for _, pc := range visiblePieces([]*turn{pn.turn}, st, pn.innerWidth(), now, pn.bodyHeight(), pn.scroll).pieces {
			if pc.doc != nil && pc.doc.Needs(pc.block) {
				need(pc.doc, pc.block)
			}
		}
	}
}

func (c *compareState) view(s Styles, w int, now time.Time) string {
	var panes []string
	if c.stacked { // too narrow side by side: the focused pane, and a switcher
		return c.switcher(s, w) + "\n" + c.paneView(s, c.panes[c.focus], true, now) + "\n" + c.summary(s, w)
	}
	for i, pn := range c.panes {
		panes = append(panes, c.paneView(s, pn, i == c.focus, now))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, panes...) + "\n" + c.summary(s, w)
}

func (c *compareState) paneView(s Styles, pn *comparePane, focused bool, now time.Time) string {
	iw, bh := pn.innerWidth(), pn.bodyHeight()
	title := s.Title.Render(textsafe.Line(pn.model))
	if pn.provider != "" {
		title = s.Title.Render(textsafe.Line(pn.provider)) + s.Muted.Render(" · "+textsafe.Line(pn.model))
	}
	var stats string
	var lines []string
	switch t := pn.turn; {
	case t == nil:
		stats = s.Muted.Render("waiting for a prompt")
	default:
		o := t.out
		parts := []string{o.Message()}
		if ttft := o.TTFT(); ttft > 0 {
			parts = append(parts, "ttft "+format.Seconds(ttft))
		}
		if t.running {
			parts = append(parts, format.Plural(o.Deltas, "token", "tokens"))
		} else if tps, ok := o.TokensPerSecond(); ok {
			parts = append(parts, format.Int(int(tps))+" tok/s")
		}
		if c := o.Cost(); c != nil {
			parts = append(parts, "charged "+format.Cost(*c))
		}
		role := s.Busy
		switch {
		case t.running:
		case o.OK():
			role = s.Success
		case o.State == api.EndStopped:
			role = s.Muted
		case o.State == api.EndTruncated:
			role = s.Warning
		default:
			role = s.Error
		}
		stats = role.Render(textsafe.Line(strings.Join(parts, " · "))) + " " + s.Busy.Render(sparkline(t.rates, 12))
		lines = linesOf(visiblePieces([]*turn{t}, &s, iw, now, bh, pn.scroll), bh)
		if total := t.height(&s, iw, now); total > bh {
			title += s.Muted.Render(" · lines " + widgets.ScrollPosition(total-bh-pn.scroll, bh, total))
		}
	}
	head := []string{ansi.Truncate(title, iw, "…"), ansi.Truncate(stats, iw, "…")}
	body := append(head, lines...)
	for len(body) < bh+2 {
		body = append(body, "")
	}
	box := s.Pane
	if focused {
		box = s.PaneFocused
	}
	return box.Width(iw).Height(bh + 2).Render(fitBlock(strings.Join(body, "\n"), iw, bh+2))
}

// summaryLines is the room under the panes for the ranking.
const summaryLines = 3

// summary ranks the answers once all have ended: first token, speed and
// cost, a line each.
func (c *compareState) summary(s Styles, w int) string {
	var os []api.Outcome
	for _, pn := range c.panes {
		if pn.turn == nil || pn.turn.running {
			return ""
		}
		o := pn.turn.out
		if pn.provider != "" {
			o.Model = pn.provider // a race across providers ranks them
		}
		os = append(os, o)
	}
	var lines []string
	for _, l := range present.Ranking(os) {
		lines = append(lines, s.Subtle.Render(ansi.Truncate(textsafe.Line(l), w, "…")))
	}
	return strings.Join(lines[:min(len(lines), summaryLines)], "\n")
}
