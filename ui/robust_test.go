package ui

// Robustness: a hostile server over every view, every size and random
// resizes, and no goroutine left behind by quitting mid-stream.

import (
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
	"go.uber.org/goleak"
)

// TestHostileServerReachesNoTerminal walks every view and sub-screen of
// the dashboard against a server that puts terminal escapes into every
// string it sends (ids, statuses, names, config keys, errors, headers,
// streamed text): no frame holds one raw, and the log holds none either.
func TestHostileServerReachesNoTerminal(t *testing.T) {
	for _, ho := range []hostile.Options{{CleanStatus: true}, {}} {
		srv, c := startGW(t, gateway.Options{TokensPerSecond: 3000, Wrap: func(h http.Handler) http.Handler { return hostile.Wrap(h, ho) }})
		var log lockedBuf
		u := start(t, Options{Client: c, Model: "openai/gpt-4o-mini", Poll: fastPoll(),
			Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}, 150, 45)
		clean := func(stage string, cond func(Model) bool) {
			t.Helper()
			v := u.until(stage, cond)
			if bad := hostile.Found(v); bad != "" {
				t.Fatalf("status kept %v, %s: %q reached the screen:\n%s", ho.CleanStatus, stage, bad, v)
			}
		}
		clean("the home", func(m Model) bool { return len(homeOf(m).rows) > 10 })
		u.runes("/")
		u.runes(srv.SeedID(gateway.SeedChat))
		u.key(tea.KeyEnter)
		clean("a batch", func(m Model) bool { b := batchOf(m); return b != nil && b.meta != nil })
		if ho.CleanStatus {
			clean("its results", func(m Model) bool { b := batchOf(m); return b != nil && b.res != nil })
			u.key(tea.KeyEnter)
			clean("a result", func(m Model) bool { return detailOf(m) != nil })
			u.runes("J")
			clean("its raw JSON", func(m Model) bool { return detailOf(m) != nil && detailOf(m).opts.raw })
			u.key(tea.KeyEsc)
		}
		u.key(tea.KeyEsc)
		u.key(tea.KeyEsc)
		u.runes("2")
		u.runes("i")
		u.runes("go")
		u.key(tea.KeyEnter)
		clean("an answer", func(m Model) bool { t := lastTurn(m); return t != nil && !t.running && !playOf(m).running() })
		// An incomplete answer (max output tokens) and a failed one.
		u.until("max output set", func(m Model) bool {
			playOf(m).settings.Field(setMaxOut).Input.SetValue("3")
			return true
		})
		u.runes("i")
		u.runes("again")
		u.key(tea.KeyEnter)
		clean("an incomplete answer", func(m Model) bool {
			t := lastTurn(m)
			return t != nil && t.out.State == api.EndIncomplete && !playOf(m).running()
		})
		u.until("failing model", func(m Model) bool {
			p := playOf(m)
			p.model = gateway.ModelFailMidstream
			p.settings.Field(setMaxOut).Input.SetValue("")
			return true
		})
		u.runes("i")
		u.runes("fail")
		u.key(tea.KeyEnter)
		clean("a failed answer", func(m Model) bool {
			t := lastTurn(m)
			return t != nil && t.out.State == api.EndFailed && !playOf(m).running()
		})
		u.runes("m")
		clean("the model picker", func(m Model) bool { p := playOf(m).picker(); return p != nil && p.cat != nil })
		u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO})
		clean("the providers panel", func(m Model) bool {
			pp := panelOf(playOf(m))
			return pp != nil && !pp.loading
		})
		u.key(tea.KeyEsc)
		u.key(tea.KeyEsc)
		u.runes("3")
		clean("destinations", func(m Model) bool { return len(destOf(m).rows) > 5 })
		u.selectDest("staging-datadog" + hostile.String) // names are hostile too
		u.key(tea.KeyEnter)
		clean("an edit form", func(m Model) bool { return destOf(m).editor() != nil })
		u.toField("filter_rules")
		u.key(tea.KeyEnter)
		clean("the rules editor", func(m Model) bool { return destOf(m).editor().sub.open() })
		// The hostile rules and regions are not valid to send back: clear
		// the rules, pick a region, rename, and review what would be sent.
		u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlX})
		u.key(tea.KeyEsc)
		u.toField("regions")
		u.space()
		u.toField("name")
		u.runes("x")
		u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
		clean("the review", editorIn(stageReview))
		u.key(tea.KeyEsc)
		u.tm.Send(tea.KeyMsg{Type: tea.KeyF1})
		clean("the help", func(m Model) bool { return m.helpOpen })
		u.key(tea.KeyEsc)
		u.key(tea.KeyEsc)
		u.runes("y") // discard the edit
		// Error screens: not found, results deleted, payment required.
		u.runes("1")
		for _, id := range []string{"batch-0-missing", srv.SeedID(gateway.SeedOld), srv.SeedID(gateway.SeedPayment)} {
			u.until("home", func(m Model) bool { return batchOf(m) == nil })
			u.runes("/")
			u.runes(id)
			u.key(tea.KeyEnter)
			clean("the screen of "+id, func(m Model) bool {
				b := batchOf(m)
				return b != nil && (b.fatal != nil || b.payment != nil) || strings.Contains(m.errText, "404")
			})
			u.key(tea.KeyEsc)
			u.key(tea.KeyEsc)
			u.until("filter cleared", func(m Model) bool { return batchOf(m) == nil && homeOf(m).filter.Query() == "" })
		}
		u.quit()
		if l := log.String(); hostile.Found(l) != "" || strings.Contains(l, "\x1b") {
			t.Fatalf("the log holds a raw escape: %q", hostile.Found(l))
		}
	}
}

