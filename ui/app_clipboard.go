package ui

import (
	"os"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// copiedMsg says what a copy did.
type copiedMsg struct {
	said string
	err  error
}

// copyCmd puts text on the clipboard through Options.Clipboard, or sends
// it to the terminal with OSC 52 (which works over SSH, and through tmux
// with its passthrough). OSC 52 cannot be confirmed, so the notice says
// what was sent rather than claiming a copy; export and save write files
// for when the terminal does not take it.
func copyCmd(c *common, text, what string) tea.Cmd {
	clip := c.opts.Clipboard
	return func() tea.Msg {
		if clip != nil {
			if err := clip(text); err != nil {
				return copiedMsg{err: err}
			}
			return copiedMsg{said: "copied " + what + " to the clipboard"}
		}
		seq := osc52.New(text)
		where := "the terminal's clipboard (OSC 52; the terminal must allow it)"
		if os.Getenv("TMUX") != "" {
			seq = seq.Tmux()
			where = "the terminal's clipboard through tmux (OSC 52; tmux needs allow-passthrough)"
		}
		if _, err := seq.WriteTo(os.Stderr); err != nil {
			return copiedMsg{err: err}
		}
		return copiedMsg{said: "sent " + what + " to " + where}
	}
}
