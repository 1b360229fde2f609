package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// EndState says how a response ended; every state has its own message.
type EndState string

// The end states of a response.
const (
	// EndOpen: not ended yet (streaming, or waiting for the answer).
	EndOpen       EndState = "streaming"
	EndCompleted  EndState = "completed"
	EndIncomplete EndState = "incomplete"
	EndFailed     EndState = "failed"
	// EndInterrupted: the connection closed (or an event was refused as
	// too large) before a final status.
	EndInterrupted EndState = "interrupted"
	// EndNoFinal: the stream said it was done ([DONE]) without a final
	// status.
	EndNoFinal EndState = "no final status"
	// EndMalformed: an event was not valid JSON; reading stopped there.
	EndMalformed EndState = "malformed"
	// EndTimedOut: the server sent nothing for too long, or an answer did
	// not come within the time limit.
	EndTimedOut EndState = "timed out"
	// EndStopped: stopped by the user.
	EndStopped EndState = "stopped"
	// EndNoAnswer: no answer at all (an HTTP error, a refused request, an
	// unreachable server).
	EndNoAnswer EndState = "no answer"
)

// Outcome is what a response came to: the one reading of a stream (or of
// a plain answer) that the respond command, the playground and the
// compare mode all use. Its strings are the server's; printers sanitize.
type Outcome struct {
	State    EndState
	Model    string
	Streamed bool
	// Final is the terminal Response object (nil when none came).
	Final *Response
	// TextBytes and RefusalBytes count the output and refusal text that
	// arrived in deltas; ReasoningBytes the reasoning.
	TextBytes, RefusalBytes, ReasoningBytes int64
	// Deltas counts text, reasoning and refusal deltas (the live token
	// count of a stream).
	Deltas int
	// FinalText is the terminal event's text when no delta carried any:
	// a server may send the whole answer only there.
	FinalText string
	// IncompleteReason is incomplete_details.reason.
	IncompleteReason string
	// Failure is the error a failed response reported.
	Failure *StreamError
	// Err is why the response did not complete: a *StreamError, an
	// *EndError, an *APIError, a transport error; nil when completed.
	Err error
	// Started is when the request was sent; FirstToken when the first
	// text, reasoning or refusal arrived; Ended when it ended.
	Started, FirstToken, Ended time.Time
	// GenerationID is the X-Generation-Id header (or the response id).
	GenerationID string
	Events       int
	KeepAlives   int
	// LastSeq is the last sequence_number seen (-1 before any).
	LastSeq int64
	// TruncatedAt is the cap an EndTruncated answer reached, in bytes.
	TruncatedAt int64
}

// Done reports whether the response has ended.
func (o Outcome) Done() bool { return o.State != EndOpen }

// OK reports whether the response completed.
func (o Outcome) OK() bool { return o.State == EndCompleted }

// Usage is the final usage, or nil.
func (o Outcome) Usage() *ResponseUsage {
	if o.Final == nil {
		return nil
	}
	return o.Final.Usage
}

// Cost is usage.cost, or nil when unknown.
func (o Outcome) Cost() *float64 {
	if u := o.Usage(); u != nil {
		return u.Cost
	}
	return nil
}

// OutputTokens is usage.output_tokens when known, else the deltas counted.
func (o Outcome) OutputTokens() int {
	if u := o.Usage(); u != nil {
		return u.OutputTokens
	}
	return o.Deltas
}

// TTFT is the time to first token, zero before one.
func (o Outcome) TTFT() time.Duration {
	if o.FirstToken.IsZero() {
		return 0
	}
	return o.FirstToken.Sub(o.Started)
}

// Elapsed is the time from the request to the end (or to now while open).
func (o Outcome) Elapsed(now time.Time) time.Duration {
	if !o.Ended.IsZero() {
		return o.Ended.Sub(o.Started)
	}
	return now.Sub(o.Started)
}

// MinRateWindow is the shortest stretch from the first token to the end
// over which a rate is stated: an answer that arrives in one burst (a
// buffering proxy, a cache) has no rate worth a number.
const MinRateWindow = 20 * time.Millisecond

// TokensPerSecond is output tokens over the time from the first token to
// the end. It is known only for a streamed answer that sent at least two
// deltas over at least MinRateWindow: a plain answer arrives at once, and
// a rate over no time is no rate.
func (o Outcome) TokensPerSecond() (float64, bool) {
	if !o.Streamed || o.Deltas < 2 || o.FirstToken.IsZero() || o.Ended.IsZero() {
		return 0, false
	}
	d := o.Ended.Sub(o.FirstToken).Seconds()
	if d < MinRateWindow.Seconds() {
		return 0, false
	}
	return float64(o.OutputTokens()) / d, true
}

