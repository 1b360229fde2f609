package api_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

// EachResult hands each result on while the body is still arriving: the
// server holds the rest of the body back until the first result has been
// seen, which a reader that waited for the whole body never would.
func TestEachResultStreams(t *testing.T) {
	seen := make(chan struct{})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"batch-s","object":"batch","results":[{"custom_id":"one","response":null,"error":{"type":"x","message":"m"}}`)
		w.(http.Flusher).Flush()
		select {
		case <-seen:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `,{"custom_id":"two","response":null,"error":{"type":"x","message":"m"}}],"status":"completed","request_counts":{"total":2,"completed":0,"failed":2}}`)
	})
	c := newClient(t, srv.URL, "k", "")
	var got []string
	b, err := c.EachResult(ctx(t), "batch-s", func(item []byte) error {
		f, err := api.FactsOf(item)
		if err != nil {
			return err
		}
		if len(got) == 0 {
			close(seen)
		}
		got = append(got, f.CustomID)
		return nil
	})
	if err != nil || strings.Join(got, ",") != "one,two" || b.Status != api.BatchCompleted || b.RequestCounts.Failed != 2 || b.Results != nil {
		t.Fatalf("%v %v %+v", err, got, b)
	}
}

// No results yet, a cap, a body cut short, an error of the caller: each
// ends the walk with its own error.
func TestEachResultErrors(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	b, err := c.EachResult(ctx(t), srv.SeedID(gateway.SeedValidating), func([]byte) error { return nil })
	if !errors.Is(err, api.ErrNoResults) || b == nil || b.Status != api.BatchValidating {
		t.Fatalf("validating: %v %+v", err, b)
	}
	_, err = c.EachResult(ctx(t), "batch-0-missing", func([]byte) error { return nil })
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("missing: %v", err)
	}
	stop := errors.New("enough")
	n := 0
	_, err = c.EachResult(ctx(t), srv.SeedID(gateway.SeedChat), func([]byte) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Fatalf("the caller's error: %v after %d", err, n)
	}
	// A chunked body past the cap is cut at it; a body cut short is an
	// error, not a short export.
	big, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"id":"b","object":"batch","results":[`)
		for i := range 5000 {
			fmt.Fprintf(w, `{"custom_id":"r%d","response":null,"error":{"type":"x","message":"%s"}},`, i, strings.Repeat("m", 100))
		}
	})
	small, err := api.New(api.Options{BaseURL: big.URL, APIKey: "k", MaxBodyBytes: 64 << 10, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var tl *api.TooLargeError
	if _, err := small.EachResult(ctx(t), "b", func([]byte) error { return nil }); !errors.As(err, &tl) {
		t.Fatalf("over the cap: %v", err)
	}
	cut := newClient(t, big.URL, "k", "")
	if _, err := cut.EachResult(ctx(t), "b", func([]byte) error { return nil }); err == nil || errors.As(err, &tl) {
		t.Fatalf("a body cut short: %v", err)
	}
}
