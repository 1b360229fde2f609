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

// StreamError is a failure reported inside a 200 stream.
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

// ErrInterrupted is matched by errors.Is for a stream that ended without a
// terminal event.
var ErrInterrupted = errors.New("stream interrupted before a terminal event")

// InterruptedError is a stream that ended (EOF, [DONE], a dropped
// connection, an oversized event) without response.completed, .incomplete
// or .failed. Text holds what arrived.
type InterruptedError struct {
	Cause error
	Text  string
}

func (e *InterruptedError) Error() string {
	if e.Cause == nil {
		return ErrInterrupted.Error()
	}
	return ErrInterrupted.Error() + ": " + e.Cause.Error()
}

// Is makes errors.Is(err, ErrInterrupted) true.
func (e *InterruptedError) Is(target error) bool { return target == ErrInterrupted }

// Unwrap returns the cause.
func (e *InterruptedError) Unwrap() error { return e.Cause }

// Outcome is how a stream ended.
type Outcome string

// Stream outcomes.
const (
	OutcomeStreaming   Outcome = "streaming"
	OutcomeCompleted   Outcome = "completed"
	OutcomeIncomplete  Outcome = "incomplete"
	OutcomeFailed      Outcome = "failed"
	OutcomeInterrupted Outcome = "interrupted"
	OutcomeStopped     Outcome = "stopped"
)

// Stream reads one streamed response. It is not safe for concurrent use;
// Close may be called from any goroutine to stop it.
type Stream struct {
	body       io.ReadCloser
	reader     *sse.EventStreamReader
	ctx        context.Context
	cancel     context.CancelFunc
	maxEvent   int
	started    time.Time
	firstToken time.Time
	lastEvent  time.Time

	text      []byte
	reasoning []byte
	refusal   []byte
	final     *Response
	routing   *RoutingMetadata
	failure   *StreamError
	outcome   Outcome
	endErr    error
	events    int
	keepAlive int
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
			err = &TransportError{Op: "POST /responses", Err: idle}
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
	return newStream(ctx, cancel, body, c.maxEvent, started), nil
}

// idleError is the cause of a stream ended for sending nothing.
type idleError struct{ d time.Duration }

func (e *idleError) Error() string {
	return fmt.Sprintf("the server sent nothing (not even a keep-alive) for %s", e.d)
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
	return newStream(ctx, cancel, io.NopCloser(r), maxEventBytes, time.Now())
}

func newStream(ctx context.Context, cancel context.CancelFunc, body io.ReadCloser, maxEvent int, started time.Time) *Stream {
	return &Stream{
		body:     body,
		reader:   sse.NewEventStreamReader(body, maxEvent),
		ctx:      ctx,
		cancel:   cancel,
		maxEvent: maxEvent,
		started:  started,
		outcome:  OutcomeStreaming,
	}
}

// Close stops the stream and releases the connection. If no terminal event
// had arrived, the outcome becomes stopped.
func (s *Stream) Close() error {
	s.cancel()
	return s.body.Close()
}

// Next returns the next event. At the end it returns io.EOF after a
// terminal event, an *InterruptedError without one, or the context's error
// when the stream was stopped. response.failed and error events are
// returned as events (with Error set), and the stream then ends.
func (s *Stream) Next() (Event, error) {
	for {
		if s.endErr != nil {
			return Event{}, s.endErr
		}
		raw, err := s.reader.ReadEvent()
		now := time.Now()
		if err != nil {
			return Event{}, s.finish(err)
		}
		data, name := parseFrame(raw)
		if data == nil {
			s.keepAlive++ // comment-only frame, or no data
			continue
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
			if s.terminal() {
				return Event{}, s.end(io.EOF)
			}
			return Event{}, s.end(&InterruptedError{Cause: errors.New("[DONE] came before any terminal event"), Text: string(s.text)})
		}
		ev, err := decodeEvent(data, name)
		if err != nil {
			// A malformed event is reported but does not end the stream.
			ev = Event{Type: "invalid", WireType: name, Data: append(json.RawMessage(nil), data...)}
		}
		ev.ReceivedAt = now
		s.lastEvent = now
		s.events++
		s.apply(&ev)
		return ev, nil
	}
}

