package api

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"
)

// The 404 grace, one rule for the commands and the dashboard: a batch
// submitted from this machine may not be found for a moment, so its 404
// is retried for SubmitGrace while the submission is younger than
// RecentSubmission. Any other batch gets no grace: a mistyped id is not
// found at once.
const (
	SubmitGrace      = 30 * time.Second
	RecentSubmission = 5 * time.Minute
)

// PollOptions tune a batch poller. Zero values take the defaults.
type PollOptions struct {
	// Interval is the steady interval while the batch changes (5s).
	Interval time.Duration
	// MaxInterval caps the interval as it lengthens while nothing
	// changes (60s).
	MaxInterval time.Duration
	// NotFoundGrace is how long a 404 is retried after polling starts, for
	// a batch submitted from this machine a moment ago; zero retries
	// nothing (a mistyped id is not found at once).
	NotFoundGrace time.Duration
	// PaymentInterval is the slow interval while a batch answers 402 (30s).
	PaymentInterval time.Duration
	// MaxBackoff caps the backoff on 5xx and transport errors (2m).
	MaxBackoff time.Duration
	// Jitter returns a factor in [0,1) used to spread backoffs; nil means
	// math/rand.
	Jitter func() float64
}

func (o PollOptions) withDefaults() PollOptions {
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.MaxInterval < o.Interval {
		o.MaxInterval = max(60*time.Second, o.Interval)
	}
	if o.PaymentInterval <= 0 {
		o.PaymentInterval = 30 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 2 * time.Minute
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	return o
}

// PollSchedule decides when to poll a batch next. It is pure state (no I/O,
// no timers) so that the command-line watcher and the dashboard share it:
// the caller fetches, passes the result to Observe, and waits the delay
// returned.
type PollSchedule struct {
	opts     PollOptions
	started  time.Time
	interval time.Duration
	failures int
	last     *Batch
}

// NewPollSchedule starts a schedule at now.
func NewPollSchedule(opts PollOptions, now time.Time) *PollSchedule {
	o := opts.withDefaults()
	return &PollSchedule{opts: o, started: now, interval: o.Interval}
}

// PollDecision is what to do after one poll.
type PollDecision struct {
	// Done is true when polling must stop: a terminal status, or an error
	// that polling cannot cure (401, 403, 404 after the grace, 410, ...).
	Done bool
	// Delay is the wait before the next poll when not Done.
	Delay time.Duration
	// Transient is true when err was an error worth retrying.
	Transient bool
	// Changed is true when the snapshot differs from the previous one.
	Changed bool
	// Asked is what the server asked to wait (Retry-After or
	// X-RateLimit-Reset); Capped says it was more than MaxServerWait and
	// Delay is that cap.
	Asked  time.Duration
	Capped bool
	// Inconsistent describes counts that cannot be right (negative, more
	// done than total, going down), empty when they are fine.
	Inconsistent string
}

// Observe records the outcome of one GET and returns what to do next.
func (p *PollSchedule) Observe(b *Batch, err error, now time.Time) PollDecision {
	if err == nil {
		p.failures = 0
		changed := p.last == nil || p.last.Status != b.Status || p.last.RequestCounts != b.RequestCounts
		note := b.RequestCounts.Problems(p.previousCounts())
		p.last = b
		if b.Status.Terminal() {
			return PollDecision{Done: true, Changed: changed, Inconsistent: note}
		}
		// An unknown status is not terminal: keep polling, slowing down
		// while nothing changes.
		if changed {
			p.interval = p.opts.Interval
		} else {
			p.interval = min(p.interval*3/2, p.opts.MaxInterval)
		}
		return PollDecision{Delay: p.interval, Changed: changed, Inconsistent: note}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return PollDecision{Done: true}
	}
	var ae *APIError
	if errors.As(err, &ae) {
		switch {
		case ae.Status == http.StatusPaymentRequired:
			changed := false
			if ae.Batch != nil {
				changed = p.last == nil || p.last.Status != ae.Batch.Status
				p.last = ae.Batch
			}
			return PollDecision{Delay: p.opts.PaymentInterval, Transient: true, Changed: changed}
		case ae.Status == http.StatusNotFound:
			if now.Sub(p.started) < p.opts.NotFoundGrace && p.last == nil {
				return PollDecision{Delay: min(2*time.Second, p.opts.NotFoundGrace), Transient: true}
			}
			return PollDecision{Done: true}
		case ae.Status == http.StatusTooManyRequests, ae.Status == http.StatusRequestTimeout, ae.Status >= 500:
			if wait, asked, capped, ok := ae.Wait(); ok {
				p.failures++
				return PollDecision{Delay: wait, Transient: true, Asked: asked, Capped: capped}
			}
			return PollDecision{Delay: p.backoff(), Transient: true}
		}
		return PollDecision{Done: true}
	}
	var tl *TooLargeError
	var mk *MissingKeyError
	if IsValidation(err) || errors.As(err, &tl) || errors.As(err, &mk) {
		// Retrying would only download the same refused body again.
		return PollDecision{Done: true}
	}
	// Transport errors, truncated or malformed bodies: back off and retry.
	return PollDecision{Delay: p.backoff(), Transient: true}
}

func (p *PollSchedule) previousCounts() *RequestCounts {
	if p.last == nil {
		return nil
	}
	rc := p.last.RequestCounts
	return &rc
}

// backoff is 1s, 2s, 4s ... capped, with up to 25% jitter either way.
func (p *PollSchedule) backoff() time.Duration {
	d := time.Second << min(p.failures, 16)
	p.failures++
	if d > p.opts.MaxBackoff {
		d = p.opts.MaxBackoff
	}
	j := 0.75 + p.opts.Jitter()*0.5
	return time.Duration(float64(d) * j)
}

// Last is the last good snapshot (including a 402's metadata), or nil.
func (p *PollSchedule) Last() *Batch { return p.last }

// PollUpdate is reported after every poll.
type PollUpdate struct {
	Batch    *Batch // the snapshot, or the last good one on error
	Err      error  // this poll's error, nil on success
	Decision PollDecision
	At       time.Time
}

// WatchBatch polls a batch until a terminal status, an incurable error or
// the end of ctx, calling report after every poll. It never polls after a
// terminal status. It returns the last snapshot and the error that ended
// polling (nil for a terminal status).
func (c *Client) WatchBatch(ctx context.Context, id string, opts PollOptions, report func(PollUpdate)) (*Batch, error) {
	sched := NewPollSchedule(opts, time.Now())
	for {
		b, err := c.GetBatch(ctx, id)
		now := time.Now()
		d := sched.Observe(b, err, now)
		if report != nil {
			report(PollUpdate{Batch: sched.Last(), Err: err, Decision: d, At: now})
		}
		if d.Done {
			if err != nil {
				return sched.Last(), err
			}
			return b, nil
		}
		if d.Capped {
			var ae *APIError
			errors.As(err, &ae)
			return sched.Last(), &WaitTooLongError{Err: ae, Asked: d.Asked}
		}
		if serr := c.sleep(ctx, d.Delay); serr != nil {
			return sched.Last(), serr
		}
	}
}
