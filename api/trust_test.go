package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

// A server that asks for absurd waits is named, not obeyed.
func TestServerWaitsAreCapped(t *testing.T) {
	// batch watch: 429 with Retry-After far beyond the cap stops at once.
	c, rec, n := scripted(t, []func(http.ResponseWriter){fail(429, "9000000000")})
	_, err := c.WatchBatch(ctx(t), "b", api.PollOptions{}, nil)
	var wt *api.WaitTooLongError
	if !errors.As(err, &wt) || n.Load() != 1 || len(rec.all()) != 0 {
		t.Fatalf("want a refused wait after one request, got %v (%d requests, sleeps %v)", err, n.Load(), rec.all())
	}
	if msg := err.Error(); !strings.Contains(msg, "Retry-After: 9000000000") || !strings.Contains(msg, "5m0s") || !strings.Contains(msg, "104166d") {
		t.Fatalf("the message must name what was asked and the cap: %q", msg)
	}
	// The schedule the dashboard uses waits the cap and says so.
	s := api.NewPollSchedule(api.PollOptions{}, time.Now())
	d := s.Observe(nil, &api.APIError{Status: 429, RetryAfter: 2500000 * time.Hour}, time.Now())
	if !d.Capped || d.Delay != api.MaxServerWait || d.Asked != 2500000*time.Hour || d.Done {
		t.Fatalf("capped decision: %+v", d)
	}
	// Within the cap it is honoured to the second.
	d = s.Observe(nil, &api.APIError{Status: 503, RetryAfter: 7 * time.Second}, time.Now())
	if d.Capped || d.Delay != 7*time.Second {
		t.Fatalf("honoured decision: %+v", d)
	}

	// A 429 without Retry-After uses X-RateLimit-Reset (epoch ms here).
	reset := func(w http.ResponseWriter) {
		w.Header().Set("X-RateLimit-Limit", "60")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(3*time.Second).UnixMilli(), 10))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"code":429,"message":"slow"}}`)
	}
	c, rec, _ = scripted(t, []func(http.ResponseWriter){reset, ok(batchJSON("completed", 10))})
	if _, err := c.WatchBatch(ctx(t), "b", api.PollOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := rec.all(); len(got) != 1 || got[0] < 1*time.Second || got[0] > 3*time.Second {
		t.Fatalf("X-RateLimit-Reset wait: %v", got)
	}
	farReset := func(w http.ResponseWriter) {
		w.Header().Set("X-RateLimit-Limit", "60")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(48*time.Hour).Unix(), 10))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"code":429,"message":"slow"}}`)
	}
	c, _, _ = scripted(t, []func(http.ResponseWriter){farReset})
	if _, err := c.WatchBatch(ctx(t), "b", api.PollOptions{}, nil); !errors.As(err, &wt) || !strings.Contains(err.Error(), "X-RateLimit-Reset") {
		t.Fatalf("far reset: %v", err)
	}

	// dest update: a 409 asking for 24h is not slept through.
	srv, posts := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "86400")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(409)
		io.WriteString(w, `{"error":{"code":409,"message":"busy"}}`)
	})
	rec = &sleepRecorder{}
	dc, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: "k", ManagementKey: "m", Sleep: rec.sleep})
	if _, err := dc.UpdateDestination(ctx(t), "d", api.DestinationPatch{Enabled: ptr(true)}); !errors.As(err, &wt) || posts.Load() != 1 || len(rec.all()) != 0 {
		t.Fatalf("409 with a day's Retry-After: %v, %d PATCHes, sleeps %v", err, posts.Load(), rec.all())
	}
}

