package ui

// The batches home: every batch of the caller (the server's list merged
// with this machine's record), live progress of the in-flight ones on
// screen, and the way into one batch, a submission or a deletion.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// ---- MSG ----

// homePageMsg is one page of the list (or the record, when the server
// does not list batches).
type homePageMsg struct {
	gen        int
	page       *api.BatchPage
	err        error
	notOffered bool
	// recorded is this machine's record of the gateway's batches, read
	// in the command with the page.
	recorded []record.Batch
}

// listRefreshMsg fires when the list is due to be read again.
type listRefreshMsg struct{ gen int }

// rowPollMsg fires when an in-flight row's next poll is due.
type rowPollMsg struct {
	gen int
	id  string
}

// rowFetchedMsg is a row's poll answer.
type rowFetchedMsg struct {
	gen  int
	id   string
	data *api.BatchData
	err  error
	at   time.Time
}

// batchDeletedMsg is a delete's answer.
type batchDeletedMsg struct {
	id  string
	err error
}

// openByIDMsg is a lookup of an id typed in the filter.
type openByIDMsg struct {
	id   string
	data *api.BatchData
	err  error
}

// ---- MODEL ----

// Orders of the home.
const (
	homeByCreated = iota
	homeByStatus
	homeByCost
)

var homeOrderNames = []string{"created", "status", "cost"}

// homeRow is one batch of the home.
type homeRow struct {
	b          api.Batch
	fromRecord bool
	sched      *api.PollSchedule
	polling    bool // a poll is armed or in flight
	stopped    bool // polling gave up on it (an error): r tries again
	err        error
}

type batchesView struct {
	c    *common
	keys HomeKeys
	w, h int

	gen        int
	rows       []*homeRow
	byID       map[string]*homeRow
	view       []int
	nav        widgets.ListNav
	tbl        widgets.Table
	filter     widgets.FilterLine
	status     int
	order      int
	loading    bool
	loaded     bool
	pager      *api.Pager // this walk of the list's pages
	notOffered bool
	err        error
	// listAt is when the list was last read (what "updated" says).
	listAt time.Time
	// The list is read again on its own every listEvery (longer after
	// errors, or as a Retry-After asks); while the home is not shown the
	// read waits (refreshDue) until it is.
	listEvery  time.Duration
	refreshGen int
	refreshDue bool
	// rowGen tags row polls (a new list does not drop them).
	rowGen int

	// held keeps the full data of settled batches already fetched, so that
	// opening one again downloads nothing (bounded: heldBytes).
	held *heldCache
	// stack holds what is open over the list: a batch (batchView), the
	// diff of two (diffView), the submit dialog or a y/N question.
	stack stack

	// marks are the batches marked for a diff (A, then B; home_diff.go).
	marks []string
	// watch is the batches watched until they end (home_watch.go).
	watch *watchList
}

// The home's columns, by name.
const (
	homeStatus   = "status"
	homeID       = "id"
	homeModel    = "model"
	homeProgress = "progress"
	homeCounts   = "counts"
	homeCreated  = "created"
	homeCost     = "cost"
)

func newBatchesView(c *common) *batchesView {
	v := &batchesView{c: c, keys: DefaultHomeKeys(), byID: map[string]*homeRow{}, held: newHeldCache(heldBytes), watch: newWatchList(c),
		filter:    widgets.NewFilterLine("id, model or status contains… (enter on an id opens it)"),
		listEvery: homeListEvery,
		tbl: widgets.NewTable(
			widgets.Column{Name: homeStatus, Title: "STATUS", Keep: 9, Max: 28},
			widgets.Column{Name: homeID, Title: "ID", Keep: 1, Min: 10, Tail: true},
			widgets.Column{Name: homeModel, Title: "MODEL", Keep: 7, Max: 36},
			widgets.Column{Name: homeProgress, Title: "PROGRESS", Keep: 3, Min: 10, Max: 12, Optional: true},
			widgets.Column{Name: homeCounts, Title: "OK/FAIL/ALL", Keep: 6, Max: 20, Right: true},
			widgets.Column{Name: homeCreated, Title: "CREATED", Keep: 5, Max: 10, Right: true},
			widgets.Column{Name: homeCost, Title: "COST", Keep: 8, Max: 12, Right: true},
		)}
	v.filter.Keys.Keep = v.keys.FilterKeep
	return v
}

