package ui

// Marks, D and the diff screen; n and the notification; credit_warn:
// over real HTTP to the embedded gateway, with a gateway clock that
// moves the batches instead of waiting.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/batchdiff"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
	"github.com/gwdash/gwdash/internal/notify"
	"github.com/gwdash/gwdash/internal/record"
)

// lockedBuffer is the terminal a notifier writes to in a test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testNotifier sends OSC 9 to buf.
func testNotifier() (*notify.Notifier, *lockedBuffer) {
	buf := &lockedBuffer{}
	return notify.New(buf, notify.OSC9, func(string) string { return "" }), buf
}

// submitRows submits a chat batch of these custom_ids (prompt is the
// prompt of each, by custom_id; "" asks the same of all).
func submitRows(t testing.TB, c Client, ids []string, prompt func(string) string) string {
	t.Helper()
	var reqs []api.BatchRequest
	for _, id := range ids {
		reqs = append(reqs, api.BatchRequest{CustomID: id, Body: []byte(fmt.Sprintf(`{"messages":[{"role":"user","content":%q}]}`, prompt(id)))})
	}
	b, err := c.SubmitBatch(context.Background(), "/v1/chat/completions", "openai/gpt-4o-mini", reqs)
	if err != nil {
		t.Fatal(err)
	}
	return b.ID
}

// cursorTo moves the home's cursor to a batch with the keys.
func cursorTo(t testing.TB, m Model, id string) Model {
	t.Helper()
	m = drive(m, keyMsg("g"))
	for range len(homeOf(m).view) {
		if r := homeOf(m).selected(); r != nil && r.b.ID == id {
			return m
		}
		m = drive(m, keyMsg("j"))
	}
	t.Fatalf("%s is not in the home", id)
	return m
}

// twoRuns submits two runs of the same rows (one row only in each, one
// answer asked differently) on a gateway whose clock the test moves.
func twoRuns(t *testing.T, o gateway.Options) (*gateway.Server, Client, *clock, string, string) {
	clk := &clock{t: time.Now()}
	o.BatchDuration, o.Now = time.Minute, clk.Now
	srv, c := startGW(t, o)
	var ids []string
	for i := range 30 {
		ids = append(ids, fmt.Sprintf("row-%02d", i))
	}
	a := submitRows(t, c, append([]string{"only-a"}, ids...), func(id string) string { return "say " + id })
	b := submitRows(t, c, append(ids, "only-b"), func(id string) string {
		if id == "row-03" {
			return "say something else entirely for " + id
		}
		return "say " + id
	})
	return srv, c, clk, a, b
}

