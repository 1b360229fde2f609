package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

// drain reads a stream to its end and returns the events and final error.
func drain(t *testing.T, s *api.Stream) ([]api.Event, error) {
	t.Helper()
	var evs []api.Event
	for {
		ev, err := s.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestStreamCompleted(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{ThinkTime: 40 * time.Millisecond, KeepAliveEvery: 10 * time.Millisecond})
	req := api.ResponseRequest{Input: api.Input{Text: "Explain routing"}, Model: "openai/gpt-4o-mini", RoutingMetadata: true,
		Reasoning: &api.Reasoning{Effort: "low"}}
	s, err := c.StreamResponse(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(t, s)
	if err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	if s.Outcome() != api.OutcomeCompleted || s.Final() == nil || s.Final().Usage == nil || s.Routing() == nil {
		t.Fatalf("outcome %s final %v", s.Outcome(), s.Final())
	}
	if evs[0].Type != api.EventCreated || evs[0].Response == nil || evs[0].Response.Object != "response" || evs[0].Response.Status != api.ResponseInProgress {
		t.Fatalf("first event must carry a full in_progress response: %+v", evs[0])
	}
	var last int64 = -1
	deltas := 0
	for _, ev := range evs {
		if ev.SequenceNumber <= last {
			t.Fatalf("sequence numbers must increase")
		}
		last = ev.SequenceNumber
		if ev.ReceivedAt.IsZero() {
			t.Fatalf("event without arrival time")
		}
		if ev.Type == api.EventOutputTextDelta {
			deltas++
		}
	}
	if deltas < 50 || s.Reasoning() == "" || s.KeepAlives() < 2 {
		t.Fatalf("deltas %d reasoning %q keepalives %d", deltas, s.Reasoning(), s.KeepAlives())
	}
	if s.TimeToFirstToken() < 40*time.Millisecond {
		t.Fatalf("ttft %v shorter than the think time", s.TimeToFirstToken())
	}
	// The streamed text equals the non-streamed answer for the same prompt.
	req.Reasoning = nil
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: req.Input, Model: req.Model})
	if err != nil || r.OutputTextAll() != s.Text() {
		t.Fatalf("stream text differs from the plain answer (%v)", err)
	}
	if got := srv.RequestsTo("POST", "/api/v1/responses")[0]; got.Header.Get("Accept") != "text/event-stream" || !strings.Contains(string(got.Body), `"stream":true`) {
		t.Fatalf("stream request: %s %v", got.Body, got.Header)
	}
}

func TestStreamScenarios(t *testing.T) {
	_, c := startGateway(t, gateway.Options{})
	run := func(model string, max *int) (*api.Stream, error) {
		s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: model, MaxOutputTokens: max})
		if err != nil {
			return nil, err
		}
		_, err = drain(t, s)
		return s, err
	}
	s, err := run(gateway.ModelFailMidstream, nil)
	if err != io.EOF || s.Outcome() != api.OutcomeFailed || s.Failure() == nil || s.Failure().Code != "server_error" || s.Failure().ErrorType != "provider_unavailable" || s.Text() == "" {
		t.Fatalf("fail midstream: %v %s %+v", err, s.Outcome(), s.Failure())
	}
	s, err = run(gateway.ModelDrop, nil)
	var ie *api.InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, api.ErrInterrupted) || s.Outcome() != api.OutcomeInterrupted || ie.Text == "" || ie.Text != s.Text() {
		t.Fatalf("drop: %v %s", err, s.Outcome())
	}
	s, err = run(gateway.ModelErrorEvent, nil)
	if err != io.EOF || s.Outcome() != api.OutcomeFailed || s.Failure().Code != "provider_overloaded" {
		t.Fatalf("error event: %v %s %+v", err, s.Outcome(), s.Failure())
	}
	s, err = run("openai/gpt-4o", ptr(7))
	if err != io.EOF || s.Outcome() != api.OutcomeIncomplete || s.Final().IncompleteDetails.Reason != "max_output_tokens" {
		t.Fatalf("incomplete: %v %s", err, s.Outcome())
	}
	s, err = run(gateway.ModelRefusal, nil)
	if err != io.EOF || s.Refusal() == "" || s.Text() != "" {
		t.Fatalf("refusal: %v %q %q", err, s.Refusal(), s.Text())
	}
	_, err = c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: gateway.ModelRateLimited})
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 429 || ae.RetryAfter != 7*time.Second {
		t.Fatalf("rate limited stream: %v", err)
	}
}

