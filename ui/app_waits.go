package ui

// The waits of an operation before its retries (Retry-After, 409
// backoff), as a countdown in the status bar. The api client tells each
// wait to api.Options.OnWait on its own goroutine; Waits.Note hands it
// over without blocking, and a command of the shell reads it (no I/O in
// Update). The words are present.WaitCountdown, shared with the
// commands' stderr line.

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
)

// waitsBuffered is how many notices wait for the dashboard to read them;
// past it a notice is dropped rather than block the operation (a
// countdown on screen still ends at its deadline).
const waitsBuffered = 16

// Waits carries the waits of api operations to the dashboard: set
// api.Options.OnWait to Note, and Options.Waits to it.
type Waits struct{ ch chan api.WaitNotice }

// NewWaits returns an empty carrier.
func NewWaits() *Waits { return &Waits{ch: make(chan api.WaitNotice, waitsBuffered)} }

// Note hands a wait (or its end) to the dashboard. It never blocks; a
// nil Waits drops it.
func (w *Waits) Note(n api.WaitNotice) {
	if w == nil {
		return
	}
	select {
	case w.ch <- n:
	default:
	}
}

// waitMsg is a wait that starts, or ends (Done).
type waitMsg struct{ n api.WaitNotice }

// waitTickMsg moves the countdown on by a second.
type waitTickMsg struct{}

// shownWait is the wait in the status bar: what is waited for and when
// the wait ends (zero: none).
type shownWait struct {
	n     api.WaitNotice
	until time.Time
}

// watchWaits waits for the next wait told (until the dashboard ends).
func watchWaits(c *common) tea.Cmd {
	if c.opts.Waits == nil {
		return nil
	}
	ch, ctx := c.opts.Waits.ch, c.ctx
	return func() tea.Msg {
		select {
		case n := <-ch:
			return waitMsg{n: n}
		case <-ctx.Done():
			return nil
		}
	}
}

// waitLine is the countdown of the wait on screen, or "" when none runs.
func (m Model) waitLine() string {
	if m.wait.until.IsZero() {
		return ""
	}
	left := m.wait.until.Sub(m.c.now())
	if left <= 0 {
		return ""
	}
	return present.WaitCountdown(m.wait.n, left)
}

// onWait shows a wait that starts, takes away one that ended, and ticks
// the countdown every second while it is shown.
func (m *Model) onWait(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case waitMsg:
		next := m.c.safeCmd(shellOwner, watchWaits(m.c))
		if msg.n.Done {
			if msg.n.Op == m.wait.n.Op && msg.n.Attempt == m.wait.n.Attempt {
				m.wait = shownWait{}
			}
			return next
		}
		m.wait = shownWait{n: msg.n, until: m.c.now().Add(msg.n.Wait)}
		return tea.Batch(next, m.armWaitTick())
	case waitTickMsg:
		m.waitTicking = false
		if m.waitLine() == "" {
			m.wait = shownWait{}
			return nil
		}
		return m.armWaitTick()
	}
	return nil
}

func (m *Model) armWaitTick() tea.Cmd {
	if m.waitTicking || m.quitting || m.waitLine() == "" {
		return nil
	}
	m.waitTicking = true
	return m.c.tick(time.Second, func(time.Time) tea.Msg { return waitTickMsg{} })
}
