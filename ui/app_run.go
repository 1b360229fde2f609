package ui

// Running the dashboard: the program with its options, the filter on the
// terminal writer, and the guard that turns a panic into a restored
// terminal and one line (the stack goes to the log).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// CrashError is a panic inside the dashboard, caught after the terminal
// was restored. Value is short and safe to print; the stack goes to the
// log only.
type CrashError struct{ Value string }

func (e *CrashError) Error() string { return "the dashboard crashed: " + e.Value }

// guard catches a panic in Update or View, logs the stack, and quits so
// that Bubble Tea restores the terminal.
type guard struct {
	Model
	crash *crashState
}

type crashState struct {
	mu    sync.Mutex
	value string
	quit  func()
}

func (g guard) recovered(r any) {
	g.crash.mu.Lock()
	defer g.crash.mu.Unlock()
	if g.crash.value == "" {
		g.crash.value = ansi.Truncate(textsafe.Line(fmt.Sprint(r)), 200, "…")
		g.c.log().Error("panic", "value", g.crash.value, "stack", string(debug.Stack()))
		if g.crash.quit != nil {
			go g.crash.quit()
		}
	}
}

func (g guard) Update(msg tea.Msg) (m tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.recovered(r)
			m, cmd = g, tea.Quit
		}
	}()
	next, cmd := g.Model.Update(msg)
	return guard{Model: next.(Model), crash: g.crash}, cmd
}

func (g guard) View() (s string) {
	defer func() {
		if r := recover(); r != nil {
			g.recovered(r)
			s = ""
		}
	}()
	return g.Model.View()
}

// filteredTTY is the terminal the dashboard draws on, with the last-line
// filter in front of it: it is still a terminal to Bubble Tea (its size is
// read, its mode restored), but every byte written passes TermFilter.
type filteredTTY struct {
	*os.File
	mu     sync.Mutex
	filter *textsafe.TermFilter
}

func (t *filteredTTY) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.filter.Write(p)
}

// Run starts the dashboard and blocks until it quits or ctx ends; when ctx
// ends (a signal) the terminal is restored before Run returns. Bubble
// Tea's own signal handler is off: the caller owns signals. A panic in the
// dashboard restores the terminal and returns a *CrashError.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	crash := &crashState{}
	g := guard{Model: New(opts), crash: crash}
	var output io.Writer = textsafe.NewTermFilter(out)
	if f, ok := out.(*os.File); ok {
		output = &filteredTTY{File: f, filter: textsafe.NewTermFilter(f)}
	}
	// 15 frames a second. Bubble Tea's renderer wakes the process at its
	// frame rate even when nothing changed (it compares the frame and
	// writes nothing): that was most of an idle dashboard's CPU (0.8% of
	// a core at 30, 0.4% at 15; docs/performance.md). Streamed text still
	// reads smoothly, a key shows within 67 ms; keys are handled in
	// Update, not at the frame rate.
	p := tea.NewProgram(g, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(output),
		tea.WithFPS(frameRate), tea.WithoutSignalHandler())
	crash.mu.Lock()
	crash.quit = p.Quit
	crash.mu.Unlock()
	final, err := p.Run()
	if fg, ok := final.(guard); ok {
		for _, v := range fg.views {
			v.Stop()
		}
		fg.c.cancel()
		// However it ended (quit, a signal, a crash), the writes it
		// started are finished before Run returns.
		if werr := fg.c.writes.finish(fg.c.record, fg.c.base); werr != nil {
			fg.c.log().Warn("record not written", "error", werr)
		}
	}
	crash.mu.Lock()
	defer crash.mu.Unlock()
	if crash.value != "" {
		return &CrashError{Value: crash.value}
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller ended it (a signal) and knows why
	}
	return err
}
