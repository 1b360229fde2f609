package reqlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/gwdash/gwdash/api"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv("REQLOG_HELPER_PATH") != "" {
		helperWriter()
		return
	}
	code := m.Run()
	if benchPath != "" {
		os.RemoveAll(filepath.Dir(benchPath))
	}
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("database/sql.(*DB).connectionOpener")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

func newRecorder(t *testing.T, path string) *Recorder {
	t.Helper()
	r := Start(Options{Path: path, Profile: "test", Host: "gw.example", Now: clock(t0)})
	t.Cleanup(func() { r.Close(10 * time.Second) })
	return r
}

func openDB(t *testing.T, path string) *DB {
	t.Helper()
	db, notice, err := Open(path)
	if err != nil || notice != "" {
		t.Fatalf("Open: %v %q", err, notice)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// outcome is a completed streamed answer.
func outcome(model string, cost float64, in, out int) api.Outcome {
	u := &api.ResponseUsage{InputTokens: in, OutputTokens: out, Cost: &cost}
	return api.Outcome{State: api.EndCompleted, Model: model, Streamed: true, Deltas: out,
		Started: t0, FirstToken: t0.Add(120 * time.Millisecond), Ended: t0.Add(2 * time.Second),
		Final: &api.Response{Model: model, Status: api.ResponseCompleted, Usage: u}, GenerationID: "gen-" + model}
}

func delta(s string) api.Event { return api.Event{Type: api.EventOutputTextDelta, Delta: s} }

func TestOpenMakesA0600FileAtTheCurrentSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := Path(dir)
	db := openDB(t, path)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	if d, _ := os.Stat(dir); d.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v, want 0700", d.Mode().Perm())
	}
	var v int
	var mode string
	db.sql.QueryRow("PRAGMA user_version").Scan(&v)
	db.sql.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if v != SchemaVersion() || mode != "wal" {
		t.Fatalf("user_version %d journal %s, want %d wal", v, mode, SchemaVersion())
	}
	db.Close()
	// A file left readable by others is narrowed.
	os.Chmod(path, 0o644)
	openDB(t, path)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode after reopen %v, want 0600", st.Mode().Perm())
	}
}

func TestOpenRefusesASymbolicLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.db")
	os.WriteFile(target, nil, 0o644)
	path := filepath.Join(dir, FileName)
	if err := os.Symlink(target, path); err != nil {
		t.Skip("no symbolic links here")
	}
	_, _, err := Open(path)
	var p *Problem
	if !errors.As(err, &p) || p.Kind != "unsafe" || !strings.Contains(p.Msg, "symbolic link") {
		t.Fatalf("err %v, want an unsafe problem naming the link", err)
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Fatal("the link's target was written")
	}
}

