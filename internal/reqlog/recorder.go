package reqlog

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Options configure a Recorder.
type Options struct {
	// Path is the log file (Path(stateDir)).
	Path string
	// Profile and Host name where the requests go (no key, no path).
	Profile, Host string
	// MaxAge and MaxBytes are the retention applied when the recorder
	// starts (zero: the defaults; negative: no limit).
	MaxAge   time.Duration
	MaxBytes int64
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// queueLen bounds the writes waiting: past it a row is dropped (and that
// said once) rather than memory growing or a request waiting.
const queueLen = 1024

// op is one write; flushed (when set) is closed when it is reached,
// whether or not the log could be opened.
type op struct {
	write   func(ctx context.Context, db *DB) error
	flushed chan struct{}
}

// Recorder writes rows on its own goroutine, in the order they were
// given. A nil *Recorder records nothing, so callers need no checks.
type Recorder struct {
	opts     Options
	ops      chan op
	done     chan struct{}
	problems chan string
	// stop ends a write that is waiting when Close runs out of time.
	stop   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	said    map[string]bool
	dropped int
	groups  []*group
	seq     int
}

// Start starts the recorder's goroutine: it opens the log at the first
// write (opening never delays the caller; a failed open is tried again
// at the next write), prunes it, and writes what it is given in order.
func Start(o Options) *Recorder {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxAge == 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	stop, cancel := context.WithCancel(context.Background())
	r := &Recorder{opts: o, ops: make(chan op, queueLen), done: make(chan struct{}), problems: make(chan string, 8),
		stop: stop, cancel: cancel, said: map[string]bool{}}
	go r.run()
	return r
}

func (r *Recorder) run() {
	defer close(r.done)
	var db *DB
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	for o := range r.ops {
		if o.flushed != nil {
			close(o.flushed)
			continue
		}
		if db == nil && r.stop.Err() == nil {
			// Opened at the first write, and again after a failure (a
			// lock held by another process passes).
			var notice string
			var err error
			db, notice, err = Open(r.opts.Path)
			if notice != "" {
				r.report(&Problem{Kind: "moved", Msg: notice})
			}
			if err != nil {
				r.report(classify(r.opts.Path, err))
				continue
			}
			if _, err := db.Prune(r.stop, r.opts.Now(), max(r.opts.MaxAge, 0), max(r.opts.MaxBytes, 0)); err != nil {
				r.report(classify(db.Path(), err))
			}
		}
		if db == nil {
			continue
		}
		if err := o.write(r.stop, db); err != nil {
			r.report(classify(db.Path(), err))
		}
	}
}

// report says a problem once per kind: the request goes on unlogged.
func (r *Recorder) report(p *Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.said[p.Kind] {
		return
	}
	r.said[p.Kind] = true
	msg := p.Msg
	if p.Kind != "moved" {
		msg += ": requests are not being logged"
	}
	select {
	case r.problems <- msg:
	default:
	}
}

// Problems delivers each kind of problem once, as a sentence.
func (r *Recorder) Problems() <-chan string {
	if r == nil {
		return nil
	}
	return r.problems
}

// PendingProblems takes the problems said so far without waiting.
func (r *Recorder) PendingProblems() []string {
	if r == nil {
		return nil
	}
	var out []string
	for {
		select {
		case p := <-r.problems:
			out = append(out, p)
		default:
			return out
		}
	}
}

// enqueue hands a write to the goroutine; it never blocks.
func (r *Recorder) enqueue(write func(ctx context.Context, db *DB) error) {
	r.send(op{write: write})
}

func (r *Recorder) send(o op) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	select {
	case r.ops <- o:
		return true
	default:
		r.dropped++
		if !r.said["queue"] {
			r.said["queue"] = true
			select {
			case r.problems <- "more requests are waiting to be logged than the log can take: some are not logged":
			default:
			}
		}
	}
	return false
}

// Close writes what is waiting, for at most wait, and closes the log.
func (r *Recorder) Close(wait time.Duration) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.ops)
	}
	r.mu.Unlock()
	t := time.AfterFunc(wait, r.cancel)
	<-r.done
	t.Stop()
	r.cancel()
}

// Flush waits until every write given so far is done (tests and commands
// that read what they wrote).
func (r *Recorder) Flush() {
	if r == nil {
		return
	}
	ch := make(chan struct{})
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		<-r.done
		return
	}
	if !r.send(op{flushed: ch}) {
		return
	}
	select {
	case <-ch:
	case <-r.done:
	}
}

// Path is the log file.
func (r *Recorder) Path() string {
	if r == nil {
		return ""
	}
	return r.opts.Path
}

// NewGroup names a new comparison.
func (r *Recorder) NewGroup() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return fmt.Sprintf("cmp-%d-%d", r.opts.Now().UnixMilli(), r.seq)
}

// group is the requests begun under one context: more than one is a
// comparison.
type group struct {
	key   any
	id    string
	calls []*Call
}

// maxGroups bounds the contexts remembered.
const maxGroups = 32

// raceKey marks a context as one comparison's (WithRace).
type raceKey struct{}

// WithRace marks ctx as one comparison's: every request begun under it,
// or under a context derived from it (each pane may have its own cancel),
// is in one compare group.
func WithRace(ctx context.Context) context.Context {
	return context.WithValue(ctx, raceKey{}, new(byte))
}

// groupKey is what a call's group is known by: the race its context was
// marked with, else the context itself.
func groupKey(ctx context.Context) any {
	if v := ctx.Value(raceKey{}); v != nil {
		return v
	}
	return ctx
}

// joinContext puts a call in the group of its context. When a second
// call joins, the group gets its name; a first call already written gets
// it by an update (writes keep their order, so the update follows the
// insert).
func (r *Recorder) joinContext(ctx context.Context, c *Call) {
	r.mu.Lock()
	var g *group
	key := groupKey(ctx)
	for _, x := range r.groups {
		if x.key == key {
			g = x
		}
	}
	if g == nil {
		g = &group{key: key}
		r.groups = append(r.groups, g)
		if len(r.groups) > maxGroups {
			r.groups = r.groups[1:]
		}
	}
	g.calls = append(g.calls, c)
	c.group = g
	var written []int64
	if len(g.calls) == 2 {
		r.seq++
		g.id = fmt.Sprintf("cmp-%d-%d", r.opts.Now().UnixMilli(), r.seq)
		if first := g.calls[0]; first.id != 0 {
			written = append(written, first.id)
		}
	}
	id := g.id
	r.mu.Unlock()
	if len(written) > 0 {
		r.enqueue(func(ctx context.Context, db *DB) error { return db.SetCompareGroup(ctx, id, written...) })
	}
}

// Keeps reports whether what was handed to the recorder so far is kept:
// it records, and no write was refused (a locked, full or unopenable log)
// or dropped. A screen asks it before calling an answer "kept nowhere".
func (r *Recorder) Keeps() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.dropped > 0 {
		return false
	}
	for kind := range r.said {
		if kind != "moved" {
			return false
		}
	}
	return true
}
