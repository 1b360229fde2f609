package ui

// State tests: the views driven by Update against a fake client, without
// HTTP or timers. They run in milliseconds.

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/ui/widgets"
)

func fakeBatches() *fakeClient {
	cost := func(c float64) *api.BatchUsage { return &api.BatchUsage{Usage: api.Usage{Cost: &c}} }
	now := fixedNow.Unix()
	fc := &fakeClient{data: map[string]*api.BatchData{}}
	fc.batches = []api.Batch{
		{ID: "batch-run", Status: api.BatchInProgress, Model: "openai/gpt-4o-mini", Endpoint: "/v1/chat/completions", CreatedAt: now - 60, RequestCounts: api.RequestCounts{Total: 200, Completed: 50, Failed: 2}},
		{ID: "batch-done", Status: api.BatchCompleted, Model: "anthropic/claude-sonnet-4", Endpoint: "/v1/messages", CreatedAt: now - 3600, RequestCounts: api.RequestCounts{Total: 3, Completed: 2, Failed: 1}, Usage: cost(1.25)},
		{ID: "batch-fail", Status: api.BatchFailed, Model: "openai/gpt-4o", Endpoint: "/v1/responses", CreatedAt: now - 7200, RequestCounts: api.RequestCounts{Total: 25, Failed: 25}, Usage: cost(0.01),
			Error: &api.BatchError{Message: "validation failed"}},
	}
	body := `{"id":"batch-done","object":"batch","status":"completed","model":"anthropic/claude-sonnet-4","created_at":` + fmt.Sprint(now-3600) + `,"request_counts":{"total":3,"completed":2,"failed":1},"usage":{"prompt_tokens":33,"completion_tokens":44,"total_tokens":77,"cost":1.25},"results":[` +
		`{"id":"r1","custom_id":"alpha","response":{"status_code":200,"body":{"type":"message","role":"assistant","model":"anthropic/claude-sonnet-4","stop_reason":"end_turn","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":4}}},"error":null},` +
		`{"id":"r2","custom_id":"beta","response":null,"error":{"type":"server_error","message":"boom","param":null,"error_type":"timeout"}},` +
		`{"id":"r3","custom_id":"gamma","response":{"status_code":200,"body":{"type":"message","role":"assistant","model":"anthropic/claude-sonnet-4","stop_reason":"end_turn","content":[],"usage":{"input_tokens":30,"output_tokens":40}}},"error":null}]}`
	d, err := api.ReadBatchData([]byte(body))
	if err != nil {
		panic(err)
	}
	fc.data["batch-done"] = d
	run, _ := api.ReadBatchData([]byte(`{"id":"batch-run","object":"batch","status":"in_progress","model":"openai/gpt-4o-mini","created_at":` + fmt.Sprint(now-60) + `,"request_counts":{"total":200,"completed":60,"failed":2},"results":null}`))
	fc.data["batch-run"] = run
	fail, _ := api.ReadBatchData([]byte(`{"id":"batch-fail","object":"batch","status":"failed","model":"openai/gpt-4o","created_at":` + fmt.Sprint(now-7200) + `,"request_counts":{"total":25,"completed":0,"failed":25},"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"cost":0.01},"results":[],"error":{"message":"validation failed"}}`))
	fc.data["batch-fail"] = fail
	return fc
}

func viewOf(m Model) string { return m.View() }

func TestFocusNeverLandsInAnInput(t *testing.T) {
	fc := fakeBatches()
	m := stateModel(t, fc, Options{}, 120, 40)
	// Digits switch views outside typing, from every view.
	for _, k := range []string{"2", "3", "1", "2"} {
		m = drive(m, keyMsg(k))
	}
	if m.active != viewPlayground || m.views[m.active].Typing() || !strings.Contains(viewOf(m), " NAV ") {
		t.Fatalf("after switching views the focus must stay out of inputs: active %d typing %v", m.active, m.views[m.active].Typing())
	}
	if p := playOf(m); p.prompt.Value() != "" {
		t.Fatalf("a digit was typed into the prompt: %q", p.prompt.Value())
	}
	// i moves the focus into the prompt: now digits type, and the status
	// bar says so.
	m = drive(m, keyMsg("i"))
	m = drive(m, keyMsg("3"))
	if playOf(m).prompt.Value() != "3" || m.active != viewPlayground || !strings.Contains(viewOf(m), "TYPING") {
		t.Fatalf("typing: %q active %d", playOf(m).prompt.Value(), m.active)
	}
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("1"))
	if m.active != viewBatches {
		t.Fatal("esc leaves typing, then 1 switches views")
	}
}

