package ui

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/muesli/termenv"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC // golden files show local times
	os.Exit(m.Run())
}

// plainRenderer draws without colour, for tests that read the screen.
func plainRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	r.SetHasDarkBackground(true)
	return r
}

// colourRenderer draws in truecolor on a dark or light background, for
// the golden files.
func colourRenderer(dark bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	r.SetHasDarkBackground(dark)
	return r
}

func startGW(t testing.TB, o gateway.Options) (*gateway.Server, Client) {
	t.Helper()
	srv, err := gateway.Start("127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey, ManagementKey: gateway.DemoManagementKey})
	if err != nil {
		t.Fatal(err)
	}
	// No catalogue cache: a cache write from a command still running
	// after the program quit would race the test's TempDir cleanup.
	return srv, FromAPI(c, "")
}

// probed wraps the model so that a test can evaluate a condition inside
// Update, on the program's goroutine (no data race with the UI).
type probed struct{ Model }

type probeMsg struct {
	check func(Model) bool
	reply chan probeResult
}

type probeResult struct {
	ok   bool
	view string
}

func (p probed) Init() tea.Cmd { return p.Model.Init() }
func (p probed) View() string  { return p.Model.View() }
func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- probeResult{ok: pm.check(p.Model), view: p.Model.View()}
		return p, nil
	}
	m, cmd := p.Model.Update(msg)
	return probed{m.(Model)}, cmd
}

type ui struct {
	t  *testing.T
	tm *teatest.TestModel
}

// start runs the dashboard in a test program over real HTTP.
func start(t *testing.T, o Options, w, h int) *ui {
	t.Helper()
	if o.ExportDir == "" {
		o.ExportDir = t.TempDir()
	}
	if o.Clipboard == nil {
		o.Clipboard = func(string) error { return nil }
	}
	if o.Renderer == nil {
		o.Renderer = plainRenderer()
	}
	if o.Record == nil {
		o.Record = record.Open(t.TempDir())
	}
	tm := teatest.NewTestModel(t, probed{New(o)}, teatest.WithInitialTermSize(w, h))
	u := &ui{t: t, tm: tm}
	t.Cleanup(func() { tm.Quit() })
	return u
}

// until waits (bounded, generously: a condition, not a speed) for a
// condition on the model and returns the view.
func (u *ui) until(what string, check func(Model) bool) string {
	u.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		reply := make(chan probeResult, 1)
		u.tm.Send(probeMsg{check: check, reply: reply})
		select {
		case r := <-reply:
			if r.ok {
				return r.view
			}
			last = r.view
		case <-time.After(10 * time.Second):
		}
		time.Sleep(10 * time.Millisecond)
	}
	u.t.Fatalf("timed out waiting for %s; last screen:\n%s", what, last)
	return ""
}

// screen waits until the view contains every string.
func (u *ui) screen(subs ...string) string {
	u.t.Helper()
	return u.until(strings.Join(subs, " + "), func(m Model) bool {
		v := m.View()
		for _, s := range subs {
			if !strings.Contains(v, s) {
				return false
			}
		}
		return true
	})
}

// sync waits until every message sent before it was handled.
func (u *ui) sync() { u.until("sync", func(Model) bool { return true }) }

func (u *ui) key(k tea.KeyType) { u.tm.Send(tea.KeyMsg{Type: k}) }
func (u *ui) runes(s string) {
	for _, r := range s {
		u.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}
func (u *ui) space() { u.tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}) }

func (u *ui) quit() Model {
	u.t.Helper()
	// With work kept nowhere the first ctrl+c asks and the second quits;
	// without, the first quits and the second finds the program ended.
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := u.tm.FinalModel(u.t, teatest.WithFinalTimeout(20*time.Second))
	return fm.(probed).Model
}

func homeOf(m Model) *batchesView { return m.views[viewBatches].(*batchesView) }
func batchOf(m Model) *batchView  { return homeOf(m).opened() }
func playOf(m Model) *playground  { return m.views[viewPlayground].(*playground) }
func destOf(m Model) *destView    { return m.views[viewDestinations].(*destView) }

func lastTurn(m Model) *turn {
	p := playOf(m)
	if len(p.turns) == 0 {
		return nil
	}
	return p.turns[len(p.turns)-1]
}

