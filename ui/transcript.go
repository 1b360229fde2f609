package ui

// A growing answer, kept so that appending costs what is appended, memory
// stays near the text's own size, and a frame draws only what is visible:
//
//   - the text lives in chunks of at most 1 MiB, each sized to what it
//     holds (it doubles until full, so a short answer costs its own size
//     and a long one no copies of what came before);
//   - blocks are found as the text arrives (a block ends at a blank line
//     outside a code fence, or at 16 KiB, so no block is ever large);
//   - each block has a height: an estimate from its plain wrapping until
//     it is rendered, then its rendered height;
//   - markdown is rendered in a command, off the UI loop, for the blocks
//     on screen only, into a bounded cache; until then a block shows
//     plain-wrapped.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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

const (
	chunkSize   = 1 << 20
	maxBlock    = 16 << 10
	cacheBlocks = 256
)

// block is a finished piece of the text.
type block struct {
	start, end int64
	height     int32 // rendered height, or the estimate
	rendered   bool  // height is the rendered one
	plain      bool  // never rendered as markdown (cut inside a fence)
}

// doc is a growing text.
type doc struct {
	markdown bool
	chunks   [][]byte
	size     int64
	blocks   []block
	open     int64 // start of the unfinished tail
	width    int
	total    int // sum of block heights plus one gap line between blocks

	// scanner state
	lineStart int64
	lineText  []byte // up to three first non-blank bytes of the line
	lineBlank bool
	inFence   bool

	cache map[int]cached
	order []int // cache keys, oldest first

	// the tail's wrapped lines, for the tail and width they were made
	// for (a frame asks for them several times)
	tailAt    [3]int64
	tailCache []string
}

type cached struct {
	width int
	lines []string
}

func newDoc(markdown bool, width int) *doc {
	return &doc{markdown: markdown, width: max(10, width), lineBlank: true, cache: map[int]cached{}}
}

// minChunk is the first capacity of a chunk.
const minChunk = 256

// append adds text: amortised O(len(s)).
func (d *doc) append(s string) {
	for len(s) > 0 {
		if len(d.chunks) == 0 || len(d.chunks[len(d.chunks)-1]) == chunkSize {
			d.chunks = append(d.chunks, nil)
		}
		last := &d.chunks[len(d.chunks)-1]
		n := min(len(s), chunkSize-len(*last))
		if cap(*last)-len(*last) < n {
			grown := make([]byte, len(*last), min(chunkSize, max(2*cap(*last), len(*last)+n, minChunk)))
			copy(grown, *last)
			*last = grown
		}
		start := d.size
		*last = append(*last, s[:n]...)
		d.size += int64(n)
		d.scan(start, s[:n])
		s = s[n:]
	}
}

// scan finds block ends in newly appended bytes.
func (d *doc) scan(at int64, p string) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		off := at + int64(i)
		if c != '\n' {
			if c != ' ' && c != '\t' && c != '\r' {
				d.lineBlank = false
				if len(d.lineText) < 3 {
					d.lineText = append(d.lineText, c)
				}
			}
			// A block never grows past maxBlock: cut it at a rune start.
			if off+1-d.open >= maxBlock && utf8.RuneStart(c) {
				d.finishBlock(off, d.inFence || !d.lineBlank)
			}
			continue
		}
		if bytes.Equal(d.lineText, []byte("```")) {
			d.inFence = !d.inFence
		}
		if d.lineBlank && !d.inFence && d.lineStart > d.open {
			d.finishBlock(off+1, false)
		} else if off+1-d.open >= maxBlock {
			d.finishBlock(off+1, d.inFence)
		}
		d.lineStart, d.lineText, d.lineBlank = off+1, d.lineText[:0], true
	}
}

// finishBlock ends the block at end; plain marks one that must not be
// rendered as markdown (cut inside a fence or a line).
func (d *doc) finishBlock(end int64, plain bool) {
	if end <= d.open {
		return
	}
	b := block{start: d.open, end: end, plain: plain || !d.markdown}
	b.height = int32(estimateHeight(d.slice(b.start, b.end), d.width))
	if len(d.blocks) > 0 {
		d.total++ // the gap line
	}
	d.total += int(b.height)
	d.blocks = append(d.blocks, b)
	d.open = end
}

// finish ends the text: the tail becomes a block.
func (d *doc) finish() {
	if d.open < d.size && strings.TrimSpace(d.slice(d.open, d.size)) != "" {
		d.finishBlock(d.size, d.inFence)
	}
	d.open = d.size
}

