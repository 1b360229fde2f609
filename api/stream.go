package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"time"

	"github.com/r3labs/sse/v2"
)

// Stream event types of POST /responses (service-facts.md). Unknown types
// are passed through with their Data.
const (
	EventCreated             = "response.created"
	EventInProgress          = "response.in_progress"
	EventOutputItemAdded     = "response.output_item.added"
	EventOutputItemDone      = "response.output_item.done"
	EventContentPartAdded    = "response.content_part.added"
	EventContentPartDone     = "response.content_part.done"
	EventOutputTextDelta     = "response.output_text.delta"
	EventOutputTextDone      = "response.output_text.done"
	EventAnnotationAdded     = "response.output_text.annotation.added"
	EventReasoningDelta      = "response.reasoning_text.delta"
	EventReasoningDone       = "response.reasoning_text.done"
	EventReasoningSummary    = "response.reasoning_summary_text.delta"
	EventReasoningSummaryEnd = "response.reasoning_summary_text.done"
	EventSummaryPartAdded    = "response.reasoning_summary_part.added"
	EventSummaryPartDone     = "response.reasoning_summary_part.done"
	EventRefusalDelta        = "response.refusal.delta"
	EventRefusalDone         = "response.refusal.done"
	EventFunctionArgsDelta   = "response.function_call_arguments.delta"
	EventFunctionArgsDone    = "response.function_call_arguments.done"
	EventWebSearchProgress   = "response.web_search_call.in_progress"
	EventWebSearchSearching  = "response.web_search_call.searching"
	EventWebSearchCompleted  = "response.web_search_call.completed"
	EventCompleted           = "response.completed"
	EventIncomplete          = "response.incomplete"
	EventFailed              = "response.failed"
	EventError               = "error"
)

// known reports whether Event decodes a type into its fields; others
// keep their Data.
func known(t string) bool {
	switch t {
	case EventCreated, EventInProgress, EventOutputItemAdded, EventOutputItemDone, EventContentPartAdded,
		EventContentPartDone, EventOutputTextDelta, EventOutputTextDone, EventReasoningDelta, EventReasoningDone,
		EventReasoningSummary, EventReasoningSummaryEnd, EventRefusalDelta, EventRefusalDone, EventFunctionArgsDelta,
		EventFunctionArgsDone, EventCompleted, EventIncomplete, EventFailed, EventError:
		return true
	}
	return false
}

// eventAliases map older names still seen in the wild to current ones.
var eventAliases = map[string]string{
	"response.content_part.delta": EventOutputTextDelta,
	"response.done":               EventCompleted,
	"response.reasoning.delta":    EventReasoningDelta,
}

// Event is one decoded stream event. Type is the canonical type (aliases
// resolved); WireType is what the server sent.
type Event struct {
	Type           string
	WireType       string
	SequenceNumber int64
	ReceivedAt     time.Time
	// Data is the event's JSON exactly as sent, for the types Event does
	// not decode (image generation, code interpreter, web search, …).
	Data         json.RawMessage
	Response     *Response
	OutputIndex  int
	ContentIndex int
	ItemID       string
	Item         *OutputItem
	Part         *OutputContent
	// Delta is the text piece of *.delta events (text, reasoning, refusal,
	// function arguments); Text the whole text of *.done events.
	Delta string
	Text  string
	// Error is set on response.failed and error events.
	Error *StreamError
}

// Stream reads one streamed response. It holds no text: what arrived is
// in the events, and Outcome counts it, so its memory does not grow with
// the answer. It is not safe for concurrent use; Close may be called from
// any goroutine to stop it.
type Stream struct {
	body     io.ReadCloser
	reader   *sse.EventStreamReader
	ctx      context.Context
	cancel   context.CancelFunc
	maxEvent int
	fold     fold
	endErr   error
	frames   int
}

// StreamResponse sends the request with stream: true and returns the open
// stream. Non-2xx answers return an *APIError. It never retries and never
// reconnects: a second POST would be a second paid generation.
func (c *Client) StreamResponse(ctx context.Context, req ResponseRequest) (*Stream, error) {
	hr, err := req.httpRequest(true)
	if err != nil {
		return nil, err
	}
	ctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(context.Canceled) }
	started := time.Now()
	// The idle bound covers the wait for the answer's headers too.
	headerWait := time.AfterFunc(c.idle, func() { cancelCause(&idleError{c.idle}) })
	resp, err := c.send(ctx, hr)
	headerWait.Stop()
	if err != nil {
		var idle *idleError
		if errors.As(context.Cause(ctx), &idle) {
			err = &TransportError{Op: "POST /responses", Err: fmt.Errorf("no answer headers within %s", HumanDuration(c.idle))}
		}
		cancel()
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		defer resp.Body.Close()
		cancel()
		return nil, &DecodeError{Op: "POST /responses", Status: resp.StatusCode, Err: fmt.Errorf("expected text/event-stream, got %q", mt)}
	}
	body := newIdleReader(resp.Body, c.idle, func() { cancelCause(&idleError{c.idle}) })
	return newStream(ctx, cancel, body, c.maxEvent, started, req.Model, resp.Header.Get("X-Generation-Id")), nil
}

