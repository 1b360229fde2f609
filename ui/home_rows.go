package ui

// The home's rows: filtered and ordered as the user asked, and the
// in-flight ones on screen polled (each with its own PollSchedule, so the
// backoff and Retry-After rules of one batch hold for every row); settled
// rows are never polled.

import (
	"context"
	"errors"
	"sort"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/ui/widgets"
)

// foldPage takes a page in through the walk's Pager (which stops a
// repeated cursor or page and every bound of api.DefaultListBounds): the
// batches not seen before in this walk, as many as the home has room for
// beside the rows it holds.
func (v *batchesView) foldPage(page *api.BatchPage) []api.Batch {
	fresh := v.pager.Batches(page)
	added := 0
	for _, b := range fresh {
		if v.byID[b.ID] == nil {
			added++
		}
	}
	room := v.pager.Admit(len(v.rows), added)
	if room == added {
		return fresh
	}
	keep := fresh[:0]
	for _, b := range fresh {
		if v.byID[b.ID] == nil {
			if room == 0 {
				continue
			}
			room--
		}
		keep = append(keep, b)
	}
	return keep
}

// apply recomputes the shown rows.
func (v *batchesView) apply() {
	var sel *homeRow
	if i := v.selectedIndex(); i >= 0 {
		sel = v.rows[i]
	}
	v.view = v.view[:0]
	q := v.filter.Query()
	for i, r := range v.rows {
		if !homeFilterKeeps(v.status, &r.b) {
			continue
		}
		if q != "" && !widgets.ContainsFold(r.b.ID, q) && !widgets.ContainsFold(r.b.Model, q) && !widgets.ContainsFold(string(r.b.Status), q) {
			continue
		}
		v.view = append(v.view, i)
	}
	rows := v.rows
	sort.SliceStable(v.view, func(a, b int) bool {
		x, y := &rows[v.view[a]].b, &rows[v.view[b]].b
		switch v.order {
		case homeByStatus:
			if sx, sy := statusRank(x.Status), statusRank(y.Status); sx != sy {
				return sx < sy
			}
		case homeByCost:
			cx, cy := costOf(x), costOf(y)
			if cx != cy {
				return cx > cy
			}
		}
		tx, ty := x.CreatedTime(), y.CreatedTime()
		if !tx.Equal(ty) {
			return tx.After(ty)
		}
		return x.ID > y.ID
	})
	v.tbl.ResetContent()
	for _, i := range v.view {
		v.tbl.Measure(v.cells(v.rows[i])...)
	}
	v.nav.SetCount(len(v.view))
	if sel != nil {
		for k, i := range v.view {
			if v.rows[i] == sel {
				v.nav.Cursor = k
			}
		}
	}
	v.nav.Clamp()
}

func statusRank(s api.BatchStatus) int {
	switch s {
	case api.BatchInProgress:
		return 0
	case api.BatchValidating:
		return 1
	case api.BatchFinalizing:
		return 2
	case api.BatchCancelling:
		return 3
	case api.BatchFailed:
		return 4
	case api.BatchExpired:
		return 5
	case api.BatchCompleted:
		return 6
	case api.BatchCancelled:
		return 7
	}
	return -1 // unknown first: worth a look
}

func costOf(b *api.Batch) float64 {
	if b.Usage != nil && b.Usage.Cost != nil {
		return *b.Usage.Cost
	}
	return -1
}

// pollVisible arms polling of the in-flight rows on screen; settled rows
// and rows off screen are never polled.
func (v *batchesView) pollVisible() tea.Cmd {
	if !v.shown() {
		return nil
	}
	var cmds []tea.Cmd
	a, b := v.nav.Visible()
	for k := a; k < b; k++ {
		r := v.rows[v.view[k]]
		if r.polling || r.stopped || r.b.Status.Terminal() {
			continue
		}
		if r.sched == nil {
			r.sched = api.NewPollSchedule(v.c.opts.Poll, v.c.now())
		}
		r.polling = true
		cmds = append(cmds, v.fetchRow(r.b.ID))
	}
	return tea.Batch(cmds...)
}

