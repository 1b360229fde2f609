package ui

// The playground's drawing: the transcript window (only the pieces on
// screen are drawn, markdown rendered for them in a command), the footer
// with the prompt and the model line, and the mouse wheel.

import (
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/transcript"
	"github.com/gwdash/gwdash/ui/widgets"
)

func (p *playground) onMouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	d := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		d = 3
	case tea.MouseButtonWheelDown:
		d = -3
	default:
		return nil
	}
	switch {
	case p.cmp != nil:
		if pane := p.cmp.paneAt(msg.X, msg.Y); pane != nil {
			pane.scroll += d
		}
	default:
		p.scroll += d
	}
	return nil
}

// requestRenders asks for a markdown render of the blocks on screen that
// have none at this width (one render command at a time).
func (p *playground) requestRenders() tea.Cmd {
	if p.rendering {
		return nil
	}
	var target *transcript.Doc
	var blocks []int
	var texts []string
	need := func(d *transcript.Doc, i int) {
		if target != nil && d != target || len(blocks) >= 8 {
			return
		}
		target = d
		blocks = append(blocks, i)
		b := d.Block(i)
		texts = append(texts, d.Slice(b.Start, b.End))
	}
	now := p.c.now()
	if p.cmp != nil {
		p.cmp.visit(&p.c.styles, now, need)
	} else if !p.stack.covers() {
		p.visitTranscript(now, need)
	}
	if target == nil {
		return nil
	}
	p.rendering = true
	return renderCmd(p.md, target, target.Width(), blocks, texts)
}

func (p *playground) visitTranscript(now time.Time, need func(*transcript.Doc, int)) {
	h := p.transcriptHeight()
	for _, pc := range visiblePieces(p.turns, &p.c.styles, p.contentWidth(), now, h, p.scroll).pieces {
		if pc.doc != nil && pc.doc.Needs(pc.block) {
			need(pc.doc, pc.block)
		}
	}
}

// ---- VIEW ----

func (p *playground) SetSize(w, h int) {
	p.w, p.h, p.resized = w, h, true
	p.prompt.SetWidth(max(10, w-2))
	p.prompt.SetHeight(p.promptHeight())
	for _, t := range p.turns {
		t.resize(p.contentWidth())
	}
	if p.cmp != nil {
		p.cmp.layout(p.w, p.transcriptHeight()+1)
	}
	p.stack.SetSize(w, p.transcriptHeight()+1)
	if a := p.answerInput(); a != nil {
		a.fit(w, p.promptHeight()) // it takes the prompt's place
	}
	p.clampScroll()
}

func (p *playground) contentWidth() int { return max(20, p.w-2) }

func (p *playground) promptHeight() int {
	if p.h < compactH {
		return 1
	}
	return 3
}

// transcriptHeight is the lines above the footer, the model line and the
// prompt, less the one View adds to it: the prompt's last line, the one
// being typed, must fit.
func (p *playground) transcriptHeight() int { return max(1, p.h-p.promptHeight()-3) }

func (p *playground) clampScroll() {
	total := columnHeight(p.turns, &p.c.styles, p.contentWidth(), p.c.now())
	p.scroll = max(0, min(p.scroll, total-p.transcriptHeight()))
}

func (p *playground) View() string {
	s := p.c.styles
	th := p.transcriptHeight()
	var top string
	full, covered := p.stack.full()
	switch {
	case covered:
		top = full
	case p.cmp != nil:
		top = p.cmp.view(s, p.w, p.c.now())
	default:
		top = p.transcriptView(th)
	}
	top = fitBlock(top, p.w, th+1)
	parts := []string{top}
	if line, asking := p.stack.inline(); asking { // a question, the save path
		parts = append(parts, ansi.Truncate(line, p.w, "…"))
	} else {
		parts = append(parts, p.footer())
	}
	parts = append(parts, p.modelLine(), p.promptView())
	return strings.Join(parts, "\n")
}

