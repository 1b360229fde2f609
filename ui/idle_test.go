package ui

// A dashboard left open all day: messages go to the view that owns them,
// a hidden view does not redraw, in-flight rows keep polling across every
// way of leaving and coming back, the list is read again on its own, the
// record is written only when something changed and then coalesced, and
// the batches held are bounded. An injected clock with its timers: nothing
// sleeps.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
)

// fakeClock is the dashboard's clock and timers in a test.
type fakeClock struct {
	now    time.Time
	timers []armedTimer
}

type armedTimer struct {
	at    time.Time
	view  int // shellOwner: not addressed
	fn    func(time.Time) tea.Msg
	order int
}

// timerMsg is what a timer command returns here: the harness keeps it
// (with the address the real result would have) until the clock passes.
type timerMsg struct {
	d  time.Duration
	fn func(time.Time) tea.Msg
}

func newFakeClock() *fakeClock { return &fakeClock{now: fixedNow} }

// model builds a dashboard over fc with this clock.
func (k *fakeClock) model(t testing.TB, fc Client, o Options, w, h int) Model {
	t.Helper()
	o.Client = fc
	o.Now = func() time.Time { return k.now }
	o.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d: d, fn: fn} }
	}
	if o.Renderer == nil {
		o.Renderer = plainRenderer()
	}
	o.Clipboard = func(string) error { return nil }
	m := New(o)
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return k.drive(next.(Model), runCmd(m.Init())...)
}

// drive applies messages and what their commands return, as a program
// would; timers are kept, not slept on.
func (k *fakeClock) drive(m Model, msgs ...tea.Msg) Model {
	queue := msgs
	for n := 0; len(queue) > 0 && n < 10000; n++ {
		msg := queue[0]
		queue = queue[1:]
		switch t := msg.(type) {
		case timerMsg:
			k.arm(shellOwner, t)
			continue
		case addressedMsg:
			if tm, ok := t.msg.(timerMsg); ok {
				k.arm(t.view, tm)
				continue
			}
		}
		next, cmd := m.Update(msg)
		m = next.(Model)
		queue = append(queue, runCmd(cmd)...)
	}
	return m
}

func (k *fakeClock) arm(view int, t timerMsg) {
	k.timers = append(k.timers, armedTimer{at: k.now.Add(t.d), view: view, fn: t.fn, order: len(k.timers)})
}

// advance moves the clock by d, firing every timer that falls due, in
// order.
func (k *fakeClock) advance(m Model, d time.Duration) Model {
	end := k.now.Add(d)
	for {
		sort.SliceStable(k.timers, func(i, j int) bool { return k.timers[i].at.Before(k.timers[j].at) })
		if len(k.timers) == 0 || k.timers[0].at.After(end) {
			break
		}
		t := k.timers[0]
		k.timers = k.timers[1:]
		if t.at.After(k.now) {
			k.now = t.at
		}
		var msg tea.Msg = t.fn(k.now)
		if t.view != shellOwner {
			msg = addressedMsg{view: t.view, msg: msg}
		}
		m = k.drive(m, msg)
	}
	k.now = end
	return m
}

func calls(fc *fakeClient, call string) int {
	n := 0
	for _, c := range fc.calls {
		if c == call {
			n++
		}
	}
	return n
}

// spyView counts what reaches a view.
type spyView struct {
	view
	updates []tea.Msg
	draws   int
}

func (s *spyView) Update(msg tea.Msg) tea.Cmd {
	s.updates = append(s.updates, msg)
	return s.view.Update(msg)
}

func (s *spyView) View() string { s.draws++; return s.view.View() }

func (s *spyView) KeyMap() help.KeyMap { return s.view.KeyMap() }