func (v *batchesView) Init() tea.Cmd {
	cmds := []tea.Cmd{v.reload()}
	if id := v.c.opts.BatchID; id != "" {
		cmds = append(cmds, v.openBatch(id, nil))
	}
	return tea.Batch(cmds...)
}

// reload starts the list again from its first page (row polls go on).
func (v *batchesView) reload() tea.Cmd {
	v.gen++
	v.refreshGen++ // the timer armed for the list before is dropped
	v.refreshDue = false
	v.pager, v.err = newPager(v.c.opts), nil
	return v.loadPage()
}

func (v *batchesView) loadPage() tea.Cmd {
	v.loading = true
	client, ctx, gen, after := v.c.client, v.c.ctx, v.gen, v.pager.After()
	st, base := v.c.record, v.c.base
	return func() tea.Msg {
		p, err := client.ListBatches(ctx, api.BatchListOptions{Limit: 50, After: after})
		m := homePageMsg{gen: gen, page: p, err: err, notOffered: api.IsNotOffered(err)}
		if err != nil || !p.HasMore || len(p.Data) == 0 {
			m.recorded = st.Batches(base)
		}
		return m
	}
}

// ---- UPDATE ----

func (v *batchesView) Update(msg tea.Msg) tea.Cmd {
	cmd := v.update(msg)
	v.layout()
	return cmd
}

func (v *batchesView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case homePageMsg:
		if msg.gen != v.gen {
			return nil
		}
		return tea.Batch(v.onPage(msg), v.armRefresh(msg))
	case listRefreshMsg:
		if msg.gen != v.refreshGen {
			return nil
		}
		if !v.shown() {
			v.refreshDue = true // read when the home is shown again
			return nil
		}
		return v.reload()
	case focusMsg:
		return v.resume()
	case rowPollMsg:
		if msg.gen != v.rowGen {
			return nil
		}
		return v.pollRow(msg.id)
	case rowFetchedMsg:
		if msg.gen != v.rowGen {
			return nil
		}
		return v.onRowFetched(msg)
	case batchDeletedMsg:
		return v.onDeleted(msg)
	case openByIDMsg:
		return v.onOpenByID(msg)
	case diffLoadedMsg:
		v.holdDiffed(msg)
	case watchToggleMsg:
		return v.onWatchMsg(msg)
	case tea.KeyMsg:
		return v.onKey(msg)
	case tea.MouseMsg:
		if !v.stack.open() && v.nav.Wheel(msg) {
			return v.pollVisible()
		}
	}
	// The rest is the open screens' own (a batch's polls, the diff's
	// reads, the submit dialog's check and POST): the top one gets it,
	// and a watched batch that ends is told.
	return v.fromStack(msg)
}

// fromStack gives msg to the screen on top and acts on what it asks.
func (v *batchesView) fromStack(msg tea.Msg) tea.Cmd {
	if !v.stack.open() {
		return nil
	}
	cmd := v.act(v.stack.update(msg))
	return tea.Batch(cmd, v.observeOpen())
}

// act is the one place the home acts on what its screens ask.
func (v *batchesView) act(cmd tea.Cmd, a action) tea.Cmd {
	switch val := a.value.(type) {
	case answer: // the delete's y/N
		if !val.yes {
			return tea.Batch(cmd, say("not deleted"))
		}
		return tea.Batch(cmd, v.deleteBatch(val.tag))
	case batchClosed:
		v.closed(val.b)
		return tea.Batch(cmd, v.resume())
	case diffClosed:
		v.apply()
		return tea.Batch(cmd, v.resume())
	case submitted:
		return tea.Batch(cmd, v.onSubmitted(val.batch))
	}
	return cmd
}

