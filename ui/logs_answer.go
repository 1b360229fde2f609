package ui

// The answer of a logged request, rendered as markdown for the detail, off
// the UI loop and within the same budget as the playground's (nesting,
// block size, time), so a logged answer reads as it did when it arrived.

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/transcript"
)

// mdAnswerBytes is how much of a logged answer is rendered as markdown
// (glamour costs about 7 ms per KB); the rest is shown plain.
const mdAnswerBytes = 256 << 10

// logsAnswerMsg carries the open row's answer laid out for a width.
type logsAnswerMsg struct {
	id    int64
	width int
	lines []string
}

// renderAnswerCmd lays the answer out in a command.
func renderAnswerCmd(md *transcript.Markdown, id int64, answer string, width int) tea.Cmd {
	return func() tea.Msg {
		return logsAnswerMsg{id: id, width: width, lines: renderAnswer(md, answer, width)}
	}
}

// renderAnswer splits the answer into the playground's blocks and renders
// each as markdown within the budget (a block past mdAnswerBytes, or cut
// inside a fence, stays plain).
func renderAnswer(md *transcript.Markdown, answer string, width int) []string {
	d := transcript.New(true, width)
	d.Append(textsafe.Clean(answer))
	d.Finish()
	var out []string
	for i := range d.Blocks() {
		b := d.Block(i)
		text := d.Slice(b.Start, b.End)
		if i > 0 {
			out = append(out, "")
		}
		if b.Plain || b.End > mdAnswerBytes {
			out = append(out, transcript.Indent(transcript.PlainLines(text, width-2), "  ")...)
			continue
		}
		out = append(out, md.Render(text, width)...)
	}
	return out
}