// A poll result of the home reaches the home only; while the playground
// is shown it neither wakes the playground nor redraws the frame.
func TestHiddenViewGetsNoUpdateAndNoRedraw(t *testing.T) {
	k := newFakeClock()
	fc := fakeBatches()
	m := k.model(t, fc, Options{}, 120, 40)
	spies := make([]*spyView, len(m.views))
	for i, v := range m.views {
		spies[i] = &spyView{view: v}
		m.views[i] = spies[i]
	}
	// Every command of the home answers to the home by address.
	for _, msg := range runCmd(m.c.safeCmd(viewBatches, homeOf(unspied(m)).reload())) {
		if a, ok := msg.(addressedMsg); !ok || a.view != viewBatches {
			t.Fatalf("a home command's result is not addressed to it: %#v", msg)
		}
	}
	m = k.drive(m, keyMsg("2"))
	m.View()
	for _, s := range spies {
		s.updates, s.draws = nil, 0
	}
	// A minute of the home polling its in-flight row, unseen.
	fc.data["batch-run"].Batch.RequestCounts.Completed = 61
	before := calls(fc, "GetBatchData batch-run")
	m = k.drive(m, addressedMsg{view: viewBatches, msg: rowPollMsg{gen: homeOf(unspied(m)).rowGen, id: "batch-run"}})
	m = k.drive(m, addressedMsg{view: viewBatches, msg: listRefreshMsg{gen: homeOf(unspied(m)).refreshGen}})
	m.View()
	if n := len(spies[viewPlayground].updates) + len(spies[viewDestinations].updates); n != 0 {
		t.Fatalf("views that do not own the messages got %d updates: %#v %#v", n, spies[viewPlayground].updates, spies[viewDestinations].updates)
	}
	if spies[viewPlayground].draws != 0 || spies[viewBatches].draws != 0 {
		t.Fatalf("nothing visible changed, yet the frame was drawn again (%d, %d)", spies[viewPlayground].draws, spies[viewBatches].draws)
	}
	if len(spies[viewBatches].updates) == 0 {
		t.Fatal("the home did not get its own messages")
	}
	if calls(fc, "GetBatchData batch-run") != before {
		t.Fatal("the hidden home polled a row nobody sees")
	}
	// A key is visible: the frame is drawn.
	m = k.drive(m, keyMsg("z"))
	m.View()
	if spies[viewPlayground].draws != 1 {
		t.Fatalf("a key's notice was not drawn (%d)", spies[viewPlayground].draws)
	}
}

// unspied returns the model with the home as it is (for its fields).
func unspied(m Model) Model {
	out := m
	out.views = append([]view(nil), m.views...)
	for i, v := range out.views {
		if s, ok := v.(*spyView); ok {
			out.views[i] = s.view
		}
	}
	return out
}

// An in-flight row polls on its own schedule, and keeps polling after a
// batch is opened and closed, after a view switch and after a filter.
func TestRowPollsSurviveOpenCloseSwitchAndFilter(t *testing.T) {
	k := newFakeClock()
	fc := fakeBatches()
	m := k.model(t, fc, Options{}, 140, 40)
	polls := func() int { return calls(fc, "GetBatchData batch-run") }
	polled := func(what string, m Model) Model {
		t.Helper()
		n := polls()
		m = k.advance(m, 2*time.Minute)
		if polls() <= n {
			t.Fatalf("%s: the in-flight row stopped polling", what)
		}
		return m
	}
	m = polled("at first", m)
	// Open the settled batch; its row timers fire while it is open.
	m = k.drive(m, keyMsg("down"))
	m = k.drive(m, keyMsg("enter"))
	if batchOf(m) == nil || batchOf(m).id != "batch-done" {
		t.Fatal("open")
	}
	n := polls()
	m = k.advance(m, 3*time.Minute)
	if polls() != n {
		t.Fatal("rows polled under an open batch")
	}
	m = k.drive(m, keyMsg("esc"))
	m = polled("after a batch was opened and closed", m)
	// Another view, for a while, and back.
	m = k.drive(m, keyMsg("3"))
	n = polls()
	m = k.advance(m, 3*time.Minute)
	if polls() != n {
		t.Fatal("rows polled while the home was hidden")
	}
	m = k.drive(m, keyMsg("1"))
	if polls() <= n {
		t.Fatal("coming back does not poll at once")
	}
	m = polled("after a view switch", m)
	// A filter that hides the row, then shows it again.
	m = k.drive(m, keyMsg("/"))
	for _, r := range "done" {
		m = k.drive(m, keyMsg(string(r)))
	}
	m = k.advance(m, 3*time.Minute)
	m = k.drive(m, keyMsg("esc"))
	m = k.drive(m, keyMsg("esc"))
	m = polled("after a filter", m)
	// "updated" is the list's age: read on its own within the minute.
	if v := viewOf(m); !strings.Contains(v, "updated ") || strings.Contains(v, "updated 2m") {
		t.Fatalf("status bar:\n%s", v)
	}
	// A row whose poll gives up says so.
	delete(fc.data, "batch-run")
	m = k.advance(m, 2*time.Minute)
	if v := viewOf(m); !strings.Contains(v, "batch-run (not polled: r tries again)") {
		t.Fatalf("a row that stopped polling does not say so:\n%s", v)
	}
}

// listFails is a gateway whose list answers 503 with a Retry-After.
type listFails struct {
	*fakeClient
	fail bool
}

func (l *listFails) ListBatches(ctx context.Context, o api.BatchListOptions) (*api.BatchPage, error) {
	if l.fail {
		l.rec("ListBatches")
		return nil, &api.APIError{Status: http.StatusServiceUnavailable, Message: "busy", RetryAfter: 5 * time.Minute, RetryAfterHeader: "300"}
	}
	return l.fakeClient.ListBatches(ctx, o)
}

