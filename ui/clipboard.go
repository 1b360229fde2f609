package ui

import (
	"os"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// copyCmd puts text on the clipboard through Options.Clipboard, or OSC 52
// (which works over SSH, and through tmux with its passthrough).
func copyCmd(c *common, text, what string) tea.Cmd {
	clip := c.opts.Clipboard
	return func() tea.Msg {
		var err error
		if clip != nil {
			err = clip(text)
		} else {
			seq := osc52.New(text)
			if os.Getenv("TMUX") != "" {
				seq = seq.Tmux()
			}
			_, err = seq.WriteTo(os.Stderr)
		}
		return copiedMsg{what: what, err: err}
	}
}