// opened is the batch open over the home, or nil.
func (v *batchesView) opened() *batchView { b, _ := find[*batchView](&v.stack); return b }

// diffing is the diff open over the home, or nil.
func (v *batchesView) diffing() *diffView { d, _ := find[*diffView](&v.stack); return d }

// submitting is the submit dialog while open, or nil.
func (v *batchesView) submitting() *submitDialog { d, _ := find[*submitDialog](&v.stack); return d }

func (v *batchesView) onPage(msg homePageMsg) tea.Cmd {
	v.loading, v.loaded = false, true
	v.listAt = v.c.now()
	if msg.err != nil {
		if !msg.notOffered {
			v.err = msg.err
			return failAbout(aboutBatchList, "batches: "+describeErr(msg.err))
		}
		v.notOffered = true
		v.mergeRecord(msg.recorded)
		return v.pollVisible()
	}
	v.notOffered, v.err = false, nil
	cleared := errorEnded(aboutBatchList)
	now := v.c.now()
	var seen []record.Batch
	var ended []tea.Cmd
	fresh := v.foldPage(msg.page)
	for i := range fresh {
		b := fresh[i]
		if r, ok := v.byID[b.ID]; ok {
			r.b, r.fromRecord = b, false
		} else {
			r := &homeRow{b: b}
			v.rows = append(v.rows, r)
			v.byID[b.ID] = r
		}
		seen = append(seen, record.FromAPI(&b, now))
		ended = append(ended, v.observe(&b))
	}
	if !v.pager.More() {
		v.mergeRecord(msg.recorded)
	}
	v.apply()
	saved := v.c.remember(func(st *record.Store, base string) { st.Remember(base, seen...) })
	return tea.Batch(append(ended, cleared, saved, v.maybeMore(), v.pollVisible(), v.pollWatched())...)
}

// mergeRecord adds the batches remembered here that the server did not
// list (all of them, on a server that does not list batches).
func (v *batchesView) mergeRecord(recorded []record.Batch) {
	for _, rb := range recorded {
		if _, ok := v.byID[rb.ID]; ok {
			continue
		}
		r := &homeRow{b: rb.AsBatch(), fromRecord: true}
		v.rows = append(v.rows, r)
		v.byID[rb.ID] = r
	}
	v.apply()
}

// maybeMore loads the next page when the cursor nears the end.
func (v *batchesView) maybeMore() tea.Cmd {
	if v.loading || v.pager == nil || !v.pager.More() {
		return nil
	}
	// A filter searches every batch the server has: the rest is read
	// (within the pager's bounds) while one is set.
	filtering := v.filter.Query() != "" || v.status != homeAll
	if filtering || v.nav.Cursor >= len(v.view)-10 || len(v.view) < v.nav.Height {
		return v.loadPage()
	}
	return nil
}

func (v *batchesView) selectedIndex() int {
	if v.nav.Cursor < 0 || v.nav.Cursor >= len(v.view) {
		return -1
	}
	return v.view[v.nav.Cursor]
}

func (v *batchesView) selected() *homeRow {
	if i := v.selectedIndex(); i >= 0 {
		return v.rows[i]
	}
	return nil
}

