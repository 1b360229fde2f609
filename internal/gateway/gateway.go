// Package gateway is gwdash's embedded Model Inference Gateway: an
// http.Handler that answers GET /batches/{id}, POST /batches, POST
// /responses, GET /observability/destinations and PATCH
// /observability/destinations/{id} as the contract says, and the routes
// beyond it (batch list and delete, destination create/get/delete, models,
// key, credits, generation) as the real service and its official SDK
// expect (testdata/sdk-required.txt), with realistic seeded data, so that
// the product can be tried and tested on loopback.
//
// It deliberately does not import package api: it is a second, independent
// reading of the contract, so that a mistake in one shows up against the
// other in tests.
package gateway

import (
	"bytes"
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Demo keys, printed by `gwdash demo --serve`. They open nothing but the
// embedded gateway.
const (
	DemoAPIKey        = "gw-demo-api-key-0000000000000000"
	DemoManagementKey = "gw-demo-mgmt-key-000000000000000"
)

// Options configure a Gateway. Zero values take the defaults.
type Options struct {
	APIKey        string
	ManagementKey string
	// TokensPerSecond paces streamed output; 0 streams as fast as possible.
	TokensPerSecond float64
	// ThinkTime is the wait before the first token, filled with keep-alive
	// comments every KeepAliveEvery.
	ThinkTime      time.Duration
	KeepAliveEvery time.Duration
	// LargeBatchSize is the number of results of the large seeded batch.
	LargeBatchSize int
	// BatchDuration is how long a submitted batch takes from validating to
	// completed.
	BatchDuration time.Duration
	// PaymentPolls is how many polls the 402 batch answers 402 before its
	// credits are "added".
	PaymentPolls int
	// SubmitVisibleAfter is how long a submitted batch answers 404, as the
	// real service does for a few seconds after submission.
	SubmitVisibleAfter time.Duration
	// Faults.
	Latency     time.Duration // added before every answer
	ErrorRate   float64       // share of requests answered with a 5xx
	DropRate    float64       // share of streams cut mid-way
	Seed        uint64        // for the fault and text generators
	Now         func() time.Time
	RecordLimit int // requests kept for tests (default 1000)
	// RecordBytes bounds the request bodies kept with them (default
	// 8 MiB); negative keeps none (the demo: no test reads its requests).
	RecordBytes int
	// Wrap, when set, wraps the handler a Server serves (tests make the
	// gateway hostile with it).
	Wrap func(http.Handler) http.Handler
	// NoBatchList makes GET /batches answer 404, as a server that does
	// not list batches would (the dashboard then falls back).
	NoBatchList bool
	// PurgeAfter is how long a deleted batch stays a tombstone (2s).
	PurgeAfter time.Duration
	// KeyLimit is the API key's spending limit in dollars (0: no limit);
	// KeyUsage what it has used when the gateway starts.
	KeyLimit, KeyUsage float64
	// Credits is what the organisation bought, in dollars (GET /credits;
	// default 25).
	Credits float64
	// GenerationDelay is how long a generation's record answers 404 after
	// its answer ends (1.5s).
	GenerationDelay time.Duration
	// TinyBatchSize, when set, seeds a batch of that many tiny results
	// (for scale tests).
	TinyBatchSize int
}

func (o Options) withDefaults() Options {
	o.APIKey = cmp.Or(o.APIKey, DemoAPIKey)
	o.ManagementKey = cmp.Or(o.ManagementKey, DemoManagementKey)
	o.KeepAliveEvery = positiveOr(o.KeepAliveEvery, 150*time.Millisecond)
	o.LargeBatchSize = positiveOr(o.LargeBatchSize, 10000)
	o.BatchDuration = positiveOr(o.BatchDuration, 40*time.Second)
	o.PaymentPolls = positiveOr(o.PaymentPolls, 3)
	if o.Now == nil {
		o.Now = time.Now
	}
	o.RecordLimit = positiveOr(o.RecordLimit, 1000)
	o.RecordBytes = cmp.Or(o.RecordBytes, 8<<20) // negative keeps none
	o.Seed = cmp.Or(o.Seed, 42)
	o.PurgeAfter = positiveOr(o.PurgeAfter, 2*time.Second)
	o.Credits = positiveOr(o.Credits, 25)
	o.GenerationDelay = positiveOr(o.GenerationDelay, 1500*time.Millisecond)
	return o
}

// positiveOr is v when it is above zero, else def: an option left at zero
// (or set below it) takes its default.
func positiveOr[T int | float64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Recorded is one request the gateway received. Key says which key
// authenticated it ("api", "management", "invalid" or "none"); the key
// itself is never kept.
type Recorded struct {
	Method string
	Path   string
	Query  string
	Key    string
	Header http.Header
	Body   []byte
}

// Gateway is the embedded gateway. It is safe for concurrent use.
type Gateway struct {
	opts  Options
	start time.Time
	mux   *http.ServeMux

	mu       sync.Mutex
	rng      *rand.Rand
	batches  *batchStore
	dests    *destStore
	account  *account
	recorded []Recorded
	// recordedBytes is the size of the recorded bodies.
	recordedBytes int
}

// New builds a gateway with its seeded data.
func New(opts Options) *Gateway {
	o := opts.withDefaults()
	g := &Gateway{opts: o, start: o.Now(), rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
	g.batches = newBatchStore(g)
	g.dests = newDestStore(g)
	g.account = newAccount(o)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/batches/{id}", g.auth(inference, g.getBatch))
	mux.HandleFunc("DELETE /api/v1/batches/{id}", g.auth(inference, g.deleteBatch))
	mux.HandleFunc("GET /api/v1/batches", g.auth(inference, g.listBatches))
	mux.HandleFunc("POST /api/v1/batches", g.auth(inference, g.submitBatch))
	mux.HandleFunc("POST /api/v1/responses", g.auth(inference, g.createResponse))
	mux.HandleFunc("GET /api/v1/models", g.open(g.listModels))
	mux.HandleFunc("GET /api/v1/models/{author}/{slug}/endpoints", g.open(g.getEndpoints))
	mux.HandleFunc("GET /api/v1/key", g.auth(anyKey, g.getKey))
	mux.HandleFunc("GET /api/v1/credits", g.auth(management, g.getCredits))
	mux.HandleFunc("GET /api/v1/generation", g.auth(inference, g.getGeneration))
	mux.HandleFunc("GET /api/v1/activity", g.auth(management, g.getActivity))
	mux.HandleFunc("GET /api/v1/observability/destinations", g.auth(management, g.listDestinations))
	mux.HandleFunc("POST /api/v1/observability/destinations", g.auth(management, g.createDestination))
	mux.HandleFunc("GET /api/v1/observability/destinations/{id}", g.auth(management, g.getDestination))
	mux.HandleFunc("PATCH /api/v1/observability/destinations/{id}", g.auth(management, g.patchDestination))
	mux.HandleFunc("DELETE /api/v1/observability/destinations/{id}", g.auth(management, g.deleteDestination))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no route for "+r.Method+" "+r.URL.Path)
	})
	g.mux = mux
	return g
}

// ServeHTTP implements http.Handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mux.ServeHTTP(w, r)
}