func TestSchemaMigratesForwardKeepingRows(t *testing.T) {
	path := Path(t.TempDir())
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	// A log written by the first schema...
	migrations = saved[:1]
	db := openDB(t, path)
	if _, err := db.Insert(context.Background(), &Entry{Time: t0, Kind: KindResponse, Model: "a/b", Input: "kept"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// ...is brought to this one's, its rows kept.
	migrations = saved
	db1 := openDB(t, path)
	var v, idx int
	db1.sql.QueryRow("PRAGMA user_version").Scan(&v)
	db1.sql.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'requests_spend'").Scan(&idx)
	rows, _ := db1.List(context.Background(), Filter{Search: "kept"})
	if v != len(saved) || idx != 1 || len(rows) != 1 {
		t.Fatalf("version %d, spend index %d, rows %d", v, idx, len(rows))
	}
	db1.Close()

	// A later schema adds a column: the rows keep their values.
	migrations = append(append([]string(nil), saved...), `ALTER TABLE requests ADD COLUMN note TEXT NOT NULL DEFAULT 'new'`)
	db2 := openDB(t, path)
	var note, input string
	db2.sql.QueryRow("PRAGMA user_version").Scan(&v)
	if err := db2.sql.QueryRow("SELECT note, input FROM requests").Scan(&note, &input); err != nil {
		t.Fatal(err)
	}
	if v != len(saved)+1 || note != "new" || input != "kept" {
		t.Fatalf("version %d note %q input %q", v, note, input)
	}
	db2.Close()

	// The older gwdash leaves the newer file alone.
	migrations = saved
	_, _, err := Open(path)
	var p *Problem
	if !errors.As(err, &p) || p.Kind != "newer" {
		t.Fatalf("err %v, want newer", err)
	}
}

func TestADamagedFileIsMovedAsideAndANewLogStarted(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir)
	garbage := []byte(strings.Repeat("not a database at all ", 400))
	os.WriteFile(path, garbage, 0o600)
	r := newRecorder(t, path)
	c := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "after the damage"}}, Meta{})
	c.Finish(outcome("a/b", 0.01, 3, 4))
	r.Flush()
	problems := r.PendingProblems()
	if len(problems) != 1 || !strings.Contains(problems[0], "damaged") || !strings.Contains(problems[0], "moved to") {
		t.Fatalf("problems %q, want one saying it was moved", problems)
	}
	r.Close(10 * time.Second)
	matches, _ := filepath.Glob(path + ".damaged-*")
	if len(matches) != 1 {
		t.Fatalf("aside: %v", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != string(garbage) {
		t.Fatal("the damaged file was not kept as it was")
	}
	rows, err := openDB(t, path).List(context.Background(), Filter{})
	if err != nil || len(rows) != 1 || rows[0].Input != "after the damage" {
		t.Fatalf("rows %+v err %v", rows, err)
	}
}

func TestARowHoldsWhatTheRequestCameTo(t *testing.T) {
	path := Path(t.TempDir())
	r := newRecorder(t, path)
	temp := 0.3
	req := api.ResponseRequest{Model: "openai/gpt-4o", Instructions: "be brief", Temperature: &temp,
		Input: api.Input{Text: "Explain routing"}}
	c := r.Begin(req, Meta{})
	c.Event(delta("Routing picks "))
	c.Event(api.Event{Type: api.EventReasoningDelta, Delta: "thinking, not kept"})
	c.Event(delta("a provider.\x1b[31m"))
	o := outcome("openai/gpt-4o", 0.0042, 12, 34)
	o.Final.Model = "openai/gpt-4o-2024"
	c.Finish(o)
	c.Finish(outcome("x/y", 9, 9, 9)) // only the first counts
	r.Generation(&api.Generation{ID: "gen-openai/gpt-4o", ProviderName: ptr("OpenAI"), Latency: ptr(812.0)})
	r.Flush()

	db := openDB(t, path)
	rows, err := db.List(context.Background(), Filter{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %d err %v", len(rows), err)
	}
	e, err := db.Get(context.Background(), rows[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]bool{
		"time":          e.Time.Equal(t0),
		"profile/host":  e.Profile == "test" && e.Host == "gw.example",
		"models":        e.Model == "openai/gpt-4o" && e.ModelServed == "openai/gpt-4o-2024",
		"provider":      e.Provider == "OpenAI",
		"input":         e.Input == "Explain routing" && e.Instructions == "be brief",
		"answer":        strings.HasPrefix(e.Answer, "Routing picks a provider.") && !strings.Contains(e.Answer, "\x1b"),
		"state":         e.State == "completed" && e.Error == "",
		"usage":         *e.InputTokens == 12 && *e.OutputTokens == 34,
		"cost":          *e.Cost == 0.0042,
		"ttft":          *e.TTFTMillis == 120,
		"tps":           e.TokensPerSecond != nil && *e.TokensPerSecond > 0,
		"generation":    e.GenerationID == "gen-openai/gpt-4o" && strings.Contains(e.Generation, `"provider_name":"OpenAI"`),
		"latency":       *e.LatencyMillis == 812,
		"request":       strings.Contains(e.Request, `"temperature":0.3`) && strings.Contains(e.Request, `"instructions":"be brief"`),
		"conversation":  *e.ConversationID == e.ID,
		"not a compare": e.CompareGroup == "",
	}
	for name, ok := range checks {
		if !ok {
			t.Errorf("%s wrong in %+v", name, e)
		}
	}
	back, err := ReplayRequest(e)
	if err != nil || back.Input.Text != "Explain routing" || *back.Temperature != 0.3 || back.Model != "openai/gpt-4o" {
		t.Fatalf("replay request %+v err %v", back, err)
	}
}

func TestTurnsOfAConversationAreLinked(t *testing.T) {
	path := Path(t.TempDir())
	r := newRecorder(t, path)
	first := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "hi"}}, Meta{})
	first.Event(delta("hello  there"))
	first.Finish(outcome("a/b", 0, 1, 1))
	other := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "unrelated"}}, Meta{})
	other.Finish(outcome("a/b", 0, 1, 1))
	second := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Messages: []api.InputMessage{
		{Type: "message", Role: "user", Content: "hi"}, {Type: "message", Role: "assistant", Content: "hello there"},
		{Type: "message", Role: "user", Content: "and then?"}}}}, Meta{})
	second.Event(delta("then more"))
	second.Finish(outcome("a/b", 0, 1, 1))
	r.Flush()
	rows, _ := openDB(t, path).List(context.Background(), Filter{})
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	sec, oth, fir := rows[0], rows[1], rows[2]
	if sec.Input != "and then?" || *sec.ConversationID != fir.ID || *oth.ConversationID == fir.ID {
		t.Fatalf("conversations: first %d, other %d, second %d (input %q)", *fir.ConversationID, *oth.ConversationID, *sec.ConversationID, sec.Input)
	}
}

