package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// stepClock is the dashboard's clock in a test: it moves only when the
// test says, and a tick fires once the clock has passed its time.
type stepClock struct {
	mu      sync.Mutex
	t       time.Time
	changed chan struct{}
	done    chan struct{}
}

func newStepClock(t *testing.T) *stepClock {
	c := &stepClock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC), changed: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() { close(c.done) })
	return c
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *stepClock) tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	at := c.now().Add(d)
	return func() tea.Msg {
		for {
			c.mu.Lock()
			now, ch := c.t, c.changed
			c.mu.Unlock()
			if !now.Before(at) {
				return fn(now)
			}
			select {
			case <-ch:
			case <-c.done:
				return nil
			}
		}
	}
}

// conflictClient is an api client, its waits told to the dashboard,
// behind a server that answers the first n PATCHes 409 with Retry-After.
func conflictClient(t *testing.T, n int, retryAfter string, sleep func(context.Context, time.Duration) error) (*gateway.Server, Client, *Waits) {
	t.Helper()
	srv, err := gateway.Start("127.0.0.1:0", gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	conf := &hostile.Conflicts{H: srv.Gateway, Method: http.MethodPatch, N: n, RetryAfter: retryAfter}
	hs := httptest.NewServer(conf)
	t.Cleanup(hs.Close)
	waits := NewWaits()
	c, err := api.New(api.Options{BaseURL: hs.URL + "/api/v1", APIKey: gateway.DemoAPIKey, ManagementKey: gateway.DemoManagementKey,
		Sleep: sleep, OnWait: waits.Note})
	if err != nil {
		t.Fatal(err)
	}
	return srv, FromAPI(c, ""), waits
}

// toggle disables prod-langfuse (space, y): a PATCH.
func (u *ui) toggle(name string) {
	u.t.Helper()
	u.screen("Destinations", "loaded")
	u.selectDest(name)
	u.space()
	u.screen("disable '" + name + "'? y/N")
	u.runes("y")
}

// 11. While an operation waits before a retry, the status bar counts the
// wait down, every second, and the countdown goes when the wait ends.
func TestWaitCountsDownInStatusBar(t *testing.T) {
	released := make(chan struct{})
	var slept []time.Duration
	var mu sync.Mutex
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
		select {
		case <-released:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	srv, c, waits := conflictClient(t, 1, "12", sleep)
	clk := newStepClock(t)
	u := start(t, Options{Client: c, View: "destinations", Waits: waits, Now: clk.now, Tick: clk.tick}, 160, 20)
	u.toggle("prod-langfuse")
	u.screen("⧗ waiting 12s for the server (409, attempt 2 of 4) · gives up after 5m0s")
	clk.advance(5 * time.Second)
	u.screen("⧗ waiting 7s for the server (409, attempt 2 of 4)")
	clk.advance(time.Second)
	u.screen("⧗ waiting 6s for the server")
	close(released)
	u.until("the wait gone and the change saved", func(m Model) bool {
		return !strings.Contains(m.View(), "waiting") && m.wait.until.IsZero() && strings.Contains(m.notice, "prod-langfuse is now disabled")
	})
	mu.Lock()
	defer mu.Unlock()
	id := srv.DestinationID("prod-langfuse")
	if len(slept) != 1 || slept[0] != 12*time.Second || srv.DestinationEnabled(id) {
		t.Fatalf("slept %v; enabled %v", slept, srv.DestinationEnabled(id))
	}
}

// A countdown whose end never came (its notice dropped) still goes once
// its time has passed.
func TestWaitCountdownEndsAtItsTime(t *testing.T) {
	sleep := func(ctx context.Context, d time.Duration) error { <-ctx.Done(); return ctx.Err() }
	_, c, waits := conflictClient(t, 1, "3", sleep)
	clk := newStepClock(t)
	u := start(t, Options{Client: c, View: "destinations", Waits: waits, Now: clk.now, Tick: clk.tick}, 160, 20)
	u.toggle("prod-langfuse")
	u.screen("⧗ waiting 3s for the server (409, attempt 2 of 4)")
	clk.advance(3 * time.Second)
	u.until("the countdown gone", func(m Model) bool { return !strings.Contains(m.View(), "waiting") && m.wait.until.IsZero() })
}

// 11. When the waits would pass the bound, the error on screen says
// "giving up after N attempts", not only the server's last answer.
func TestWaitGivingUpIsSaid(t *testing.T) {
	sleep := func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	_, c, waits := conflictClient(t, 4, "299", sleep)
	u := start(t, Options{Client: c, View: "destinations", Waits: waits}, 160, 20)
	u.toggle("prod-langfuse")
	u.until("giving up", func(m Model) bool {
		return strings.Contains(m.errText, "not saved, rolled back") && strings.Contains(m.errText, "giving up after 2 attempts") &&
			!strings.Contains(m.View(), "⧗ waiting")
	})
}
