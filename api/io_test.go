package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// 8. Ids "." and ".." go out escaped, never as dot segments; an id over
// MaxIDBytes is refused before any request.
func TestIDsNeverFormDotSegments(t *testing.T) {
	var paths hostile.Paths
	srv, c := startGateway(t, gateway.Options{Wrap: paths.Record})
	_ = srv
	for _, id := range hostile.DotIDs {
		c.GetBatch(ctx(t), id)
		c.DeleteBatch(ctx(t), id)
		c.GetDestination(ctx(t), id)
		c.DeleteDestination(ctx(t), id)
		c.UpdateDestination(ctx(t), id, api.DestinationPatch{Name: ptr("x")})
	}
	seen := paths.Seen()
	if len(seen) < 10 {
		t.Fatalf("only %d requests: %v", len(seen), seen)
	}
	for _, p := range seen {
		if hostile.DotSegment(p) {
			t.Fatalf("a dot segment went out: %q", p)
		}
	}
	before := len(paths.Seen())
	for _, call := range []func() error{
		func() error { _, err := c.GetBatch(ctx(t), hostile.LongID); return err },
		func() error { return c.DeleteBatch(ctx(t), hostile.LongID) },
		func() error { _, err := c.GetDestination(ctx(t), hostile.LongID); return err },
	} {
		err := call()
		var ve *api.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "at most 256 bytes") {
			t.Fatalf("a 4 KiB id: %v", err)
		}
	}
	if n := len(paths.Seen()); n != before {
		t.Fatalf("%d requests sent with a 4 KiB id", n-before)
	}
}

