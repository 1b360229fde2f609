package ui

// The batches home and a batch's view, over real HTTP to the embedded
// gateway.

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
)

func TestHomeListsTheServersBatchesAndOpensOne(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	rec := record.Open(t.TempDir())
	u := start(t, Options{Client: c, Record: rec, Poll: fastPoll()}, 160, 48)
	u.screen("Batches", "in flight", srv.SeedID(gateway.SeedChat), srv.SeedID(gateway.SeedLarge))
	if got := len(srv.RequestsTo("GET", "/api/v1/batches")); got == 0 {
		t.Fatal("the home must list batches with GET /batches")
	}
	// Filtering by id opens the one typed.
	u.runes("/")
	u.runes(srv.SeedID(gateway.SeedMessages))
	u.screen("1 of")
	u.key(tea.KeyEnter)
	u.until("the messages batch open", func(m Model) bool {
		b := batchOf(m)
		return b != nil && b.res != nil && b.id == srv.SeedID(gateway.SeedMessages)
	})
	u.screen("Results 1-", "of 10")
	u.key(tea.KeyEsc) // back to the home, the filter kept
	u.until("home", func(m Model) bool { return batchOf(m) == nil })
	// What the home saw is remembered on this machine, for servers that
	// cannot list (written off the UI loop, so waited for).
	u.until("the record remembers the batches seen", func(Model) bool {
		return len(rec.Batches(strings.TrimRight(c.BaseURL(), "/"))) > 0
	})
	u.quit()
}

func TestHomeWithoutAListFallsBackToTheRecord(t *testing.T) {
	srv, c := startGW(t, gateway.Options{NoBatchList: true})
	rec := record.Open(t.TempDir())
	base := strings.TrimRight(c.BaseURL(), "/")
	rec.Remember(base, record.Batch{ID: srv.SeedID(gateway.SeedChat), Status: api.BatchCompleted, CreatedAt: time.Now().Unix()})
	u := start(t, Options{Client: c, Record: rec, Poll: fastPoll()}, 140, 40)
	u.screen("this server does not list batches", srv.SeedID(gateway.SeedChat))
	u.key(tea.KeyEnter)
	u.screen("Results 1-", "of 40")
	u.quit()
}

// clock is a gateway clock the test moves: the batch's progress follows
// it, not the machine's speed.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestRunningBatchPollsToCompletionAndStops(t *testing.T) {
	clk := &clock{t: time.Now()}
	srv, c := startGW(t, gateway.Options{BatchDuration: time.Minute, Now: clk.Now})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedRunning), Poll: fastPoll()}, 120, 40)
	u.until("a non-terminal status", func(m Model) bool {
		b := batchOf(m)
		return b != nil && b.meta != nil && !b.meta.Status.Terminal()
	})
	clk.Add(2 * time.Minute) // the batch's minute has passed
	view := u.screen("polling stopped: the batch is completed", "completed with errors", "Results 1-", "of 200")
	if !strings.Contains(view, "✓ ") || !strings.Contains(view, "✗ ") {
		t.Fatalf("completed and failed must show separately:\n%s", view)
	}
	// No poll after the terminal status (waiting for a condition that
	// must not come: a poll would arrive within many intervals).
	id := srv.SeedID(gateway.SeedRunning)
	n := len(srv.RequestsTo("GET", "/api/v1/batches/"+id))
	u.sync()
	time.Sleep(300 * time.Millisecond) // ten poll intervals
	u.sync()
	if got := len(srv.RequestsTo("GET", "/api/v1/batches/"+id)); got != n {
		t.Fatalf("polled after the terminal status: %d -> %d", n, got)
	}
	u.quit()
}

func TestBatchErrorScreensSayWhat(t *testing.T) {
	srv, c := startGW(t, gateway.Options{PaymentPolls: 2})
	cases := []struct {
		seed string
		want []string
	}{
		{gateway.SeedPayment, []string{"payment required (402)", "Add credits"}},
		{gateway.SeedOld, []string{"Batch results deleted", "30 days"}},
		{gateway.SeedFailed, []string{"batch failed:", "the batch failed before its requests ran"}},
	}
	for _, tc := range cases {
		u := start(t, Options{Client: c, BatchID: srv.SeedID(tc.seed), Poll: fastPoll()}, 110, 34)
		u.screen(tc.want...)
		if tc.seed == gateway.SeedPayment {
			u.screen("Results 1-", "of 15", "polling stopped") // once credits are "added"
		}
		u.quit()
	}
	// A mistyped id: not found at once (no grace: it was not submitted
	// here), and not remembered.
	rec := record.Open(t.TempDir())
	u := start(t, Options{Client: c, BatchID: "batch-0-missing", Record: rec, Poll: fastPoll()}, 110, 34)
	v := u.screen("Batch not found", "batch-0-missing")
	if strings.Contains(v, "base URL") {
		t.Fatalf("one 404 is not a wrong base URL:\n%s", v)
	}
	u.quit()
	for _, b := range rec.Batches(strings.TrimRight(c.BaseURL(), "/")) {
		if b.ID == "batch-0-missing" {
			t.Fatal("a 404 id must not be remembered")
		}
	}
	// A flaky server: the last good answer stays, the view says it retries.
	u = start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedFlaky502), Poll: fastPoll()}, 110, 34)
	u.screen("completed", "Results 1-3 of 3")
	u.quit()
}

