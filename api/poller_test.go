package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func batchJSON(status string, done int) string {
	results := "null"
	if status == "completed" {
		results = "[]"
	}
	return fmt.Sprintf(`{"id":"b","object":"batch","endpoint":"/v1/responses","model":"a/b","completion_window":"24h","status":%q,"created_at":1,"finalized_at":null,"request_counts":{"total":10,"completed":%d,"failed":0},"usage":null,"results":%s,"error":null}`, status, done, results)
}

// scripted answers the i-th request with steps[i] (the last repeats).
func scripted(t *testing.T, steps []func(w http.ResponseWriter)) (*api.Client, *sleepRecorder, *atomic.Int64) {
	var i atomic.Int64
	srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		k := int(i.Add(1) - 1)
		if k >= len(steps) {
			k = len(steps) - 1
		}
		steps[k](w)
	})
	rec := &sleepRecorder{}
	c, err := api.New(api.Options{BaseURL: srv.URL, APIKey: "k", Sleep: rec.sleep})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec, n
}

func ok(body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}
}

func fail(status int, retryAfter string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"m"}}`, status)
	}
}

func TestWatchHonoursRetryAfterAndStopsAtTerminal(t *testing.T) {
	c, rec, n := scripted(t, []func(http.ResponseWriter){
		ok(batchJSON("in_progress", 1)),
		fail(429, "7"),
		fail(429, "2"),
		ok(batchJSON("in_progress", 5)),
		ok(batchJSON("completed", 10)),
		ok(batchJSON("completed", 10)),
	})
	var updates []api.PollUpdate
	b, err := c.WatchBatch(ctx(t), "b", api.PollOptions{Interval: time.Second, Jitter: func() float64 { return 0.5 }}, func(u api.PollUpdate) { updates = append(updates, u) })
	if err != nil || b.Status != api.BatchCompleted {
		t.Fatalf("watch: %v %v", b, err)
	}
	want := []time.Duration{time.Second, 7 * time.Second, 2 * time.Second, time.Second}
	got := rec.all()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	if n.Load() != 5 {
		t.Fatalf("%d requests: polling must stop at the terminal status", n.Load())
	}
	if len(updates) != 5 || updates[1].Err == nil || updates[1].Batch == nil || updates[1].Batch.RequestCounts.Completed != 1 {
		t.Fatalf("every snapshot and error is reported, keeping the last good snapshot: %+v", updates)
	}
}

func TestWatchBacksOffOn502(t *testing.T) {
	c, rec, _ := scripted(t, []func(http.ResponseWriter){
		fail(502, ""), fail(502, ""), fail(502, ""), fail(500, ""), ok(batchJSON("completed", 10)),
	})
	if _, err := c.WatchBatch(ctx(t), "b", api.PollOptions{Jitter: func() float64 { return 0.5 }}, nil); err != nil {
		t.Fatal(err)
	}
	got := rec.all()
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("backoff %v, want %v", got, want)
	}
	// Jitter spreads the delays within ±25%.
	s := api.NewPollSchedule(api.PollOptions{Jitter: func() float64 { return 0.999 }}, time.Now())
	d := s.Observe(nil, &api.APIError{Status: 502}, time.Now())
	if d.Delay < 1240*time.Millisecond || d.Delay > 1250*time.Millisecond || !d.Transient {
		t.Fatalf("jittered delay %v", d.Delay)
	}
}

func TestWatchNotFoundGraceAndPayment(t *testing.T) {
	// 404 right after submission is retried briefly...
	c, _, n := scripted(t, []func(http.ResponseWriter){fail(404, ""), fail(404, ""), ok(batchJSON("completed", 10))})
	if _, err := c.WatchBatch(ctx(t), "b", api.PollOptions{NotFoundGrace: time.Hour}, nil); err != nil || n.Load() != 3 {
		t.Fatalf("404 grace: %v after %d", err, n.Load())
	}
	// ...but not forever.
	c, _, n = scripted(t, []func(http.ResponseWriter){fail(404, "")})
	if _, err := c.WatchBatch(ctx(t), "b", api.PollOptions{NotFoundGrace: time.Nanosecond}, nil); api.StatusOf(err) != 404 || n.Load() != 1 {
		t.Fatalf("404 after grace: %v after %d", err, n.Load())
	}
	// 410 ends polling at once.
	c, _, n = scripted(t, []func(http.ResponseWriter){fail(410, "")})
	if _, err := c.WatchBatch(ctx(t), "b", api.PollOptions{}, nil); api.StatusOf(err) != 410 || n.Load() != 1 {
		t.Fatalf("410: %v", err)
	}
	// 402 polls slowly until the results come.
	pay := func(w http.ResponseWriter) {
		var m map[string]any
		json.Unmarshal([]byte(batchJSON("completed", 10)), &m)
		m["results"] = nil
		m["error"] = map[string]any{"code": 402, "message": "add credits"}
		b, _ := json.Marshal(m)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(402)
		w.Write(b)
	}
	c, rec, _ := scripted(t, []func(http.ResponseWriter){pay, pay, ok(batchJSON("completed", 10))})
	var sawMeta bool
	b, err := c.WatchBatch(ctx(t), "b", api.PollOptions{PaymentInterval: 45 * time.Second}, func(u api.PollUpdate) {
		if u.Err != nil && u.Batch != nil && u.Batch.ID == "b" {
			sawMeta = true
		}
	})
	if err != nil || b.Results == nil || !sawMeta || fmt.Sprint(rec.all()) != "[45s 45s]" {
		t.Fatalf("402: %v meta %v delays %v", err, sawMeta, rec.all())
	}
}

func TestScheduleLengthensWhileUnchanged(t *testing.T) {
	now := time.Now()
	s := api.NewPollSchedule(api.PollOptions{Interval: 2 * time.Second, MaxInterval: 5 * time.Second}, now)
	b := &api.Batch{Status: api.BatchInProgress, RequestCounts: api.RequestCounts{Total: 3}}
	var got []time.Duration
	for i := 0; i < 5; i++ {
		got = append(got, s.Observe(b, nil, now).Delay)
	}
	b2 := &api.Batch{Status: api.BatchInProgress, RequestCounts: api.RequestCounts{Total: 3, Completed: 1}}
	got = append(got, s.Observe(b2, nil, now).Delay)
	if fmt.Sprint(got) != "[2s 3s 4.5s 5s 5s 2s]" {
		t.Fatalf("intervals %v", got)
	}
	if d := s.Observe(&api.Batch{Status: api.BatchCancelled}, nil, now); !d.Done {
		t.Fatalf("terminal must end polling")
	}
}

func TestWatchStopsWithContext(t *testing.T) {
	srv, _ := startGateway(t, gateway.Options{BatchDuration: time.Hour})
	c, err := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
	if err != nil {
		t.Fatal(err)
	}
	cx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = c.WatchBatch(cx, srv.SeedID(gateway.SeedRunning), api.PollOptions{Interval: 20 * time.Millisecond}, nil)
	if err != context.DeadlineExceeded {
		t.Fatalf("want the context's end, got %v", err)
	}
}

func TestWatchRunningBatchOnGateway(t *testing.T) {
	// The gateway's clock moves only when a poll has been seen, so every
	// status on the way is observed whatever the machine's load.
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv, _ := startGateway(t, gateway.Options{BatchDuration: 400 * time.Millisecond, Now: clock})
	c, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
	var statuses []api.BatchStatus
	polls := 0
	b, err := c.WatchBatch(ctx(t), srv.SeedID(gateway.SeedRunning), api.PollOptions{Interval: time.Millisecond, MaxInterval: time.Millisecond}, func(u api.PollUpdate) {
		polls++
		mu.Lock()
		now = now.Add(40 * time.Millisecond)
		mu.Unlock()
		if u.Batch != nil && (len(statuses) == 0 || statuses[len(statuses)-1] != u.Batch.Status) {
			statuses = append(statuses, u.Batch.Status)
		}
	})
	if err != nil || b.Status != api.BatchCompleted || len(b.Results) != 200 {
		t.Fatalf("watch: %v", err)
	}
	if len(statuses) < 3 || statuses[len(statuses)-1] != api.BatchCompleted {
		t.Fatalf("statuses seen %v", statuses)
	}
	// WatchBatch returned after the terminal status: it sent no poll beyond
	// the ones it reported.
	if got := len(srv.RequestsTo("GET", "/api/v1/batches/")); got != polls {
		t.Fatalf("%d polls sent, %d reported", got, polls)
	}
}
