package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// switcher is the line above the one pane shown when the panes do not fit
// side by side: which pane this is, the key that switches, and every
// model, the shown one marked ("pane 1 of 3, tab switches: ▸ gpt-4o-mini
// · claude-sonnet-4 · gpt-4o").
func (c *compareState) switcher(s Styles, w int) string {
	parts := make([]string, len(c.panes))
	for i, pn := range c.panes {
		name := textsafe.Line(pn.name())
		if i == c.focus {
			parts[i] = s.Focused.Render("▸ " + name)
		} else {
			parts[i] = s.Muted.Render(name)
		}
	}
	line := s.Muted.Render(fmt.Sprintf("pane %d of %d, tab switches: ", c.focus+1, len(c.panes))) + strings.Join(parts, s.Muted.Render(" · "))
	return ansi.Truncate(line, max(1, w), "…")
}