func TestKeysThatDoNothingSayWhy(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{}, 120, 40)
	m = drive(m, keyMsg("z"))
	if !strings.Contains(m.notice, "z does nothing here") {
		t.Fatalf("notice %q", m.notice)
	}
	m = drive(m, keyMsg("2"))
	m = drive(m, keyMsg("R"))
	if !strings.Contains(m.notice, "no reasoning") {
		t.Fatalf("notice %q", m.notice)
	}
	m = drive(m, keyMsg("tab"))
	if !strings.Contains(m.notice, "one pane here") {
		t.Fatalf("notice %q", m.notice)
	}
	m = drive(m, keyMsg("esc"))
	if !strings.Contains(m.notice, "nothing is streaming") {
		t.Fatalf("notice %q", m.notice)
	}
}

func TestHelpListsEveryBindingOfTheFocusedComponent(t *testing.T) {
	fc := fakeBatches()
	fc.dests = []api.Destination{{ID: "d1", Type: "webhook", Regions: []string{"us"}, SamplingRate: 1, Config: map[string]any{"url": "https://h", "secret": "whsec...abcd"}}}
	m := stateModel(t, fc, Options{}, 120, 60)
	m = drive(m, keyMsg("3"))
	m = drive(m, keyMsg("enter")) // the edit form: its name field types
	m = drive(m, keyMsg("?"))
	if !destOf(m).Typing() || destOf(m).editor().form.Field("name").Value() != "?" {
		t.Fatal("? types while typing")
	}
	m = drive(m, tea.KeyMsg{Type: tea.KeyF1})
	v := viewOf(m)
	for _, want := range []string{"ctrl+s", "review & save", "ctrl+r", "show/hide secret", "shift+tab", "1", "batches", "ctrl+c"} {
		if !strings.Contains(v, want) {
			t.Fatalf("help lacks %q:\n%s", want, v)
		}
	}
}

func TestHomeListFilterSortOpenAndBack(t *testing.T) {
	fc := fakeBatches()
	m := stateModel(t, fc, Options{}, 140, 40)
	h := homeOf(m)
	if len(h.view) != 3 || !strings.Contains(viewOf(m), "in flight 1 · completed 1 · failed or ended 1 · total cost shown $1.26") {
		t.Fatalf("home:\n%s", viewOf(m))
	}
	// status toggle narrows; the filter line counts
	m = drive(m, keyMsg("f"))
	if len(homeOf(m).view) != 1 || homeOf(m).rows[homeOf(m).view[0]].b.ID != "batch-run" {
		t.Fatal("in flight")
	}
	m = drive(m, keyMsg("f"))
	m = drive(m, keyMsg("f"))
	m = drive(m, keyMsg("f"))
	m = drive(m, keyMsg("f")) // settled, failed, with failed requests, all
	m = drive(m, keyMsg("/"))
	for _, r := range "done" {
		m = drive(m, keyMsg(string(r)))
	}
	if v := viewOf(m); !strings.Contains(v, "1 of 3") || len(homeOf(m).view) != 1 {
		t.Fatalf("filter:\n%s", v)
	}
	m = drive(m, keyMsg("esc"))
	// order by cost: the dearest first
	m = drive(m, keyMsg("o"))
	m = drive(m, keyMsg("o"))
	h = homeOf(m)
	if h.rows[h.view[0]].b.ID != "batch-done" {
		t.Fatalf("by cost: %s", h.rows[h.view[0]].b.ID)
	}
	// open the second row, come back to it
	m = drive(m, keyMsg("down"))
	m = drive(m, keyMsg("enter"))
	if homeOf(m).opened() == nil || homeOf(m).opened().id != "batch-fail" {
		t.Fatal("enter opens the selected batch")
	}
	if v := viewOf(m); !strings.Contains(v, "the batch failed before its requests ran") || !strings.Contains(v, "validation failed") {
		t.Fatalf("a failed batch says why it has no results:\n%s", v)
	}
	m = drive(m, keyMsg("esc"))
	if homeOf(m).opened() != nil || homeOf(m).nav.Cursor != 1 {
		t.Fatalf("esc returns to the same row: %d", homeOf(m).nav.Cursor)
	}
}

