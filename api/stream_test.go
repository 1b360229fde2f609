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

// textOf joins the deltas of one kind: what a reader of the stream shows.
func textOf(evs []api.Event, typ string) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Type == typ {
			b.WriteString(ev.Delta)
		}
	}
	return b.String()
}

func TestStreamCompleted(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{ThinkTime: 40 * time.Millisecond, KeepAliveEvery: 10 * time.Millisecond, TokensPerSecond: 2000})
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
	o := s.Outcome()
	if o.State != api.EndCompleted || o.Final == nil || o.Usage() == nil || o.Final.OpenRouterMetadata == nil {
		t.Fatalf("outcome %s final %v", o.State, o.Final)
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
	if deltas < 50 || textOf(evs, api.EventReasoningDelta) == "" || o.KeepAlives < 2 || o.ReasoningBytes == 0 || o.TextBytes != int64(len(textOf(evs, api.EventOutputTextDelta))) {
		t.Fatalf("deltas %d reasoning %d keepalives %d text %d", deltas, o.ReasoningBytes, o.KeepAlives, o.TextBytes)
	}
	if o.TTFT() < 40*time.Millisecond {
		t.Fatalf("ttft %v shorter than the think time", o.TTFT())
	}
	if tps, ok := o.TokensPerSecond(); !ok || tps <= 0 {
		t.Fatalf("a streamed answer has a rate: %v %v", tps, ok)
	}
	// The streamed text equals the non-streamed answer for the same prompt.
	req.Reasoning = nil
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: req.Input, Model: req.Model})
	if err != nil || r.OutputTextAll() != textOf(evs, api.EventOutputTextDelta) {
		t.Fatalf("stream text differs from the plain answer (%v)", err)
	}
	plain := api.OutcomeOf(req.Model, r, nil, time.Now(), time.Now())
	if _, ok := plain.TokensPerSecond(); ok || plain.State != api.EndCompleted {
		t.Fatalf("a plain answer has no tokens per second: %+v", plain)
	}
	if got := srv.RequestsTo("POST", "/api/v1/responses")[0]; got.Header.Get("Accept") != "text/event-stream" || !strings.Contains(string(got.Body), `"stream":true`) {
		t.Fatalf("stream request: %s %v", got.Body, got.Header)
	}
}