func TestRequestsBegunUnderOneContextAreACompareGroup(t *testing.T) {
	path := Path(t.TempDir())
	r := newRecorder(t, path)
	req := func(m string) api.ResponseRequest {
		return api.ResponseRequest{Model: m, Input: api.Input{Text: "race"}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := r.BeginIn(ctx, req("a/one"))
	a.Finish(outcome("a/one", 0, 1, 1))
	r.Flush() // the first is written before the second begins
	b := r.BeginIn(ctx, req("b/two"))
	c := r.BeginIn(ctx, req("c/three"))
	b.Finish(outcome("b/two", 0, 1, 1))
	c.Finish(outcome("c/three", 0, 1, 1))
	alone := r.BeginIn(context.Background(), req("d/four"))
	alone.Finish(outcome("d/four", 0, 1, 1))
	r.Flush()
	rows, _ := openDB(t, path).List(context.Background(), Filter{})
	group := map[string]string{}
	for _, e := range rows {
		group[e.Model] = e.CompareGroup
	}
	if g := group["a/one"]; g == "" || group["b/two"] != g || group["c/three"] != g || group["d/four"] != "" {
		t.Fatalf("groups %v", group)
	}
}

func seed(t *testing.T, db *DB, n int, at func(i int) time.Time) {
	t.Helper()
	for i := 0; i < n; i++ {
		cost := float64(i) / 100
		e := &Entry{Time: at(i), Kind: KindResponse, Model: []string{"openai/gpt-4o", "anthropic/claude"}[i%2],
			Provider: []string{"OpenAI", "Anthropic"}[i%2], State: []string{"completed", "failed"}[min(i%5, 1)],
			Input:  fmt.Sprintf("prompt number %d about %s", i, []string{"routing", "latency", "billing"}[i%3]),
			Answer: "answer " + strconv.Itoa(i), Cost: &cost}
		if _, err := db.Insert(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchAndFilters(t *testing.T) {
	db := openDB(t, Path(t.TempDir()))
	seed(t, db, 30, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Hour) })
	ctx := context.Background()
	count := func(f Filter) int {
		t.Helper()
		rows, err := db.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := db.Count(ctx, f)
		if err != nil || (n != len(rows) && f.Limit == 0) {
			t.Fatalf("count %d rows %d err %v", n, len(rows), err)
		}
		return len(rows)
	}
	minCost, maxCost := 0.10, 0.19
	cases := []struct {
		name string
		f    Filter
		want int
	}{
		{"all", Filter{}, 30},
		{"word", Filter{Search: "routing"}, 10},
		{"prefix and two words", Filter{Search: "rout numb"}, 10},
		{"in the answer", Filter{Search: "answer 7"}, 1},
		{"operators are words", Filter{Search: `routing OR "billing" NEAR(*`}, 0},
		{"model", Filter{Model: "GPT-4o"}, 15},
		{"provider", Filter{Provider: "anthropic"}, 15},
		{"state", Filter{State: "completed"}, 6},
		{"since", Filter{Since: t0.Add(20 * time.Hour)}, 10},
		{"range", Filter{Since: t0.Add(5 * time.Hour), Until: t0.Add(10 * time.Hour)}, 5},
		{"cost", Filter{MinCost: &minCost, MaxCost: &maxCost}, 10},
		{"combined", Filter{Search: "routing", Model: "claude"}, 5},
	}
	for _, c := range cases {
		if got := count(c.f); got != c.want {
			t.Errorf("%s: %d rows, want %d", c.name, got, c.want)
		}
	}
	// Newest first, and pages by id.
	page, _ := db.List(ctx, Filter{Limit: 10})
	next, _ := db.List(ctx, Filter{Limit: 10, BeforeID: page[9].ID})
	if page[0].Input != "prompt number 29 about billing" || next[0].ID != page[9].ID-1 {
		t.Fatalf("order: %q, next starts at %d", page[0].Input, next[0].ID)
	}
	if err := (Filter{Search: strings.Repeat("x", MaxSearchLen+1)}).Check(); err == nil || !strings.Contains(err.Error(), "search") {
		t.Fatalf("long search: %v", err)
	}
}

func TestPruneByAgeThenBySizeOldestFirst(t *testing.T) {
	db := openDB(t, Path(t.TempDir()))
	ctx := context.Background()
	seed(t, db, 20, func(i int) time.Time { return t0.Add(time.Duration(i-10) * 24 * time.Hour) })
	res, err := db.Prune(ctx, t0, 5*24*time.Hour, 0)
	if err != nil || res.ByAge != 5 {
		t.Fatalf("by age: %+v %v", res, err)
	}
	st, _ := db.Stats(ctx)
	if st.Rows != 15 || !st.Oldest.Equal(t0.Add(-5*24*time.Hour)) {
		t.Fatalf("after age: %+v", st)
	}
	rows, _ := db.List(ctx, Filter{Limit: 1})
	per := st.TextBytes / int64(st.Rows)
	res, err = db.Prune(ctx, t0, 0, per*4+per/2)
	if err != nil || res.BySize != 11 {
		t.Fatalf("by size: %+v %v", res, err)
	}
	left, _ := db.List(ctx, Filter{})
	if len(left) != 4 || left[0].ID != rows[0].ID {
		t.Fatalf("kept %d rows, newest %d want %d", len(left), left[0].ID, rows[0].ID)
	}
}

func TestSpendPerDayModelAndProvider(t *testing.T) {
	db := openDB(t, Path(t.TempDir()))
	seed(t, db, 6, func(i int) time.Time { return t0.Add(time.Duration(i/2) * 24 * time.Hour) })
	rows, err := db.Spend(context.Background(), t0.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	days := GroupSpend(rows, "day")
	if len(days) != 3 || days[0].Date != "2026-11-20" || fmt.Sprintf("%.2f", days[1].Cost) != "0.05" || days[2].Requests != 2 {
		t.Fatalf("days %+v", days)
	}
	models := GroupSpend(rows, "model")
	if len(models) != 2 || models[0].Model != "anthropic/claude" || fmt.Sprintf("%.2f", models[0].Cost) != "0.09" {
		t.Fatalf("models %+v", models)
	}
	daily := DailySpend(rows, t0.Add(-24*time.Hour), t0.Add(3*24*time.Hour))
	if len(daily) != 5 || daily[0] != 0 || fmt.Sprintf("%.2f", daily[1]) != "0.01" || daily[4] != 0 {
		t.Fatalf("daily %v", daily)
	}
}

// helperWriter is the child process of the two-process test: it writes
// REQLOG_HELPER_N rows through a recorder and exits.
func helperWriter() {
	n, _ := strconv.Atoi(os.Getenv("REQLOG_HELPER_N"))
	name := os.Getenv("REQLOG_HELPER_NAME")
	r := Start(Options{Path: os.Getenv("REQLOG_HELPER_PATH"), Profile: name})
	for i := 0; i < n; i++ {
		c := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: fmt.Sprintf("%s %d", name, i)}}, Meta{})
		c.Finish(outcome("a/b", 0.001, 1, 1))
	}
	r.Close(time.Minute)
	if p := r.PendingProblems(); len(p) > 0 {
		fmt.Fprintln(os.Stderr, strings.Join(p, "\n"))
		os.Exit(3)
	}
	os.Exit(0)
}

func TestTwoProcessesWritingAtOnceLoseNothing(t *testing.T) {
	path := Path(t.TempDir())
	const n = 150
	var wg sync.WaitGroup
	errs := make([]error, 2)
	outs := make([][]byte, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "REQLOG_HELPER_PATH="+path, "REQLOG_HELPER_N="+strconv.Itoa(n), fmt.Sprintf("REQLOG_HELPER_NAME=p%d", i))
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	// ...and this process writes too, through a connection of its own.
	r := newRecorder(t, path)
	for i := 0; i < n; i++ {
		c := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: fmt.Sprintf("parent %d", i)}}, Meta{})
		c.Finish(outcome("a/b", 0.001, 1, 1))
	}
	r.Flush()
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v %s", i, errs[i], outs[i])
		}
	}
	if p := r.PendingProblems(); len(p) > 0 {
		t.Fatalf("problems: %q", p)
	}
	db := openDB(t, path)
	for _, who := range []string{"p0", "p1", "test"} {
		var got int
		db.sql.QueryRow("SELECT count(DISTINCT input) FROM requests WHERE profile = ?", who).Scan(&got)
		if got != n {
			t.Errorf("%s: %d rows, want %d", who, got, n)
		}
	}
}