// sseServer serves a fixed stream body and counts POSTs.
func sseServer(t *testing.T, body string) (*api.Client, func() int64) {
	srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	})
	return newClient(t, srv.URL, "k", ""), n.Load
}

func delta(seq int, text string) string {
	return fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"m","output_index":0,"content_index":0,"delta":%q,"logprobs":[]}`, seq, text)
}

const completedEvent = `{"type":"response.completed","sequence_number":99,"response":{"id":"r","object":"response","status":"completed","output":[],"usage":{"input_tokens":1,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":3,"cost":0.1},"openrouter_metadata":{"strategy":"direct"}}}`

func TestStreamEdgeCases(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	cases := []struct {
		name    string
		body    string
		outcome api.Outcome
		text    string
		check   func(*testing.T, *api.Stream, []api.Event, error)
	}{
		{"keepalives and LF", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: " + delta(1, "he") + "\n\n: ping\n\ndata: " + delta(2, "llo") + "\n\ndata: " + completedEvent + "\n\ndata: [DONE]\n\n",
			api.OutcomeCompleted, "hello", func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if s.KeepAlives() != 3 || s.Routing() == nil {
					t.Fatalf("keepalives %d routing %v", s.KeepAlives(), s.Routing())
				}
			}},
		{"CRLF framing", "event: response.output_text.delta\r\ndata: " + delta(1, "a") + "\r\n\r\ndata: " + delta(2, "b") + "\r\n\r\ndata: " + completedEvent + "\r\n\r\n",
			api.OutcomeCompleted, "ab", nil},
		{"multi-line data", "data: {\"type\":\"response.output_text.delta\",\ndata: \"delta\":\"z\"}\n\ndata: " + completedEvent + "\n\n", api.OutcomeCompleted, "z", nil},
		{"5 MiB event", "data: " + delta(1, big) + "\n\ndata: " + completedEvent + "\n\n", api.OutcomeCompleted, big, nil},
		{"DONE without terminal", "data: " + delta(1, "part") + "\n\ndata: [DONE]\n\n", api.OutcomeStreaming, "part",
			func(t *testing.T, s *api.Stream, _ []api.Event, err error) {
				if !errors.Is(err, api.ErrInterrupted) {
					t.Fatalf("want interrupted, got %v", err)
				}
			}},
		{"EOF without terminal", "data: " + delta(1, "half") + "\n\n", api.OutcomeInterrupted, "half",
			func(t *testing.T, s *api.Stream, _ []api.Event, err error) {
				var ie *api.InterruptedError
				if !errors.As(err, &ie) || ie.Text != "half" {
					t.Fatalf("want interrupted with the text, got %v", err)
				}
			}},
		{"response.failed", "data: " + delta(1, "so far") + "\n\ndata: {\"type\":\"response.failed\",\"sequence_number\":2,\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"},\"error_type\":\"server\"}}\n\ndata: [DONE]\n\n",
			api.OutcomeFailed, "so far", func(t *testing.T, s *api.Stream, evs []api.Event, err error) {
				if s.Failure().Message != "boom" || s.Failure().ErrorType != "server" || err != io.EOF {
					t.Fatalf("failure %+v %v", s.Failure(), err)
				}
			}},
		{"flat error event", "data: {\"type\":\"error\",\"code\":\"rate_limit\",\"message\":\"slow down\",\"param\":null}\n\n", api.OutcomeFailed, "",
			func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if s.Failure().Code != "rate_limit" || s.Failure().Message != "slow down" {
					t.Fatalf("failure %+v", s.Failure())
				}
			}},
		{"nested error event", "data: {\"type\":\"error\",\"error\":{\"code\":502,\"message\":\"upstream\",\"type\":\"server\"}}\n\n", api.OutcomeFailed, "",
			func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if s.Failure().Code != "502" || s.Failure().Message != "upstream" {
					t.Fatalf("failure %+v", s.Failure())
				}
			}},
		{"aliases and unknown types", "data: {\"type\":\"response.content_part.delta\",\"delta\":\"A\"}\n\ndata: {\"type\":\"response.reasoning.delta\",\"delta\":\"R\"}\n\ndata: {\"type\":\"response.image_generation_call.partial_image\",\"x\":1}\n\ndata: {\"type\":\"response.done\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n",
			api.OutcomeCompleted, "A", func(t *testing.T, s *api.Stream, evs []api.Event, _ error) {
				if s.Reasoning() != "R" || evs[2].Type != "response.image_generation_call.partial_image" || !strings.Contains(string(evs[2].Data), `"x":1`) || evs[3].WireType != "response.done" {
					t.Fatalf("events %+v", evs)
				}
			}},
		{"text only in final", "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"whole\"}]}]}}\n\n",
			api.OutcomeCompleted, "whole", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, posts := sseServer(t, tc.body)
			s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
			if err != nil {
				t.Fatal(err)
			}
			evs, err := drain(t, s)
			if tc.outcome != api.OutcomeStreaming && s.Outcome() != tc.outcome {
				t.Fatalf("outcome %s, want %s (err %v)", s.Outcome(), tc.outcome, err)
			}
			if s.Text() != tc.text {
				t.Fatalf("text %.40q, want %.40q", s.Text(), tc.text)
			}
			if tc.check != nil {
				tc.check(t, s, evs, err)
			}
			if posts() != 1 {
				t.Fatalf("%d POSTs for one stream: a stream must never be re-sent", posts())
			}
		})
	}
}

