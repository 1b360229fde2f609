package ui

// One batch: its header, progress, usage and timeline panels (see
// batch_panels.go), live polling with the client's PollSchedule, and its
// results table with a detail of each result.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// ---- MSG ----

// batchFetchedMsg is the answer to one GET of a batch, tagged with the
// generation of the poll it belongs to; stale ones are dropped.
type batchFetchedMsg struct {
	gen  int
	data *api.BatchData
	err  error
	at   time.Time
}

// batchPollMsg fires when the next poll is due.
type batchPollMsg struct{ gen int }

// batchExplainedMsg carries a final 404, looked at closer.
type batchExplainedMsg struct {
	gen int
	err error
}

// ---- MODEL ----

// batchView is one batch.
type batchView struct {
	c    *common
	keys BatchKeys
	w, h int
	// subs is what is open over the batch: a result in full
	// (resultDetail), the export path (pathPrompt) or the retry
	// dialog (retryDialog).
	subs stack

	id  string
	gen int
	// sawRunning: the batch was seen in flight (its settling is news)
	sawRunning bool
	ctx        context.Context
	cancel     context.CancelFunc
	sched      *api.PollSchedule

	meta     *api.Batch // the latest metadata
	data     *api.BatchData
	res      *results
	loading  bool
	done     bool
	stopped  bool // polling stopped by the user
	updated  time.Time
	nextPoll time.Time
	decision api.PollDecision
	pollErr  error
	retries  int // polls retried in a row (shown as "retrying (n)")
	payment  *api.APIError
	fatal    error

	top string // the panels above the table, laid out after Update
	// effective is the effective results (E) while shown (batch_retry.go).
	effective *effectiveView
}

// newBatchView opens a batch; meta is what is known already (from the
// list), data a full copy already held (then nothing is downloaded).
func newBatchView(c *common, id string, meta *api.Batch, data *api.BatchData) *batchView {
	v := &batchView{c: c, keys: DefaultBatchKeys(), id: id, meta: meta, gen: c.tagBase()}
	v.ctx, v.cancel = context.WithCancel(c.ctx)
	if data != nil && data.Batch.Status.Terminal() {
		v.setData(data)
		v.done = true
		v.updated = c.now()
	}
	return v
}

// start begins polling, unless the batch is held in full and settled.
func (v *batchView) start() tea.Cmd {
	if v.done {
		return nil
	}
	opts := v.c.opts.Poll
	// A 404 is retried briefly only for a batch submitted from here a
	// moment ago: a mistyped id is not found at once.
	opts.NotFoundGrace = 0
	if v.c.submittedWithin(v.id, api.RecentSubmission) {
		opts.NotFoundGrace = api.SubmitGrace
		if v.c.opts.Poll.NotFoundGrace > 0 {
			opts.NotFoundGrace = v.c.opts.Poll.NotFoundGrace
		}
	}
	v.sched = api.NewPollSchedule(opts, v.c.now())
	return v.fetch()
}

// stop cancels the poll in flight and drops late answers.
func (v *batchView) stop() {
	v.cancel()
	v.gen++
}

// fetch is the one GET command; the body is read into compact rows off
// the UI loop.
func (v *batchView) fetch() tea.Cmd {
	v.loading = true
	client, ctx, id, gen, now := v.c.client, v.ctx, v.id, v.gen, v.c.now
	return func() tea.Msg {
		d, err := client.GetBatchData(ctx, id)
		return batchFetchedMsg{gen: gen, data: d, err: err, at: now()}
	}
}

func (v *batchView) setData(d *api.BatchData) {
	v.meta = d.Batch
	if d.Rows != nil && v.data == nil {
		v.data = d
		if len(d.Rows) > 0 { // no table for no rows: the view says why
			v.res = newResults(d)
		}
	}
}

// ---- UPDATE ----

// batchClosed is the batch screen's value when esc leaves it.
type batchClosed struct{ b *batchView }

// Update changes the view's state, then lays it out again: View only draws
// what layout prepared. Esc with nothing left to undo closes it.
func (v *batchView) Update(msg tea.Msg) (tea.Cmd, action) {
	if km, ok := msg.(tea.KeyMsg); ok && v.leaves(km) {
		v.stop()
		return nil, done(batchClosed{b: v})
	}
	cmd := v.update(msg)
	v.layout()
	return cmd, noAction
}