// Message is the one true sentence for the end state.
func (o Outcome) Message() string {
	switch o.State {
	case EndOpen:
		if o.FirstToken.IsZero() {
			return "waiting for the first token"
		}
		return "streaming"
	case EndCompleted:
		return "completed"
	case EndIncomplete:
		if o.IncompleteReason == "" {
			return "incomplete (no reason given)"
		}
		return "incomplete: " + o.IncompleteReason
	case EndFailed:
		if o.Failure != nil {
			return o.Failure.Error()
		}
		return "response failed"
	case EndStopped:
		return "stopped by you; what arrived is kept"
	case EndTruncated:
		return (&TruncatedError{Cap: o.TruncatedAt}).Error()
	}
	if o.Err != nil {
		return o.Err.Error()
	}
	return string(o.State)
}

// StreamError is a failure reported inside a 200 stream (or by a failed
// response).
type StreamError struct {
	Code      string
	Message   string
	Param     *string
	ErrorType string
}

func (e *StreamError) Error() string {
	s := "response failed"
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.ErrorType != "" {
		s += " [" + e.ErrorType + "]"
	}
	return s
}

// ErrInterrupted is matched by errors.Is for a stream that ended without
// a final status (interrupted, no final status, malformed, timed out).
var ErrInterrupted = errors.New("stream ended before a final status")

// EndError is how a stream ended when it did not end with a final status.
// Unwrap gives the cause (context.Canceled when stopped, a
// *TooLargeError for a refused event, ...).
type EndError struct {
	State EndState
	Cause error
	// Event is the 1-based number of the malformed event; AfterSeq the
	// sequence_number before it (-1 if none).
	Event    int
	AfterSeq int64
	Idle     time.Duration
}

func (e *EndError) Error() string {
	const kept = "; what arrived is kept"
	switch e.State {
	case EndNoFinal:
		return "no final status: the stream ended ([DONE]) before response.completed" + kept
	case EndMalformed:
		after := "before any sequence number"
		if e.AfterSeq >= 0 {
			after = fmt.Sprintf("after sequence_number %d", e.AfterSeq)
		}
		return fmt.Sprintf("malformed: event %d (%s) was not valid JSON (%v); reading stopped%s", e.Event, after, e.Cause, kept)
	case EndTimedOut:
		if e.Idle > 0 {
			return fmt.Sprintf("timed out: the server sent nothing (not even a keep-alive) for %s%s", HumanDuration(e.Idle), kept)
		}
		return "timed out" + kept
	case EndStopped:
		return "stopped by you" + kept
	}
	if e.Cause == nil || errors.Is(e.Cause, io.EOF) || errors.Is(e.Cause, io.ErrUnexpectedEOF) || strings.Contains(e.Cause.Error(), "connection reset") {
		return "interrupted: the connection closed before a final status" + kept
	}
	return "interrupted: " + e.Cause.Error() + kept
}

// Is makes errors.Is(err, ErrInterrupted) true for the states that ended
// without a final status by the server's doing.
func (e *EndError) Is(target error) bool {
	return target == ErrInterrupted && e.State != EndStopped
}

// Unwrap returns the cause.
func (e *EndError) Unwrap() error { return e.Cause }

// fold builds an Outcome from events; Stream owns one.
type fold struct{ o Outcome }

func newFold(model string, streamed bool, started time.Time, generationID string) fold {
	return fold{o: Outcome{State: EndOpen, Model: model, Streamed: streamed, Started: started, GenerationID: generationID, LastSeq: -1}}
}

// apply folds one event in.
func (f *fold) apply(ev *Event) {
	o := &f.o
	o.Events++
	if ev.SequenceNumber > o.LastSeq {
		o.LastSeq = ev.SequenceNumber
	}
	switch ev.Type {
	case EventOutputTextDelta:
		f.token(ev.ReceivedAt)
		o.TextBytes += int64(len(ev.Delta))
	case EventReasoningDelta, EventReasoningSummary:
		f.token(ev.ReceivedAt)
		o.ReasoningBytes += int64(len(ev.Delta))
	case EventRefusalDelta:
		f.token(ev.ReceivedAt)
		o.RefusalBytes += int64(len(ev.Delta))
	case EventCompleted, EventIncomplete, EventFailed:
		f.final(ev.Type, ev.Response, ev.Error, ev.ReceivedAt)
	case EventError:
		o.State, o.Ended = EndFailed, ev.ReceivedAt
		o.Failure = ev.Error
		if o.Failure == nil {
			o.Failure = &StreamError{Message: "the stream reported an error without a message"}
		}
		o.Err = o.Failure
	}
}