func TestStreamScenarios(t *testing.T) {
	_, c := startGateway(t, gateway.Options{})
	run := func(model string, max *int) (*api.Stream, []api.Event, error) {
		s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: model, MaxOutputTokens: max})
		if err != nil {
			return nil, nil, err
		}
		evs, err := drain(t, s)
		return s, evs, err
	}
	s, evs, err := run(gateway.ModelFailMidstream, nil)
	o := s.Outcome()
	if err != io.EOF || o.State != api.EndFailed || o.Failure == nil || o.Failure.Code != "server_error" || o.Failure.ErrorType != "provider_unavailable" || textOf(evs, api.EventOutputTextDelta) == "" {
		t.Fatalf("fail midstream: %v %s %+v", err, o.State, o.Failure)
	}
	s, evs, err = run(gateway.ModelDrop, nil)
	var ee *api.EndError
	if !errors.As(err, &ee) || !errors.Is(err, api.ErrInterrupted) || s.Outcome().State != api.EndInterrupted || textOf(evs, api.EventOutputTextDelta) == "" || s.Outcome().TextBytes != int64(len(textOf(evs, api.EventOutputTextDelta))) {
		t.Fatalf("drop: %v %s", err, s.Outcome().State)
	}
	s, _, err = run(gateway.ModelErrorEvent, nil)
	if err != io.EOF || s.Outcome().State != api.EndFailed || s.Outcome().Failure.Code != "provider_overloaded" {
		t.Fatalf("error event: %v %s %+v", err, s.Outcome().State, s.Outcome().Failure)
	}
	s, _, err = run("openai/gpt-4o", ptr(7))
	if err != io.EOF || s.Outcome().State != api.EndIncomplete || s.Outcome().IncompleteReason != "max_output_tokens" || s.Outcome().Message() != "incomplete: max_output_tokens" {
		t.Fatalf("incomplete: %v %s", err, s.Outcome().State)
	}
	s, evs, err = run(gateway.ModelRefusal, nil)
	if err != io.EOF || textOf(evs, api.EventRefusalDelta) == "" || textOf(evs, api.EventOutputTextDelta) != "" || s.Outcome().RefusalBytes == 0 || s.Outcome().FinalText != "" {
		t.Fatalf("refusal: %v %+v", err, s.Outcome())
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
		outcome api.EndState
		text    string
		check   func(*testing.T, *api.Stream, []api.Event, error)
	}{
		{"keepalives and LF", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: " + delta(1, "he") + "\n\n: ping\n\ndata: " + delta(2, "llo") + "\n\ndata: " + completedEvent + "\n\ndata: [DONE]\n\n",
			api.EndCompleted, "hello", func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if o := s.Outcome(); o.KeepAlives != 3 || o.Final.OpenRouterMetadata == nil {
					t.Fatalf("keepalives %d routing %v", o.KeepAlives, o.Final.OpenRouterMetadata)
				}
			}},
		{"CRLF framing", "event: response.output_text.delta\r\ndata: " + delta(1, "a") + "\r\n\r\ndata: " + delta(2, "b") + "\r\n\r\ndata: " + completedEvent + "\r\n\r\n",
			api.EndCompleted, "ab", nil},
		{"multi-line data", "data: {\"type\":\"response.output_text.delta\",\ndata: \"delta\":\"z\"}\n\ndata: " + completedEvent + "\n\n", api.EndCompleted, "z", nil},
		{"5 MiB event", "data: " + delta(1, big) + "\n\ndata: " + completedEvent + "\n\n", api.EndCompleted, big, nil},
		{"DONE without terminal", "data: " + delta(1, "part") + "\n\ndata: [DONE]\n\n", api.EndNoFinal, "part",
			func(t *testing.T, s *api.Stream, _ []api.Event, err error) {
				if !errors.Is(err, api.ErrInterrupted) || !strings.Contains(err.Error(), "no final status: the stream ended ([DONE])") {
					t.Fatalf("want no final status, got %v", err)
				}
			}},
		{"EOF without terminal", "data: " + delta(1, "half") + "\n\n", api.EndInterrupted, "half",
			func(t *testing.T, s *api.Stream, _ []api.Event, err error) {
				var ee *api.EndError
				if !errors.As(err, &ee) || ee.State != api.EndInterrupted || !strings.Contains(err.Error(), "interrupted: the connection closed before a final status") || s.Outcome().TextBytes != 4 {
					t.Fatalf("want interrupted keeping the count, got %v", err)
				}
			}},
		{"malformed event in the middle", "data: " + delta(1, "one ") + "\n\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"delta\":\"two \n\ndata: " + delta(3, "three") + "\n\ndata: " + completedEvent + "\n\n",
			api.EndMalformed, "one ", func(t *testing.T, s *api.Stream, _ []api.Event, err error) {
				var ee *api.EndError
				if !errors.As(err, &ee) || ee.Event != 2 || ee.AfterSeq != 1 || !strings.Contains(err.Error(), "malformed: event 2 (after sequence_number 1) was not valid JSON") {
					t.Fatalf("a malformed event must end the stream and name itself: %v", err)
				}
			}},
		{"response.failed", "data: " + delta(1, "so far") + "\n\ndata: {\"type\":\"response.failed\",\"sequence_number\":2,\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"},\"error_type\":\"server\"}}\n\ndata: [DONE]\n\n",
			api.EndFailed, "so far", func(t *testing.T, s *api.Stream, evs []api.Event, err error) {
				if f := s.Outcome().Failure; f.Message != "boom" || f.ErrorType != "server" || err != io.EOF {
					t.Fatalf("failure %+v %v", f, err)
				}
			}},
		{"flat error event", "data: {\"type\":\"error\",\"code\":\"rate_limit\",\"message\":\"slow down\",\"param\":null}\n\n", api.EndFailed, "",
			func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if f := s.Outcome().Failure; f.Code != "rate_limit" || f.Message != "slow down" {
					t.Fatalf("failure %+v", f)
				}
			}},
		{"nested error event", "data: {\"type\":\"error\",\"error\":{\"code\":502,\"message\":\"upstream\",\"type\":\"server\"}}\n\n", api.EndFailed, "",
			func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if f := s.Outcome().Failure; f.Code != "502" || f.Message != "upstream" {
					t.Fatalf("failure %+v", f)
				}
			}},
		{"aliases and unknown types", "data: {\"type\":\"response.content_part.delta\",\"delta\":\"A\"}\n\ndata: {\"type\":\"response.reasoning.delta\",\"delta\":\"R\"}\n\ndata: {\"type\":\"response.image_generation_call.partial_image\",\"x\":1}\n\ndata: {\"type\":\"response.done\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n",
			api.EndCompleted, "A", func(t *testing.T, s *api.Stream, evs []api.Event, _ error) {
				if textOf(evs, api.EventReasoningDelta) != "R" || evs[2].Type != "response.image_generation_call.partial_image" || !strings.Contains(string(evs[2].Data), `"x":1`) || evs[3].WireType != "response.done" {
					t.Fatalf("events %+v", evs)
				}
			}},
		{"text only in final", "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"whole\"}]}]}}\n\n",
			api.EndCompleted, "", func(t *testing.T, s *api.Stream, _ []api.Event, _ error) {
				if s.Outcome().FinalText != "whole" {
					t.Fatalf("text that came only in the final event is kept: %q", s.Outcome().FinalText)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, posts := sseServer(t, tc.body)
			s, err := c.StreamResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
			if err != nil {
				t.Fatal(err)
			}
			evs, err := drain(t, s)
			if s.Outcome().State != tc.outcome {
				t.Fatalf("outcome %s, want %s (err %v)", s.Outcome().State, tc.outcome, err)
			}
			if textOf(evs, api.EventOutputTextDelta) != tc.text {
				t.Fatalf("text %.40q, want %.40q", textOf(evs, api.EventOutputTextDelta), tc.text)
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
	evs, err := drain(t, s)
	var tl *api.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, api.ErrInterrupted) || textOf(evs, api.EventOutputTextDelta) != "ok" {
		t.Fatalf("want a refused oversized event keeping the text, got %v, %q", err, textOf(evs, api.EventOutputTextDelta))
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
	var got []api.Event
	for i := 0; i < 3; i++ {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	cancel()
	rest, err := drain(t, s)
	got = append(got, rest...)
	if !errors.Is(err, context.Canceled) || s.Outcome().State != api.EndStopped || !strings.HasPrefix(textOf(got, api.EventOutputTextDelta), "t t t ") || errors.Is(err, api.ErrInterrupted) {
		t.Fatalf("stop: %v %s %q", err, s.Outcome().State, textOf(got, api.EventOutputTextDelta))
	}
	if s.Outcome().Message() != "stopped by you; what arrived is kept" {
		t.Fatalf("stop message: %q", s.Outcome().Message())
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
	if evs, err := drain(t, s); err != io.EOF || textOf(evs, api.EventOutputTextDelta) != "q" {
		t.Fatalf("%v %q", err, textOf(evs, api.EventOutputTextDelta))
	}
}

// A rate is stated only over a stretch long enough to measure, for a
// streamed answer of two deltas or more.
func TestRateNeedsAStreamOverTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := api.Outcome{State: api.EndCompleted, Streamed: true, Deltas: 30, Started: t0, FirstToken: t0.Add(time.Second)}
	burst := base
	burst.Ended = base.FirstToken.Add(time.Millisecond / 10) // 30 tokens in 0.1 ms
	if v, ok := burst.TokensPerSecond(); ok {
		t.Fatalf("a burst has no rate, got %v", v)
	}
	paced := base
	paced.Ended = base.FirstToken.Add(300 * time.Millisecond)
	if v, ok := paced.TokensPerSecond(); !ok || v < 99 || v > 101 {
		t.Fatalf("30 tokens over 0.3s: %v %v", v, ok)
	}
	one := paced
	one.Deltas = 1
	if _, ok := one.TokensPerSecond(); ok {
		t.Fatal("one delta has no rate")
	}
	plain := paced
	plain.Streamed = false
	if _, ok := plain.TokensPerSecond(); ok {
		t.Fatal("a plain answer has no rate")
	}
	// Stopped keeps what arrived and says so; an ended outcome stays.
	open := base
	open.State = api.EndOpen
	st := open.Stopped(t0.Add(2 * time.Second))
	if st.State != api.EndStopped || st.Deltas != 30 || !st.Ended.Equal(t0.Add(2*time.Second)) || st.Message() == "" {
		t.Fatalf("stopped %+v", st)
	}
	if got := paced.Stopped(t0.Add(5 * time.Second)); got.State != api.EndCompleted || !got.Ended.Equal(paced.Ended) {
		t.Fatal("an ended answer is not stopped after the fact")
	}
}