// leaves reports whether key leaves the batch: esc on the batch itself,
// with no filter to clear and no capped poll to stop first.
func (v *batchView) leaves(msg tea.KeyMsg) bool {
	if v.subs.open() || v.res != nil && v.res.search.Typing || !key.Matches(msg, v.keys.Back) {
		return false
	}
	return !(v.res != nil && v.res.filtered()) && (v.done || !v.decision.Capped)
}

func (v *batchView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case batchFetchedMsg:
		if msg.gen != v.gen {
			return nil // a late answer of a poll that was stopped
		}
		return v.onFetched(msg)
	case batchPollMsg:
		if msg.gen != v.gen || v.done {
			return nil
		}
		return v.fetch()
	case batchExplainedMsg:
		if msg.gen == v.gen {
			v.fatal = msg.err
		}
		return nil
	case effectiveMsg:
		return v.onEffective(msg)
	case tea.MouseMsg:
		if !v.subs.open() && v.res != nil {
			v.res.nav.Wheel(msg)
			return nil
		}
	case tea.KeyMsg:
		if !v.subs.open() {
			return v.onKey(msg)
		}
	}
	// The rest is the open screen's (a key, a plan, a POST, a path
	// completed).
	if v.subs.open() {
		return v.act(v.subs.update(msg))
	}
	return nil
}

// act is the one place the batch acts on what its screens ask.
func (v *batchView) act(cmd tea.Cmd, a action) tea.Cmd {
	switch val := a.value.(type) {
	case pathChosen:
		return tea.Batch(cmd, v.export(string(val)))
	case retried:
		return tea.Batch(cmd, v.onRetried(val))
	}
	return cmd
}

func (v *batchView) onFetched(msg batchFetchedMsg) tea.Cmd {
	v.loading = false
	var b *api.Batch
	if msg.data != nil {
		b = msg.data.Batch
	}
	d := v.sched.Observe(b, msg.err, msg.at)
	v.decision = d
	var cmds []tea.Cmd
	var ae *api.APIError
	switch {
	case msg.err == nil:
		v.updated = msg.at
		v.setData(msg.data)
		if !v.meta.Status.Terminal() {
			v.sawRunning = true
		}
		v.pollErr, v.payment, v.retries = nil, nil, 0
		rb := record.FromAPI(msg.data.Batch, msg.at)
		cmds = append(cmds, v.c.remember(func(st *record.Store, base string) { st.Remember(base, rb) }))
	case errors.As(msg.err, &ae) && ae.Status == http.StatusPaymentRequired:
		v.updated = msg.at
		v.payment = ae
		if ae.Batch != nil {
			v.meta = ae.Batch
		}
		cmds = append(cmds, msgCmd(creditsStaleMsg{}))
	case d.Transient:
		v.pollErr = msg.err
		v.retries++
	case errors.Is(msg.err, context.Canceled):
		return nil
	default:
		v.fatal = msg.err
		if api.StatusOf(msg.err) == http.StatusNotFound {
			client, ctx, gen, err := v.c.client, v.c.ctx, v.gen, msg.err
			cmds = append(cmds, func() tea.Msg { return batchExplainedMsg{gen: gen, err: client.Explain404(ctx, err)} })
		}
	}
	if d.Done {
		v.done = true
		// Said when it happens while watched; a batch opened settled
		// says it in the status line only.
		if v.meta != nil && v.fatal == nil && v.sawRunning {
			cmds = append(cmds, say("the batch is "+statusWord(v.meta.Status)+": polling stopped"))
		}
		return tea.Batch(cmds...)
	}
	v.nextPoll = msg.at.Add(d.Delay)
	gen := v.gen
	cmds = append(cmds, v.c.tick(d.Delay, func(time.Time) tea.Msg { return batchPollMsg{gen: gen} }))
	return tea.Batch(cmds...)
}

// statusWord is a status for a sentence; an unknown one says so.
func statusWord(s api.BatchStatus) string {
	if s.Known() {
		return string(s)
	}
	return "in an unknown status “" + textsafe.Line(string(s)) + "”"
}

// pollNow skips the wait: a new generation, a new schedule.
func (v *batchView) pollNow() tea.Cmd {
	if v.done && v.meta != nil && v.meta.Status.Terminal() && v.fatal == nil {
		return say("the batch is " + string(v.meta.Status) + ": nothing more will change")
	}
	v.stop()
	v.ctx, v.cancel = context.WithCancel(v.c.ctx)
	v.done, v.stopped, v.fatal, v.pollErr, v.retries = false, false, nil, nil, 0
	return v.start()
}

