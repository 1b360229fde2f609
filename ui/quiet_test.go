package ui

// An idle dashboard is quiet: what wakes it (its own timers) and what it
// draws, counted over idle minutes with an injected clock. The program's
// own frame ticker is Bubble Tea's (frameRate, app_run.go); these count what
// the dashboard adds to it.

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// countTimers counts the timers the dashboard arms from now on.
func countTimers(m Model) *int {
	n := new(int)
	inner := m.c.opts.Tick
	m.c.opts.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		*n++
		return inner(d, fn)
	}
	return n
}

// idleMinutes advances the clock second by second for n minutes, drawing
// a frame after each step as the program would, and returns how many
// frames the view drew and how many of them had not changed.
func idleMinutes(k *fakeClock, m Model, spy *spyView, n int) (Model, int, int) {
	wasted := 0
	last := m.View()
	start := spy.draws
	for i := 0; i < n*60; i++ {
		draws := spy.draws
		m = k.advance(m, time.Second)
		v := m.View()
		if spy.draws > draws && v == last {
			wasted++
		}
		last = v
	}
	return m, spy.draws - start, wasted
}

// A playground after a long conversation, with nothing streaming, arms
// no timer and draws nothing: ten idle minutes cost no wake-up of its own.
func TestIdlePlaygroundWakesForNothing(t *testing.T) {
	k := newFakeClock()
	m := k.model(t, fakeBatches(), Options{View: "playground"}, 160, 48)
	finishedTurns(playOf(m), 200)
	spy := &spyView{view: m.views[viewPlayground]}
	m.views[viewPlayground] = spy
	m = k.advance(m, time.Minute) // what the start asked settles
	m.View()
	timers, updates := countTimers(m), len(spy.updates)
	_, draws, wasted := idleMinutes(k, m, spy, 10)
	if *timers != 0 || len(spy.updates) != updates || draws != 0 {
		t.Fatalf("ten idle minutes: %d timers armed, %d messages to the playground, %d frames drawn (%d unchanged)", *timers, len(spy.updates)-updates, draws, wasted)
	}
}

// The home with a row in flight that does not move: its polls back off
// to one a minute, and a frame is drawn again only when its text changes
// (an age on screen, the list read again).
func TestIdleHomeDrawsOnlyWhatChanges(t *testing.T) {
	k := newFakeClock()
	fc := fakeBatches()
	m := k.model(t, fc, Options{}, 160, 48)
	spy := &spyView{view: m.views[viewBatches]}
	m.views[viewBatches] = spy
	m = k.advance(m, 15*time.Minute) // the unchanged row's polls back off
	polls := calls(fc, "GetBatchData batch-run")
	_, draws, wasted := idleMinutes(k, m, spy, 5)
	polled := calls(fc, "GetBatchData batch-run") - polls
	if polled > 6 {
		t.Fatalf("an unchanged in-flight row was polled %d times in 5 idle minutes", polled)
	}
	if wasted != 0 {
		t.Fatalf("%d of %d frames were drawn again with nothing changed", wasted, draws)
	}
}