// Requests returns a copy of the requests received so far.
func (g *Gateway) Requests() []Recorded {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Recorded(nil), g.recorded...)
}

// RequestsTo returns the recorded requests whose method and path match.
func (g *Gateway) RequestsTo(method, pathPrefix string) []Recorded {
	var out []Recorded
	for _, r := range g.Requests() {
		if r.Method == method && strings.HasPrefix(r.Path, pathPrefix) {
			out = append(out, r)
		}
	}
	return out
}

func (g *Gateway) now() time.Time { return g.opts.Now() }

func (g *Gateway) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rng.Float64() < p
}

type keyNeed int

const (
	inference keyNeed = iota
	management
	anyKey
)

// open serves a route that needs no key (the models catalogue), recording
// it and applying the latency fault.
func (g *Gateway) open(h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g.record(r, g.keyKind(r.Header.Get("Authorization")), nil)
		if g.opts.Latency > 0 {
			select {
			case <-time.After(g.opts.Latency):
			case <-r.Context().Done():
				return
			}
		}
		h(w, r)
	}
}

// auth checks the bearer key, records the request, and applies faults.
func (g *Gateway) auth(need keyNeed, h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := readLimited(r, 8<<20)
		if err != nil {
			writeError(w, http.StatusRequestEntityTooLarge, "request body too large")
			return
		}
		kind := g.keyKind(r.Header.Get("Authorization"))
		g.record(r, kind, body)
		if g.opts.Latency > 0 {
			select {
			case <-time.After(g.opts.Latency):
			case <-r.Context().Done():
				return
			}
		}
		switch {
		case kind == "none" && need == management:
			writeError(w, http.StatusUnauthorized, "Missing Authentication header")
			return
		case kind == "none":
			writeError(w, http.StatusUnauthorized, "No auth credentials found")
			return
		case kind == "invalid":
			writeError(w, http.StatusUnauthorized, "Invalid API key")
			return
		case need == management && kind != "management":
			what := "manage observability destinations"
			if strings.HasSuffix(r.URL.Path, "/credits") {
				what = "read the credits"
			}
			writeError(w, http.StatusForbidden, "Only management keys can "+what)
			return
		case need == inference && kind == "management":
			writeError(w, http.StatusForbidden, "Management keys cannot call inference endpoints; use an API key")
			return
		}
		if g.chance(g.opts.ErrorRate) {
			code := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}[int(g.rng.Uint64()%3)]
			if code == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "1")
			}
			writeError(w, code, "injected fault: "+http.StatusText(code))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}
}