// onKey is a key on the batch itself (leaves decides whether esc closes
// it; here esc clears the filters or stops a capped poll first).
func (v *batchView) onKey(msg tea.KeyMsg) tea.Cmd {
	if v.res != nil && v.res.search.Typing {
		cmd, _, changed := v.res.search.Key(msg)
		if changed {
			v.res.apply()
		}
		return cmd
	}
	k := v.keys
	switch {
	case key.Matches(msg, k.Refresh):
		return v.pollNow()
	case key.Matches(msg, k.Back):
		switch {
		case v.res != nil && v.res.filtered():
			v.res.clearFilters()
			return say("filters cleared")
		case !v.done && v.decision.Capped:
			v.stop()
			v.done, v.stopped = true, true
			return say("polling stopped: r polls again")
		}
		return nil
	case key.Matches(msg, k.Export):
		return v.startExport()
	case key.Matches(msg, k.Copy):
		return v.copySelected()
	case key.Matches(msg, k.Watch): // the home keeps the watches (home_watch.go)
		return msgCmd(watchToggleMsg{id: v.id})
	case key.Matches(msg, k.Retry):
		return v.startRetry()
	case key.Matches(msg, k.Effective):
		return v.toggleEffective()
	}
	if v.res == nil {
		if isNavKey(msg, k.ListKeys) || key.Matches(msg, k.Filter) || key.Matches(msg, k.Open) || key.Matches(msg, k.Show) || key.Matches(msg, k.Sort) || key.Matches(msg, k.ErrorType) {
			return say(v.noResultsWhy())
		}
		return unknownKey(msg)
	}
	r := v.res
	switch {
	case r.nav.Key(msg, k.ListKeys):
	case key.Matches(msg, k.Open):
		i := r.selected()
		if i < 0 {
			return say("no result is selected: nothing to open")
		}
		v.subs.push(newResultDetail(v.c, v.shownData(), i))
	case key.Matches(msg, k.Filter):
		return r.search.Start()
	case key.Matches(msg, k.Show):
		r.show = (r.show + 1) % len(showNames)
		r.apply()
	case key.Matches(msg, k.ErrorType):
		if len(r.errList) == 0 {
			return say("no failed result has an error type to pick")
		}
		r.errType = nextOf(r.errList, r.errType)
		r.apply()
	case key.Matches(msg, k.Sort):
		r.order = (r.order + 1) % len(orderNames)
		r.apply()
	default:
		return unknownKey(msg)
	}
	return nil
}

func isNavKey(msg tea.KeyMsg, k widgets.ListKeys) bool {
	return key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom)
}

// noResultsWhy says why there is no table.
func (v *batchView) noResultsWhy() string {
	switch {
	case v.meta == nil:
		return "the batch is still loading"
	case v.payment != nil:
		return "the results are held until the final charge is settled (402)"
	case v.pollErr != nil && v.data == nil:
		return v.retryingWhy()
	case v.meta.Status == api.BatchFailed:
		return "the batch failed before its requests ran: there are no results"
	case !v.meta.Status.Terminal():
		return "results come when the batch reaches a terminal status"
	}
	return "the batch has no results"
}

// ---- VIEW ----

func (v *batchView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.layout()
	v.subs.SetSize(w, h)
}

func (v *batchView) compact() bool { return v.w < compactW || v.h < compactH }

// layout renders the panels above the table and gives the table the rows
// that are left. It runs after every Update and on resize, so that View
// changes nothing.
func (v *batchView) layout() {
	if v.meta == nil || v.fatal != nil {
		v.top = ""
		return
	}
	v.top = v.panels() + v.lineageLine()
	if v.res != nil {
		v.res.setSize(v.w, max(1, v.h-lipgloss.Height(v.top)-2))
	}
}

func (v *batchView) View() string {
	s := v.c.styles
	if full, ok := v.subs.full(); ok {
		return full
	}
	if v.fatal != nil {
		return v.viewFatal()
	}
	if v.meta == nil {
		if v.pollErr != nil {
			return s.Warning.Render(wrap(v.retryingWhy(), max(20, v.w)))
		}
		return s.Muted.Render("loading " + textsafe.Line(v.id) + "…")
	}
	var out []string
	out = append(out, v.top)
	line, asking := v.subs.inline()
	switch {
	case asking:
		out = append(out, line)
	case v.res != nil:
		out = append(out, v.resultsBar())
	}
	if v.res != nil {
		out = append(out, v.res.render(s))
	} else {
		out = append(out, s.Muted.Render(wrap(v.noResultsWhy(), max(20, v.w))))
	}
	return strings.Join(out, "\n")
}