// slice copies bytes [a, b) of the text.
func (d *doc) slice(a, b int64) string {
	if a >= b {
		return ""
	}
	var sb strings.Builder
	sb.Grow(int(b - a))
	for a < b {
		ci, off := a/chunkSize, a%chunkSize
		c := d.chunks[ci]
		n := min(int64(len(c))-off, b-a)
		sb.Write(c[off : off+n])
		a += n
	}
	return sb.String()
}

// text is the whole text (copied: for saving, copying and history).
func (d *doc) text() string { return d.slice(0, d.size) }

// tail is the unfinished block.
func (d *doc) tail() string { return d.slice(d.open, d.size) }

// tailLines wraps the unfinished tail (bounded by maxBlock); the result is
// shared: callers do not change it.
func (d *doc) tailLines() []string {
	key := [3]int64{d.open, d.size, int64(d.width)}
	if key == d.tailAt {
		return d.tailCache
	}
	t := d.tail()
	var lines []string
	if strings.TrimSpace(t) != "" {
		lines = indent(plainLines(t, d.width-2), "  ")
	}
	d.tailAt, d.tailCache = key, lines
	return lines
}

// height is the doc's lines: the blocks, their gaps, and the tail.
func (d *doc) height() int {
	h := d.total
	if t := d.tailLines(); len(t) > 0 {
		if len(d.blocks) > 0 {
			h++
		}
		h += len(t)
	}
	return h
}

// blockLines returns a block's lines: rendered from the cache, or wrapped
// plain meanwhile (without changing the doc).
func (d *doc) blockLines(i int) []string {
	if c, ok := d.cache[i]; ok && c.width == d.width {
		return c.lines
	}
	b := d.blocks[i]
	return indent(plainLines(strings.TrimRight(d.slice(b.start, b.end), "\n"), d.width-2), "  ")
}

// store keeps a rendered block (bounded: the oldest go first) and puts
// its true height in place of the estimate.
func (d *doc) store(i, width int, lines []string) {
	if i >= len(d.blocks) || width != d.width {
		return
	}
	if _, ok := d.cache[i]; !ok {
		d.order = append(d.order, i)
		if len(d.order) > cacheBlocks {
			delete(d.cache, d.order[0])
			d.order = d.order[1:]
		}
	}
	d.cache[i] = cached{width: width, lines: lines}
	b := &d.blocks[i]
	d.total += len(lines) - int(b.height)
	b.height, b.rendered = int32(len(lines)), true
}

// needs reports whether block i wants a markdown render at this width.
func (d *doc) needs(i int) bool {
	if d.blocks[i].plain {
		return false
	}
	c, ok := d.cache[i]
	return !ok || c.width != d.width
}

// resize re-estimates every block for a new width (rendering happens
// again for the visible ones).
func (d *doc) resize(width int) {
	width = max(10, width)
	if width == d.width {
		return
	}
	d.width = width
	d.total = 0
	for i := range d.blocks {
		b := &d.blocks[i]
		if c, ok := d.cache[i]; ok && c.width == width {
			b.height = int32(len(c.lines))
		} else {
			b.height, b.rendered = int32(estimateHeight(d.slice(b.start, b.end), width)), false
		}
		if i > 0 {
			d.total++
		}
		d.total += int(b.height)
	}
}

// estimateHeight counts the lines of plain-wrapped text without building
// them.
func estimateHeight(s string, width int) int {
	w := max(1, width-2)
	n := 0
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		lw := cellWidth(line)
		n += max(1, (lw+w-1)/w)
	}
	return max(1, n)
}

func plainLines(s string, width int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(10, width), " "), "\n")
}

func indent(lines []string, pad string) []string {
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return lines
}

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

// markdown renders blocks with glamour within the budget; one renderer
// per width is kept, since building one is costly. It is used from render
// commands, one at a time.
type markdown struct {
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

func (m *markdown) render(src string, width int) []string {
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
			return indent(plainLines(src, width-2), "  ")
		}
		m.renderer, m.width = r, width
	}
	out, err := m.timed(src)
	if errors.Is(err, errOverTime) {
		return m.plain(src, width, "its markdown took over "+format.Seconds(m.budget()))
	}
	if err != nil {
		return indent(plainLines(src, width-2), "  ")
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	// glamour pads lines with spaces to the wrap width; trim them.
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func (m *markdown) budget() time.Duration {
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
func (m *markdown) timed(src string) (string, error) {
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
func (m *markdown) overBudget(src string) string {
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
func (m *markdown) nesting(src string) int {
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
func (m *markdown) plain(src string, width int, why string) []string {
	note := m.note.Render(ansi.Truncate("  ▸ shown as plain text: "+why, max(10, width), "…"))
	return append([]string{note}, indent(plainLines(src, width-2), "  ")...)
}
