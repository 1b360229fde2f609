// Package transcript is the playground's growing answer and its bounded
// markdown renderer. It knows nothing of the dashboard's screens: ui keeps
// a Doc per answer, asks which blocks on screen need a render, renders
// them with a Markdown in a command and stores the lines back.
//
// A growing answer (Doc) is kept so that appending costs what is
// appended, memory stays near the text's own size, and a frame draws only
// what is visible:
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
package transcript

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

const (
	chunkSize   = 1 << 20
	maxBlock    = 16 << 10
	cacheBlocks = 256
)

// Block is a finished piece of the text: bytes [Start, End).
type Block struct {
	Start, End int64
	Height     int32 // rendered height, or the estimate
	rendered   bool  // Height is the rendered one
	Plain      bool  // never rendered as markdown (cut inside a fence)
}

// Doc is a growing text.
type Doc struct {
	markdown bool
	chunks   [][]byte
	size     int64
	blocks   []Block
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

// New is an empty text laid out at width; markdown says its blocks may be
// rendered as markdown (false: always plain).
func New(markdown bool, width int) *Doc {
	return &Doc{markdown: markdown, width: max(10, width), lineBlank: true, cache: map[int]cached{}}
}

// minChunk is the first capacity of a chunk.
const minChunk = 256

// Append adds text: amortised O(len(s)).
func (d *Doc) Append(s string) {
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
func (d *Doc) scan(at int64, p string) {
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
func (d *Doc) finishBlock(end int64, plain bool) {
	if end <= d.open {
		return
	}
	b := Block{Start: d.open, End: end, Plain: plain || !d.markdown}
	b.Height = int32(EstimateHeight(d.Slice(b.Start, b.End), d.width))
	if len(d.blocks) > 0 {
		d.total++ // the gap line
	}
	d.total += int(b.Height)
	d.blocks = append(d.blocks, b)
	d.open = end
}

// Finish ends the text: the tail becomes a block.
func (d *Doc) Finish() {
	if d.open < d.size && strings.TrimSpace(d.Slice(d.open, d.size)) != "" {
		d.finishBlock(d.size, d.inFence)
	}
	d.open = d.size
}

// Slice copies bytes [a, b) of the text.
func (d *Doc) Slice(a, b int64) string {
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

// Text is the whole text (copied: for saving, copying and history).
func (d *Doc) Text() string { return d.Slice(0, d.size) }

// Size is the text's length in bytes.
func (d *Doc) Size() int64 { return d.size }

// Width is the width the text is laid out for.
func (d *Doc) Width() int { return d.width }

// Blocks is the number of finished blocks.
func (d *Doc) Blocks() int { return len(d.blocks) }

// Block is finished block i (a copy).
func (d *Doc) Block(i int) Block { return d.blocks[i] }

// Tail is the unfinished block.
func (d *Doc) Tail() string { return d.Slice(d.open, d.size) }

// TailLines wraps the unfinished tail (bounded by maxBlock); the result is
// shared: callers do not change it.
func (d *Doc) TailLines() []string {
	key := [3]int64{d.open, d.size, int64(d.width)}
	if key == d.tailAt {
		return d.tailCache
	}
	t := d.Tail()
	var lines []string
	if strings.TrimSpace(t) != "" {
		lines = Indent(PlainLines(t, d.width-2), "  ")
	}
	d.tailAt, d.tailCache = key, lines
	return lines
}

// Height is the doc's lines: the blocks, their gaps, and the tail.
func (d *Doc) Height() int {
	h := d.total
	if t := d.TailLines(); len(t) > 0 {
		if len(d.blocks) > 0 {
			h++
		}
		h += len(t)
	}
	return h
}

// BlockLines returns a block's lines: rendered from the cache, or wrapped
// plain meanwhile (without changing the doc).
func (d *Doc) BlockLines(i int) []string {
	if c, ok := d.cache[i]; ok && c.width == d.width {
		return c.lines
	}
	b := d.blocks[i]
	return Indent(PlainLines(strings.TrimRight(d.Slice(b.Start, b.End), "\n"), d.width-2), "  ")
}

// Store keeps a rendered block (bounded: the oldest go first) and puts
// its true height in place of the estimate.
func (d *Doc) Store(i, width int, lines []string) {
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
	d.total += len(lines) - int(b.Height)
	b.Height, b.rendered = int32(len(lines)), true
}

// Needs reports whether block i wants a markdown render at this width.
func (d *Doc) Needs(i int) bool {
	if d.blocks[i].Plain {
		return false
	}
	c, ok := d.cache[i]
	return !ok || c.width != d.width
}

// Resize re-estimates every block for a new width (rendering happens
// again for the visible ones).
func (d *Doc) Resize(width int) {
	width = max(10, width)
	if width == d.width {
		return
	}
	d.width = width
	d.total = 0
	for i := range d.blocks {
		b := &d.blocks[i]
		if c, ok := d.cache[i]; ok && c.width == width {
			b.Height = int32(len(c.lines))
		} else {
			b.Height, b.rendered = int32(EstimateHeight(d.Slice(b.Start, b.End), width)), false
		}
		if i > 0 {
			d.total++
		}
		d.total += int(b.Height)
	}
}

// EstimateHeight counts the lines of plain-wrapped text without building
// them.
func EstimateHeight(s string, width int) int {
	w := max(1, width-2)
	n := 0
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		lw := cellWidth(line)
		n += max(1, (lw+w-1)/w)
	}
	return max(1, n)
}

// cellWidth is the width of a plain line, fast for ASCII.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			return lipgloss.Width(s)
		}
	}
	return len(s)
}

// PlainLines wraps s at width (at least 10) as plain text; nil for "".
func PlainLines(s string, width int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(10, width), " "), "\n")
}

// Indent puts pad before each line, in place, and returns lines.
func Indent(lines []string, pad string) []string {
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return lines
}
