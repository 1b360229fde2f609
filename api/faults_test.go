package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
)

// The four operations of the contract, each run once against a faulty
// server; the error is what the caller sees.
var operations = map[string]func(ctx context.Context, c *api.Client) error{
	"get batch": func(ctx context.Context, c *api.Client) error { _, err := c.GetBatch(ctx, "b"); return err },
	"stream": func(ctx context.Context, c *api.Client) error {
		s, err := c.StreamResponse(ctx, api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "a/b"})
		if err != nil {
			return err
		}
		defer s.Close()
		for {
			if _, err := s.Next(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	},
	"list destinations": func(ctx context.Context, c *api.Client) error {
		_, err := c.ListDestinations(ctx, api.ListOptions{})
		return err
	},
	"update destination": func(ctx context.Context, c *api.Client) error {
		_, err := c.UpdateDestination(ctx, "d", api.DestinationPatch{Enabled: ptr(true)})
		return err
	},
}

type fault struct {
	name  string
	serve func(w http.ResponseWriter, r *http.Request, stream bool)
	check func(t *testing.T, op string, err error)
}

func envelope(w http.ResponseWriter, status int, retry string) {
	if retry != "" {
		w.Header().Set("Retry-After", retry)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, `{"error":{"code":`+strconv.Itoa(status)+`,"message":"fault"}}`)
}

func wantStatus(code int, retry time.Duration) func(*testing.T, string, error) {
	return func(t *testing.T, op string, err error) {
		var ae *api.APIError
		if !errors.As(err, &ae) || ae.Status != code || ae.RetryAfter != retry || !strings.Contains(err.Error(), "HTTP") {
			t.Fatalf("%s: want HTTP %d (retry %v), got %v", op, code, retry, err)
		}
	}
}

func wantContains(subs ...string) func(*testing.T, string, error) {
	return func(t *testing.T, op string, err error) {
		if err == nil {
			t.Fatalf("%s: no error", op)
		}
		for _, s := range subs {
			if strings.Contains(err.Error(), s) {
				return
			}
		}
		t.Fatalf("%s: %q names none of %v", op, err, subs)
	}
}

func body200(w http.ResponseWriter, stream bool, jsonBody, streamBody string) {
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, streamBody)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, jsonBody)
}

var faults = []fault{
	{"500", func(w http.ResponseWriter, r *http.Request, _ bool) { envelope(w, 500, "") }, wantStatus(500, 0)},
	{"502", func(w http.ResponseWriter, r *http.Request, _ bool) { envelope(w, 502, "") }, wantStatus(502, 0)},
	{"503 Retry-After", func(w http.ResponseWriter, r *http.Request, _ bool) { envelope(w, 503, "5") }, wantStatus(503, 5*time.Second)},
	{"429 Retry-After", func(w http.ResponseWriter, r *http.Request, _ bool) { envelope(w, 429, "2") }, wantStatus(429, 2*time.Second)},
	{"connection reset", func(w http.ResponseWriter, r *http.Request, _ bool) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}, wantContains("EOF", "reset", "closed")},
	{"no answer", func(w http.ResponseWriter, r *http.Request, _ bool) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}, wantContains("time limit", "within", "sent nothing")},
	{"truncated JSON", func(w http.ResponseWriter, r *http.Request, s bool) {
		body200(w, s, `{"id":"b","status":"comp`, "data: {\"type\":\"response.output_text.delta\",\"del")
	}, wantContains("expected JSON", "not valid JSON")},
	{"wrong member type", func(w http.ResponseWriter, r *http.Request, s bool) {
		body200(w, s, `{"id":5,"data":"x","total_count":"many"}`, "data: {\"type\":5}\n\n")
	}, wantContains("expected JSON", "not valid JSON")},
	{"empty body", func(w http.ResponseWriter, r *http.Request, s bool) { body200(w, s, "", "") }, wantContains("empty body", "connection closed before a final status")},
	{"HTML error page", func(w http.ResponseWriter, r *http.Request, _ bool) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
	}, wantContains("text/html")},
	{"100 MB body", func(w http.ResponseWriter, r *http.Request, s bool) {
		if s {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
		} else {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":"`)
		}
		chunk := strings.Repeat("a", 1<<20)
		for i := 0; i < 100; i++ {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}, wantContains("refused", "expected JSON", "within")},
	{"redirect to another host", func(w http.ResponseWriter, r *http.Request, _ bool) {
		http.Redirect(w, r, "http://localhost:1/elsewhere", http.StatusTemporaryRedirect)
	}, wantContains("another host")},
}

func TestFaultMatrix(t *testing.T) {
	for _, f := range faults {
		for opName, op := range operations {
			t.Run(f.name+"/"+opName, func(t *testing.T) {
				isStream := opName == "stream"
				srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, isStream) })
				// Short time limits where the fault is silence (a slow
				// machine only waits longer); long ones where the fault
				// is size, so that a slow machine reading 100 MB under
				// the race detector is not mistaken for a silent server.
				limit := 300 * time.Millisecond
				if f.name != "no answer" {
					limit = time.Minute
				}
				c, err := api.New(api.Options{BaseURL: srv.URL, APIKey: "secret-api-key-1", ManagementKey: "secret-mgmt-key-1",
					RequestTimeout: limit, StreamIdleTimeout: limit, MaxEventBytes: 32 << 20,
					Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				err = op(context.Background(), c)
				f.check(t, opName, err)
				if time.Since(start) > 2*time.Minute {
					t.Fatalf("%s took %v: every wait must be bounded", opName, time.Since(start))
				}
				if n.Load() != 1 {
					t.Fatalf("%s sent %d requests: nothing here may be retried", opName, n.Load())
				}
				if strings.Contains(err.Error(), "secret-") {
					t.Fatalf("a key reached an error: %v", err)
				}
			})
		}
	}
}

func TestErrorBodyCap(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		io.WriteString(w, `{"error":{"code":500,"message":"`+strings.Repeat("x", 2<<20)+`"}}`)
	})
	c, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: "k", MaxErrorBytes: 1 << 20})
	_, err := c.GetBatch(ctx(t), "b")
	if api.StatusOf(err) != 500 || !strings.Contains(err.Error(), "error body over 1 MiB") {
		t.Fatalf("%v", err)
	}
}