// ended waits for the answer to end in a state, and the stream to close.
func ended(state api.EndState) func(Model) bool {
	return func(m Model) bool {
		t := lastTurn(m)
		return t != nil && !t.running && t.out.State == state && !playOf(m).running()
	}
}

func fastPoll() api.PollOptions {
	return api.PollOptions{Interval: 30 * time.Millisecond, MaxInterval: 60 * time.Millisecond, PaymentInterval: 40 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
}

// ---- a fake client, for state tests without HTTP ----

// fakeClient answers from memory; each method records its call.
type fakeClient struct {
	batches []api.Batch
	data    map[string]*api.BatchData
	dests   []api.Destination
	cat     *api.Catalogue
	key     *api.KeyInfo
	credits *api.Credits
	calls   []string
	noList  bool
}

func (f *fakeClient) rec(s string)                                  { f.calls = append(f.calls, s) }
func (f *fakeClient) Host() string                                  { return "gw.test" }
func (f *fakeClient) BaseURL() string                               { return "https://gw.test/api/v1" }
func (f *fakeClient) HasAPIKey() bool                               { return true }
func (f *fakeClient) HasManagementKey() bool                        { return true }
func (f *fakeClient) Explain404(_ context.Context, err error) error { return err }

func (f *fakeClient) ListBatches(_ context.Context, o api.BatchListOptions) (*api.BatchPage, error) {
	f.rec("ListBatches")
	if f.noList {
		return nil, &api.NotOfferedError{Op: "GET /batches", Err: &api.APIError{Status: 404}}
	}
	return &api.BatchPage{Data: f.batches}, nil
}

func (f *fakeClient) GetBatchData(_ context.Context, id string) (*api.BatchData, error) {
	f.rec("GetBatchData " + id)
	if d, ok := f.data[id]; ok {
		return d, nil
	}
	return nil, &api.APIError{Status: 404, Resource: "batch", Message: "not found"}
}

func (f *fakeClient) DeleteBatch(_ context.Context, id string) error {
	f.rec("DeleteBatch " + id)
	return nil
}

func (f *fakeClient) SubmitBatch(_ context.Context, endpoint, model string, reqs []api.BatchRequest) (*api.Batch, error) {
	f.rec("SubmitBatch")
	return &api.Batch{ID: "batch-new", Status: api.BatchValidating, Model: model, Endpoint: endpoint, RequestCounts: api.RequestCounts{Total: len(reqs)}}, nil
}

func (f *fakeClient) CreateResponse(_ context.Context, req api.ResponseRequest) (*api.Response, error) {
	f.rec("CreateResponse")
	text := "a plain answer"
	return &api.Response{Status: api.ResponseCompleted, OutputText: &text, Usage: &api.ResponseUsage{OutputTokens: 3}}, nil
}

func (f *fakeClient) OpenStream(_ context.Context, req api.ResponseRequest) (Stream, error) {
	f.rec("OpenStream " + req.Model)
	return api.NewStreamFromReader(strings.NewReader(fakeStream), 0), nil
}

func (f *fakeClient) Models(context.Context, bool) (*api.Catalogue, error) {
	f.rec("Models")
	if f.cat == nil {
		return nil, &api.NotOfferedError{Op: "GET /models", Err: &api.APIError{Status: 404}}
	}
	return f.cat, nil
}

func (f *fakeClient) Key(context.Context) (*api.KeyInfo, error) {
	if f.key == nil {
		return nil, &api.NotOfferedError{Op: "GET /key", Err: &api.APIError{Status: 404}}
	}
	return f.key, nil
}

func (f *fakeClient) Credits(context.Context) (*api.Credits, error) {
	if f.credits == nil {
		return nil, &api.NotOfferedError{Op: "GET /credits", Err: &api.APIError{Status: 404}}
	}
	return f.credits, nil
}

func (f *fakeClient) WaitGeneration(context.Context, string) (*api.Generation, error) {
	return nil, &api.NotOfferedError{Op: "GET /generation", Err: &api.APIError{Status: 404}}
}

func (f *fakeClient) ModelEndpoints(context.Context, string) (*api.ModelEndpoints, error) {
	return nil, &api.NotOfferedError{Op: "GET /models/{author}/{slug}/endpoints", Err: &api.APIError{Status: 404}}
}

func (f *fakeClient) ListDestinations(_ context.Context, o api.ListOptions) (*api.DestinationPage, error) {
	f.rec("ListDestinations")
	end := min(len(f.dests), o.Offset+max(1, o.Limit))
	return &api.DestinationPage{Data: append([]api.Destination(nil), f.dests[min(o.Offset, end):end]...), TotalCount: len(f.dests)}, nil
}

func (f *fakeClient) GetDestination(_ context.Context, id string) (*api.Destination, error) {
	f.rec("GetDestination")
	for _, d := range f.dests {
		if d.ID == id {
			return &d, nil
		}
	}
	return nil, &api.APIError{Status: 404}
}

func (f *fakeClient) CreateDestination(_ context.Context, d api.DestinationCreate) (*api.Destination, error) {
	f.rec("CreateDestination")
	name := d.Name
	return &api.Destination{ID: "new", Name: &name, Type: d.Type, Regions: []string{"global"}, SamplingRate: 1}, nil
}

func (f *fakeClient) UpdateDestination(_ context.Context, id string, p api.DestinationPatch) (*api.Destination, error) {
	f.rec("UpdateDestination")
	for _, d := range f.dests {
		if d.ID == id {
			if p.Enabled != nil {
				d.Enabled = *p.Enabled
			}
			return &d, nil
		}
	}
	return nil, &api.APIError{Status: 404}
}

func (f *fakeClient) DeleteDestination(context.Context, string) error {
	f.rec("DeleteDestination")
	return nil
}

const fakeStream = "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"delta\":\"hello \"}\n\n" +
	"data: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"delta\":\"world\"}\n\n" +
	"data: {\"type\":\"response.completed\",\"sequence_number\":3,\"response\":{\"status\":\"completed\",\"output\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":2,\"total_tokens\":3,\"cost\":0.0012}}}\n\n"

// fixedNow is the clock of state tests and goldens.
var fixedNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// stateModel builds a dashboard over a fake client with a fixed clock, not
// running in a program: tests call Update and View directly.
func stateModel(t testing.TB, fc *fakeClient, o Options, w, h int) Model {
	t.Helper()
	o.Client = fc
	o.Now = func() time.Time { return fixedNow }
	if o.Renderer == nil {
		o.Renderer = plainRenderer()
	}
	o.Clipboard = func(string) error { return nil }
	o.Tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil } // no timers
	m := New(o)
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return driveCmd(next.(Model), m.Init())
}

