package transcript

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// The markdown budget. glamour's cost grows much faster than its input on
// nesting (a 130-byte answer of 120 nested block quotes took 1.5 GB, 400
// nested list items 1.8 GB), so a block is measured before it is handed
// over; past any bound it is shown plain under a one-line note.
const (
	// mdMaxDepth is the deepest nesting of block quotes and lists
	// rendered (depth 10 costs glamour ~50 ms and a few MB; each level
	// more costs more than the last).
	mdMaxDepth = 10
	// mdMaxBytes is the largest block rendered (blocks are cut at
	// maxBlock, so only a caller outside the transcript reaches it).
	mdMaxBytes = maxBlock
	// mdMaxTime is the longest a render is waited for; a render still
	// running then is left to finish on its own (within the bounds
	// above), and until it has, blocks are shown plain.
	mdMaxTime = 2 * time.Second
)

// Markdown renders blocks with glamour within the budget; one renderer
// per width is kept, since building one is costly. It is used from render
// commands, one at a time.
type Markdown struct {
	mu       sync.Mutex
	style    string
	profile  termenv.Profile
	note     lipgloss.Style // the budget's note line
	width    int
	renderer *glamour.TermRenderer
	parser   parser.Parser
	// late is closed when a render that ran past mdMaxTime ends; nil
	// when none is running.
	late chan struct{}
	// run renders (glamour's Render; tests replace it) and maxTime is
	// the time budget (0: mdMaxTime).
	run     func(r *glamour.TermRenderer, src string) (string, error)
	maxTime time.Duration
}

// NewMarkdown is a renderer in glamour's standard style ("dark" or
// "light") for a colour profile; note styles the line that says why a
// block is shown plain.
func NewMarkdown(style string, profile termenv.Profile, note lipgloss.Style) *Markdown {
	return &Markdown{style: style, profile: profile, note: note}
}

// Render lays src out at width: as markdown within the budget, or plain
// under a one-line note saying which bound it passed.
func (m *Markdown) Render(src string, width int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if why := m.overBudget(src); why != "" {
		return m.plain(src, width, why)
	}
	if m.late != nil {
		select {
		case <-m.late:
			m.late = nil
		default:
			return m.plain(src, width, "an earlier block is still rendering past the markdown time budget")
		}
	}
	if m.renderer == nil || m.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(max(10, width-4)),
			glamour.WithColorProfile(m.profile))
		if err != nil {
			return Indent(PlainLines(src, width-2), "  ")
		}
		m.renderer, m.width = r, width
	}
	out, err := m.timed(src)
	if errors.Is(err, errOverTime) {
		return m.plain(src, width, "its markdown took over "+format.Seconds(m.budget()))
	}
	if err != nil {
		return Indent(PlainLines(src, width-2), "  ")
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	// glamour pads lines with spaces to the wrap width; trim them.
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func (m *Markdown) budget() time.Duration {
	if m.maxTime > 0 {
		return m.maxTime
	}
	return mdMaxTime
}

// errOverTime: a render ran past the time budget.
var errOverTime = errors.New("markdown render over its time budget")

// timed renders src with the current renderer, waiting at most the time
// budget. Past it, the renderer is left to the render still running (a
// new one is built for the next block) and the error is errOverTime.
func (m *Markdown) timed(src string) (string, error) {
	type result struct {
		out string
		err error
	}
	run := m.run
	if run == nil {
		run = (*glamour.TermRenderer).Render
	}
	r := m.renderer
	done := make(chan result, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("markdown renderer failed: %v", p)}
			}
		}()
		o, e := run(r, src)
		done <- result{out: o, err: e}
	}()
	t := time.NewTimer(m.budget())
	defer t.Stop()
	select {
	case res := <-done:
		return res.out, res.err
	case <-t.C:
		m.renderer, m.late = nil, ended
		return "", errOverTime
	}
}

// overBudget says why src is not rendered as markdown, or "".
func (m *Markdown) overBudget(src string) string {
	if len(src) > mdMaxBytes {
		return fmt.Sprintf("%s is over the markdown budget of %s", api.SizeText(int64(len(src))), api.SizeText(mdMaxBytes))
	}
	if d := m.nesting(src); d > mdMaxDepth {
		return fmt.Sprintf("quotes and lists nested %d deep, over the markdown budget of %d", d, mdMaxDepth)
	}
	return ""
}

// nesting is the deepest nesting of block quotes and lists in src, as
// goldmark (glamour's parser) reads it. Parsing is linear; rendering is
// what grows with depth.
func (m *Markdown) nesting(src string) int {
	if !strings.ContainsAny(src, ">-*+0123456789") {
		return 0 // no quote and no list marker
	}
	if m.parser == nil {
		m.parser = goldmark.DefaultParser()
	}
	depth, deepest := 0, 0
	ast.Walk(m.parser.Parse(text.NewReader([]byte(src))), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if k := n.Kind(); k == ast.KindBlockquote || k == ast.KindList {
			if entering {
				depth++
				deepest = max(deepest, depth)
			} else {
				depth--
			}
		}
		return ast.WalkContinue, nil
	})
	return deepest
}

// plain is src wrapped as plain text under the budget's note.
func (m *Markdown) plain(src string, width int, why string) []string {
	note := m.note.Render(ansi.Truncate("  ▸ shown as plain text: "+why, max(10, width), "…"))
	return append([]string{note}, Indent(PlainLines(src, width-2), "  ")...)
}