func TestHomeDeleteAsksAndExplains(t *testing.T) {
	fc := fakeBatches()
	m := stateModel(t, fc, Options{}, 140, 40)
	m = drive(m, keyMsg("d")) // the in-flight one
	if homeOf(m).stack.open() || !strings.Contains(m.notice, "only a settled batch") {
		t.Fatalf("in flight: %q", m.notice)
	}
	m = drive(m, keyMsg("down"))
	for _, no := range []string{"N", "n", "esc"} {
		m = drive(m, keyMsg("d"))
		if !strings.Contains(viewOf(m), "y/N") {
			t.Fatalf("no question:\n%s", viewOf(m))
		}
		m = drive(m, keyMsg(no))
		if homeOf(m).stack.open() || strings.Contains(strings.Join(fc.calls, " "), "DeleteBatch") {
			t.Fatalf("%s must cancel", no)
		}
	}
	m = drive(m, keyMsg("d"))
	m = drive(m, keyMsg("y"))
	if !strings.Contains(strings.Join(fc.calls, " "), "DeleteBatch batch-done") || len(homeOf(m).rows) != 2 || !strings.Contains(m.notice, "deleted batch batch-done") {
		t.Fatalf("delete: %v %q", fc.calls, m.notice)
	}
}

func TestHomeFallsBackToTheRecord(t *testing.T) {
	fc := fakeBatches()
	fc.noList = true
	rec := record.Open(t.TempDir())
	rec.Remember("https://gw.test/api/v1", record.Batch{ID: "batch-mine", Status: api.BatchCompleted, CreatedAt: fixedNow.Unix()})
	m := stateModel(t, fc, Options{Record: rec}, 140, 40)
	v := viewOf(m)
	if !strings.Contains(v, "this server does not list batches") || !strings.Contains(v, "batch-mine (remembered)") {
		t.Fatalf("fallback:\n%s", v)
	}
	m = drive(m, keyMsg("r"))
	if !strings.Contains(m.notice, "does not list batches") {
		t.Fatalf("r says why: %q", m.notice)
	}
	// An id typed in the filter opens a batch not in the list.
	m = drive(m, keyMsg("/"))
	for _, r := range "batch-done" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("enter"))
	if homeOf(m).opened() == nil || homeOf(m).opened().id != "batch-done" {
		t.Fatalf("typing an id opens it: %v", fc.calls)
	}
}

func TestResultsFilterSearchOrder(t *testing.T) {
	fc := fakeBatches()
	m := stateModel(t, fc, Options{BatchID: "batch-done"}, 140, 40)
	b := batchOf(m)
	if b == nil || b.res == nil || len(b.res.view) != 3 {
		t.Fatal("results")
	}
	m = drive(m, keyMsg("f"))
	m = drive(m, keyMsg("f"))
	if v := viewOf(m); len(batchOf(m).res.view) != 1 || !strings.Contains(v, "show failed") || !strings.Contains(v, "(filtered from 3)") {
		t.Fatalf("failed:\n%s", v)
	}
	m = drive(m, keyMsg("esc")) // clears the filters first
	if batchOf(m) == nil || len(batchOf(m).res.view) != 3 {
		t.Fatal("esc clears filters before leaving")
	}
	m = drive(m, keyMsg("o"))
	m = drive(m, keyMsg("o"))
	r := batchOf(m).res
	if r.data.CustomID(int(r.view[0])) != "gamma" {
		t.Fatalf("by tokens: %s", r.data.CustomID(int(r.view[0])))
	}
	m = drive(m, keyMsg("t"))
	if batchOf(m).res.errType != "timeout" || len(batchOf(m).res.view) != 1 {
		t.Fatal("error type")
	}
	m = drive(m, keyMsg("enter"))
	if v := viewOf(m); !strings.Contains(v, "Result detail") || !strings.Contains(v, "error_type") {
		t.Fatalf("detail:\n%s", v)
	}
	m = drive(m, keyMsg("L"))
	if !strings.Contains(m.notice, "no logprobs") {
		t.Fatalf("L says why: %q", m.notice)
	}
	// A batch held in full is not downloaded again.
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("esc"))
	n := strings.Count(strings.Join(fc.calls, "|"), "GetBatchData batch-done")
	m = drive(m, keyMsg("down"))
	m = drive(m, keyMsg("enter"))
	if got := strings.Count(strings.Join(fc.calls, "|"), "GetBatchData batch-done"); got != n || batchOf(m) == nil || batchOf(m).res == nil {
		t.Fatalf("a settled batch held in full was fetched again (%d -> %d)", n, got)
	}
}