func (v *batchesView) onScreen(id string) bool {
	a, b := v.nav.Visible()
	for k := a; k < b; k++ {
		if v.rows[v.view[k]].b.ID == id {
			return true
		}
	}
	return false
}

func (v *batchesView) pollRow(id string) tea.Cmd {
	r := v.byID[id]
	if r == nil || r.b.Status.Terminal() || !v.keepPolling(id) {
		if r != nil {
			// off screen or hidden (and not watched): polled again when
			// it comes back (pollVisible, after a scroll, a filter, a
			// batch closed or the home shown again)
			r.polling = false
		}
		return nil
	}
	return v.fetchRow(id)
}

func (v *batchesView) fetchRow(id string) tea.Cmd {
	client, ctx, gen, now := v.c.client, v.c.ctx, v.rowGen, v.c.now
	return func() tea.Msg {
		d, err := client.GetBatchData(ctx, id)
		return rowFetchedMsg{gen: gen, id: id, data: d, err: err, at: now()}
	}
}

func (v *batchesView) onRowFetched(msg rowFetchedMsg) tea.Cmd {
	r := v.byID[msg.id]
	if r == nil {
		return nil
	}
	var b *api.Batch
	if msg.data != nil {
		b = msg.data.Batch
	}
	d := r.sched.Observe(b, msg.err, msg.at)
	r.err = msg.err
	var saved tea.Cmd
	if msg.err == nil {
		r.b = *b
		r.fromRecord = false
		rb := record.FromAPI(b, msg.at)
		saved = tea.Batch(v.c.remember(func(st *record.Store, base string) { st.Remember(base, rb) }), v.observe(b))
		if msg.data.Rows != nil {
			v.held.put(msg.id, msg.data)
		}
		v.apply()
	}
	if errors.Is(msg.err, context.Canceled) {
		r.polling = false
		return saved
	}
	if d.Done {
		r.polling = false
		// Gave up on a batch still in flight (an error that retrying
		// will not mend): the row says so; r polls again.
		r.stopped = !r.b.Status.Terminal()
		return saved
	}
	id, gen := msg.id, v.rowGen
	return tea.Batch(saved, v.c.tick(d.Delay, func(time.Time) tea.Msg { return rowPollMsg{gen: gen, id: id} }))
}

// homeListEvery is how often the home reads the list again on its own
// (a batch submitted elsewhere shows within it); after an error it waits
// longer, up to homeListMax, or as long as a Retry-After asks.
const (
	homeListEvery = 60 * time.Second
	homeListMax   = 10 * time.Minute
)

// shown reports whether the home's list is on screen (the home is the
// view shown and no batch nor diff is open over it).
func (v *batchesView) shown() bool {
	return v.c.active == viewBatches && v.opened() == nil && v.diffing() == nil
}

// resume is the home coming back into sight: the list is read if it fell
// due while hidden, and the in-flight rows on screen poll again.
func (v *batchesView) resume() tea.Cmd {
	if !v.shown() {
		return nil
	}
	var cmds []tea.Cmd
	if v.refreshDue {
		cmds = append(cmds, v.reload())
	}
	return tea.Batch(append(cmds, v.pollVisible(), v.pollWatched())...)
}

// armRefresh arms the next read of the list once a read ended: the
// steady interval after a good one, a backoff (or the Retry-After) after
// an error.
func (v *batchesView) armRefresh(msg homePageMsg) tea.Cmd {
	if v.loading {
		return nil // more pages are on their way
	}
	switch {
	case msg.err == nil || msg.notOffered:
		v.listEvery = homeListEvery
	default:
		next := min(2*v.listEvery, homeListMax)
		var ae *api.APIError
		if errors.As(msg.err, &ae) {
			if wait, _, _, ok := ae.Wait(); ok && wait > next {
				next = wait
			}
		}
		v.listEvery = next
	}
	v.refreshGen++
	gen := v.refreshGen
	return v.c.tick(v.listEvery, func(time.Time) tea.Msg { return listRefreshMsg{gen: gen} })
}

// Quiet reports whether a message of the home changes nothing on screen
// (the shell then keeps the frame): a row's poll falling due only sends
// a request.
func (v *batchesView) Quiet(msg tea.Msg) bool {
	_, ok := msg.(rowPollMsg)
	return ok
}