func (g *Gateway) keyKind(authz string) string {
	tok, ok := strings.CutPrefix(authz, "Bearer ")
	if !ok || strings.TrimSpace(tok) == "" {
		return "none"
	}
	switch {
	case subtle.ConstantTimeCompare([]byte(tok), []byte(g.opts.ManagementKey)) == 1:
		return "management"
	case subtle.ConstantTimeCompare([]byte(tok), []byte(g.opts.APIKey)) == 1:
		return "api"
	}
	return "invalid"
}

func (g *Gateway) record(r *http.Request, kind string, body []byte) {
	h := r.Header.Clone()
	h.Del("Authorization")
	// A copy of its own size: io.ReadAll's buffer grew past the body,
	// and a kept slice of it would hold its whole capacity.
	if g.opts.RecordBytes < 0 {
		body = nil
	} else {
		body = bytes.Clone(body)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.recorded) >= g.opts.RecordLimit {
		g.dropRecorded()
	}
	g.recorded = append(g.recorded, Recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Key: kind, Header: h, Body: body})
	g.recordedBytes += len(body)
	// The bodies kept are bounded too: a playground conversation sends
	// its whole history with each prompt, so 200 turns would keep ~30 MB.
	// (With no bodies kept, the count of requests is the only bound.)
	for g.opts.RecordBytes >= 0 && g.recordedBytes > g.opts.RecordBytes && len(g.recorded) > 1 {
		g.dropRecorded()
	}
}

// dropRecorded forgets the oldest request: cleared first, as the slice's
// array keeps what is before its start until it grows again.
func (g *Gateway) dropRecorded() {
	g.recordedBytes -= len(g.recorded[0].Body)
	g.recorded[0] = Recorded{}
	g.recorded = g.recorded[1:]
}

func readLimited(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errors.New("request body too large")
	}
	return b, err
}

// writeJSON writes v with the given status as application/json.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":500,"message":"encoding failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// writeError writes the contract's envelope; code equals the status.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg}})
}

// Server is a gateway listening on loopback.
type Server struct {
	*Gateway
	// URL is the base URL, ending in /api/v1.
	URL  string
	Addr string
	srv  *http.Server
	ln   net.Listener
}

// Start listens on addr (default 127.0.0.1:0) and serves the gateway.
func Start(addr string, opts Options) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	g := New(opts)
	var h http.Handler = g
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	s := &Server{Gateway: g, Addr: ln.Addr().String(), ln: ln,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	s.URL = "http://" + s.Addr + "/api/v1"
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server and its open streams at once: its clients are
// the tests and the demo, and both are done with it.
func (s *Server) Close() error { return s.srv.Close() }
