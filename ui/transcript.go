package ui

import (
	"bytes"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders finished markdown blocks; one renderer per width is
// kept, since building one is costly.
type markdown struct {
	style    string
	width    int
	renderer *glamour.TermRenderer
}

func (m *markdown) render(src string, width int) []string {
	if m.renderer == nil || m.width != width {
		// The colour profile follows lipgloss's, so NO_COLOR holds here too.
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(max(10, width-4)),
			glamour.WithColorProfile(lipgloss.ColorProfile()))
		if err != nil {
			return plainLines(src, width)
		}
		m.renderer, m.width = r, width
	}
	out, err := m.renderer.Render(src)
	if err != nil {
		return plainLines(src, width)
	}
	out = strings.Trim(out, "\n")
	lines := strings.Split(out, "\n")
	// glamour pads lines with spaces to the wrap width; trim them.
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func plainLines(s string, width int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(10, width), " "), "\n")
}

// mdStream is a growing markdown text. Finished blocks (ended by a blank
// line outside a code fence) are rendered once and cached as lines; only
// the unfinished tail is wrapped again on each frame.
type mdStream struct {
	src     []byte
	done    int // bytes of src already in finished blocks
	scanned int // bytes of src scanned for block ends
	inFence bool
	lineBeg int // start of the current line while scanning
	lines   []string
	width   int
	md      *markdown
	// The tail: hard lines already wrapped (stable until the block ends)
	// and the line being written, re-wrapped as it grows.
	tailStable    []string
	tailStableEnd int
	tailFor       int
	tailLine      []string
}

func newMDStream(md *markdown, width int) *mdStream {
	return &mdStream{md: md, width: width, tailFor: -1}
}

// append adds text and renders any block it finishes.
func (m *mdStream) append(s string) {
	m.src = append(m.src, s...)
	m.scan()
}

func (m *mdStream) scan() {
	for i := m.scanned; i < len(m.src); i++ {
		if m.src[i] != '\n' {
			continue
		}
		line := m.src[m.lineBeg:i]
		if bytes.HasPrefix(bytes.TrimLeft(line, " "), []byte("```")) {
			m.inFence = !m.inFence
		}
		if !m.inFence && len(bytes.TrimSpace(line)) == 0 && m.lineBeg > m.done {
			m.finishBlock(i + 1)
		}
		m.lineBeg = i + 1
	}
	m.scanned = len(m.src)
}

func (m *mdStream) finishBlock(end int) {
	block := string(m.src[m.done:end])
	if strings.TrimSpace(block) != "" {
		if len(m.lines) > 0 {
			m.lines = append(m.lines, "")
		}
		m.lines = append(m.lines, m.md.render(block, m.width)...)
	}
	m.done = end
	m.tailStable, m.tailStableEnd, m.tailLine, m.tailFor = nil, end, nil, -1
}

// finish renders the rest as a final block.
func (m *mdStream) finish() {
	if m.done < len(m.src) {
		m.finishBlock(len(m.src))
	}
}

// tail wraps the unfinished text: complete hard lines are wrapped once,
// only the line being written is wrapped again as it grows.
func (m *mdStream) tail() []string {
	if m.done >= len(m.src) {
		return nil
	}
	if m.tailStableEnd < m.done {
		m.tailStableEnd = m.done
	}
	if nl := bytes.LastIndexByte(m.src[m.tailStableEnd:], '\n'); nl >= 0 {
		for _, l := range plainLines(string(m.src[m.tailStableEnd:m.tailStableEnd+nl]), m.width-2) {
			m.tailStable = append(m.tailStable, "  "+l)
		}
		m.tailStableEnd += nl + 1
		m.tailFor = -1
	}
	if m.tailFor != len(m.src) {
		live := plainLines(string(m.src[m.tailStableEnd:]), m.width-2)
		m.tailLine = append(m.tailLine[:0], m.tailStable...)
		for _, l := range live {
			m.tailLine = append(m.tailLine, "  "+l)
		}
		m.tailFor = len(m.src)
	}
	return m.tailLine
}

// resize re-renders every finished block for a new width.
func (m *mdStream) resize(width int) {
	if width == m.width {
		return
	}
	m.width = width
	src := m.src
	finished := m.done
	*m = mdStream{md: m.md, width: width, tailFor: -1}
	m.src = append(m.src, src[:finished]...)
	m.scan()
	if m.done < finished {
		m.finishBlock(finished)
	}
	m.src = append(m.src, src[finished:]...)
	m.scan()
}

func (m *mdStream) text() string { return string(m.src) }

// segments collects the last n lines of a list of line slices (newest
// last), skipping skip lines from the end, without joining everything.
func lastLines(segs [][]string, n, skip int) []string {
	out := make([]string, 0, n)
	need := n + skip
	for i := len(segs) - 1; i >= 0 && need > 0; i-- {
		seg := segs[i]
		take := min(len(seg), need)
		part := seg[len(seg)-take:]
		out = append(append(make([]string, 0, len(part)+len(out)), part...), out...)
		need -= take
	}
	if skip > 0 {
		if skip >= len(out) {
			return nil
		}
		out = out[:len(out)-skip]
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