func TestPlaygroundOverAFakeStream(t *testing.T) {
	fc := fakeBatches()
	m := stateModel(t, fc, Options{View: "playground"}, 120, 40)
	m = drive(m, keyMsg("i"))
	for _, r := range "hi" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("enter"))
	tn := lastTurn(m)
	if tn == nil || tn.running || tn.out.State != api.EndCompleted || tn.answer.Text() != "hello world" || tn.out.Usage().OutputTokens != 2 {
		t.Fatalf("turn %+v", tn)
	}
	v := viewOf(m)
	for _, want := range []string{"✓ completed", "usage in 1", "charged $0.0012", "hello world"} {
		if !strings.Contains(v, want) {
			t.Fatalf("lacks %q:\n%s", want, v)
		}
	}
}

func TestDestFormShowsAllErrorsAndProtectsEdits(t *testing.T) {
	d := api.Destination{ID: "11111111-2222-4333-8444-555555555555", Type: "langfuse", Regions: []string{"global"}, SamplingRate: 1,
		Config: map[string]any{"baseUrl": "https://x", "secretKey": "sk-l...abcd", "publicKey": "pk"}}
	name := "one"
	d.Name = &name
	fc := &fakeClient{dests: []api.Destination{d}}
	m := stateModel(t, fc, Options{View: "destinations"}, 140, 60)
	m = drive(m, keyMsg("enter"))
	e := destOf(m).editor()
	// Two bad values: both errors show at once, each beside its field.
	e.form.Field("sampling_rate").Input.SetValue("2")
	e.form.Field("regions").Picks = map[string]bool{}
	m = drive(m, keyMsg("ctrl+s"))
	v := viewOf(m)
	if e.form.Field("sampling_rate").Err == "" || e.form.Field("regions").Err == "" || !strings.Contains(v, "✗ must be 0.0001 to 1") || !strings.Contains(v, "✗ pick at least one region") {
		t.Fatalf("all errors at once:\n%s", v)
	}
	if strings.Contains(strings.Join(fc.calls, " "), "UpdateDestination") {
		t.Fatal("an invalid form was sent")
	}
	// esc on an edited form asks; N keeps the edits.
	m = drive(m, keyMsg("esc"))
	if !strings.Contains(viewOf(m), "discard your edits? y/N") {
		t.Fatalf("no question:\n%s", viewOf(m))
	}
	m = drive(m, keyMsg("N"))
	if destOf(m).editor() == nil || destOf(m).editor().form.Field("sampling_rate").Value() != "2" {
		t.Fatal("N must keep the edits")
	}
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("y"))
	if destOf(m).editor() != nil {
		t.Fatal("y discards")
	}
	// Nothing of the closed form leaks into the next one.
	m = drive(m, keyMsg("enter"))
	if f := destOf(m).editor().form; f.Field("sampling_rate").Value() != "1" || f.Field("sampling_rate").Err != "" {
		t.Fatal("the next form starts clean")
	}
	// A new secret is masked while typed, until revealed.
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("enter"))
	f := destOf(m).editor().form
	for f.Current().Name != "config.secretKey" {
		m = drive(m, keyMsg("tab"))
	}
	for _, r := range "sk-new-1" {
		m = drive(m, keyMsg(string(r)))
	}
	if strings.Contains(viewOf(m), "sk-new-1") || !strings.Contains(viewOf(m), "••••••••") {
		t.Fatalf("a typed secret must be masked:\n%s", viewOf(m))
	}
	m = drive(m, tea.KeyMsg{Type: tea.KeyCtrlR})
	if !strings.Contains(viewOf(m), "sk-new-1") {
		t.Fatal("ctrl+r reveals it")
	}
}