// drive applies a message and runs the commands it returns (and theirs,
// up to a depth), as a program would, without timers.
func drive(m Model, msg tea.Msg) Model {
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0 && n < 200; n++ {
		next, cmd := m.Update(queue[0])
		m = next.(Model)
		queue = append(queue[1:], runCmd(cmd)...)
	}
	return m
}

// runCmd runs a command and its batches (state tests have no timers:
// Options.Tick returns nil, and the fake client answers at once).
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	switch m := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range m {
			out = append(out, runCmd(c)...)
		}
		return out
	case nil:
		return nil
	}
	return []tea.Msg{msg}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "ctrl+s":
		return tea.KeyMsg{Type: tea.KeyCtrlS}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// driveCmd runs a command as a program would and applies what it returns.
func driveCmd(m Model, cmd tea.Cmd) Model {
	for _, msg := range runCmd(cmd) {
		m = drive(m, msg)
	}
	return m
}

// retryOf is the retry dialog open over the batch, or nil.
func retryOf(m Model) *retryDialog {
	r, _ := find[*retryDialog](&batchOf(m).subs)
	return r
}

// detailOf is the result open in full over the batch, or nil.
func detailOf(m Model) *resultDetail {
	d, _ := find[*resultDetail](&batchOf(m).subs)
	return d
}

// inSettings reports the settings screen open in the playground.
func inSettings(p *playground) bool { _, ok := find[*settingsScreen](&p.stack); return ok }

// asking reports a y/N question on top of the playground.
func asking(p *playground) bool { _, ok := p.stack.top().(*question); return ok }

// panelOf is the providers panel open in the playground, or nil.
func panelOf(p *playground) *providersPanel { pp, _ := find[*providersPanel](&p.stack); return pp }