// Space marks two batches (a third is refused, space again unmarks), the
// marks survive a refresh and a filter; D names the batch not settled;
// once both are, D shows the summary `batch diff` prints and the rows,
// f filters them by change, enter opens a row's answers side by side
// (stacked when narrow), esc goes back; what D downloaded is held, so a
// second D downloads nothing.
func TestDiffOfTwoMarkedBatches(t *testing.T) {
	srv, c, clk, a, b := twoRuns(t, gateway.Options{})
	m := httpModel(t, c, Options{}, 200, 50)
	m = cursorTo(t, m, a)
	m = drive(m, keyMsg("space"))
	m = cursorTo(t, m, b)
	m = drive(m, keyMsg("space"))
	if v := viewOf(m); !strings.Contains(v, "[A] ") || !strings.Contains(v, "[B] ") || !strings.Contains(m.notice, "D compares A and B") {
		t.Fatalf("two marks:\n%s\nnotice %q", v, m.notice)
	}
	m = cursorTo(t, m, srv.SeedID(gateway.SeedChat))
	if m = drive(m, keyMsg("space")); !strings.Contains(m.notice, "two batches are marked already") {
		t.Fatalf("a third mark: %q", m.notice)
	}
	m = drive(m, keyMsg("D"))
	if homeOf(m).diffing() != nil || !strings.Contains(m.notice, "a diff needs both batches settled: A ("+a+") is validating") || !strings.Contains(m.notice, "B ("+b+") is validating") {
		t.Fatalf("D with both in flight: %q", m.notice)
	}
	// The marks survive a refresh and a filter that hides them.
	m = drive(m, keyMsg("r"))
	m = drive(m, keyMsg("/"))
	for _, r := range "zzz" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("esc"))
	if got := homeOf(m).marks; len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("marks after a refresh and a filter: %v", got)
	}

	clk.Add(2 * time.Minute) // both have ended
	m = drive(m, keyMsg("r"))
	m = drive(m, keyMsg("D"))
	d := homeOf(m).diffing()
	if d == nil || d.loading || d.rows == nil {
		t.Fatalf("D did not open the diff: %q\n%s", m.notice, viewOf(m))
	}
	// The same comparison as `batch diff`.
	da, _ := c.GetBatchData(context.Background(), a)
	db, _ := c.GetBatchData(context.Background(), b)
	want, _ := batchdiff.Compare(da, db, batchdiff.Options{}, func(batchdiff.Row) error { return nil })
	v := viewOf(m)
	if !strings.Contains(v, want.Line()) || want.OnlyInA != 1 || want.OnlyInB != 1 || want.Changed == 0 {
		t.Fatalf("summary %q not on screen:\n%s", want.Line(), v)
	}
	if !strings.Contains(v, "only in A") || !strings.Contains(v, "only-a") || !strings.Contains(v, "STATUS A → B") || len(d.view) != want.Differ() {
		t.Fatalf("the rows that differ (%d):\n%s", want.Differ(), v)
	}
	for diffShowNames[homeOf(m).diffing().show] != "only in B" {
		m = drive(m, keyMsg("f"))
	}
	v = viewOf(m)
	if !strings.Contains(v, "only-b") || strings.Contains(v, "only-a") || !strings.Contains(v, "show only in B · 1 row") {
		t.Fatalf("f to only in B:\n%s", v)
	}
	m = drive(m, keyMsg("enter"))
	if v = viewOf(m); !strings.Contains(v, "this custom_id is not in A") || !strings.Contains(v, "B "+b[:20]) {
		t.Fatalf("a row only in B:\n%s", v)
	}
	m = drive(m, keyMsg("esc"))
	// The changed answer, side by side: what only A has is marked [-…-],
	// what only B has {+…+} (no colour here).
	for diffShowNames[homeOf(m).diffing().show] != "changed" {
		m = drive(m, keyMsg("f"))
	}
	d = homeOf(m).diffing()
	k := -1
	for j, i := range d.view {
		if d.rows[i].id == "row-03" {
			k = j
		}
	}
	if k < 0 {
		t.Fatalf("row-03 is not changed:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("g"))
	for range k {
		m = drive(m, keyMsg("j"))
	}
	m = drive(m, keyMsg("enter"))
	if v = viewOf(m); !strings.Contains(v, "Row row-03 · changed") || !strings.Contains(v, " │ ") || !strings.Contains(v, "{+") {
		t.Fatalf("side by side:\n%s", v)
	}
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	m = next.(Model)
	if v = viewOf(m); strings.Contains(v, " │ ") || !strings.Contains(v, "B "+b[:20]) {
		t.Fatalf("stacked at 80 columns:\n%s", v)
	}
	for _, line := range strings.Split(v, "\n") {
		if termCells(line) > 80 {
			t.Fatalf("a line wider than 80: %q", line)
		}
	}
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("esc"))
	if homeOf(m).diffing() != nil || len(homeOf(m).marks) != 2 {
		t.Fatalf("esc esc: back home with the marks: %v", homeOf(m).marks)
	}
	// Held: D again reads neither batch again.
	before := len(srv.RequestsTo("GET", "/api/v1/batches/"+a)) + len(srv.RequestsTo("GET", "/api/v1/batches/"+b))
	m = drive(m, keyMsg("D"))
	if homeOf(m).diffing() == nil || homeOf(m).diffing().rows == nil {
		t.Fatal("D again did not open the diff")
	}
	if after := len(srv.RequestsTo("GET", "/api/v1/batches/"+a)) + len(srv.RequestsTo("GET", "/api/v1/batches/"+b)); after != before {
		t.Fatalf("D again downloaded %d times", after-before)
	}
	// Unmark, and D says what it needs.
	m = drive(m, keyMsg("esc"))
	m = cursorTo(t, m, a)
	m = drive(m, keyMsg("space"))
	if m = drive(m, keyMsg("D")); !strings.Contains(m.notice, "mark them with space first (1 batch is marked)") {
		t.Fatalf("D with one mark: %q", m.notice)
	}
}