// Counts are checked, never trusted; an unknown status keeps polling.
func TestCountsCheckedAndUnknownStatus(t *testing.T) {
	for _, tc := range []struct {
		rc   api.RequestCounts
		prev *api.RequestCounts
		want string
	}{
		{api.RequestCounts{Total: 10, Completed: 5, Failed: 1}, nil, ""},
		{api.RequestCounts{Total: 10, Completed: -100}, nil, "negative counts"},
		{api.RequestCounts{Total: 10, Completed: 9, Failed: 2}, nil, "completed + failed exceeds total"},
		{api.RequestCounts{Total: math.MaxInt, Completed: math.MaxInt - 1, Failed: math.MaxInt - 1}, nil, "counts overflow"},
		{api.RequestCounts{Total: 10, Completed: 4}, &api.RequestCounts{Total: 10, Completed: 6}, "counts went down"},
	} {
		if got := tc.rc.Problems(tc.prev); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.rc, got, tc.want)
		}
		if p := tc.rc.Pending(); p < 0 {
			t.Errorf("%+v: negative pending %d", tc.rc, p)
		}
	}
	weird := strings.Replace(batchJSON("completed", 10), `"status":"completed"`, `"status":"paused-by-ops"`, 1)
	c, rec, n := scripted(t, []func(http.ResponseWriter){ok(weird), ok(weird), ok(batchJSON("completed", 10))})
	b, err := c.WatchBatch(ctx(t), "b", api.PollOptions{Interval: time.Second}, nil)
	if err != nil || b.Status != api.BatchCompleted || n.Load() != 3 || len(rec.all()) != 2 {
		t.Fatalf("an unknown status is polled until a known terminal one: %v %d %v", err, n.Load(), rec.all())
	}
	if api.BatchStatus("paused-by-ops").Known() || !api.BatchStatus("finalizing").Known() {
		t.Fatal("Known")
	}
}

// Caps are enforced before reading, and a refused body is not fetched
// again.
func TestBodyCapBeforeReading(t *testing.T) {
	// The server announces 1 GB and sends nothing: a refusal must come
	// from the header alone.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan int, 10)
	go func() {
		for i := 1; ; i++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- i
			go func() {
				buf := make([]byte, 4096)
				conn.Read(buf)
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{\"id\":")
				// keep the connection open without sending the rest
				time.Sleep(30 * time.Second)
				conn.Close()
			}()
		}
	}()
	c, _ := api.New(api.Options{BaseURL: "http://" + ln.Addr().String(), APIKey: "k", RequestTimeout: time.Minute})
	start := time.Now()
	_, err = c.GetBatch(ctx(t), "b")
	var tl *api.TooLargeError
	if !errors.As(err, &tl) || tl.Size != 1000000000 || !strings.Contains(err.Error(), "953.7 MiB is larger than the 512 MiB limit") || !strings.Contains(err.Error(), "max_body_mb") {
		t.Fatalf("want a refusal naming the size, the cap and the setting: %v", err)
	}
	if time.Since(start) > 25*time.Second {
		t.Fatal("the refusal waited for the body")
	}
	// The poller does not download it again.
	s := api.NewPollSchedule(api.PollOptions{}, time.Now())
	if d := s.Observe(nil, err, time.Now()); !d.Done {
		t.Fatalf("a refused body must end polling: %+v", d)
	}
	// A body without a length is cut at the cap.
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i < 64; i++ {
			if _, err := io.WriteString(w, strings.Repeat(" ", 64<<10)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	small, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: "k", MaxBodyBytes: 1 << 20})
	if _, err := small.GetBatch(ctx(t), "b"); !errors.As(err, &tl) || tl.Limit != 1<<20 {
		t.Fatalf("chunked body over the cap: %v", err)
	}
}