func (v *batchesView) onKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case v.stack.open():
		return v.fromStack(msg)
	case v.filter.Typing:
		if key.Matches(msg, v.filter.Keys.Keep) {
			return v.filterEnter()
		}
		cmd, _, changed := v.filter.Key(msg)
		if changed {
			v.apply()
		}
		return tea.Batch(cmd, v.pollVisible())
	}
	k := v.keys
	switch {
	case v.nav.Key(msg, k.ListKeys):
		return tea.Batch(v.maybeMore(), v.pollVisible())
	case key.Matches(msg, k.Open):
		r := v.selected()
		if r == nil {
			return say("no batch is selected: / and an id opens one")
		}
		return v.openBatch(r.b.ID, &r.b)
	case key.Matches(msg, k.Filter):
		return v.filter.Start()
	case key.Matches(msg, k.Back):
		if v.filter.Active() || v.status != homeAll {
			v.filter.Clear()
			v.status = homeAll
			v.apply()
			return tea.Batch(say("filters cleared"), v.pollVisible())
		}
		return say("esc: nothing to go back to here (q quits)")
	case key.Matches(msg, k.Status):
		v.status = (v.status + 1) % len(homeFilterNames)
		v.apply()
		return v.pollVisible()
	case key.Matches(msg, k.Sort):
		v.order = (v.order + 1) % len(homeOrderNames)
		v.apply()
		return v.pollVisible()
	case key.Matches(msg, k.Refresh):
		for _, r := range v.rows { // rows that gave up try again
			if r.stopped {
				r.stopped, r.sched = false, nil
			}
		}
		if v.notOffered {
			return tea.Batch(say("this server does not list batches: the list is the record of this machine; rows refresh as they poll"), v.reload())
		}
		return tea.Batch(v.reload(), v.pollVisible())
	case key.Matches(msg, k.Delete):
		r := v.selected()
		if r == nil {
			return say("no batch is selected: nothing to delete")
		}
		if cmd := v.c.refuseWrite(present.WriteBatchDelete); cmd != nil {
			return cmd
		}
		if !r.b.Status.Settled() {
			return say("batch " + textsafe.Line(r.b.ID) + " is " + statusWord(r.b.Status) + ": only a settled batch (completed, failed, expired, cancelled) can be deleted")
		}
		v.stack.push(newQuestion(v.c, widgets.NewConfirm(fmt.Sprintf("delete batch %s (%s, %s) and its results?", textsafe.Line(format.Middle(r.b.ID, 64)), r.b.Status,
			format.Plural(r.b.RequestCounts.Total, "request", "requests")), r.b.ID), "answering y/N"))
		return nil
	case key.Matches(msg, k.Submit):
		if cmd := v.c.refuseWrite(present.WriteBatchSubmit); cmd != nil {
			return cmd
		}
		d := newSubmitDialog(v.c)
		v.stack.push(d)
		return d.path.Focus()
	case key.Matches(msg, k.Mark):
		return v.markKey()
	case key.Matches(msg, k.Diff):
		return v.openDiff()
	case key.Matches(msg, k.Watch):
		r := v.selected()
		if r == nil {
			return say("no batch is selected: nothing to watch")
		}
		return v.toggleWatch(r.b.ID)
	}
	return unknownKey(msg)
}

// filterEnter keeps the filter; an id that matches no row is looked up.
func (v *batchesView) filterEnter() tea.Cmd {
	text := strings.TrimSpace(v.filter.Input.Value())
	v.filter.Stop()
	if len(v.view) == 1 && text != "" {
		r := v.rows[v.view[0]]
		v.filter.Clear()
		v.apply()
		return v.openBatch(r.b.ID, &r.b)
	}
	if len(v.view) == 0 && text != "" && !strings.ContainsAny(text, " \t") {
		client, ctx := v.c.client, v.c.ctx
		return tea.Batch(say("looking up "+textsafe.Line(text)+"…"), func() tea.Msg {
			d, err := client.GetBatchData(ctx, text)
			if err != nil {
				err = client.Explain404(ctx, err)
			}
			return openByIDMsg{id: text, data: d, err: err}
		})
	}
	return v.pollVisible()
}

func (v *batchesView) onOpenByID(msg openByIDMsg) tea.Cmd {
	if msg.err != nil && api.StatusOf(msg.err) != 402 {
		// Not found is said, and the id is not remembered.
		return fail(textsafe.Line(msg.id) + ": " + describeErr(msg.err))
	}
	v.filter.Clear()
	v.apply()
	if msg.data != nil {
		b := *msg.data.Batch
		if _, ok := v.byID[b.ID]; !ok {
			r := &homeRow{b: b}
			v.rows = append(v.rows, r)
			v.byID[b.ID] = r
			v.apply()
		}
		if msg.data.Rows != nil {
			v.held.put(b.ID, msg.data)
		}
	}
	return v.openBatch(msg.id, nil)
}