func TestALockedLogIsSaidOnceAndWritingResumes(t *testing.T) {
	saved := busyTimeout
	busyTimeout = 50 * time.Millisecond
	t.Cleanup(func() { busyTimeout = saved })
	path := Path(t.TempDir())
	openDB(t, path).Close()
	// Another process holds the write lock.
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, _ := other.Conn(context.Background())
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t, path)
	for i := 0; i < 3; i++ {
		c := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "while locked"}}, Meta{})
		c.Finish(outcome("a/b", 0, 1, 1))
	}
	r.Flush()
	p := r.PendingProblems()
	if len(p) != 1 || !strings.Contains(p[0], "locked") || !strings.Contains(p[0], "not being logged") {
		t.Fatalf("problems %q, want one about the lock", p)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	c := r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "after the lock"}}, Meta{})
	c.Finish(outcome("a/b", 0, 1, 1))
	r.Flush()
	if p := r.PendingProblems(); len(p) != 0 {
		t.Fatalf("said again: %q", p)
	}
	rows, _ := openDB(t, path).List(context.Background(), Filter{Search: "after the lock"})
	if len(rows) != 1 {
		t.Fatalf("the write after the lock: %d rows", len(rows))
	}
}

func TestAFullDiskIsWordedAsSuch(t *testing.T) {
	path := Path(t.TempDir())
	openDB(t, path).Close()
	s, _ := sql.Open("sqlite", "file:"+path+"?_pragma=max_page_count(8)")
	defer s.Close()
	_, err := s.Exec(`INSERT INTO requests (time, time_ms, kind, input) VALUES ('', 0, 'response', ?)`, strings.Repeat("x", 1<<20))
	if err == nil {
		t.Fatal("no error past max_page_count")
	}
	p := classify(path, err)
	if p.Kind != "full" || !strings.Contains(p.Msg, "full") || strings.Contains(p.Msg, "SQLITE") {
		t.Fatalf("%+v", p)
	}
}

