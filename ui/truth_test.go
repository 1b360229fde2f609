package ui

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/ui/widgets"
)

// httpModel is stateModel over a real client (the embedded gateway over
// HTTP): Update and View called directly, a fixed clock, no timers, so a
// retried poll stays retried until the test says so.
func httpModel(t testing.TB, c Client, o Options, w, h int) Model {
	t.Helper()
	o.Client = c
	if o.Now == nil {
		o.Now = func() time.Time { return fixedNow }
	}
	if o.Renderer == nil {
		o.Renderer = plainRenderer()
	}
	if o.Record == nil {
		o.Record = record.Open(t.TempDir())
	}
	o.Clipboard = func(string) error { return nil }
	o.Tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m := New(o)
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return driveCmd(next.(Model), m.Init())
}

// openFromHome opens a batch of the home's list, as enter on its row does.
func openFromHome(t testing.TB, m Model, id string) Model {
	t.Helper()
	h := homeOf(m)
	for _, r := range h.rows {
		if r.b.ID == id {
			b := r.b
			return driveCmd(m, h.openBatch(id, &b))
		}
	}
	t.Fatalf("%s is not in the home", id)
	return m
}

// Item 9: while results are retried after 429/500 the batch says
// "retrying (n)", never that it has no results; a batch submitted a moment
// ago that still answers 404 says it is not visible yet.
func TestBatchRetryingIsNotNoResults(t *testing.T) {
	srv, c := startGW(t, gateway.Options{SubmitVisibleAfter: time.Hour})
	for _, seed := range []string{gateway.SeedRateLimit, gateway.SeedFlaky500} {
		m := httpModel(t, c, Options{}, 100, 40)
		m = openFromHome(t, m, srv.SeedID(seed))
		for n := 1; n <= 2; n++ {
			v := viewOf(m)
			if strings.Contains(v, "no results") || !strings.Contains(v, fmt.Sprintf("retrying (%d)", n)) {
				t.Fatalf("%s, retry %d:\n%s", seed, n, v)
			}
			m = drive(m, batchPollMsg{gen: batchOf(m).gen}) // the retry is due
		}
		if v := viewOf(m); !strings.Contains(v, "Results 1-3 of 3") || strings.Contains(v, "retrying") {
			t.Fatalf("%s after the retries:\n%s", seed, v)
		}
	}
	b, err := c.SubmitBatch(context.Background(), "/v1/chat/completions", "openai/gpt-4o-mini",
		[]api.BatchRequest{{CustomID: "a", Body: []byte(`{"messages":[{"role":"user","content":"hi"}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	rec := record.Open(t.TempDir())
	sub := fixedNow
	rec.Remember(strings.TrimRight(c.BaseURL(), "/"), record.Batch{ID: b.ID, SubmittedAt: &sub, SeenAt: sub})
	m := httpModel(t, c, Options{BatchID: b.ID, Record: rec}, 100, 40)
	if v := viewOf(m); !strings.Contains(v, "not visible yet") || !strings.Contains(v, "retrying (1)") {
		t.Fatalf("a batch submitted a moment ago:\n%s", v)
	}
}

// Item 13: "failed" keeps in the home exactly the batches that
// `batch list --status failed` (status=failed, asked of the server) lists.
func TestHomeFailedFilterIsTheServersFailed(t *testing.T) {
	srv, c := startGW(t, gateway.Options{LargeBatchSize: 50})
	page, err := c.ListBatches(context.Background(), api.BatchListOptions{Status: api.BatchFailed, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, b := range page.Data {
		want = append(want, b.ID)
	}
	m := httpModel(t, c, Options{}, 140, 40)
	for homeFilterNames[homeOf(m).status] != "failed" {
		m = drive(m, keyMsg("f"))
	}
	h := homeOf(m)
	var got []string
	for _, i := range h.view {
		got = append(got, h.rows[i].b.ID)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(want) == 0 {
		t.Fatalf("home \"failed\" shows %v; the server's failed are %v", got, want)
	}
	// The batches with failed requests have a filter of their own, named so.
	m = drive(m, keyMsg("f"))
	h = homeOf(m)
	v := viewOf(m)
	if !strings.Contains(v, "showing with failed requests") {
		t.Fatalf("the next filter is not named:\n%s", v)
	}
	seen := map[string]bool{}
	for _, i := range h.view {
		seen[h.rows[i].b.ID] = true
	}
	if !seen[srv.SeedID(gateway.SeedLarge)] || seen[srv.SeedID(gateway.SeedExpired)] {
		t.Fatalf("with failed requests: %v", seen)
	}
}

// Item 10: a failed batch says what the server said and that no
// per-request results exist (no "✗ 25" beside "no results"); an expired
// batch counts the requests that never ran as "not run", not pending.
func TestFailedAndExpiredBatchesSayWhatHappened(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{}, 100, 40)
	m = openFromHome(t, m, srv.SeedID(gateway.SeedFailed))
	v := viewOf(m)
	for _, want := range []string{"Batch validation failed: request 'req-7'", "no per-request results exist", "failed as a whole"} {
		if !strings.Contains(strings.Join(strings.Fields(v), " "), want) {
			t.Fatalf("failed batch lacks %q:\n%s", want, v)
		}
	}
	for _, bad := range []string{"✗ 25", "failures: none", "no failures"} {
		if strings.Contains(v, bad) {
			t.Fatalf("failed batch shows %q:\n%s", bad, v)
		}
	}
	m = httpModel(t, c, Options{}, 100, 40)
	m = openFromHome(t, m, srv.SeedID(gateway.SeedExpired))
	v = viewOf(m)
	if !strings.Contains(v, "not run 74") || strings.Contains(v, "… 74") || strings.Contains(v, "pending") {
		t.Fatalf("expired batch:\n%s", v)
	}
}

// Item 14: a new destination's form and review say "new destination" (not
// "N fields changed") and show at most a 4-character hint of a new secret.
func TestNewDestinationReviewHidesTheSecret(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "destinations"}, 160, 50)
	m = drive(m, keyMsg("n"))
	d := destOf(m)
	for i, s := range api.DestinationTypeSpecs {
		if s.Name == "posthog" {
			d.types().nav.Cursor = i
		}
	}
	m = drive(m, keyMsg("enter"))
	e := destOf(m).editor()
	if e == nil || e.kind != editCreate {
		t.Fatal("no create form")
	}
	const secret = "phc_ABCDEFGHIJKLmnopqrstuvWXYZ"
	for _, f := range []struct{ name, value string }{{"name", "my-posthog"}, {"config.apiKey", secret}} {
		for i, fl := range e.form.Fields {
			if fl.Name == f.name {
				e.form.Cursor = i
				e.form.Focus()
			}
		}
		for _, r := range f.value {
			m = drive(m, keyMsg(string(r)))
		}
	}
	if v := viewOf(m); !strings.Contains(v, "new destination") || strings.Contains(v, "changed") {
		t.Fatalf("form:\n%s", v)
	}
	m = drive(m, keyMsg("ctrl+s"))
	v := viewOf(m)
	if !strings.Contains(v, "New destination") || !strings.Contains(v, `"apiKey": "…WXYZ"`) {
		t.Fatalf("review:\n%s", v)
	}
	for i := 0; i+5 <= len(secret); i++ {
		if strings.Contains(v, secret[i:i+5]) {
			t.Fatalf("review shows %q of the secret:\n%s", secret[i:i+5], v)
		}
	}
	m = drive(m, keyMsg("y"))
	if id := srv.DestinationID("my-posthog"); id == "" {
		t.Fatalf("not created: %s", m.notice)
	}
}

// Items 8 and 12: the estimate counts the whole request (instructions and
// the conversation so far), says that "at most" includes reasoning, and
// the card labels its costs: the estimate before sending, what was charged.
func TestEstimateCountsTheWholeRequestAndCardLabelsCosts(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 140, 50)
	system := strings.Repeat("You answer briefly. ", 40) // 800 bytes
	u.until("instructions set", func(m Model) bool {
		playOf(m).settings.Field(setInstructions).Input.SetValue(system)
		return true
	})
	u.typePrompt("Explain routing")
	u.until("first answer", ended(api.EndCompleted))
	var sent int
	u.until("the first turn measured", func(m Model) bool {
		p := playOf(m)
		if len(p.turns) == 1 {
			sent = len(system) + len(p.turns[0].prompt) + int(p.turns[0].answer.Size())
		}
		return true
	})
	u.typePrompt("And caching?")
	// The card is drawn after the answer ends (its generation's record
	// follows): wait for its words rather than race them.
	cardWords := []string{"estimate before sending", "reasoning included", "charged $"}
	view := u.until("second answer and its card", func(m Model) bool {
		if len(playOf(m).turns) != 2 || !ended(api.EndCompleted)(m) {
			return false
		}
		flat := strings.Join(strings.Fields(m.View()), " ")
		for _, w := range cardWords {
			if !strings.Contains(flat, w) {
				return false
			}
		}
		return true
	})
	m := u.quit()
	est := lastTurn(m).estimate
	want := (sent + len("And caching?") + 3) / 4
	if est.InputTokens != want {
		t.Fatalf("estimated %d input tokens; the request carries about %d", est.InputTokens, want)
	}
	posts := srv.RequestsTo("POST", "/api/v1/responses")
	if len(posts) != 2 {
		t.Fatalf("%d POSTs", len(posts))
	}
	flat := strings.Join(strings.Fields(view), " ")
	for _, w := range cardWords {
		if !strings.Contains(flat, w) {
			t.Fatalf("card lacks %q:\n%s", w, view)
		}
	}
	if strings.Contains(flat, "· cost $") {
		t.Fatalf("an unlabelled cost:\n%s", view)
	}
}

// Item 11: relative times keep moving on the batch screen (its panels are
// laid out once per Update), and an error goes when the state it described
// has ended.
func TestAgesMoveAndStaleErrorsGo(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	srv, c := startGW(t, gateway.Options{Wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/api/v1/batches" && fail.Load() {
				http.Error(w, `{"error":{"message":"down for a moment"}}`, http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	}})
	now := time.Now() // the gateway's batches are created relative to it
	m := httpModel(t, c, Options{Now: func() time.Time { return now }, Poll: api.PollOptions{MaxBackoff: time.Millisecond}}, 120, 40)
	if m.errText == "" {
		t.Fatal("a failed list load shows no error")
	}
	fail.Store(false)
	m = drive(m, keyMsg("r"))
	if m.errText != "" || strings.Contains(viewOf(m), "down for a moment") {
		t.Fatalf("the list loaded, the error stays:\n%s", viewOf(m))
	}
	// An error about something else is not cleared by the list loading.
	m = drive(m, failNotice("export failed: disk full"))
	m = drive(m, keyMsg("r"))
	if m.errText == "" {
		t.Fatal("an unrelated error was cleared")
	}
	m = openFromHome(t, m, srv.SeedID(gateway.SeedChat))
	created := func(v string) string {
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, "created ") && strings.Contains(l, "(") {
				return l
			}
		}
		t.Fatalf("no created line:\n%s", v)
		return ""
	}
	before := created(viewOf(m))
	now = now.Add(3 * time.Hour)
	m = drive(m, ageTickMsg{})
	if after := created(viewOf(m)); after == before {
		t.Fatalf("three hours later the batch's age is the same: %s", after)
	}
}

// Item 16: a multi-line prompt keeps the line being typed on screen, at
// every size (the prompt's last line was cut off by one line too many
// above it).
func TestMultiLinePromptKeepsTheTypedLineVisible(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	for _, size := range [][2]int{{100, 30}, {80, 24}, {80, 12}} {
		m := httpModel(t, c, Options{View: "playground", Model: "openai/gpt-4o-mini"}, size[0], size[1])
		m = drive(m, keyMsg("i"))
		for i, l := range []string{"line one", "line two", "line three", "line four", "line five"} {
			if i > 0 {
				m = drive(m, tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
			}
			for _, r := range l {
				m = drive(m, keyMsg(string(r)))
				v := viewOf(m) // a program draws after every key
				if typed := l[:strings.IndexRune(l, r)+1]; !strings.Contains(v, "┃ "+typed) {
					t.Fatalf("%dx%d: %q is not on screen:\n%s", size[0], size[1], typed, v)
				}
				if n := strings.Count(v, "\n") + 1; n > size[1] {
					t.Fatalf("%dx%d: %d lines", size[0], size[1], n)
				}
			}
		}
	}
}

// Item 26: enter in a filter does the same in the home and in
// destinations: one match opens it, several keep the filter.
func TestEnterInAFilterIsTheSameEverywhere(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	typeIn := func(m Model, s string) Model {
		m = drive(m, keyMsg("/"))
		for _, r := range s {
			m = drive(m, keyMsg(string(r)))
		}
		return drive(m, keyMsg("enter"))
	}
	m := httpModel(t, c, Options{}, 140, 40)
	m = typeIn(m, gateway.SeedFlaky502)
	if homeOf(m).opened() == nil || homeOf(m).opened().id != srv.SeedID(gateway.SeedFlaky502) {
		t.Fatal("home: enter on one match does not open it")
	}
	m = httpModel(t, c, Options{View: "destinations"}, 140, 40)
	m = typeIn(m, "prod-langfuse")
	if e := destOf(m).editor(); e == nil || e.orig.DisplayName() != "prod-langfuse" {
		t.Fatalf("destinations: enter on one match does not open it:\n%s", viewOf(m))
	}
	m = httpModel(t, c, Options{View: "destinations"}, 140, 40)
	m = typeIn(m, "e")
	if d := destOf(m); d.editor() != nil || d.filter.Query() != "e" || len(d.view) < 2 {
		t.Fatalf("destinations: enter on several matches does not keep the filter:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("/"))
	m = drive(m, tea.KeyMsg{Type: tea.KeyF1})
	if v := viewOf(m); !strings.Contains(v, "keep (one match opens)") {
		t.Fatalf("help does not say what enter does:\n%s", v)
	}
}

// Item 25: with NO_COLOR (the Ascii profile of these tests) the focused
// compare pane is told apart by its border's glyphs, and tab moves it.
func TestFocusedPaneShowsWithoutColour(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "playground"}, 160, 40)
	p := playOf(m)
	p.startCompare([]string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4"})
	m = drive(m, tea.WindowSizeMsg{Width: 160, Height: 40})
	firstLine := func(v string) string {
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, "╭") || strings.Contains(l, "┏") {
				return l
			}
		}
		return ""
	}
	l := firstLine(viewOf(m))
	if a, b := strings.Index(l, "┏"), strings.Index(l, "╭"); a < 0 || b < 0 || a > b {
		t.Fatalf("the first pane is focused, but the borders say otherwise: %q", l)
	}
	m = drive(m, keyMsg("tab"))
	l = firstLine(viewOf(m))
	if a, b := strings.Index(l, "┏"), strings.Index(l, "╭"); a < 0 || b < 0 || a < b {
		t.Fatalf("tab moved the focus, but the borders say otherwise: %q", l)
	}
}

// Item 27: w offers the workspaces already known (the config's, and those
// of the listed destinations) by tab, instead of asking for a typed UUID.
func TestWorkspaceKeyOffersKnownWorkspaces(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "destinations"}, 140, 40)
	m = drive(m, keyMsg("w"))
	if v := viewOf(m); !strings.Contains(v, "the key's default workspace") || !strings.Contains(v, "tab picks one of 2 known workspaces") {
		t.Fatalf("w offers nothing:\n%s", v)
	}
	m = drive(m, keyMsg("tab"))
	if w, _ := find[*workspacePrompt](&destOf(m).stack); w == nil || w.input.Value() != gateway.DefaultWorkspace {
		t.Fatal("tab did not put the workspace of the listed destinations")
	}
	counted := maps.Clone(destOf(m).known.count)
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("r"))
	m = drive(m, keyMsg("w"))
	m = drive(m, keyMsg("tab"))
	if !maps.Equal(counted, destOf(m).known.count) {
		t.Fatalf("w again and a refresh counted the same destinations again: %v, then %v", counted, destOf(m).known.count)
	}
	m = drive(m, keyMsg("enter"))
	var asked bool
	for _, r := range srv.RequestsTo("GET", "/api/v1/observability/destinations") {
		asked = asked || strings.Contains(r.Query, "workspace_id="+gateway.DefaultWorkspace)
	}
	if !asked || destOf(m).work != gateway.DefaultWorkspace {
		t.Fatal("the picked workspace was not listed")
	}
	// The configured workspace is offered, and named.
	m = httpModel(t, c, Options{View: "destinations", Workspace: gateway.SecondWorkspace}, 140, 40)
	m = drive(m, keyMsg("w"))
	if v := viewOf(m); !strings.Contains(v, "from the config") {
		t.Fatalf("the config's workspace is not named:\n%s", v)
	}
	m = drive(m, tea.KeyMsg{Type: tea.KeyF1})
	if v := viewOf(m); !strings.Contains(v, "next known workspace") {
		t.Fatalf("help does not list tab:\n%s", v)
	}
}

// Item 24: at 80x24 the home's id column shows the part of each id that
// tells it apart (the gateway's ids share "batch-17…").
func TestNarrowHomeShowsTheIdsDistinguishingPart(t *testing.T) {
	srv, c := startGW(t, gateway.Options{LargeBatchSize: 50})
	m := httpModel(t, c, Options{}, 80, 24)
	v := viewOf(m)
	h := homeOf(m)
	if h.tbl.WidthOf(homeID) == 0 {
		t.Fatalf("no id column at 80x24:\n%s", v)
	}
	seen := map[string]string{}
	for _, seed := range []string{gateway.SeedChat, gateway.SeedFailed, gateway.SeedRateLimit, gateway.SeedFlaky500, gateway.SeedFlaky502} {
		id := srv.SeedID(seed)
		shown := strings.TrimPrefix(widgets.KeepTail(id, h.tbl.WidthOf(homeID)), "…")
		if !strings.Contains(v, shown) || !strings.HasSuffix(id, shown) || seen[shown] != "" {
			t.Fatalf("%s shows as %q (as %s does):\n%s", id, shown, seen[shown], v)
		}
		seen[shown] = id
	}
	for _, l := range strings.Split(v, "\n") {
		if w := lipgloss.Width(l); w > 80 {
			t.Fatalf("a line of %d cells:\n%s", w, v)
		}
	}
}

// Item 24: at 80 columns the status bar keeps the mode, however long the
// right side (host, credit, credits, age) would be.
func TestNarrowStatusBarKeepsTheMode(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	for _, view := range []string{"batches", "playground", "destinations"} {
		m := httpModel(t, c, Options{View: view}, 80, 24)
		lines := strings.Split(viewOf(m), "\n")
		bar := lines[len(lines)-2]
		if !strings.Contains(bar, "NAV") || lipgloss.Width(bar) > 80 {
			t.Fatalf("%s: the status bar is %q", view, bar)
		}
	}
}

// Item 24: at 80x24, three compared models do not fit side by side: one
// pane shows, whole, under a switcher that tab moves; nothing overflows.
func TestNarrowCompareShowsOnePaneWithASwitcher(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "playground"}, 80, 24)
	p := playOf(m)
	p.startCompare([]string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4", "openai/gpt-4o"})
	m = drive(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	check := func(focus int) {
		t.Helper()
		v := viewOf(m)
		lines := strings.Split(v, "\n")
		if len(lines) > 24 || !strings.Contains(v, fmt.Sprintf("pane %d of 3, tab switches", focus+1)) ||
			strings.Count(v, "┏") != 1 || strings.Contains(v, "╭") || !strings.Contains(v, "NAV") {
			t.Fatalf("focus %d:\n%s", focus, v)
		}
		if !strings.Contains(v, "┃"+p.cmp.panes[focus].model) {
			t.Fatalf("pane %d is not the one shown:\n%s", focus, v)
		}
	}
	check(0)
	m = drive(m, keyMsg("tab"))
	check(1)
}

// Item 26: the playground's help lists only keys that do something now:
// before any answer, none of the keys that act on answers.
func TestPlaygroundHelpListsOnlyWorkingKeys(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "playground", Model: "openai/gpt-4o-mini"}, 140, 50)
	for _, g := range m.views[m.active].KeyMap().FullHelp() {
		for _, b := range g {
			m2 := drive(m, keyMsg(b.Keys()[0]))
			if strings.Contains(m2.notice, "does nothing") || strings.HasPrefix(m2.notice, "no ") || strings.Contains(m2.notice, " has no ") {
				t.Fatalf("help lists %s (%s), which says %q", b.Help().Key, b.Help().Desc, m2.notice)
			}
			m = httpModel(t, c, Options{View: "playground", Model: "openai/gpt-4o-mini"}, 140, 50)
		}
	}
	m = drive(m, tea.KeyMsg{Type: tea.KeyF1})
	if v := viewOf(m); strings.Contains(v, "copy answer") || !strings.Contains(v, "type a prompt") {
		t.Fatalf("help before any answer:\n%s", v)
	}
}

// Item 24: at 80x24 the results' custom_id column keeps the end of each
// id, where ids that share a prefix differ.
func TestNarrowResultsKeepTheCustomIDsEnd(t *testing.T) {
	srv, c := startGW(t, gateway.Options{LargeBatchSize: 50})
	m := httpModel(t, c, Options{}, 60, 24)
	m = openFromHome(t, m, srv.SeedID(gateway.SeedLarge))
	b := batchOf(m)
	if b == nil || b.res == nil {
		t.Fatalf("no results:\n%s", viewOf(m))
	}
	v := viewOf(m)
	seen := map[string]bool{}
	for _, l := range strings.Split(v, "\n") {
		if f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(l, "▸"), " ")); len(f) > 1 && strings.HasPrefix(f[0], "…") {
			if seen[f[0]] {
				t.Fatalf("two rows show %q:\n%s", f[0], v)
			}
			seen[f[0]] = true
		}
	}
	if len(seen) < 3 {
		t.Fatalf("the custom_id column is not cut from the left:\n%s", v)
	}
}

// Item 25: with NO_COLOR the active region of the playground shows by a
// glyph: the prompt's bar is thick while typing, thin otherwise.
func TestActivePromptShowsWithoutColour(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "playground", Model: "openai/gpt-4o-mini"}, 100, 30)
	if v := viewOf(m); !strings.Contains(v, "│ your prompt") || strings.Contains(v, "┃") {
		t.Fatalf("reading:\n%s", v)
	}
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("h"))
	if v := viewOf(m); !strings.Contains(v, "┃ h") {
		t.Fatalf("typing:\n%s", v)
	}
	m = drive(m, keyMsg("esc"))
	if v := viewOf(m); strings.Contains(v, "┃") {
		t.Fatalf("after esc:\n%s", v)
	}
}

// A filter searches every destination the server has, not only the
// first page: a name on a later page is found (issue 23, item 6).
func TestDestinationFilterSearchesEveryPage(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "destinations"}, 140, 24)
	d := destOf(m)
	if !d.pager.More() {
		t.Fatalf("the test needs a second page: %d rows, all read", len(d.rows))
	}
	first := map[string]bool{}
	for _, r := range d.rows {
		first[r.DisplayName()] = true
	}
	// A name the first page does not hold.
	var all []string
	for x, err := range c.(apiClient).Client.AllDestinations(context.Background(), "", 100) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, x.DisplayName())
	}
	want := ""
	for _, n := range all {
		if !first[n] {
			want = n
			break
		}
	}
	if want == "" {
		t.Fatal("every destination is on the first page")
	}
	m = drive(m, keyMsg("/"))
	for _, r := range want {
		m = drive(m, keyMsg(string(r)))
	}
	d = destOf(m)
	found := false
	for _, i := range d.view {
		found = found || d.rows[i].DisplayName() == want
	}
	if !found {
		t.Fatalf("%q (not on the first page) is not found by the filter:\n%s", want, viewOf(m))
	}
}

// Without colour the view that is on shows in the tab bar by brackets,
// and a multi field's option under the cursor by ›.
func TestTabAndOptionFocusShowWithoutColour(t *testing.T) {
	m := stateModel(t, oneDest(), Options{View: "playground"}, 120, 30)
	if v := viewOf(m); !strings.Contains(strings.Split(v, "\n")[0], "[2 Playground]") {
		t.Fatalf("the tab bar without colour:\n%s", strings.Split(v, "\n")[0])
	}
	f := widgets.MultiField("regions", "regions", "", []string{"global", "europe", "us"}, []string{"global"})
	fm := widgets.NewForm(f)
	if v := fm.ValueView(NewStyles(DefaultTheme(), plainRenderer()), f, true); !strings.Contains(v, "›[x] global") {
		t.Fatalf("the option under the cursor: %q", v)
	}
}

// At 80 columns a destination's name stays whole before the columns that
// matter less (names share prefixes: prod-langfuse, prod-langsmith).
func TestNarrowDestinationsKeepTheirNames(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	m := httpModel(t, c, Options{View: "destinations"}, 80, 24)
	if v := viewOf(m); !strings.Contains(v, "prod-langfuse ") {
		t.Fatalf("names cut at 80 columns:\n%s", v)
	}
}

// At 80 columns the picker keeps prices and context whole; a long model
// name gives way first.
func TestNarrowPickerKeepsPrices(t *testing.T) {
	big, small := int64(1047576), int64(128000)
	cat := &api.Catalogue{Data: []api.Model{
		{ID: "meta-llama/llama-3.1-405b-instruct-with-a-long-suffix", ContextLength: &big, Pricing: map[string]string{"prompt": "0.00000015", "completion": "0.0000006"}, SupportedParameters: []string{"max_tokens", "temperature", "top_p"}},
		{ID: "openai/gpt-4o-mini", ContextLength: &small, Pricing: map[string]string{"prompt": "0.0000008", "completion": "0.0000032"}},
	}}
	p := newModelPicker(nil, cat, nil, "openai/gpt-4o-mini", false)
	p.setSize(80, 20)
	v := p.view(NewStyles(DefaultTheme(), plainRenderer()), 80, 20)
	for _, want := range []string{"$0.1500", "$0.6000", "1,047,576", "$0.8000", "$3.20"} {
		if !strings.Contains(v, want) {
			t.Fatalf("%s cut at 80 columns:\n%s", want, v)
		}
	}
}