func (v *batchView) resultsBar() string {
	s := v.c.styles
	r := v.res
	if line := r.search.Line(s, len(r.view), len(r.data.Rows)); line != "" && r.search.Typing {
		return line
	}
	// Only what narrows or reorders is named: the defaults go unsaid.
	parts := []string{v.resultsTitle() + " " + r.position()}
	if r.show != showAll {
		parts = append(parts, "show "+showNames[r.show])
	}
	if r.errType != "" {
		parts = append(parts, "error type "+textsafe.Line(r.errType))
	}
	if r.order != 0 {
		parts = append(parts, "order "+orderNames[r.order])
	}
	if q := r.search.Query(); q != "" {
		parts = append(parts, "search “"+textsafe.Line(q)+"”")
	}
	bar := s.Title.Render(strings.Join(parts, " · ")) + "  " + s.Muted.Render(v.resultsNote())
	return ansi.Truncate(bar, max(1, v.w), "…") // the failures give way, with a mark
}

func (v *batchView) viewFatal() string {
	s := v.c.styles
	var title, body string
	var ae *api.APIError
	errors.As(v.fatal, &ae)
	switch api.StatusOf(v.fatal) {
	case 404:
		title = "Batch not found"
		body = "No batch has the id " + textsafe.Line(v.id) + "."
		if ae != nil && ae.Everywhere {
			title = "Nothing found at this address"
			body = "The server answers 404 on every route tried, so the base URL is likely wrong: it should end in /api/v1."
		}
	case 410:
		title = "Batch results deleted"
		body = "The results of " + textsafe.Line(v.id) + " are gone: they are kept 30 days after the batch is created."
	case 401:
		title = "Not authenticated"
		body = "The gateway refused the API key. Check GWDASH_API_KEY or api_key / api_key_cmd in your config."
	case 403:
		title = "Not allowed"
		body = "This key may not read this batch."
	default:
		title = "Could not load the batch"
	}
	detail := describeErr(v.fatal)
	return s.Error.Render(title) + "\n\n" + wrap(body, max(20, v.w-2)) + "\n\n" + s.Muted.Render(wrap(detail, max(20, v.w-2))) +
		"\n\n" + s.Muted.Render("r tries again · esc back to all batches")
}

// ---- HELP ----

// KeyMap is the focused component's keys.
func (v *batchView) KeyMap() help.KeyMap {
	switch {
	case v.subs.open():
		return v.subs.top().KeyMap()
	case v.res != nil && v.res.search.Typing:
		return v.res.search.Keys
	case v.res == nil:
		k := v.keys
		return keyMap{short: []key.Binding{k.Refresh, k.Back}, full: [][]key.Binding{{k.Refresh, k.Watch, k.Back}}}
	}
	k := v.keys
	v.c.hideWrites(&k.Retry)
	return k
}

// Help says what the user is doing.
func (v *batchView) Help() string {
	switch {
	case v.subs.open():
		return v.subs.top().Help()
	case v.res != nil && v.res.search.Typing:
		return "searching custom_id"
	}
	return "batch " + textsafe.Line(v.id)
}

func (v *batchView) Typing() bool {
	if v.subs.open() {
		return v.subs.top().Typing()
	}
	return v.res != nil && v.res.search.Typing
}

// Dialog reports a dialog over the batch (the retry): q is its key
// then; on the batch itself and on a result in full q quits.
func (v *batchView) Dialog() bool { return v.subs.dialog() }

func (v *batchView) Busy() string {
	if b := v.subs.busy(); b != "" {
		return b
	}
	if v.loading {
		return "loading " + textsafe.Line(v.id)
	}
	return ""
}

// unknownKey says that a key does nothing here, and where the keys are.
func unknownKey(msg tea.KeyMsg) tea.Cmd {
	k := msg.String()
	if k == "" || strings.HasPrefix(k, "alt+") {
		return nil
	}
	return say(textsafe.Line(k) + " does nothing here: ? lists the keys")
}