func TestARecorderThatCannotOpenRecordsNothingAndSaysSoOnce(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	r := newRecorder(t, filepath.Join(blocker, "state", FileName)) // a file where a folder must be
	for i := 0; i < 3; i++ {
		r.Begin(api.ResponseRequest{Model: "a/b", Input: api.Input{Text: "x"}}, Meta{}).Finish(outcome("a/b", 0, 1, 1))
	}
	r.Close(time.Minute)
	if p := r.PendingProblems(); len(p) != 1 || !strings.Contains(p[0], "not being logged") {
		t.Fatalf("problems %q", p)
	}
	var nilRec *Recorder
	nilRec.Begin(api.ResponseRequest{}, Meta{}).Finish(api.Outcome{}) // records nothing, never panics
}

func TestBatchRowsKeepTheirRequests(t *testing.T) {
	path := Path(t.TempDir())
	r := newRecorder(t, path)
	reqs := []api.BatchRequest{{CustomID: "a", Body: []byte(`{"input":"one"}`)}, {CustomID: "b", Body: []byte(`{"input":"two"}`)}}
	r.Batch("/v1/responses", "openai/gpt-4o", reqs, &api.Batch{ID: "batch_1"}, nil)
	r.Flush()
	db := openDB(t, path)
	rows, _ := db.List(context.Background(), Filter{Kind: KindBatch})
	if len(rows) != 1 {
		t.Fatalf("%d batch rows", len(rows))
	}
	e, _ := db.Get(context.Background(), rows[0].ID)
	if e.BatchID != "batch_1" || *e.BatchRequests != 2 || e.State != "submitted" || !strings.Contains(e.Request, `"custom_id":"b"`) {
		t.Fatalf("%+v", e)
	}
	if _, err := ReplayRequest(e); !errors.Is(err, ErrNoRequest) {
		t.Fatalf("replay of a batch: %v", err)
	}
}