func TestDestReadOnlyInputsAreReadOnly(t *testing.T) {
	d := api.Destination{ID: "d1", Type: "webhook", Regions: []string{"us"}, SamplingRate: 0.5, Config: map[string]any{"url": "https://h"}}
	fc := &fakeClient{dests: []api.Destination{d}}
	m := stateModel(t, fc, Options{View: "destinations", ReadOnly: true}, 140, 40)
	m = drive(m, keyMsg("enter"))
	m = drive(m, keyMsg("x"))
	if destOf(m).editor().form.Field("name").Value() != "" || destOf(m).Typing() || !strings.Contains(m.notice, "read-only") {
		t.Fatalf("read-only: %q typing %v", m.notice, destOf(m).Typing())
	}
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("space"))
	m = drive(m, keyMsg("n"))
	if !strings.Contains(m.notice, "read-only") {
		t.Fatal("toggle and create are refused in read-only")
	}
}

func TestDestToggleReadsAgainFirst(t *testing.T) {
	d := api.Destination{ID: "d1", Type: "webhook", Enabled: true, Regions: []string{"us"}, SamplingRate: 0.5, UpdatedAt: "t1"}
	fc := &fakeClient{dests: []api.Destination{d}}
	m := stateModel(t, fc, Options{View: "destinations"}, 140, 40)
	m = drive(m, keyMsg("space"))
	m = drive(m, keyMsg("y"))
	calls := strings.Join(fc.calls, " ")
	if !strings.Contains(calls, "GetDestination UpdateDestination") || destOf(m).rows[0].Enabled || !strings.Contains(m.notice, "is now disabled") {
		t.Fatalf("toggle: %s %q", calls, m.notice)
	}
	// Someone else changed it: the three versions, and nothing sent.
	fc.calls = nil
	fc.dests[0].UpdatedAt, fc.dests[0].SamplingRate, fc.dests[0].Enabled = "t2", 0.1, false
	m = drive(m, keyMsg("space"))
	m = drive(m, keyMsg("y"))
	v := viewOf(m)
	if !strings.Contains(v, "AS LOADED") || !strings.Contains(v, "ON THE SERVER NOW") || !strings.Contains(v, "YOURS") || !strings.Contains(v, "sampling_rate") {
		t.Fatalf("conflict:\n%s", v)
	}
	if strings.Contains(strings.Join(fc.calls, " "), "UpdateDestination") {
		t.Fatal("a conflicting change was sent")
	}
	m = drive(m, keyMsg("a"))
	if !strings.Contains(strings.Join(fc.calls, " "), "UpdateDestination") {
		t.Fatal("a applies on top")
	}
}

func TestDestCreateFlow(t *testing.T) {
	fc := &fakeClient{}
	m := stateModel(t, fc, Options{View: "destinations"}, 140, 60)
	m = drive(m, keyMsg("n"))
	if v := viewOf(m); !strings.Contains(v, "choose its type") || !strings.Contains(v, "langfuse") || !strings.Contains(v, "another type") {
		t.Fatalf("type picker:\n%s", v)
	}
	for destOf(m).types().nav.Cursor < 5 { // langfuse
		m = drive(m, keyMsg("down"))
	}
	m = drive(m, keyMsg("enter"))
	e := destOf(m).editor()
	if e == nil || e.typ != "langfuse" || !strings.Contains(viewOf(m), "publicKey *") {
		t.Fatalf("create form:\n%s", viewOf(m))
	}
	// Saving at once names every missing member.
	m = drive(m, keyMsg("ctrl+s"))
	if e.form.Field("name").Err == "" || e.form.Field("config.publicKey").Err == "" || e.form.Field("config.secretKey").Err == "" {
		t.Fatalf("missing members:\n%s", viewOf(m))
	}
	e.form.Field("name").Input.SetValue("mine")
	e.form.Field("config.publicKey").Input.SetValue("pk-1")
	e.form.Field("config.secretKey").Input.SetValue("sk-lf-secret-value-1234")
	m = drive(m, keyMsg("ctrl+s"))
	v := viewOf(m)
	if !strings.Contains(v, `"type": "langfuse"`) || !strings.Contains(v, `"secretKey": "…1234"`) || strings.Contains(v, "secret-value") {
		t.Fatalf("review must show the JSON with the secret masked:\n%s", v)
	}
	m = drive(m, keyMsg("y"))
	if !strings.Contains(strings.Join(fc.calls, " "), "CreateDestination") || destOf(m).editor() != nil || !strings.Contains(m.notice, "created 'mine'") {
		t.Fatalf("create: %v %q", fc.calls, m.notice)
	}
}