// The pager stops when a page adds nothing new, at a cursor sent again,
// and at each of its bounds: pages, rows and bytes.
func TestPagerBounds(t *testing.T) {
	page := func(ids ...string) *api.DestinationPage {
		p := &api.DestinationPage{TotalCount: 1 << 40, Raw: []byte("{}")}
		for _, id := range ids {
			p.Data = append(p.Data, api.Destination{ID: id})
		}
		return p
	}
	p := api.NewPager()
	if fresh := p.Destinations(page("a", "b")); len(fresh) != 2 || !p.More() || p.Err() != nil {
		t.Fatal(fresh, p.More(), p.Err())
	}
	p.Destinations(page("a", "b"))
	var ps *api.PagingStoppedError
	if err := p.Err(); p.More() || !errors.As(err, &ps) || !strings.Contains(err.Error(), "stopped after 2 pages (2 rows): page 2 added no new destination") {
		t.Fatalf("the same page again must stop the walk: %v %v", p.More(), err)
	}
	cursor := func(last string, ids ...string) *api.BatchPage {
		b := &api.BatchPage{HasMore: true, LastID: &last, Raw: make([]byte, 1000)}
		for _, id := range ids {
			b.Data = append(b.Data, api.Batch{ID: id})
		}
		return b
	}
	p = api.NewPager()
	p.Batches(cursor("x", "1"))
	if fresh := p.Batches(cursor("x", "2")); len(fresh) != 1 || p.More() || !strings.Contains(p.Err().Error(), "a cursor it had sent before") {
		t.Fatalf("the same cursor again must stop the walk (keeping the new row): %v %v", fresh, p.Err())
	}
	p = api.NewPager()
	if p.Batches(cursor("", "1")); p.More() || !strings.Contains(p.Err().Error(), "sent no cursor") {
		t.Fatalf("more without a cursor: %v", p.Err())
	}
	bounds := map[string]api.ListBounds{
		"the cap of 7 pages was reached":               {Pages: 7, Rows: 1000, Bytes: 1 << 30, PageBytes: 1},
		"the cap of 10 rows was reached":               {Pages: 1000, Rows: 10, Bytes: 1 << 30, PageBytes: 1},
		"the pages read add up to 5000 bytes, the cap": {Pages: 1000, Rows: 1000, Bytes: 5000, PageBytes: 1},
	}
	for want, b := range bounds {
		p := api.NewPagerWith(b)
		rows := 0
		for i := 0; p.More(); i++ {
			if i > 1000 {
				t.Fatal("no bound")
			}
			rows += len(p.Batches(cursor(fmt.Sprint("c", i), fmt.Sprint(i, "a"), fmt.Sprint(i, "b", "c"))))
		}
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), want) || rows > b.Rows || p.Pages() > b.Pages {
			t.Fatalf("%s: %v (%d rows, %d pages)", want, err, rows, p.Pages())
		}
	}
	if api.DefaultListBounds.Pages != api.MaxListPages || api.DefaultListBounds.Bytes != 64<<20 {
		t.Fatalf("defaults: %+v", api.DefaultListBounds)
	}
}

// An id is escaped once on the wire: the server reads back exactly the id
// the client was given, whatever bytes it holds (a base path with its own
// escapes included).
func TestIDsAreEscapedOnce(t *testing.T) {
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /a%20b/api/v1/batches/{id}", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.PathValue("id"))
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"no"}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := api.New(api.Options{BaseURL: srv.URL + "/a%20b/api/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"batch-1", "a b", "x/y?z#w", "%41", "esc\x1b]0;t\x07"}
	for _, id := range ids {
		if _, err := c.GetBatch(context.Background(), id); api.StatusOf(err) != 404 {
			t.Fatalf("%q: %v", id, err)
		}
	}
	if strings.Join(got, "|") != strings.Join(ids, "|") {
		t.Fatalf("server read %q, want %q", got, ids)
	}
}

// A batch is parsed while it downloads: the result equals a parse of the
// whole body; a body cut short is a transport error, a malformed one a
// decode error, and neither leaves the download running.
func TestBatchParsedWhileItDownloads(t *testing.T) {
	items := make([]string, 3000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"r%d","custom_id":"c-%d","response":{"status_code":200,"body":{"object":"chat.completion","model":"m/x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":%d,"total_tokens":%d}}},"error":null}`, i, i, i, i+1)
	}
	good := `{"id":"b","object":"batch","status":"completed","request_counts":{"total":3000,"completed":3000,"failed":0},"results":[` + strings.Join(items, ",") + "]}\n"
	mode := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := good
		switch mode {
		case "bad":
			body = good[:len(good)/2] + "!!" + good[len(good)/2+2:]
		case "cut":
			w.Header().Set("Content-Length", strconv.Itoa(len(good)))
			io.WriteString(w, good[:len(good)/2])
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		for i := 0; i < len(body); i += 4096 { // in pieces, as a network does
			io.WriteString(w, body[i:min(len(body), i+4096)])
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c, err := api.New(api.Options{BaseURL: srv.URL + "/api/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.GetBatchData(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := api.ReadBatchData([]byte(good))
	if len(d.Rows) != 3000 || string(d.Raw) != good || d.CustomID(2999) != "c-2999" || d.Rows[1234] != whole.Rows[1234] {
		t.Fatalf("rows %d", len(d.Rows))
	}
	mode = "bad"
	var de *api.DecodeError
	if _, err := c.GetBatchData(context.Background(), "b"); !errors.As(err, &de) {
		t.Fatalf("malformed: %v", err)
	}
	mode = "cut"
	var te *api.TransportError
	if _, err := c.GetBatchData(context.Background(), "b"); !errors.As(err, &te) {
		t.Fatalf("cut short: %v", err)
	}
}