// idleError is the cause of a stream ended for sending nothing.
type idleError struct{ d time.Duration }

func (e *idleError) Error() string {
	return fmt.Sprintf("the server sent nothing (not even a keep-alive) for %s", HumanDuration(e.d))
}

// idleReader calls onIdle when no read has returned data for d.
type idleReader struct {
	io.ReadCloser
	t *time.Timer
	d time.Duration
}

func newIdleReader(r io.ReadCloser, d time.Duration, onIdle func()) *idleReader {
	return &idleReader{ReadCloser: r, d: d, t: time.AfterFunc(d, onIdle)}
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.t.Reset(r.d)
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.t.Stop()
	return r.ReadCloser.Close()
}

// NewStreamFromReader reads events from r, as StreamResponse does from a
// response body. It serves tests and benchmarks of the decoder.
func NewStreamFromReader(r io.Reader, maxEventBytes int) *Stream {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	return newStream(ctx, cancel, io.NopCloser(r), maxEventBytes, time.Now(), "", "")
}

func newStream(ctx context.Context, cancel context.CancelFunc, body io.ReadCloser, maxEvent int, started time.Time, model, generationID string) *Stream {
	return &Stream{
		body:     body,
		reader:   sse.NewEventStreamReader(body, maxEvent),
		ctx:      ctx,
		cancel:   cancel,
		maxEvent: maxEvent,
		fold:     newFold(model, true, started, generationID),
	}
}

// Close stops the stream and releases the connection. If it had not ended,
// its outcome becomes stopped.
func (s *Stream) Close() error {
	s.cancel()
	if s.endErr == nil {
		s.stop(&EndError{State: EndStopped, Cause: context.Canceled}, time.Now())
	}
	return s.body.Close()
}

// Next returns the next event. At the end it returns io.EOF after a
// terminal event (response.completed, .incomplete, .failed, or an error
// event), and otherwise an *EndError saying how the stream ended (its
// Unwrap is context.Canceled when it was stopped). A malformed event ends
// the stream: what arrived before it stands, nothing after it is guessed.
func (s *Stream) Next() (Event, error) {
	for {
		if s.endErr != nil {
			return Event{}, s.endErr
		}
		raw, err := s.reader.ReadEvent()
		now := time.Now()
		if err != nil {
			return Event{}, s.finish(err, now)
		}
		s.frames++
		data, name := parseFrame(raw)
		if data == nil {
			s.fold.o.KeepAlives++ // comment-only frame, or no data
			continue
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
			if s.fold.o.Done() {
				return Event{}, s.stop(io.EOF, now)
			}
			return Event{}, s.stop(&EndError{State: EndNoFinal}, now)
		}
		ev, err := decodeEvent(data, name)
		if err != nil {
			return Event{}, s.stop(&EndError{State: EndMalformed, Cause: err, Event: s.fold.o.Events + 1, AfterSeq: s.fold.o.LastSeq}, now)
		}
		ev.ReceivedAt = now
		s.fold.apply(&ev)
		return ev, nil
	}
}

// stop ends the stream with err (io.EOF after a terminal event).
func (s *Stream) stop(err error, at time.Time) error {
	if ee, ok := err.(*EndError); ok {
		s.fold.end(ee, at)
	} else if s.fold.o.Ended.IsZero() {
		s.fold.o.Ended = at
	}
	s.endErr = err
	s.body.Close()
	return err
}

// finish turns a read error into the stream's end.
func (s *Stream) finish(err error, at time.Time) error {
	if s.fold.o.Done() {
		return s.stop(io.EOF, at)
	}
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		var idle *idleError
		if errors.As(context.Cause(s.ctx), &idle) {
			return s.stop(&EndError{State: EndTimedOut, Cause: idle, Idle: idle.d}, at)
		}
		state := EndStopped
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			state = EndTimedOut
		}
		return s.stop(&EndError{State: state, Cause: ctxErr}, at)
	}
	if errors.Is(err, bufio.ErrTooLong) {
		err = &TooLargeError{What: "stream event", Limit: int64(s.maxEvent)}
	}
	return s.stop(&EndError{State: EndInterrupted, Cause: err}, at)
}