func (p *playground) transcriptView(h int) string {
	s := p.c.styles
	if len(p.turns) == 0 {
		about := "i (or enter) types a prompt; the answer streams here. m picks the model from the catalogue, " +
			"p shows its providers, c compares 2 to 4 models side by side, s opens the settings, w saves the conversation."
		lines := append([]string{s.Title.Render("Playground")}, strings.Split(wrap(about, max(20, p.contentWidth())), "\n")...)
		for i := 1; i < len(lines); i++ {
			lines[i] = s.Muted.Render(lines[i])
		}
		return strings.Join(lines[:min(len(lines), max(1, h))], "\n")
	}
	now := p.c.now()
	lines := linesOf(visiblePieces(p.turns, &p.c.styles, p.contentWidth(), now, h, p.scroll), h)
	for len(lines) < h {
		lines = append([]string{""}, lines...)
	}
	pos := ""
	if total := columnHeight(p.turns, &p.c.styles, p.contentWidth(), now); total > h {
		pos = s.Muted.Render("lines " + widgets.ScrollPosition(total-h-p.scroll, h, total))
		if p.scroll > 0 {
			pos += s.Muted.Render(" · G follows the end")
		}
	}
	return strings.Join(lines, "\n") + "\n" + pos
}

// window is what a view of h lines, skip lines from a column's end,
// draws: the pieces it reaches and how many lines to cut from their end.
type window struct {
	pieces []piece
	cut    int
}

// visiblePieces walks a column from its end to the window and keeps only
// the pieces the window shows: those below it are passed by their heights
// (a block is not drawn to be skipped), so that a view anywhere in a
// 50 MiB answer costs what it shows.
func visiblePieces(turns []*turn, s *Styles, width int, now time.Time, h, skip int) window {
	var w window
	below := skip // lines still to pass before the window
	want := h
	for i := len(turns) - 1; i >= 0 && want > 0; i-- {
		turns[i].pieces(s, width, now, func(pc piece) bool {
			if below >= pc.h {
				below -= pc.h
				return true
			}
			if len(w.pieces) == 0 {
				w.cut = below // the first piece kept is cut at the bottom
			}
			w.pieces = append(w.pieces, pc)
			want -= pc.h - below
			below = 0
			return want > 0
		})
	}
	slices.Reverse(w.pieces)
	return w
}

// linesOf draws the window's pieces and cuts them to it.
func linesOf(w window, h int) []string {
	var lines []string
	for _, pc := range w.pieces {
		lines = append(lines, pc.lines()...)
	}
	lines = lines[:max(0, len(lines)-w.cut)]
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return lines
}

// footer is the live line while streaming, or what to do next.
func (p *playground) footer() string {
	s := p.c.styles
	now := p.c.now()
	if p.cmp == nil {
		if l, ok := p.live[0]; ok {
			return ansi.Truncate(l.turn.liveLine(s, now)+s.Muted.Render("  esc stops"), p.w, "…")
		}
	} else if p.running() {
		return s.Busy.Render(format.Plural(len(p.live), "answer", "answers")+" streaming") + s.Muted.Render(" · esc stops them all")
	}
	// The keys are in the help bar; this line says only what it cannot.
	if p.mode == playTyping && p.insist {
		return s.Warning.Render(ansi.Truncate("enter again sends despite the unsupported settings · s settings", p.w, "…"))
	}
	return ""
}

// modelLine is the model with its prices, and while a prompt is typed,
// the cost estimate and the settings the model does not list.
func (p *playground) modelLine() string {
	s := p.c.styles
	label := "model "
	names := p.model
	if p.cmp != nil {
		label, names = p.cmp.label()
	}
	line := s.Label.Render(label) + s.Value.Render(textsafe.Line(names))
	if m := p.selectedModel(); m != nil && p.cmp == nil {
		line += s.Muted.Render(" · in " + present.Price(m.PriceOf("prompt")) + "/M · out " + present.Price(m.PriceOf("completion")) + "/M")
		if n := m.Context(); n > 0 {
			line += s.Muted.Render(" · " + format.Int(int(n)) + " context")
		}
		if prompt := p.prompt.Value(); strings.TrimSpace(prompt) != "" {
			req := p.settings.built.Request // as last checked: View changes nothing
			line += "  " + s.Info.Render("estimate: "+present.Estimate(p.estimate(m, prompt, req)))
			if un := api.Unsupported(m, &req); len(un) > 0 {
				line += "  " + s.Warning.Render("⚠ not listed by this model: "+strings.Join(un, ", "))
			}
		}
	} else if api.IsNotOffered(p.catErr) {
		line += s.Muted.Render(" · no catalogue on this server")
	}
	return ansi.Truncate(line, max(1, p.w), "…")
}