func TestDestDeleteNeedsTheName(t *testing.T) {
	name := "prod-hook"
	d := api.Destination{ID: "d1", Name: &name, Type: "webhook", Regions: []string{"us"}, SamplingRate: 1}
	fc := &fakeClient{dests: []api.Destination{d}}
	m := stateModel(t, fc, Options{View: "destinations"}, 140, 40)
	m = drive(m, keyMsg("D"))
	for _, r := range "prod" {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("enter"))
	if strings.Contains(strings.Join(fc.calls, " "), "DeleteDestination") || !strings.Contains(m.notice, "not deleted") {
		t.Fatal("a wrong name must not delete")
	}
	m = drive(m, keyMsg("D"))
	for _, r := range name {
		m = drive(m, keyMsg(string(r)))
	}
	m = drive(m, keyMsg("enter"))
	if !strings.Contains(strings.Join(fc.calls, " "), "DeleteDestination") || len(destOf(m).rows) != 0 || !strings.Contains(m.notice, "deleted 'prod-hook'") {
		t.Fatalf("delete: %v %q", fc.calls, m.notice)
	}
}

// Columns take their content's width; status, model and error are never
// cut before an id.
func TestTablesSizedToContent(t *testing.T) {
	for _, w := range []int{80, 200} {
		tb := widgets.NewTable(
			widgets.Column{Title: "STATUS", Keep: 9, Max: 24},
			widgets.Column{Title: "ID", Keep: 1, Min: 10},
			widgets.Column{Title: "MODEL", Keep: 7, Max: 36},
			widgets.Column{Title: "ERROR", Keep: 8, Max: 30},
		)
		cells := []string{"completed with errors", "batch-1795321757-a-very-long-identifier-of-a-batch", "anthropic/claude-sonnet-4", "context_length_exceeded"}
		tb.Measure(cells...)
		tb.Layout(w)
		line := tb.Row(cells, true)
		if lipgloss.Width(line) > w {
			t.Fatalf("%d: %d cells", w, lipgloss.Width(line))
		}
		for _, keep := range []string{"completed with errors", "anthropic/claude-sonnet-4", "context_length_exceeded"} {
			if !strings.Contains(line, keep) && tb.Widths[1] > 10 {
				t.Fatalf("at %d %q was cut before the id: %q", w, keep, line)
			}
		}
		if !strings.Contains(line, "completed with errors") || !strings.Contains(line, "context_length_exceeded") {
			t.Fatalf("at %d status and error must show whole: %q", w, line)
		}
		if w == 80 && !strings.Contains(line, "…") {
			t.Fatalf("a cut id ends in an ellipsis: %q", line)
		}
		if w == 200 && !strings.Contains(line, cells[1]) {
			t.Fatalf("at 200 everything fits: %q", line)
		}
	}
}

// Any counts a server sends draw a bar of the right width, and the view
// says when they cannot be right.
func TestProgressAndCountsFromAnyServer(t *testing.T) {
	s := NewStyles(DefaultTheme(), plainRenderer())
	for _, rc := range []api.RequestCounts{
		{Total: 10, Completed: -100}, {Total: -5, Completed: 3}, {Total: math.MaxInt, Completed: math.MaxInt - 1, Failed: math.MaxInt - 1},
		{Total: 10, Completed: 20, Failed: 5}, {Total: 3, Completed: 2}, {Total: 10, Completed: 10},
	} {
		for _, w := range []int{1, 10, 50} {
			if got := lipgloss.Width(progressBar(s, rc, w)); got != w {
				t.Fatalf("%+v at %d: %d cells", rc, w, got)
			}
		}
	}
	if bar := progressBar(s, api.RequestCounts{Total: 1000, Completed: 999}, 20); !strings.Contains(bar, "░") {
		t.Fatalf("never full while work remains: %q", bar)
	}
	if bar := progressBar(s, api.RequestCounts{Total: 10, Completed: 10}, 20); strings.Contains(bar, "░") {
		t.Fatalf("full when done: %q", bar)
	}
	fc := fakeBatches()
	d, _ := api.ReadBatchData([]byte(`{"id":"batch-weird","object":"batch","status":"in_progress","created_at":1,"request_counts":{"total":10,"completed":-100,"failed":3},"results":null}`))
	fc.data["batch-weird"] = d
	m := stateModel(t, fc, Options{BatchID: "batch-weird"}, 120, 40)
	if v := viewOf(m); !strings.Contains(v, "inconsistent counts from server: negative counts") || !strings.Contains(v, "-100") {
		t.Fatalf("shown as received, with a note:\n%s", v)
	}
}