// Outcome is what the stream has come to so far (State EndOpen while it
// runs).
func (s *Stream) Outcome() Outcome { return s.fold.o }

// parseFrame returns the joined data lines and the event name of one
// frame, or nil data when the frame has none (a comment).
func parseFrame(b []byte) (data []byte, name string) {
	// Fast path: one data line.
	if bytes.HasPrefix(b, []byte("data:")) && bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return trimField(b[5:]), ""
	}
	var lines int
	hasCR := bytes.IndexByte(b, '\r') >= 0
	for len(b) > 0 {
		var line []byte
		i := -1
		if hasCR {
			i = bytes.IndexAny(b, "\r\n")
		} else {
			i = bytes.IndexByte(b, '\n')
		}
		if i >= 0 {
			line = b[:i]
			if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
				b = b[i+2:]
			} else {
				b = b[i+1:]
			}
		} else {
			line, b = b, nil
		}
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], trimField(line[i+1:])
		}
		switch string(field) {
		case "data":
			switch lines {
			case 0: // one data line: no copy
				data = value
				if data == nil {
					data = []byte{}
				}
			case 1:
				data = append(append(append([]byte(nil), data...), '\n'), value...)
			default:
				data = append(append(data, '\n'), value...)
			}
			lines++
		case "event":
			name = string(value)
		}
	}
	return data, name
}

func trimField(v []byte) []byte {
	if len(v) > 0 && v[0] == ' ' {
		return v[1:]
	}
	return v
}

type wireEvent struct {
	Type           string          `json:"type"`
	SequenceNumber int64           `json:"sequence_number"`
	Response       *Response       `json:"response"`
	OutputIndex    int             `json:"output_index"`
	ContentIndex   int             `json:"content_index"`
	ItemID         string          `json:"item_id"`
	Item           *OutputItem     `json:"item"`
	Part           *OutputContent  `json:"part"`
	Delta          string          `json:"delta"`
	Text           string          `json:"text"`
	Arguments      string          `json:"arguments"`
	Refusal        string          `json:"refusal"`
	Code           json.RawMessage `json:"code"`
	Message        string          `json:"message"`
	Param          *string         `json:"param"`
	ErrorType      string          `json:"error_type"`
	Error          *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Param   *string         `json:"param"`
		Type    string          `json:"type"`
	} `json:"error"`
}

func decodeEvent(data []byte, name string) (Event, error) {
	var w wireEvent
	if err := checkMembers(data); err != nil {
		return Event{}, err
	}
	if err := decode(data, &w); err != nil {
		return Event{}, err
	}
	wireType := w.Type
	if wireType == "" {
		wireType = name
	}
	ev := Event{
		Type:           wireType,
		WireType:       wireType,
		SequenceNumber: w.SequenceNumber,
		Response:       w.Response,
		OutputIndex:    w.OutputIndex,
		ContentIndex:   w.ContentIndex,
		ItemID:         w.ItemID,
		Item:           w.Item,
		Part:           w.Part,
		Delta:          w.Delta,
		Text:           w.Text,
	}
	if !known(wireType) {
		if alias, ok := eventAliases[wireType]; ok {
			ev.Type = alias
		}
	}
	if !known(ev.Type) {
		// Unknown types pass through with their JSON; known ones are
		// fully decoded, so their bytes are not kept (the hot path).
		ev.Data = append(json.RawMessage(nil), data...)
	}
	switch ev.Type {
	case EventFunctionArgsDone:
		if ev.Text == "" {
			ev.Text = w.Arguments
		}
	case EventRefusalDone:
		if ev.Text == "" {
			ev.Text = w.Refusal
		}
	case EventFailed:
		se := &StreamError{ErrorType: w.ErrorType}
		if r := w.Response; r != nil {
			if r.Error != nil {
				se.Code, se.Message = r.Error.Code, r.Error.Message
			}
			if r.ErrorType != nil && se.ErrorType == "" {
				se.ErrorType = string(*r.ErrorType)
			}
		}
		ev.Error = se
	case EventError:
		se := &StreamError{Code: rawCode(w.Code), Message: w.Message, Param: w.Param, ErrorType: w.ErrorType}
		if e := w.Error; e != nil { // the older nested form
			if se.Code == "" {
				se.Code = rawCode(e.Code)
			}
			if se.Message == "" {
				se.Message = e.Message
			}
			if se.Param == nil {
				se.Param = e.Param
			}
			if se.ErrorType == "" {
				se.ErrorType = e.Type
			}
		}
		ev.Error = se
	}
	return ev, nil
}