func TestStreamEventOverLimit(t *testing.T) {
	body := "data: " + delta(1, "ok") + "\n\ndata: " + delta(2, strings.Repeat("y", 2<<20)) + "\n\n"
	srv, posts := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	})
	c, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: "k", MaxEventBytes: 1 << 20})
	s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = drain(t, s)
	var tl *api.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, api.ErrInterrupted) || s.Text() != "ok" {
		t.Fatalf("want a refused oversized event keeping the text, got %v, %q", err, s.Text())
	}
	if posts.Load() != 1 {
		t.Fatalf("re-sent after an oversized event")
	}
}

func TestStreamStopAndServerErrors(t *testing.T) {
	// Stopping: cancel the context while the server is still sending.
	srv, posts := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; ; i++ {
			if _, err := io.WriteString(w, "data: "+delta(i, "t ")+"\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	c := newClient(t, srv.URL, "k", "")
	cx, cancel := context.WithCancel(context.Background())
	s, err := c.StreamResponse(cx, api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	_, err = drain(t, s)
	if !errors.Is(err, context.Canceled) || s.Outcome() != api.OutcomeStopped || !strings.HasPrefix(s.Text(), "t t t ") {
		t.Fatalf("stop: %v %s %q", err, s.Outcome(), s.Text())
	}
	if posts.Load() != 1 {
		t.Fatalf("stream re-sent")
	}

	// Non-2xx answers, JSON and not, are errors before any event.
	for _, tc := range []struct {
		status int
		ctype  string
		body   string
		want   string
	}{
		{503, "application/json", `{"error":{"code":503,"message":"overloaded"}}`, "overloaded"},
		{502, "text/html", "<html><body>Bad gateway</body></html>", "text/html"},
		{500, "application/json", "", "empty body"},
	} {
		srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.ctype)
			w.Header().Set("Retry-After", "4")
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		})
		c := newClient(t, srv.URL, "secret-key-abc", "")
		_, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
		var ae *api.APIError
		if !errors.As(err, &ae) || ae.Status != tc.status || !strings.Contains(err.Error(), tc.want) || ae.RetryAfter != 4*time.Second {
			t.Fatalf("%d: %v", tc.status, err)
		}
		if strings.Contains(err.Error(), "secret-key-abc") || n.Load() != 1 {
			t.Fatalf("leak or retry: %v %d", err, n.Load())
		}
	}
}

func TestDecoderFromReader(t *testing.T) {
	s := api.NewStreamFromReader(strings.NewReader("data: "+delta(1, "q")+"\n\ndata: "+completedEvent+"\n\n"), 0)
	if _, err := drain(t, s); err != io.EOF || s.Text() != "q" {
		t.Fatalf("%v %q", err, s.Text())
	}
}