// osc9Count counts the OSC 9 notifications written that say text, and
// checks that each is one inert sequence.
func osc9Count(t *testing.T, out, text string) int {
	t.Helper()
	n := 0
	for _, seq := range strings.Split(out, "\x1b]9;")[1:] {
		end := strings.IndexByte(seq, '\a')
		if end < 0 || strings.ContainsAny(seq[:end], "\x1b\n\r") {
			t.Fatalf("not one inert OSC 9: %q", seq)
		}
		if strings.Contains(seq[:end], text) {
			n++
		}
	}
	return n
}

// n watches a batch (a badge in its row); when it ends, one notice and
// exactly one notification with its words, even while the home is hidden
// and after more polls and reads of the list; n again unwatches; a
// settled batch has nothing to wait for. In a batch, n watches it too.
func TestWatchedBatchNotifiesOnce(t *testing.T) {
	clk := &clock{t: time.Now()}
	srv, c := startGW(t, gateway.Options{BatchDuration: time.Minute, Now: clk.Now})
	x := submitRows(t, c, []string{"a", "b", "c"}, func(id string) string { return "say " + id })
	n, buf := testNotifier()
	m := httpModel(t, c, Options{Notifier: n}, 160, 40)
	m = cursorTo(t, m, x)
	m = drive(m, keyMsg("n"))
	if v := viewOf(m); !strings.Contains(v, "(watched)") || !strings.Contains(m.notice, "watching "+x) || !strings.Contains(m.notice, "osc9") {
		t.Fatalf("n: notice %q\n%s", m.notice, v)
	}
	m = drive(m, keyMsg("n"))
	if v := viewOf(m); strings.Contains(v, "(watched)") || !strings.Contains(m.notice, "not watching") {
		t.Fatalf("n again: notice %q\n%s", m.notice, v)
	}
	m = drive(m, keyMsg("n"))
	m = drive(m, keyMsg("2")) // the home hidden: a watched batch is still polled
	clk.Add(2 * time.Minute)
	m = drive(m, rowPollMsg{gen: homeOf(m).rowGen, id: x})
	b, err := c.GetBatchData(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("gwdash: %s completed · %d failed · $", x, b.Batch.RequestCounts.Failed)
	if got := osc9Count(t, buf.String(), text); got != 1 || !strings.Contains(m.notice, x+" completed") {
		t.Fatalf("%d notifications of %q, notice %q: %q", got, text, m.notice, buf.String())
	}
	m = drive(m, keyMsg("1"))
	m = drive(m, keyMsg("r"))
	m = drive(m, rowPollMsg{gen: homeOf(m).rowGen, id: x})
	if got := osc9Count(t, buf.String(), x); got != 1 || strings.Contains(viewOf(m), "(watched)") {
		t.Fatalf("after more reads: %d notifications\n%s", got, viewOf(m))
	}
	m = cursorTo(t, m, x)
	if m = drive(m, keyMsg("n")); !strings.Contains(m.notice, "completed already: there is nothing to wait for") {
		t.Fatalf("n on a settled batch: %q", m.notice)
	}

	// In a batch: n watches it, its own polls tell.
	y := submitRows(t, c, []string{"a"}, func(id string) string { return "say " + id })
	m = drive(m, keyMsg("r"))
	m = openFromHome(t, m, y)
	m = drive(m, keyMsg("n"))
	if !homeOf(m).watch.has(y) {
		t.Fatalf("n in a batch: %q", m.notice)
	}
	clk.Add(2 * time.Minute)
	m = drive(m, batchPollMsg{gen: batchOf(m).gen})
	if got := osc9Count(t, buf.String(), y+" completed"); got != 1 || homeOf(m).watch.has(y) {
		t.Fatalf("the open batch ended: %d notifications", got)
	}
	m = drive(m, batchPollMsg{gen: batchOf(m).gen})
	m = drive(m, keyMsg("esc"))
	if got := osc9Count(t, buf.String(), y); got != 1 {
		t.Fatalf("after closing it: %d notifications", got)
	}
	_ = srv
}

// credit_warn: the key's remaining limit under the threshold is warned
// of once (status bar and notification), not again at the next read.
func TestCreditWarnOnce(t *testing.T) {
	_, c := startGW(t, gateway.Options{KeyLimit: 10, KeyUsage: 7})
	n, buf := testNotifier()
	m := httpModel(t, c, Options{Notifier: n, CreditWarn: 5}, 140, 40)
	want := "credit low: $3.00 left on this key (under credit_warn $5.00)"
	if !strings.Contains(m.errText, want) || osc9Count(t, buf.String(), want) != 1 {
		t.Fatalf("status %q, written %q", m.errText, buf.String())
	}
	m = drive(m, creditsStaleMsg{})
	m = drive(m, creditsStaleMsg{})
	if got := osc9Count(t, buf.String(), "credit low"); got != 1 {
		t.Fatalf("%d warnings after more reads", got)
	}
	// Off by default, and above the threshold: nothing.
	n2, buf2 := testNotifier()
	httpModel(t, c, Options{Notifier: n2}, 140, 40)
	httpModel(t, c, Options{Notifier: n2, CreditWarn: 2}, 140, 40)
	if buf2.String() != "" {
		t.Fatalf("warned without cause: %q", buf2.String())
	}
}

// The keys in a running program over real HTTP: space marks two
// batches, D refuses while they run, n watches one, the gateway's clock
// ends them, the watched one is told once, D opens the diff, enter a row
// side by side, esc comes back.
func TestDiffAndWatchKeysInAProgram(t *testing.T) {
	_, c, clk, a, b := twoRuns(t, gateway.Options{})
	n, buf := testNotifier()
	u := start(t, Options{Client: c, Poll: fastPoll(), Notifier: n}, 160, 48)
	u.screen(a, b)
	mark := func(id string) {
		k := -1
		u.until("the row of "+id, func(m Model) bool {
			h := homeOf(m)
			for j, i := range h.view {
				if h.rows[i].b.ID == id {
					k = j
					return true
				}
			}
			return false
		})
		u.runes("g")
		for range k {
			u.runes("j")
		}
		u.until("the cursor on "+id, func(m Model) bool { r := homeOf(m).selected(); return r != nil && r.b.ID == id })
		u.space()
	}
	mark(a)
	mark(b)
	u.screen("[A] ", "[B] ", "D compares A and B") // notices come in the order of their keys
	u.runes("D")
	u.screen("a diff needs both batches settled")
	u.runes("n") // the cursor is on B
	u.screen("(watched)")
	clk.Add(2 * time.Minute)
	said := "\x1b]9;gwdash: " + b + " completed · "
	u.until("one notification", func(Model) bool { return strings.Count(buf.String(), said) == 1 })
	u.until("both completed", func(m Model) bool {
		h := homeOf(m)
		return h.byID[a].b.Status == api.BatchCompleted && h.byID[b].b.Status == api.BatchCompleted
	})
	u.runes("D")
	u.screen("Diff", " improved · ", "only in A", "only-a")
	u.key(tea.KeyEnter)
	u.screen("Row only-a · only in A", "this custom_id is not in B", " │ ")
	u.key(tea.KeyEsc)
	u.key(tea.KeyEsc)
	u.until("home", func(m Model) bool { return homeOf(m).diffing() == nil })
	u.screen("Batches", "[A] completed")
	u.sync()
	if got := strings.Count(buf.String(), "\x1b]9;"); got != 1 {
		t.Fatalf("%d notifications, want 1: %q", got, buf.String())
	}
	u.quit()
}

// A diff's side never draws a line wider than its column, on the
// layout's count nor on a terminal's, whatever the answer holds.
func TestDiffSideLinesFitTheColumn(t *testing.T) {
	pieces := []span{{op: batchdiff.Equal, text: "中文 wide 😀 and\tnarrow "}, {op: batchdiff.Deleted, text: strings.Repeat("long word ", 30)}, {op: batchdiff.Equal, text: "\n\nend"}}
	for _, w := range []int{8, 13, 40, 77} {
		for _, line := range wrapSpans(pieces, w) {
			var b strings.Builder
			for _, sp := range line {
				b.WriteString(sp.text)
			}
			if termCells(b.String()) > w {
				t.Fatalf("width %d: %q is %d cells", w, b.String(), termCells(b.String()))
			}
		}
	}
}

// Watches are kept in this machine's record: a dashboard opened later
// shows the badge and goes on watching; one opened after the batch ended
// tells of it once, and the watch is gone from the record.
func TestWatchesAreKeptAcrossSessions(t *testing.T) {
	clk := &clock{t: time.Now()}
	_, c := startGW(t, gateway.Options{BatchDuration: time.Minute, Now: clk.Now})
	x := submitRows(t, c, []string{"a", "b"}, func(id string) string { return "say " + id })
	dir := t.TempDir()
	base := strings.TrimRight(c.BaseURL(), "/")
	session := func(n *notify.Notifier) Model {
		m := httpModel(t, c, Options{Record: record.Open(dir), Notifier: n}, 160, 40)
		t.Cleanup(func() { m.c.writes.finish(m.c.record, m.c.base) })
		return m
	}
	n, buf := testNotifier()
	m := session(n)
	m = cursorTo(t, m, x)
	m = drive(m, keyMsg("n"))
	if err := m.c.writes.finish(m.c.record, m.c.base); err != nil {
		t.Fatal(err)
	}
	if got := record.Open(dir).Watched(base); len(got) != 1 || got[0] != x {
		t.Fatalf("record: %v", got)
	}
	if v := viewOf(session(n)); !strings.Contains(v, "(watched)") {
		t.Fatalf("a later session:\n%s", v)
	}
	clk.Add(2 * time.Minute)
	m = session(n)
	if got := osc9Count(t, buf.String(), x+" completed"); got != 1 || strings.Contains(viewOf(m), "(watched)") {
		t.Fatalf("a session after it ended: %d notifications\n%s", got, viewOf(m))
	}
	if err := m.c.writes.finish(m.c.record, m.c.base); err != nil {
		t.Fatal(err)
	}
	if got := record.Open(dir).Watched(base); len(got) != 0 {
		t.Fatalf("the watch stayed in the record: %v", got)
	}
}

// A diff of a hostile server's batches (escapes in every custom_id,
// answer, error and model) draws none of them, at any size, side by side
// or stacked.
func TestDiffOfAHostileServerIsInert(t *testing.T) {
	srv, c := startGW(t, gateway.Options{Wrap: func(h http.Handler) http.Handler {
		return hostile.Wrap(h, hostile.Options{CleanStatus: true, Keep: []string{"type", "object", "role", "id"}})
	}})
	m := httpModel(t, c, Options{}, 160, 45)
	m = cursorTo(t, m, srv.SeedID(gateway.SeedChat))
	m = drive(m, keyMsg("space"))
	m = cursorTo(t, m, srv.SeedID(gateway.SeedMessages))
	m = drive(m, keyMsg("space"))
	m = drive(m, keyMsg("D"))
	d := homeOf(m).diffing()
	if d == nil || d.rows == nil || d.sum.OnlyInA == 0 {
		t.Fatalf("D: %q\n%s", m.notice, viewOf(m))
	}
	check := func(stage string) {
		t.Helper()
		for _, size := range [][2]int{{160, 45}, {80, 24}, {41, 9}, {20, 5}} {
			next, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m = next.(Model)
			v := viewOf(m)
			if bad := hostile.Found(v); bad != "" {
				t.Fatalf("%s at %v: %q reached the screen:\n%s", stage, size, bad, v)
			}
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] {
				t.Fatalf("%s at %v: %d lines", stage, size, len(lines))
			}
			for _, l := range lines {
				if termCells(l) > size[0] {
					t.Fatalf("%s at %v: a line of %d cells: %q", stage, size, termCells(l), l)
				}
			}
		}
		next, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 45})
		m = next.(Model)
	}
	check("the rows")
	m = drive(m, keyMsg("enter"))
	check("a row only in A")
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("f")) // improved: none, says so
	check("an empty filter")
}