// The home reads the list again on its own: a batch submitted elsewhere
// shows within 90 s; hidden, it waits and reads when shown; an error
// backs off as the Retry-After asks; the interval is on screen.
func TestHomeRereadsTheListOnItsOwn(t *testing.T) {
	k := newFakeClock()
	fc := fakeBatches()
	lf := &listFails{fakeClient: fc}
	m := k.model(t, lf, Options{}, 140, 40)
	if v := viewOf(m); !strings.Contains(v, "list read every 1m") {
		t.Fatalf("the interval is not shown:\n%s", v)
	}
	fc.batches = append(fc.batches, api.Batch{ID: "batch-elsewhere", Status: api.BatchCompleted, Model: "m/x", CreatedAt: fixedNow.Unix()})
	m = k.advance(m, 90*time.Second)
	if v := viewOf(m); !strings.Contains(v, "batch-elsewhere") {
		t.Fatalf("a batch submitted elsewhere is not shown after 90 s:\n%s", v)
	}
	// Hidden: no list read; shown again: read at once.
	m = k.drive(m, keyMsg("2"))
	n := calls(fc, "ListBatches")
	m = k.advance(m, 10*time.Minute)
	if calls(fc, "ListBatches") != n {
		t.Fatal("the list was read while the home was hidden")
	}
	m = k.drive(m, keyMsg("1"))
	if calls(fc, "ListBatches") != n+1 {
		t.Fatal("the list due while hidden is not read when the home comes back")
	}
	// Errors: the next read waits as long as Retry-After asks.
	lf.fail = true
	m = k.advance(m, 61*time.Second)
	n = calls(fc, "ListBatches")
	m = k.advance(m, 4*time.Minute)
	if calls(fc, "ListBatches") != n {
		t.Fatal("the list was read again before the Retry-After")
	}
	if v := viewOf(m); !strings.Contains(v, "list read every 5m") {
		t.Fatalf("the backoff is not shown:\n%s", v)
	}
	lf.fail = false
	m = k.advance(m, time.Minute)
	if calls(fc, "ListBatches") != n+1 || !strings.Contains(viewOf(m), "list read every 1m") {
		t.Fatalf("after the wait the list is read and the interval is back: %d", calls(fc, "ListBatches")-n)
	}
}

// The record is not written when a poll changed nothing, and the changes
// of a few seconds make one write.
func TestRecordWrittenOnlyWhenChangedAndCoalesced(t *testing.T) {
	k := newFakeClock()
	fc := fakeBatches()
	rec := record.Open(t.TempDir())
	fc.batches[0].RequestCounts = fc.data["batch-run"].Batch.RequestCounts // the list and the batch agree
	m := k.model(t, fc, Options{Record: rec, Poll: api.PollOptions{Interval: time.Second, MaxInterval: time.Second}}, 140, 40)
	m = k.advance(m, 10*time.Second)
	base := "https://gw.test/api/v1"
	if len(record.Open(rec.Path()[:len(rec.Path())-len("/record")]).Batches(base)) != 3 {
		t.Fatal("the batches seen are not remembered")
	}
	// Polls that change nothing: nothing written.
	w := rec.Written()
	m = k.advance(m, 5*time.Minute)
	if rec.Written() != w {
		b, _ := os.ReadFile(rec.ShardPath(base))
		t.Fatalf("unchanged polls wrote %d bytes:\n%s", rec.Written()-w, b)
	}
	// Progress of a batch in flight is not kept (the next session polls
	// it): counts moving write nothing.
	for i := 0; i < 30; i++ {
		fc.data["batch-run"].Batch.RequestCounts.Completed = 70 + i
		m = k.advance(m, time.Second)
	}
	if rec.Written() != w {
		t.Fatalf("in-flight progress wrote %d bytes", rec.Written()-w)
	}
	// A status that changes every second for a minute: at most one write
	// per recordEvery, each of a line or two.
	writes := 0
	for i := 0; i < 60; i++ {
		fc.data["batch-run"].Batch.Status = []api.BatchStatus{api.BatchInProgress, api.BatchFinalizing}[i%2]
		before := rec.Written()
		m = k.advance(m, time.Second)
		if rec.Written() != before {
			writes++
		}
	}
	if writes == 0 || writes > 60/int(recordEvery/time.Second)+1 {
		t.Fatalf("%d writes in a minute (every %s at most)", writes, recordEvery)
	}
	if per := (rec.Written() - w) / int64(writes); per > 1024 {
		t.Fatalf("a write of one row's change is %d bytes", per)
	}
	// Quitting writes what is left.
	fc.data["batch-run"].Batch.Status = api.BatchCancelling
	m = k.advance(m, time.Second)
	m = k.drive(m, keyMsg("q"))
	k.drive(m, runCmd(m.finishWrites())...)
	if b, _ := record.Open(rec.Path()[:len(rec.Path())-len("/record")]).Batch(base, "batch-run"); b.Status != api.BatchCancelling {
		t.Fatalf("the last change was not written at quit: %+v", b)
	}
}