// The window of a turn is its full rendering's tail (the doc's own
// blocks are tested in ui/transcript).
func TestTranscriptWindowIsTheTail(t *testing.T) {
	s := NewStyles(DefaultTheme(), plainRenderer())
	tn := newTurn("q", "m/x", 40, fixedNow)
	tn.answer.Append("one\n\ntwo\n\nthree\n\nfour")
	tn.end(api.Outcome{State: api.EndCompleted})
	all := linesOf(visiblePieces([]*turn{tn}, &s, 40, fixedNow, 1000, 0), 1000)
	for skip := 0; skip < len(all); skip++ {
		got := linesOf(visiblePieces([]*turn{tn}, &s, 40, fixedNow, 3, skip), 3)
		want := all[max(0, len(all)-skip-3) : len(all)-skip]
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("skip %d: %q want %q", skip, got, want)
		}
	}
	if h := tn.height(&s, 40, fixedNow); h != len(all) {
		t.Fatalf("height %d, lines %d", h, len(all))
	}
}

var _ = time.Second

// A server value that a text input cannot hold (control characters) is
// shown without them, flagged, and never sent back unless edited.
func TestControlCharactersInAValueAreNotAnEdit(t *testing.T) {
	name := "ops\x1b]0;x\x07-hook"
	d := api.Destination{ID: "d1", Name: &name, Type: "webhook", Regions: []string{"us"}, SamplingRate: 1,
		Config: map[string]any{"url": "https://h\x1b[2J", "method": "POST"}}
	fc := &fakeClient{dests: []api.Destination{d}}
	m := stateModel(t, fc, Options{View: "destinations"}, 140, 50)
	m = drive(m, keyMsg("enter"))
	v := viewOf(m)
	if !strings.Contains(v, "no changes yet") || !strings.Contains(v, "holds control characters") {
		t.Fatalf("an untouched form with odd values:\n%s", v)
	}
	m = drive(m, keyMsg("ctrl+s"))
	if !strings.Contains(m.notice, "nothing changed") {
		t.Fatalf("nothing to send: %q", m.notice)
	}
}

// The status bar's age wakes the program only when its text would change.
func TestAgeTicksOnlyWhenTheTextChanges(t *testing.T) {
	for _, c := range []struct{ age, want time.Duration }{
		{0, 10 * time.Second},
		{3 * time.Second, 7 * time.Second},
		{59 * time.Second, time.Second},
		{time.Minute, time.Minute},
		{90 * time.Second, 30 * time.Second},
		{59*time.Minute + 59*time.Second, time.Second},
		{time.Hour, time.Hour},
		{3*time.Hour + 45*time.Minute, 15 * time.Minute},
	} {
		if got := ageStep(c.age); got != c.want {
			t.Errorf("ageStep(%v) = %v, want %v", c.age, got, c.want)
		}
	}
}

// A closed batch's late answer never reaches the batch opened after it:
// each batch screen has its own tags.
func TestALateAnswerOfAClosedBatchIsDropped(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{}, 140, 40)
	m = drive(m, keyMsg("enter"))
	first := batchOf(m)
	if first == nil {
		t.Fatal("enter opens a batch")
	}
	firstID, firstGen := first.id, first.gen
	m = drive(m, keyMsg("esc"))
	m = drive(m, keyMsg("down"))
	m = drive(m, keyMsg("enter"))
	second := batchOf(m)
	if second == nil || second.id == firstID {
		t.Fatal("the second row opens another batch")
	}
	late := &api.Batch{ID: firstID, Status: api.BatchInProgress, Model: "late/answer"}
	m = drive(m, batchFetchedMsg{gen: firstGen, data: &api.BatchData{Batch: late}, at: time.Now()})
	if b := batchOf(m); b != second || b.meta == nil || b.meta.ID != second.id || strings.Contains(viewOf(m), "late/answer") {
		t.Fatalf("the first batch's late answer reached the second:\n%s", viewOf(m))
	}
}
