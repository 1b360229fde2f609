package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"go.uber.org/goleak"
)

// httpInternals are the connection goroutines of net/http's keep-alive
// pool, which outlive a request by design.
var httpInternals = []goleak.Option{
	goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
	goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
	goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
	goleak.IgnoreAnyFunction("internal/poll.runtime_pollWait"),
}

func TestStoppingAStreamLeavesNoGoroutine(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{TokensPerSecond: 50})
	_ = srv
	opts := append([]goleak.Option{goleak.IgnoreCurrent()}, httpInternals...)
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
	s.Close()
	goleak.VerifyNone(t, opts...)
}

func TestCancellingAPollerLeavesNoGoroutine(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{BatchDuration: time.Hour})
	opts := append([]goleak.Option{goleak.IgnoreCurrent()}, httpInternals...)
	cx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		real, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
		real.WatchBatch(cx, srv.SeedID(gateway.SeedRunning), api.PollOptions{Interval: 10 * time.Millisecond}, nil)
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	<-done
	_ = c
	goleak.VerifyNone(t, opts...)
}
