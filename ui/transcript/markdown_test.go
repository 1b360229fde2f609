package transcript

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/internal/hostile"
	"github.com/muesli/termenv"
)

func testMarkdown() *Markdown {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return NewMarkdown("dark", termenv.Ascii, r.NewStyle().Faint(true))
}

// The payloads that took glamour past 1.5 GB never reach it: each is
// shown plain under a one-line note. Ordinary markdown still renders.
func TestMarkdownBudgetShowsDeepNestingPlain(t *testing.T) {
	var indented strings.Builder
	for i := 0; i < 400; i++ {
		indented.WriteString(strings.Repeat("  ", i) + "- item\n")
	}
	payloads := map[string]string{
		"120 nested quotes":       hostile.NestedQuotes,
		"400 nested list items":   hostile.NestedList,
		"400 indented list items": indented.String()[:maxBlock-100],
		"quotes and lists mixed":  strings.Repeat("> - ", 12) + "x",
		"over the size budget":    strings.Repeat("word ", mdMaxBytes/5+10),
	}
	if len(hostile.NestedQuotes) != 130 {
		t.Fatalf("the nested quotes are %d bytes", len(hostile.NestedQuotes))
	}
	for name, src := range payloads {
		m := testMarkdown()
		m.run = func(*glamour.TermRenderer, string) (string, error) {
			t.Errorf("%s: handed to glamour", name)
			return "", nil
		}
		lines := m.Render(src, 80)
		if len(lines) < 2 || !strings.Contains(lines[0], "shown as plain text") {
			t.Fatalf("%s: no note: %q", name, lines[:min(2, len(lines))])
		}
		if strings.Contains(strings.Join(lines[1:], "\n"), "shown as plain text") {
			t.Fatalf("%s: more than one note line", name)
		}
	}
	// Within the budget: rendered by glamour (nesting as deep as the
	// budget allows included).
	for _, src := range []string{"## Title\n\nSome **bold** text.", strings.Repeat(">", mdMaxDepth) + " quote", "- a\n  - b\n    - c"} {
		m := testMarkdown()
		called := false
		m.run = func(r *glamour.TermRenderer, s string) (string, error) { called = true; return r.Render(s) }
		lines := m.Render(src, 80)
		if !called || strings.Contains(strings.Join(lines, "\n"), "shown as plain text") {
			t.Fatalf("%q was not rendered: %q", src, lines)
		}
	}
}

// A render that runs past the time budget is not waited for: the block
// shows plain at once, and so do the next ones until that render ends;
// then markdown renders again.
func TestMarkdownBudgetTime(t *testing.T) {
	m := testMarkdown()
	m.maxTime = 1 // nanosecond: the stuck render below is always past it
	release := make(chan struct{})
	var calls atomic.Int32
	m.run = func(r *glamour.TermRenderer, s string) (string, error) {
		if calls.Add(1) == 1 {
			<-release // stuck until the test lets it go
		}
		return r.Render(s)
	}
	first := m.Render("# slow", 80)
	if !strings.Contains(first[0], "took over") {
		t.Fatalf("a render past its time budget: %q", first)
	}
	second := m.Render("# next", 80)
	if !strings.Contains(second[0], "still rendering") || calls.Load() > 1 {
		t.Fatalf("a render while the slow one runs: %q (%d renders started)", second, calls.Load())
	}
	close(release)
	<-m.late // the slow render has ended
	m.maxTime = 0
	third := m.Render("# fine", 80)
	if strings.Contains(strings.Join(third, "\n"), "shown as plain text") || calls.Load() != 2 {
		t.Fatalf("markdown after the slow render ended: %q", third)
	}
}
