package ui

// Commands, made safe in one place: every Cmd of the dashboard (the
// shell's and the views') goes through safeCmd, which turns a panic into
// an error on screen (Bubble Tea v1 would print it to stdout and kill the
// program) and addresses the result to the view that asked, so that a
// poll of one view never wakes another. File writes started by the UI go
// through writeQueue: gathered, one at a time, and finished before quit.

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// shellOwner addresses a command's result to the shell itself.
const shellOwner = -1

// addressedMsg is a command's result, for the view that asked (an index
// of Model.views).
type addressedMsg struct {
	view int
	msg  tea.Msg
}

// ownPkg is this package's import path: only our own messages are
// addressed; Bubble Tea's (quit, batches, window title) pass as they are.
var ownPkg = reflect.TypeOf(addressedMsg{}).PkgPath()

// safeCmd wraps cmd: a panic becomes an error notice (stack in the log),
// and the message it returns is addressed to owner. Batches are wrapped
// command by command.
func (c *common) safeCmd(owner int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	log := c.log()
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				v := ansi.Truncate(textsafe.Line(fmt.Sprint(r)), 200, "…")
				log.Error("panic in a command", "value", v, "stack", string(debug.Stack()))
				msg = failNotice("internal error (not done): " + v)
			}
		}()
		return c.address(owner, cmd())
	}
}

func (c *common) address(owner int, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		out := make(tea.BatchMsg, 0, len(m))
		for _, cmd := range m {
			if cmd != nil {
				out = append(out, c.safeCmd(owner, cmd))
			}
		}
		return out
	case addressedMsg:
		return m
	}
	if owner == shellOwner || reflect.TypeOf(msg).PkgPath() != ownPkg {
		return msg
	}
	return addressedMsg{view: owner, msg: msg}
}

// shellMsg reports whether a message is the shell's (the status bar's
// notices, the credit line, the record's writes), whoever sent it.
func shellMsg(msg tea.Msg) bool {
	switch msg.(type) {
	case noticeMsg, copiedMsg, clearNoticeMsg, creditMsg, creditsStaleMsg, ageTickMsg, flushDueMsg, flushedMsg, replayMsg, waitMsg, waitTickMsg:
		return true
	}
	return false
}

// recordEvery is the least time between two writes of the record: the
// changes of a few seconds (row polls, a page) make one write.
const recordEvery = 5 * time.Second

// flushDueMsg: the record's gathered changes may be written now.
type flushDueMsg struct{}

// flushedMsg: a write of the record ended.
type flushedMsg struct{ err error }

// writeQueue holds the record's changes not yet written, and tracks the
// writes running, so that quitting finishes them (a write outliving the
// program is a half-written state file, and in tests a TempDir that
// cannot be removed).
type writeQueue struct {
	mu      sync.Mutex // guards pending, closed
	pending []func(st *record.Store, base string)
	closed  bool
	running sync.WaitGroup
	one     sync.Mutex // one write at a time

	// the UI loop's own (no lock): a flush is armed, and when the last
	// one was.
	armed bool
	last  time.Time
}

func newWriteQueue() *writeQueue { return &writeQueue{} }

// queue keeps a change and arms a write: at once when none was written
// for recordEvery, else when recordEvery has passed.
func (q *writeQueue) queue(c *common, change func(st *record.Store, base string)) tea.Cmd {
	q.mu.Lock()
	q.pending = append(q.pending, change)
	q.mu.Unlock()
	if q.armed {
		return nil
	}
	q.armed = true
	wait := q.last.Add(recordEvery).Sub(c.now())
	if wait <= 0 {
		return msgCmd(flushDueMsg{})
	}
	return c.tick(wait, func(time.Time) tea.Msg { return flushDueMsg{} })
}

// flush is the command that writes what was gathered (run on flushDueMsg).
func (q *writeQueue) flush(c *common) tea.Cmd {
	q.armed, q.last = false, c.now()
	st, base := c.record, c.base
	return c.track(func() tea.Msg {
		return flushedMsg{err: q.write(st, base)}
	})
}

// write applies the gathered changes as one write of the record.
func (q *writeQueue) write(st *record.Store, base string) error {
	q.one.Lock()
	defer q.one.Unlock()
	q.mu.Lock()
	changes := q.pending
	q.pending = nil
	q.mu.Unlock()
	if len(changes) == 0 {
		return nil
	}
	st.Hold()
	for _, ch := range changes {
		ch(st, base)
	}
	return st.Flush()
}

// track runs a write as a command the queue knows of; once quitting has
// begun, a write not yet started is not started.
func (c *common) track(fn func() tea.Msg) tea.Cmd {
	q := c.writes
	if q == nil {
		return fn
	}
	return func() tea.Msg {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return nil
		}
		q.running.Add(1)
		q.mu.Unlock()
		defer q.running.Done()
		return fn()
	}
}

// finish writes what is gathered and waits for every tracked write:
// the last thing before the program ends. It is idempotent.
func (q *writeQueue) finish(st *record.Store, base string) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.running.Wait()
	return q.write(st, base)
}
