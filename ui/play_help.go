package ui

import "github.com/charmbracelet/bubbles/key"

// fullHelp is the playground's ? screen: only keys that do something now.
// Before any answer, the keys that act on answers (copy, save, reasoning,
// scrolling, a new conversation) are not listed; stop only while an
// answer streams; the pane keys only in compare mode.
func (p *playground) fullHelp() [][]key.Binding {
	k := p.keys
	answered := len(p.turns) > 0
	if p.cmp != nil {
		for _, pn := range p.cmp.panes {
			answered = answered || pn.turn != nil
		}
	}
	first := []key.Binding{k.Edit, k.Model, k.Compare, k.Settings, k.Providers}
	if !answered {
		return [][]key.Binding{first}
	}
	answers := []key.Binding{k.Copy, k.Save, k.Reasoning}
	if p.callsWait() {
		answers = append(answers, p.depth.keys.Open)
	}
	if p.running() {
		answers = append(answers, k.Stop)
	}
	full := [][]key.Binding{append(first, k.NewChat), answers, {k.ScrollUp, k.ScrollDown, k.PageUp, k.PageDown, k.Top, k.Bottom}}
	if p.cmp != nil {
		full = append(full, []key.Binding{k.NextPane, k.PrevPane, k.EndEarly})
	}
	return full
}

// promptGlyph is the bar before each line of the prompt: thick while the
// prompt is the active region (typing), thin otherwise, so that focus shows
// without colour (NO_COLOR), as the focused compare pane's thick border.
func promptGlyph(typing bool) string {
	if typing {
		return "┃ "
	}
	return "│ "
}