// openBatch shows one batch (esc comes back to the same row).
func (v *batchesView) openBatch(id string, meta *api.Batch) tea.Cmd {
	if b := v.opened(); b != nil {
		v.stack.drop(b)
		v.closed(b)
	}
	for k, i := range v.view {
		if v.rows[i].b.ID == id {
			v.nav.Cursor = k
			v.nav.Clamp()
		}
	}
	b := newBatchView(v.c, id, meta, v.held.get(id))
	v.stack.push(b)
	return b.start()
}

// closed is a batch closed: what it read stays held, its row updated.
func (v *batchesView) closed(b *batchView) {
	b.stop()
	if b.data != nil && b.meta.Status.Terminal() {
		v.held.put(b.id, b.data)
	}
	if r := v.byID[b.id]; r != nil && b.meta != nil {
		r.b = *b.meta
		r.b.Results = nil
	}
	v.apply()
}

func (v *batchesView) deleteBatch(id string) tea.Cmd {
	client, ctx := v.c.client, v.c.ctx
	return func() tea.Msg { return batchDeletedMsg{id: id, err: client.DeleteBatch(ctx, id)} }
}

func (v *batchesView) onDeleted(msg batchDeletedMsg) tea.Cmd {
	if msg.err != nil {
		return fail("not deleted: " + describeErr(msg.err))
	}
	delete(v.byID, msg.id)
	v.held.remove(msg.id)
	v.dropMark(msg.id)
	v.watch.drop(msg.id)
	for i, r := range v.rows {
		if r.b.ID == msg.id {
			v.rows = append(v.rows[:i], v.rows[i+1:]...)
			break
		}
	}
	v.apply()
	id := msg.id
	return tea.Batch(v.c.remember(func(st *record.Store, base string) { st.Forget(base, id); st.Unwatch(base, id) }),
		say("deleted batch "+textsafe.Line(msg.id)))
}

// ---- HELP ----

func (v *batchesView) KeyMap() help.KeyMap {
	switch {
	case v.stack.open():
		return v.stack.top().KeyMap()
	case v.filter.Typing:
		return v.filter.Keys
	}
	k := v.keys
	v.c.hideWrites(&k.Submit, &k.Delete)
	return k
}

func (v *batchesView) Help() string {
	switch {
	case v.stack.open():
		return v.stack.top().Help()
	case v.filter.Typing:
		return "filtering batches"
	}
	return "all batches"
}

func (v *batchesView) Typing() bool {
	if v.stack.open() {
		return v.stack.top().Typing()
	}
	return v.filter.Typing
}

func (v *batchesView) Busy() string {
	if v.stack.open() {
		return v.stack.busy()
	}
	if v.loading {
		return "loading batches"
	}
	return ""
}

// Dialog reports a screen over the home that keeps q (the submit form,
// a y/N, a batch's retry dialog): q is then the view's key, never the
// shell's quit.
func (v *batchesView) Dialog() bool { return v.stack.dialog() }

// Unsaved says what quitting would lose: a submit form filled in.
func (v *batchesView) Unsaved() string { return v.stack.unsaved() }

// Updated is when what is shown was read: the open batch, or the list
// (a row that stopped polling says so in its own line).
func (v *batchesView) Updated() time.Time {
	if b := v.opened(); b != nil {
		return b.updated
	}
	return v.listAt
}

// Countdown reports whether a poll countdown is on screen (an open batch
// still polled).
func (v *batchesView) Countdown() bool {
	b := v.opened()
	return b != nil && !b.done && !b.stopped
}

func (v *batchesView) Stop() {
	v.gen++
	v.rowGen++
	v.refreshGen++
	if b := v.opened(); b != nil {
		b.stop()
	}
	if d := v.diffing(); d != nil {
		d.cancel()
	}
}
