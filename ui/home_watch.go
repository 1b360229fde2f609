package ui

// Batches watched until they end (n in the home or in a batch): a badge
// in the home's row, polls that go on while the row is off screen or the
// home hidden, and when one reaches a terminal status, one notice and one
// terminal notification (internal/notify: OSC 9, OSC 777 or the bell, by
// the notify setting, through tmux's passthrough), then the watch ends.
// The key's credit is warned of through the same channel (credit_warn).
// Watches are kept in this machine's record (internal/record, per
// gateway): a dashboard opened later goes on watching, and tells of a
// watched batch that ended while it was closed.

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/notify"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// maxWatched bounds the batches watched at once (each is polled): the
// record's bound.
const maxWatched = record.MaxWatched

// watchBadge is the watched row's badge: a word, the same with and
// without colour, one cell per letter at any width.
const watchBadge = " (watched)"

// watchToggleMsg asks the home to watch a batch, or to stop (n in a
// batch).
type watchToggleMsg struct{ id string }

// watchList is the batches watched, in the order they were asked.
type watchList struct {
	ids []string
}

// newWatchList starts with the watches of the record (read into memory
// when the dashboard started).
func newWatchList(c *common) *watchList { return &watchList{ids: c.record.Watched(c.base)} }

func (w *watchList) has(id string) bool {
	for _, x := range w.ids {
		if x == id {
			return true
		}
	}
	return false
}

func (w *watchList) drop(id string) bool {
	for i, x := range w.ids {
		if x == id {
			w.ids = append(w.ids[:i], w.ids[i+1:]...)
			return true
		}
	}
	return false
}

// badge is a row's badge: " (watched)" or "".
func (w *watchList) badge(id string) string {
	if w.has(id) {
		return watchBadge
	}
	return ""
}

// onWatchMsg handles n from a batch open over the home.
func (v *batchesView) onWatchMsg(msg tea.Msg) tea.Cmd {
	if m, ok := msg.(watchToggleMsg); ok {
		return v.toggleWatch(m.id)
	}
	return nil
}

// toggleWatch watches a batch until it ends, or stops watching it.
func (v *batchesView) toggleWatch(id string) tea.Cmd {
	if v.watch.drop(id) {
		v.apply()
		return tea.Batch(say("not watching "+textsafe.Line(id)+" any more"), v.c.remember(func(st *record.Store, base string) { st.Unwatch(base, id) }))
	}
	b := v.knownBatch(id)
	if b != nil && b.Status.Terminal() {
		return say(textsafe.Line(id) + " is " + present.Status(b.Status) + " already: there is nothing to wait for")
	}
	if len(v.watch.ids) >= maxWatched {
		return say("watching " + format.Int(maxWatched) + " batches already (the most): n on one of them stops watching it")
	}
	if v.byID[id] == nil && b != nil {
		// a batch opened by id: it gets a row, so that it is polled
		// once it is closed
		r := &homeRow{b: *b}
		r.b.Results = nil
		v.rows = append(v.rows, r)
		v.byID[id] = r
	}
	v.watch.ids = append(v.watch.ids, id)
	v.apply()
	how := "a notice here"
	if n := v.c.opts.Notifier; n != nil && n.Mode() != notify.Off {
		how += " and a terminal notification (" + string(n.Mode()) + ")"
	} else {
		how += " (no terminal notification: the notify setting is off, or stderr is not a terminal)"
	}
	return tea.Batch(say("watching "+textsafe.Line(id)+": "+how+" when it ends; n again stops"), v.pollWatched(),
		v.c.remember(func(st *record.Store, base string) { st.Watch(base, id) }))
}

// knownBatch is the latest state known of a batch: the open one's, else
// its row's.
func (v *batchesView) knownBatch(id string) *api.Batch {
	if b := v.opened(); b != nil && b.id == id && b.meta != nil {
		return b.meta
	}
	if r := v.byID[id]; r != nil {
		return &r.b
	}
	return nil
}

// observe is the home learning a batch's state: a watched batch that
// reached a terminal status is told of, once (the watch ends with it),
// and the key's credit is read again.
func (v *batchesView) observe(b *api.Batch) tea.Cmd {
	if b == nil || !b.Status.Terminal() || !v.watch.drop(b.ID) {
		return nil
	}
	v.apply()
	text, id := present.BatchEnded(b), b.ID
	return tea.Batch(say(text), notifyCmd(v.c.opts.Notifier, text), msgCmd(creditsStaleMsg{}),
		v.c.remember(func(st *record.Store, base string) { st.Unwatch(base, id) }))
}

// observeOpen observes the batch open over the home (its own polls).
func (v *batchesView) observeOpen() tea.Cmd {
	b := v.opened()
	if b == nil {
		return nil
	}
	return v.observe(b.meta)
}

// keepPolling reports whether a row's polls go on: it is on screen, or
// watched (unless the batch is open: its own polls watch it).
func (v *batchesView) keepPolling(id string) bool {
	if v.watch.has(id) {
		b := v.opened()
		return b == nil || b.id != id
	}
	return v.shown() && v.onScreen(id)
}

// pollWatched arms the polls of the watched batches not polled yet.
func (v *batchesView) pollWatched() tea.Cmd {
	var cmds []tea.Cmd
	for _, id := range v.watch.ids {
		r := v.byID[id]
		if r == nil || r.polling || r.stopped || r.b.Status.Terminal() || !v.keepPolling(id) {
			continue
		}
		if r.sched == nil {
			r.sched = api.NewPollSchedule(v.c.opts.Poll, v.c.now())
		}
		r.polling = true
		cmds = append(cmds, v.fetchRow(id))
	}
	return tea.Batch(cmds...)
}

// notifyCmd sends a terminal notification off the UI loop; a failure is
// said in the status bar. Nothing without a notifier.
func notifyCmd(n *notify.Notifier, text string) tea.Cmd {
	if n == nil {
		return nil
	}
	return func() tea.Msg {
		if err := n.Notify(notify.Title, text); err != nil {
			return failNotice("the notification was not sent: " + describeErr(err))
		}
		return nil
	}
}

// creditWarn warns once, in the status bar and through the notifier,
// when the key's remaining limit falls under credit_warn (again only
// after it went back above it).
func (c *common) creditWarn(k *api.KeyInfo) tea.Cmd {
	text := c.credit.Observe(k)
	if text == "" {
		return nil
	}
	return tea.Batch(fail(text), notifyCmd(c.opts.Notifier, text))
}
