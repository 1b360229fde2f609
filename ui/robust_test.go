package ui

import (
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/internal/gateway"
	"go.uber.org/goleak"
)

// loadedModel is a shell whose three views all hold data: a finished batch
// with results open in the table, a finished conversation, and a list of
// destinations.
func loadedModel(t *testing.T, log *lockedBuf) Model {
	t.Helper()
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat), Model: "openai/gpt-4o-mini",
		Log: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))}, 100, 30)
	u.screen("Results 1 of 40")
	u.key(tea.KeyTab)
	u.runes("hello")
	u.key(tea.KeyEnter)
	u.until("answer", ended("completed"))
	u.key(tea.KeyEsc)
	u.key(tea.KeyTab)
	u.screen("prod-langfuse")
	return u.quit()
}

// TestEveryViewAtEverySize renders each view at every size from 1x1 to
// 40x12 and through random resizes: no panic, and never more lines or
// columns than the terminal has.
func TestEveryViewAtEverySize(t *testing.T) {
	var log lockedBuf
	m := loadedModel(t, &log)
	m.quitting = false
	defer func() {
		if l := log.String(); l == "" || strings.Contains(l, gateway.DemoAPIKey) || strings.Contains(l, gateway.DemoManagementKey) {
			t.Fatalf("the log is empty or holds a key")
		}
	}()
	check := func(w, h int) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic at %dx%d in view %d: %v", w, h, m.active, r)
			}
		}()
		next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		m = next.(Model)
		out := m.View()
		lines := strings.Split(out, "\n")
		if len(lines) > h {
			t.Fatalf("%dx%d view %d: %d lines", w, h, m.active, len(lines))
		}
		for _, l := range lines {
			if lipgloss.Width(l) > w {
				t.Fatalf("%dx%d view %d: a line of %d columns: %q", w, h, m.active, lipgloss.Width(l), l)
			}
		}
		if strings.Contains(out, gateway.DemoAPIKey) || strings.Contains(out, gateway.DemoManagementKey) {
			t.Fatalf("a key is on screen")
		}
	}
	for v := 0; v < 3; v++ {
		m.active = v
		for w := 1; w <= 40; w++ {
			for h := 1; h <= 12; h++ {
				check(w, h)
			}
		}
		// the detail, the settings panel and the edit form too
		switch v {
		case viewBatches:
			m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		case viewPlayground:
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
		case viewDestinations:
			m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		}
		for w := 1; w <= 40; w += 3 {
			for h := 1; h <= 12; h += 2 {
				check(w, h)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		m.active = r.IntN(3)
		check(1+r.IntN(220), 1+r.IntN(70))
	}
}

func TestQuitWhileStreamingLeavesNoGoroutine(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 30})
	opts := []goleak.Option{goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
		goleak.IgnoreAnyFunction("internal/poll.runtime_pollWait"),
		// A pending tea.Tick ends when its timer fires (at most the
		// notice's few seconds); the stream's pump is what must be gone.
		goleak.IgnoreAnyFunction("github.com/charmbracelet/bubbletea.Tick.func1"),
	}
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Poll: fastPoll()}, 100, 30)
	u.runes("slow")
	u.key(tea.KeyEnter)
	u.until("tokens", func(m Model) bool { t := lastTurn(m); return t != nil && t.outTokens > 2 })
	u.quit()
	time.Sleep(50 * time.Millisecond)
	goleak.VerifyNone(t, opts...)
}
