package ui

// The shell's bars: the status bar (mode, what is happening, the last
// notice or error, and where and how fresh), the help bar and the full
// help screen, both read from the focused component's KeyMap.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// statusBar shows the mode, what the user is doing, the last error (until
// dismissed) or notice, what is loading, and how old the data is.
func (m Model) statusBar() string {
	s := m.c.styles
	w := m.c.width
	v := m.views[m.active]
	var left []string
	mode := s.Mode.Render("NAV")
	if v.Typing() && !m.helpOpen {
		mode = s.ModeTyp.Render("TYPING")
	}
	if m.helpOpen {
		mode = s.Mode.Render("HELP")
	}
	if m.quitAsk != nil { // the question above takes every key
		mode = s.ModeTyp.Render("QUIT?")
	}
	left = append(left, mode)
	if h := v.Help(); h != "" && !m.helpOpen && m.quitAsk == nil {
		left = append(left, s.Subtle.Render(textsafe.Line(h)))
	}
	switch {
	case m.errText != "":
		hint := " (x dismisses)"
		if v.Typing() {
			hint = " (esc, then x dismisses)"
		}
		left = append(left, s.StatusErr.Render("✗ "+m.errText)+s.Muted.Render(hint))
	case m.notice != "":
		left = append(left, s.StatusNote.Render(m.notice))
	}
	if w := m.waitLine(); w != "" {
		left = append(left, s.Busy.Render("⧗ "+textsafe.Line(w)))
	}
	if b := v.Busy(); b != "" {
		left = append(left, s.Busy.Render("⟳ "+textsafe.Line(b)))
	}
	line := strings.Join(left, " ")
	// The right side says where and how fresh: host or profile,
	// workspace, read-only, the key's credit, the organisation's credits
	// (with a management key), the refresh age. When the
	// line is short of room they go in that order, the age last.
	var where []string
	if m.c.client != nil {
		where = append(where, textsafe.Line(m.c.client.Host()))
	}
	if m.c.opts.Profile != "" {
		where = append(where, textsafe.Line(m.c.opts.Profile))
	}
	parts := []string{strings.Join(where, " · ")}
	if ws := m.c.opts.Workspace; ws != "" {
		parts = append(parts, "ws "+textsafe.Line(shortID(ws)))
	}
	if m.c.opts.ReadOnly {
		parts = append(parts, "read-only")
	}
	if m.credit != nil {
		parts = append(parts, textsafe.Line(present.Credit(m.credit)))
	}
	if m.balance != nil {
		parts = append(parts, "credits "+present.Balance(m.balance))
	}
	if t := v.Updated(); !t.IsZero() {
		parts = append(parts, "updated "+format.Freshness(t, m.c.now()))
	}
	right := func() string {
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		return s.Muted.Render(strings.Join(kept, " · "))
	}
	room := max(w/2, w-lipgloss.Width(right())-2) // what the left may use
	// The right side goes, part by part, while the left needs its room or
	// the two do not fit together: the mode, first on the left, stays.
	for len(parts) > 0 && (lipgloss.Width(line) > room || min(lipgloss.Width(line), room)+2+lipgloss.Width(right()) > w) {
		parts = parts[1:]
		room = max(w/2, w-lipgloss.Width(right())-2)
	}
	r := right()
	if lipgloss.Width(r) == 0 {
		return ansi.Truncate(line, w, "…")
	}
	line = ansi.Truncate(line, max(1, w-lipgloss.Width(r)-2), "…")
	gap := w - lipgloss.Width(line) - lipgloss.Width(r)
	if gap < 2 {
		return ansi.Truncate(line, w, "…")
	}
	return line + strings.Repeat(" ", gap) + r
}

// helpBar is the few keys that matter now.
func (m Model) helpBar() string {
	v := m.views[m.active]
	g := m.c.keys
	var keys []key.Binding
	switch {
	case m.quitAsk != nil:
		keys = append(m.quitAsk.KeyMap().ShortHelp(), g.ForceQuit)
	case m.helpOpen:
		keys = DefaultHelpScreenKeys().ShortHelp()
	case v.Typing():
		keys = append(v.KeyMap().ShortHelp(), g.ForceQuit)
	default:
		keys = append(v.KeyMap().ShortHelp(), g.Help, g.Quit)
	}
	m.help.Width = m.c.width
	return ansi.Truncate(m.help.ShortHelpView(keys), m.c.width, "…")
}

// helpLines is the ? screen: every binding of the focused component,
// grouped, then the shell's.
func (m Model) helpLines() []string {
	s := m.c.styles
	v := m.views[m.active]
	title := viewNames[m.active] + " — keys"
	if h := v.Help(); h != "" {
		title += " (" + textsafe.Line(h) + ")"
	}
	lines := []string{s.Title.Render(title), ""}
	hm := m.help
	hm.Width = m.c.width
	groups := append(v.KeyMap().FullHelp(), m.c.keys.FullHelp()...)
	for _, g := range groups {
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			h := b.Help()
			lines = append(lines, "  "+s.HelpKey.Render(fmt.Sprintf("%-14s", h.Key))+" "+s.HelpDesc.Render(h.Desc))
		}
		lines = append(lines, "")
	}
	lines = append(lines, s.Muted.Render("While a text field has focus (TYPING in the status bar) letters and digits type; esc stops typing; f1 shows this help; ctrl+c always quits."))
	return lines
}

func (m *Model) layoutHelp() {
	m.helpNav.SetHeight(max(1, m.bodyHeight()-1))
	m.helpNav.SetCount(len(m.helpLines()))
}

func (m Model) fullHelp() string {
	lines := m.helpLines()
	nav := m.helpNav
	nav.SetHeight(max(1, m.bodyHeight()-1))
	nav.SetCount(len(lines))
	a, b := nav.Offset, min(len(lines), nav.Offset+nav.Height)
	out := strings.Join(lines[a:b], "\n")
	if pos := nav.Position(); pos != "" {
		out += "\n" + m.c.styles.Muted.Render("lines "+pos)
	}
	return out
}

// fitBlock pads or cuts s to exactly h lines of at most w cells.
func fitBlock(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