// loadedState is a dashboard over the fake client with every view holding
// data: a batch with results open, a finished answer, destinations.
func loadedState(t *testing.T) Model {
	fc := fakeBatches()
	fc.dests = []api.Destination{
		{ID: "d1", Type: "webhook", Regions: []string{"us"}, SamplingRate: 1, Config: map[string]any{"url": "https://h", "secret": "whsec...abcd"}},
		{ID: "d2", Type: "langfuse", Enabled: true, Regions: []string{"global", "europe"}, SamplingRate: 0.25, Config: map[string]any{"baseUrl": "https://x"}},
	}
	m := stateModel(t, fc, Options{}, 120, 40)
	m = drive(m, keyMsg("/"))
	for _, r := range "batch-done" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("enter"))
	m = drive(m, keyMsg("2"))
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("h"))
	m = drive(m, keyMsg("enter"))
	m = drive(m, keyMsg("3"))
	if batchOf(m) == nil || lastTurn(m) == nil || lastTurn(m).running || len(destOf(m).rows) != 2 {
		t.Fatal("the views did not load")
	}
	return m
}

// TestEveryViewAtEverySize draws each view and its sub-screens at every
// size from 1x1 to 40x12 and through random resizes: no panic, and never
// more lines or columns than the terminal has.
func TestEveryViewAtEverySize(t *testing.T) {
	m := loadedState(t)
	check := func(w, h int) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic at %dx%d in view %d: %v", w, h, m.active, r)
			}
		}()
		next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		m = next.(Model)
		lines := strings.Split(m.View(), "\n")
		if len(lines) > h {
			t.Fatalf("%dx%d view %d: %d lines", w, h, m.active, len(lines))
		}
		for _, l := range lines {
			if lipgloss.Width(l) > w {
				t.Fatalf("%dx%d view %d: a line of %d columns: %q", w, h, m.active, lipgloss.Width(l), l)
			}
		}
	}
	sweep := func(step int) {
		for w := 1; w <= 40; w += step {
			for h := 1; h <= 12; h += step {
				check(w, h)
			}
		}
	}
	for v, subs := range [][]string{
		viewBatches:      {"enter", "J"}, // a result's detail, raw
		viewPlayground:   {"s"},          // the settings
		viewDestinations: {"enter", "?"}, // the edit form, then (typing) f1 is help
	} {
		m.active = v
		sweep(1)
		for _, k := range subs {
			m = drive(m, keyMsg(k))
			sweep(3)
		}
	}
	m = drive(m, tea.KeyMsg{Type: tea.KeyF1})
	sweep(3)
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
		// A pending tea.Tick ends when its timer fires (the notice's few
		// seconds at most); the stream's pump is what must be gone.
		goleak.IgnoreAnyFunction("github.com/charmbracelet/bubbletea.Tick.func1"),
	}
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Poll: fastPoll()}, 100, 30)
	u.typePrompt("slow")
	u.until("tokens", func(m Model) bool { t := lastTurn(m); return t != nil && t.out.Deltas > 2 })
	u.quit()
	// Wait for the condition (bounded generously), not for a time.
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if err = goleak.Find(opts...); err == nil {
			return
		}
	}
	t.Fatal(err)
}