// Each prompt of a conversation sends it whole, and the recorder
// remembers its latest calls (compare groups): a finished call keeps
// nothing of its request, or the recorder held 32 copies of the
// conversation (~20 MB at turn 200 of a demo chat), while the rows
// written still carry it all.
func TestAFinishedCallKeepsNoCopyOfTheConversation(t *testing.T) {
	path := Path(t.TempDir())
	r := newRecorder(t, path)
	var held []weak.Pointer[Call]
	var text []weak.Pointer[byte]
	for i := 0; i < 5; i++ {
		history := strings.Repeat(fmt.Sprintf("turn %d of a long conversation. ", i), 2000)
		c := r.BeginIn(context.Background(), api.ResponseRequest{Model: "a/b", Input: api.Input{Messages: []api.InputMessage{
			{Type: "message", Role: "user", Content: history}, {Type: "message", Role: "user", Content: "and then?"}}}})
		c.Event(delta("an answer"))
		c.Finish(outcome("a/b", 0, 1, 1))
		held = append(held, weak.Make(c))
		text = append(text, weak.Make(unsafe.StringData(history)))
	}
	r.Flush()
	runtime.GC()
	runtime.GC()
	live := 0
	for _, w := range held {
		if w.Value() != nil {
			live++ // its group remembers it: allowed, if it holds nothing
		}
	}
	for i, w := range text {
		if w.Value() != nil {
			t.Fatalf("the conversation sent by call %d is still held (%d calls remembered)", i, live)
		}
	}
	db := openDB(t, path)
	rows, _ := db.List(context.Background(), Filter{})
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	last, err := db.Get(context.Background(), rows[0].ID)
	if err != nil || !strings.Contains(last.Request, "turn 4 of a long conversation") || last.Answer != "an answer" {
		t.Fatalf("the row lost what it records: request %d bytes, answer %q, %v", len(last.Request), last.Answer, err)
	}
}