// The batches held in full stay within their byte bound, least recently
// used out first.
func TestHeldBatchesAreBoundedByBytes(t *testing.T) {
	mk := func(n int) *api.BatchData {
		return &api.BatchData{Batch: &api.Batch{Status: api.BatchCompleted}, Raw: make([]byte, n)}
	}
	h := newHeldCache(10_000)
	for i := 0; i < 50; i++ {
		h.put(fmt.Sprint(i), mk(2000))
		if h.size > h.max {
			t.Fatalf("held %d bytes over the bound %d", h.size, h.max)
		}
		if i == 2 {
			h.get("0") // used: stays
		}
	}
	if h.get("49") == nil || h.get("1") != nil || len(h.byID) != int(h.max/batchBytes(mk(2000))) {
		t.Fatalf("held %d", len(h.byID))
	}
	h.put("big", mk(20_000))
	if h.get("big") != nil {
		t.Fatal("a batch over the bound alone is held")
	}
	h = newHeldCache(10_000)
	for i := 0; i < 5; i++ {
		h.put(fmt.Sprint(i), mk(1000))
	}
	h.get("0")
	for i := 5; i < 9; i++ {
		h.put(fmt.Sprint(i), mk(1000))
	}
	if h.get("0") == nil || h.get("1") != nil {
		t.Fatal("the least recently used goes first")
	}
}

// BenchmarkHomeFrame is what one redraw of the home costs (25 rows, 8 in
// flight, 160x48): an idle home redraws when a row or the age changes.
func BenchmarkHomeFrame(b *testing.B) {
	k := newFakeClock()
	fc := fakeBatches()
	for i := 0; i < 22; i++ {
		st := api.BatchCompleted
		if i < 7 {
			st = api.BatchInProgress
		}
		fc.batches = append(fc.batches, api.Batch{ID: fmt.Sprintf("batch-%02d-abcdef", i), Status: st, Model: "openai/gpt-4o-mini", CreatedAt: fixedNow.Unix() - int64(i*60),
			RequestCounts: api.RequestCounts{Total: 20, Completed: 14, Failed: 1}})
	}
	m := k.model(b, fc, Options{}, 160, 48)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m = k.drive(m, ageTickMsg{})
		_ = m.View()
	}
}

// On the home itself, a row's poll falling due changes nothing on screen:
// the frame is kept; its answer, which moves the row, draws it again.
func TestActiveHomeRedrawsOnlyWhatChanged(t *testing.T) {
	k := newFakeClock()
	fc := fakeBatches()
	m := k.model(t, fc, Options{}, 140, 40)
	m.View()
	h := homeOf(m)
	next, _ := m.Update(addressedMsg{view: viewBatches, msg: rowPollMsg{gen: h.rowGen, id: "batch-run"}})
	m = next.(Model)
	if !m.frame.valid {
		t.Fatal("a poll falling due redrew the frame")
	}
	fc.data["batch-run"].Batch.RequestCounts.Completed = 150
	next, _ = m.Update(addressedMsg{view: viewBatches, msg: rowFetchedMsg{gen: h.rowGen, id: "batch-run", data: fc.data["batch-run"], at: k.now}})
	m = next.(Model)
	if m.frame.valid || !strings.Contains(m.View(), "150/2/200") {
		t.Fatalf("the row's answer is not drawn:\n%s", m.View())
	}
}

// Quitting finishes the record's writes before the program ends: the
// batches the home saw are in the file, and nothing writes after (the
// folder can be removed at once: before, a write outliving quit failed a
// test's TempDir cleanup with "directory not empty").
func TestQuitFinishesTheRecordsWrites(t *testing.T) {
	srv, c := startGW(t, gateway.Options{LargeBatchSize: 20})
	dir, err := os.MkdirTemp("", "gwdash-quit-")
	if err != nil {
		t.Fatal(err)
	}
	rec := record.Open(dir)
	u := start(t, Options{Client: c, Record: rec, Poll: fastPoll()}, 140, 40)
	u.screen("Batches", srv.SeedID(gateway.SeedChat))
	u.quit()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("a write outlived quit: %v", err)
	}
	// What was gathered was written before the end (read from memory:
	// the folder is gone).
	if _, ok := rec.Batch(strings.TrimRight(c.BaseURL(), "/"), srv.SeedID(gateway.SeedChat)); !ok || rec.Written() == 0 {
		t.Fatalf("the batches seen were not written at quit (%d bytes)", rec.Written())
	}
}