// 9. A gzip body is counted as it inflates: a bomb stops at the cap, and
// reading up to the cap costs about the cap in memory.
func TestGzipBombStopsAtTheCap(t *testing.T) {
	bomb := &hostile.GzipBomb{Prefix: `{"object":"list","data":[],"x":"`, Inflate: 1200 << 20}
	srv := httptest.NewServer(bomb)
	t.Cleanup(srv.Close)
	const limit = 16 << 20
	c, err := api.New(api.Options{BaseURL: srv.URL, APIKey: "k", MaxBodyBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = c.GetBatch(ctx(t), "b")
	runtime.ReadMemStats(&after)
	var tl *api.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("a gzip bomb: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > limit*3/2 {
		t.Fatalf("reading to a %d MiB cap allocated %d MiB", limit>>20, got>>20)
	}
	if _, err := c.ListBatches(ctx(t), api.BatchListOptions{}); !errors.As(err, &tl) {
		t.Fatalf("a gzip bomb as a list: %v", err)
	}
}

// 9. Duplicate and case-variant member names: every decoder refuses the
// same answers, and reads a lone variant the same way.
func TestDuplicateMembersReadOneWay(t *testing.T) {
	for _, exact := range []bool{false, true} {
		srv, c := startGateway(t, gateway.Options{Wrap: func(h http.Handler) http.Handler { return hostile.DuplicateMembers(h, exact) }})
		id := srv.SeedID(gateway.SeedChat)
		_, errList := c.ListBatches(ctx(t), api.BatchListOptions{})
		_, errGet := c.GetBatch(ctx(t), id)
		_, errData := c.GetBatchData(ctx(t), id)
		for _, err := range []error{errList, errGet, errData} {
			var dm *api.DuplicateMemberError
			if !errors.As(err, &dm) || !strings.Contains(err.Error(), `"status" twice`) && !strings.Contains(err.Error(), `"ſtatus"`) {
				t.Fatalf("exact %v: %v", exact, err)
			}
		}
	}
	// A lone "Status" is the status, for the list and the batch alike.
	srv, c := startGateway(t, gateway.Options{Wrap: func(h http.Handler) http.Handler {
		return hostile.Rewrite(h, func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), `"status":`, `"Status":`)) })
	}})
	id := srv.SeedID(gateway.SeedChat)
	page, err := c.ListBatches(ctx(t), api.BatchListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.GetBatch(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range page.Data {
		if x.ID == id && (x.Status != b.Status || b.Status != api.BatchStatus("completed")) {
			t.Fatalf("list reads %q, get reads %q", x.Status, b.Status)
		}
	}
}

// 10. A secret the server echoes in clear is masked before anything reads
// it: the decoded config and the raw bytes --json prints.
func TestServerSecretsMaskedOnArrival(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{Wrap: hostile.Secrets})
	id := srv.DestinationID("prod-langfuse")
	d, err := c.GetDestination(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.ListDestinations(ctx(t), api.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range [][]byte{d.Raw, page.Raw} {
		if strings.Contains(string(raw), hostile.ClearSecret) {
			t.Fatalf("a clear secret kept: %s", raw)
		}
	}
	masked := 0
	for _, x := range append(page.Data, *d) {
		for k, v := range x.Config {
			s, _ := v.(string)
			if strings.Contains(s, hostile.ClearSecret) {
				t.Fatalf("config.%s in clear", k)
			}
			if api.IsSecretMember(k) && api.IsMasked(s) {
				masked++
			}
		}
	}
	if masked == 0 {
		t.Fatal("no secret member seen: the scenario tests nothing")
	}
}

// 11. The waits of one operation have a total bound; each is told before
// it starts; past the bound the operation gives up and says so.
func TestConflictWaitsAreBoundedAndTold(t *testing.T) {
	srv, err := gateway.Start("127.0.0.1:0", gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	conf := &hostile.Conflicts{Method: http.MethodPatch, N: 4, RetryAfter: "299"}
	conf.H = srv.Gateway
	hs := httptest.NewServer(conf)
	t.Cleanup(hs.Close)
	var sl sleepRecorder
	var notices []api.WaitNotice
	c, err := api.New(api.Options{BaseURL: hs.URL + "/api/v1", ManagementKey: gateway.DemoManagementKey, Sleep: sl.sleep,
		OnWait: func(n api.WaitNotice) { notices = append(notices, n) }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateDestination(ctx(t), srv.DestinationID("prod-langfuse"), api.DestinationPatch{Name: ptr("x")})
	var gu *api.GaveUpError
	if !errors.As(err, &gu) || !strings.Contains(err.Error(), "giving up after 2 attempts") || api.StatusOf(err) != http.StatusConflict {
		t.Fatalf("want a give-up: %v", err)
	}
	var total time.Duration
	for _, d := range sl.all() {
		total += d
	}
	// Each wait is told twice: as it starts, and (Done) as it ends.
	if total > api.MaxOperationWait || len(notices) != 2*len(sl.all()) || len(notices) == 0 {
		t.Fatalf("waited %s in %d waits, %d told", total, len(sl.all()), len(notices))
	}
	for i := 0; i+1 < len(notices); i += 2 {
		if notices[i].Done || !notices[i+1].Done || notices[i+1].Attempt != notices[i].Attempt {
			t.Fatalf("notices %d and %d: want a start and its end: %+v", i, i+1, notices[i:i+2])
		}
	}
	if n := notices[0]; n.Wait != 299*time.Second || n.Attempt != 2 || n.Budget != api.MaxOperationWait || !strings.Contains(n.Why, "409") || n.Status != http.StatusConflict {
		t.Fatalf("notice: %+v", n)
	}
	if conf.Count() != 2 {
		t.Fatalf("%d PATCHes", conf.Count())
	}
}

// 11. A redirect to another route on the same host does not carry the
// management key there; a POST is never re-sent on a redirect (loop).
func TestRedirectsKeepKeysAndPOSTsOnce(t *testing.T) {
	srv, err := gateway.Start("127.0.0.1:0", gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	rd := &hostile.Redirects{H: srv.Gateway, From: "/api/v1/observability/destinations", To: "/api/v1/batches"}
	hs := httptest.NewServer(rd)
	t.Cleanup(hs.Close)
	c := newClient(t, hs.URL+"/api/v1", gateway.DemoAPIKey, gateway.DemoManagementKey)
	c.GetDestination(ctx(t), "d1")
	auth := rd.AuthAtTarget()
	if len(auth) == 0 {
		t.Fatal("the redirect was not followed: the scenario tests nothing")
	}
	for _, a := range auth {
		if strings.Contains(a, gateway.DemoManagementKey) {
			t.Fatal("the management key followed a redirect to another route")
		}
	}
	loop := &hostile.Redirects{H: srv.Gateway, From: "/api/v1/responses", To: "/api/v1/responses"}
	ls := httptest.NewServer(loop)
	t.Cleanup(ls.Close)
	c = newClient(t, ls.URL+"/api/v1", gateway.DemoAPIKey, gateway.DemoManagementKey)
	_, err = c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "openai/gpt-4o-mini"})
	var re *api.RedirectError
	if !errors.As(err, &re) || re.Method != http.MethodPost {
		t.Fatalf("a 307 loop on POST: %v", err)
	}
	if n := loop.Requests(http.MethodPost); n != 1 {
		t.Fatalf("the POST was sent %d times", n)
	}
	s, err := c.StreamResponse(context.Background(), api.ResponseRequest{Input: api.Input{Text: "x"}, Model: "openai/gpt-4o-mini"})
	if err == nil {
		s.Close()
	}
	if !errors.As(err, &re) || loop.Requests(http.MethodPost) != 2 {
		t.Fatalf("a 307 loop on a streamed POST: %v, %d POSTs", err, loop.Requests(http.MethodPost))
	}
}

// 13. Numbers from text are decimal only: hexadecimal floats, infinities
// and NaN are refused, -0 is 0; a hexadecimal Retry-After asks nothing.
func TestNumbersAreDecimalOnly(t *testing.T) {
	for _, s := range []string{"0x1p4", "0X10", "Inf", "-inf", "NaN", "1_000", "1e400", "", "1e5x"} {
		if v, err := api.ParseNumber(s); err == nil {
			t.Errorf("%q read as %v", s, v)
		}
	}
	for s, want := range map[string]float64{"0.25": 0.25, " 3 ": 3, "-0": 0, "1e-6": 1e-6, ".5": 0.5} {
		if v, err := api.ParseNumber(s); err != nil || v != want || s == "-0" && 1/v < 0 {
			t.Errorf("%q: %v %v", s, v, err)
		}
	}
	if _, err := api.ParseSamplingRate("0x1p-2"); err == nil {
		t.Error("a hex float sampling rate was taken")
	}
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0x1p4")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newClient(t, srv.URL, "k", "")
	_, err := c.GetBatch(ctx(t), "b")
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.RetryAfter != 0 {
		t.Fatalf("Retry-After 0x1p4 read as %v (%v)", ae.RetryAfter, err)
	}
}