func TestWrongBaseURLIsNamed(t *testing.T) {
	srv, _ := startGW(t, gateway.Options{})
	c, err := api.New(api.Options{BaseURL: srv.URL + "/wrong/v9", APIKey: gateway.DemoAPIKey, ManagementKey: gateway.DemoManagementKey})
	if err != nil {
		t.Fatal(err)
	}
	u := start(t, Options{Client: FromAPI(c, ""), BatchID: "batch-1", Poll: fastPoll()}, 110, 34)
	u.screen("Nothing found at this address", "/api/v1")
	u.quit()
}

func TestResultsFilterDetailExportCopy(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	copied := make(chan string, 10)
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat), ExportDir: dir,
		Clipboard: func(s string) error { copied <- s; return nil }}, 140, 45)
	u.screen("Results 1-", "of 40")
	u.runes("y")
	u.until("copied", func(m Model) bool { return strings.Contains(m.notice, "copied the result's JSON to the clipboard") })
	u.runes("f")
	u.runes("f") // all -> succeeded -> failed
	u.screen("show failed", "(filtered from 40)")
	u.key(tea.KeyEnter)
	u.screen("Result detail", "error_type")
	u.runes("J")
	u.screen(`"error_type"`)
	u.key(tea.KeyEsc)
	// Export: the path is asked (a default in ExportDir), then written.
	u.runes("e")
	u.screen("export to")
	u.key(tea.KeyEnter)
	view := u.until("exported", func(m Model) bool { return strings.Contains(m.notice, "exported") })
	_ = view
	fm := u.quit()
	if len(copied) != 1 {
		t.Fatalf("copied %d times", len(copied))
	}
	if got := <-copied; !strings.Contains(got, `"custom_id":"chat-req-00000"`) {
		t.Fatalf("copied %q", got)
	}
	if !strings.Contains(fm.notice, dir) {
		t.Fatalf("the notice must name where it wrote: %q", fm.notice)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("export files: %v", files)
	}
	data, _ := os.ReadFile(filepath.Join(dir, files[0].Name()))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if want := batchOf(fm).meta.RequestCounts.Failed; len(lines) != want {
		t.Fatalf("exported %d lines, want the %d failed results", len(lines), want)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"error_type"`) {
			t.Fatalf("exported a result that did not fail: %s", l)
		}
	}
}

func TestDetailShapesOfEveryEndpoint(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	shapes := map[string][]string{
		gateway.SeedChat:       {"Choice 0", "finish: stop"},
		gateway.SeedResponses:  {"status completed", "usage in"},
		gateway.SeedMessages:   {"Block 0", "stop end_turn"},
		gateway.SeedEmbeddings: {"Vector 0", "256 dimensions"},
	}
	for seed, want := range shapes {
		u := start(t, Options{Client: c, BatchID: srv.SeedID(seed)}, 140, 45)
		u.screen("Results 1-")
		u.key(tea.KeyEnter)
		u.screen(want...)
		u.quit()
	}
}

func TestChatDetailFeatures(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat)}, 140, 60)
	u.screen("Results 1-", "of 40")
	open := func(row int, want ...string) {
		u.runes("g")
		for i := 0; i < row; i++ {
			u.key(tea.KeyDown)
		}
		u.key(tea.KeyEnter)
		u.screen(want...)
		u.key(tea.KeyEsc)
		u.screen("Results")
	}
	open(1, "tool call", "get_weather", `"city": "Paris"`)
	open(2, "cite", "How routing works", "web")
	open(3, "image", "images.example.com")
	open(4, "▸ reasoning")
	open(5, "logprobs for 2 tokens")
	open(6, "refusal:")
	open(15, "file", "pricing.pdf")
	u.quit()
}

func TestResultsSearchAndOrder(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat)}, 120, 40)
	u.screen("Results 1-", "of 40")
	u.runes("/")
	u.runes("req-0001")
	u.key(tea.KeyEnter)
	u.screen("(filtered from 40)", "search “req-0001”")
	u.until("ten rows", func(m Model) bool { return len(batchOf(m).res.view) == 10 })
	u.runes("o")
	u.runes("o")
	u.screen("order tokens")
	u.until("rows ordered by tokens", func(m Model) bool {
		r := batchOf(m).res
		for i := 1; i < len(r.view); i++ {
			if r.data.Rows[r.view[i-1]].Tokens < r.data.Rows[r.view[i]].Tokens {
				return false
			}
		}
		return len(r.view) == 10
	})
	u.key(tea.KeyEsc) // clears the filters first
	u.until("all rows again", func(m Model) bool { return batchOf(m) != nil && len(batchOf(m).res.view) == 40 })
	u.quit()
}

func TestSubmitFromTheHome(t *testing.T) {
	srv, c := startGW(t, gateway.Options{BatchDuration: 300 * time.Millisecond})
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(bad, []byte("{\"custom_id\":\"a\",\"body\":{}}\nnot json\n{\"custom_id\":\"a\",\"body\":{}}\n"), 0o600)
	var b strings.Builder
	for i := 0; i < 5; i++ {
		b.WriteString(`{"custom_id":"q` + string(rune('0'+i)) + `","body":{"messages":[{"role":"user","content":"hi"}]}}` + "\n")
	}
	os.WriteFile(good, []byte(b.String()), 0o600)
	rec := record.Open(t.TempDir())
	u := start(t, Options{Client: c, Record: rec, Poll: fastPoll()}, 140, 40)
	u.screen("Batches")
	u.runes("s")
	u.screen("Submit a batch")
	u.runes(bad)
	u.key(tea.KeyEnter)
	u.screen("2 problems", "line 2: not valid JSON", "line 3: custom_id \"a\" repeats line 1")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("the file has problems")
	if n := len(srv.RequestsTo("POST", "/api/v1/batches")); n != 0 {
		t.Fatalf("a bad file was sent (%d POSTs)", n)
	}
	// The good file: checked, then submitted, then watched.
	// a file with problems brings the focus back to the path
	u.until("path field", func(m Model) bool { return homeOf(m).submitting() != nil && homeOf(m).submitting().row == submitPath })
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.until("path cleared", func(m Model) bool { return homeOf(m).submitting().path.Input.Value() == "" })
	u.runes(good)
	u.key(tea.KeyEnter)
	u.screen("✓ 5 requests ready")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.until("the new batch open", func(m Model) bool { return batchOf(m) != nil && strings.HasPrefix(batchOf(m).id, "batch-") })
	u.screen("polling stopped: the batch is completed")
	fm := u.quit()
	if n := len(srv.RequestsTo("POST", "/api/v1/batches")); n != 1 {
		t.Fatalf("POSTs: %d", n)
	}
	id := batchOf(fm).id
	if !rec.SubmittedWithin(strings.TrimRight(c.BaseURL(), "/"), id, time.Hour, time.Now()) {
		t.Fatal("a batch submitted here is remembered as such (for the 404 grace)")
	}
}

func TestDeleteFromTheHome(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, Poll: fastPoll()}, 160, 48)
	u.screen(srv.SeedID(gateway.SeedRunning))
	// In flight: refused with a reason, nothing sent.
	u.until("cursor on the running batch", func(m Model) bool {
		h := homeOf(m)
		for i, idx := range h.view {
			if h.rows[idx].b.ID == srv.SeedID(gateway.SeedRunning) {
				h.nav.Cursor = i
				return true
			}
		}
		return false
	})
	u.runes("d")
	u.until("refused", func(m Model) bool { return strings.Contains(m.notice, "only a settled batch") })
	// A settled one: asked, then deleted.
	target := srv.SeedID(gateway.SeedCancelled)
	u.until("cursor on the cancelled batch", func(m Model) bool {
		h := homeOf(m)
		for i, idx := range h.view {
			if h.rows[idx].b.ID == target {
				h.nav.Cursor = i
				return true
			}
		}
		return false
	})
	u.runes("d")
	u.screen("y/N")
	u.runes("N")
	u.until("kept", func(m Model) bool { return !homeOf(m).stack.open() })
	if n := len(srv.RequestsTo("DELETE", "/api/v1/batches/")); n != 0 {
		t.Fatal("N must not delete")
	}
	u.runes("d")
	u.runes("y")
	u.until("deleted", func(m Model) bool { _, ok := homeOf(m).byID[target]; return !ok })
	u.quit()
	if n := len(srv.RequestsTo("DELETE", "/api/v1/batches/"+target)); n != 1 {
		t.Fatalf("DELETEs: %d", n)
	}
}

// The home polls the in-flight rows it shows, and never a settled one.
func TestHomePollsVisibleInFlightRowsOnly(t *testing.T) {
	clk := &clock{t: time.Now()}
	srv, c := startGW(t, gateway.Options{BatchDuration: time.Minute, Now: clk.Now})
	running := srv.SeedID(gateway.SeedRunning)
	u := start(t, Options{Client: c, Poll: fastPoll()}, 160, 48)
	u.until("running row in flight", func(m Model) bool {
		r := homeOf(m).byID[running]
		return r != nil && !r.b.Status.Terminal()
	})
	u.until("the row polled", func(m Model) bool { return len(srv.RequestsTo("GET", "/api/v1/batches/"+running)) > 0 })
	clk.Add(2 * time.Minute)
	u.until("the row settled without opening it", func(m Model) bool {
		r := homeOf(m).byID[running]
		return r != nil && r.b.Status == api.BatchCompleted && batchOf(m) == nil
	})
	u.quit()
	for _, seed := range []string{gateway.SeedChat, gateway.SeedFailed, gateway.SeedCancelled, gateway.SeedExpired} {
		if n := len(srv.RequestsTo("GET", "/api/v1/batches/"+srv.SeedID(seed))); n != 0 {
			t.Fatalf("the settled %s batch was polled %d times", seed, n)
		}
	}
}