func (f *fold) token(t time.Time) {
	f.o.Deltas++
	if f.o.FirstToken.IsZero() {
		f.o.FirstToken = t
	}
}

// final folds the terminal response in.
func (f *fold) final(typ string, r *Response, failure *StreamError, at time.Time) {
	o := &f.o
	o.Final, o.Ended = r, at
	switch {
	case typ == EventFailed || r != nil && r.Status == ResponseFailed:
		o.State = EndFailed
		o.Failure = failure
		if o.Failure == nil && r != nil && r.Error != nil {
			o.Failure = &StreamError{Code: r.Error.Code, Message: r.Error.Message}
			if r.ErrorType != nil {
				o.Failure.ErrorType = string(*r.ErrorType)
			}
		}
		if o.Failure == nil {
			o.Failure = &StreamError{Message: "the response failed without a reason"}
		}
		o.Err = o.Failure
	case typ == EventIncomplete || r != nil && r.Status == ResponseIncomplete:
		o.State = EndIncomplete
		if r != nil && r.IncompleteDetails != nil {
			o.IncompleteReason = r.IncompleteDetails.Reason
		}
	default:
		o.State = EndCompleted
	}
	if r != nil {
		if o.TextBytes == 0 && o.RefusalBytes == 0 {
			o.FinalText = r.OutputTextAll()
			if o.FinalText == "" {
				o.FinalText = r.RefusalText()
			}
		}
		if o.GenerationID == "" {
			o.GenerationID = r.ID
		}
	}
}

// end records how a stream ended when it ended without a terminal event.
func (f *fold) end(err *EndError, at time.Time) {
	if f.o.Ended.IsZero() {
		f.o.Ended = at
	}
	if f.o.State != EndOpen {
		return
	}
	f.o.State, f.o.Err = err.State, err
}

// OutcomeOf reads a plain (non-streamed) answer, or the error that came
// instead, as an Outcome.
func OutcomeOf(model string, r *Response, err error, started, ended time.Time) Outcome {
	gen := ""
	if r != nil {
		gen = r.GenerationID
	}
	f := newFold(model, false, started, gen)
	if err != nil {
		f.o.Ended = ended
		switch {
		case errors.Is(err, context.Canceled):
			f.o.State, f.o.Err = EndStopped, &EndError{State: EndStopped, Cause: err}
		case isTimeout(err):
			f.o.State, f.o.Err = EndTimedOut, err
		default:
			f.o.State, f.o.Err = EndNoAnswer, err
		}
		return f.o
	}
	f.o.FirstToken = ended
	typ := EventCompleted
	switch r.Status {
	case ResponseFailed:
		typ = EventFailed
	case ResponseIncomplete:
		typ = EventIncomplete
	}
	f.final(typ, r, nil, ended)
	if r.Status != ResponseCompleted && r.Status != ResponseFailed && r.Status != ResponseIncomplete {
		// in_progress, queued, cancelled or unknown: not an answer
		f.o.State = EndNoFinal
		f.o.Err = fmt.Errorf("the answer's status is %q, not a final one", strings.TrimSpace(string(r.Status)))
	}
	return f.o
}

// Stopped is the outcome of a response the user stopped at a time: what
// arrived is kept, the state is EndStopped. An ended outcome is returned
// as it is (the answer beat the stop).
func (o Outcome) Stopped(at time.Time) Outcome {
	if o.Done() {
		return o
	}
	o.State, o.Err, o.Ended = EndStopped, &EndError{State: EndStopped, Cause: context.Canceled}, at
	return o
}

// OpenFailed is the Outcome of a stream that never opened.
func OpenFailed(model string, err error, started, ended time.Time) Outcome {
	return OutcomeOf(model, nil, err, started, ended)
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var te *TransportError
	return errors.As(err, &te) && (strings.Contains(te.Err.Error(), "within") || strings.Contains(te.Err.Error(), "sent nothing"))
}