func (s *Stream) terminal() bool { return s.outcome != OutcomeStreaming }

func (s *Stream) end(err error) error {
	s.endErr = err
	s.body.Close()
	return err
}

// finish turns a read error into the stream's end.
func (s *Stream) finish(err error) error {
	if s.terminal() && s.outcome != OutcomeStopped {
		return s.end(io.EOF)
	}
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		var idle *idleError
		if errors.As(context.Cause(s.ctx), &idle) {
			s.outcome = OutcomeInterrupted
			return s.end(&InterruptedError{Cause: idle, Text: string(s.text)})
		}
		s.outcome = OutcomeStopped
		return s.end(ctxErr)
	}
	s.outcome = OutcomeInterrupted
	switch {
	case err == io.EOF:
		err = errors.New("the connection closed")
	case errors.Is(err, bufio.ErrTooLong):
		err = &TooLargeError{What: "stream event", Limit: int64(s.maxEvent)}
	}
	return s.end(&InterruptedError{Cause: err, Text: string(s.text)})
}

// apply folds an event into the stream's state.
func (s *Stream) apply(ev *Event) {
	switch ev.Type {
	case EventOutputTextDelta:
		s.markToken(ev.ReceivedAt)
		s.text = append(s.text, ev.Delta...)
	case EventReasoningDelta, EventReasoningSummary:
		s.markToken(ev.ReceivedAt)
		s.reasoning = append(s.reasoning, ev.Delta...)
	case EventRefusalDelta:
		s.markToken(ev.ReceivedAt)
		s.refusal = append(s.refusal, ev.Delta...)
	case EventCompleted, EventIncomplete, EventFailed:
		s.final = ev.Response
		if ev.Response != nil && ev.Response.OpenRouterMetadata != nil {
			s.routing = ev.Response.OpenRouterMetadata
		}
		switch {
		case ev.Type == EventFailed || (ev.Response != nil && ev.Response.Status == ResponseFailed):
			s.outcome = OutcomeFailed
			s.failure = ev.Error
			if s.failure == nil {
				s.failure = &StreamError{Message: "the response failed without a reason"}
				ev.Error = s.failure
			}
		case ev.Type == EventIncomplete || (ev.Response != nil && ev.Response.Status == ResponseIncomplete):
			s.outcome = OutcomeIncomplete
		default:
			s.outcome = OutcomeCompleted
		}
		if len(s.text) == 0 && ev.Response != nil {
			s.text = append(s.text, ev.Response.OutputTextAll()...)
		}
	case EventError:
		s.outcome = OutcomeFailed
		s.failure = ev.Error
	}
}

func (s *Stream) markToken(t time.Time) {
	if s.firstToken.IsZero() {
		s.firstToken = t
	}
}

// Outcome is how the stream ended so far (streaming while it runs).
func (s *Stream) Outcome() Outcome { return s.outcome }

// Final is the terminal event's Response, or nil.
func (s *Stream) Final() *Response { return s.final }

// Failure is the error a failed stream reported, or nil.
func (s *Stream) Failure() *StreamError { return s.failure }

// Routing is the routing metadata, when it arrived.
func (s *Stream) Routing() *RoutingMetadata { return s.routing }

// Text is the output text received so far.
func (s *Stream) Text() string { return string(s.text) }

// Reasoning is the reasoning text received so far.
func (s *Stream) Reasoning() string { return string(s.reasoning) }

// Refusal is the refusal text received so far.
func (s *Stream) Refusal() string { return string(s.refusal) }

// Started is when the request was sent.
func (s *Stream) Started() time.Time { return s.started }

// TimeToFirstToken is the delay from the request to the first text,
// reasoning or refusal delta; zero before one arrives.
func (s *Stream) TimeToFirstToken() time.Duration {
	if s.firstToken.IsZero() {
		return 0
	}
	return s.firstToken.Sub(s.started)
}

// KeepAlives counts the comment-only frames received.
func (s *Stream) KeepAlives() int { return s.keepAlive }

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
			if lines > 0 {
				data = append(data, '\n')
			}
			data = append(data, value...)
			if data == nil {
				data = []byte{}
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
