// Package api is the typed client of the Model Inference Gateway: batches,
// responses (plain and streamed) and observability destinations, exact to
// the contract in shared/spec/gateway-api.md. It imports no UI package.
//
// Keys are held so that they can never be printed: a Client formats as its
// host only, and no error the package returns carries a key.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Defaults for the size limits a Client enforces against a hostile server.
const (
	DefaultMaxEventBytes = 32 << 20  // one server-sent event
	DefaultMaxBodyBytes  = 512 << 20 // one JSON answer (a 100k-result batch is ~100 MB)
	DefaultMaxErrorBytes = 1 << 20   // one error body
)

// Options configure a Client. Only BaseURL is required.
type Options struct {
	// BaseURL already carries the version prefix, e.g.
	// https://gateway.example/api/v1.
	BaseURL string
	// APIKey authenticates batches and responses.
	APIKey string
	// ManagementKey authenticates observability calls. Without one those
	// calls are refused before anything is sent: the API key never goes to
	// a destination endpoint.
	ManagementKey string
	// HTTPClient is used for every request; nil means a client with sane
	// transport timeouts (no overall timeout: streams may be long).
	HTTPClient *http.Client
	// UserAgent is sent on every request.
	UserAgent string
	// Limits; zero means the package default. MaxBodyBytes caps a batch
	// (which may be ~100 MB for 100k results); the user raises it with
	// the max_body_mb setting.
	MaxEventBytes int
	MaxBodyBytes  int64
	MaxErrorBytes int64
	// Sleep waits between retries (409 on PATCH); nil means a real timer.
	// Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnWait, when set, is told of every wait before a retry, before it
	// starts (what is waited for, how long, which attempt, how much of the
	// operation's wait budget is spent), so that the user sees it.
	OnWait func(WaitNotice)
	// RequestTimeout bounds a non-streaming call (default 2m) unless the
	// caller's context ends first.
	RequestTimeout time.Duration
	// StreamIdleTimeout ends a stream that sends nothing, not even a
	// keep-alive comment, for this long (default 2m).
	StreamIdleTimeout time.Duration
}

// Caps of the answers other than a batch (which may be ~100 MB for 100k
// results and is capped by MaxBodyBytes).
const (
	maxPageBytes     = 32 << 20 // one page of destinations
	maxResponseBytes = 64 << 20 // one non-streamed Response
)

// credentials are kept behind a pointer so that fmt, printing a Client's
// fields, shows an address and never the keys.
type credentials struct {
	apiKey        string
	managementKey string
}

// Client talks to one gateway. It is safe for concurrent use.
type Client struct {
	base      *url.URL
	creds     *credentials
	http      *http.Client
	userAgent string
	maxEvent  int
	maxBody   int64
	maxError  int64
	sleep     func(ctx context.Context, d time.Duration) error
	onWait    func(WaitNotice)
	timeout   time.Duration
	idle      time.Duration
}

// New checks the options and returns a Client.
func New(o Options) (*Client, error) {
	if strings.TrimSpace(o.BaseURL) == "" {
		return nil, &ValidationError{Field: "base_url", Rule: "is required"}
	}
	u, err := url.Parse(strings.TrimRight(o.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &ValidationError{Field: "base_url", Rule: "must be an http(s) URL such as https://host/api/v1"}
	}
	if u.User != nil {
		return nil, &ValidationError{Field: "base_url", Rule: "must not carry credentials; use the key settings"}
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: defaultTransport()}
	}
	// Never follow a redirect to another host: the Authorization header must
	// not travel there, and a silent hop is worth an explicit error.
	copied := *hc
	orig := copied.CheckRedirect
	copied.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) == 0 {
			return nil
		}
		first := via[0]
		if !sameHost(req.URL, first.URL) {
			return &RedirectError{To: req.URL.Scheme + "://" + req.URL.Host}
		}
		// A request that changes something (a POST that starts a paid
		// generation, a PATCH, a DELETE) is sent once: a redirect of it
		// is reported, never followed (a 307 loop would re-send it).
		if first.Method != http.MethodGet && first.Method != http.MethodHead {
			return &RedirectError{To: req.URL.Path, Method: first.Method}
		}
		// Another route on the same host gets a key only if it is the
		// route's own kind: the management key never follows a redirect
		// out of the destination routes, nor the API key into them.
		if routeKey(u, req.URL.Path) != routeKey(u, first.URL.Path) {
			req.Header.Del("Authorization")
		}
		if orig != nil {
			return orig(req, via)
		}
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		return nil
	}
	c := &Client{
		base:      u,
		creds:     &credentials{apiKey: o.APIKey, managementKey: o.ManagementKey},
		http:      &copied,
		userAgent: o.UserAgent,
		maxEvent:  o.MaxEventBytes,
		maxBody:   o.MaxBodyBytes,
		maxError:  o.MaxErrorBytes,
		sleep:     o.Sleep,
		onWait:    o.OnWait,
		timeout:   o.RequestTimeout,
		idle:      o.StreamIdleTimeout,
	}
	if c.timeout <= 0 {
		c.timeout = 2 * time.Minute
	}
	if c.idle <= 0 {
		c.idle = 2 * time.Minute
	}
	if c.userAgent == "" {
		c.userAgent = "gwdash"
	}
	if c.maxEvent <= 0 {
		c.maxEvent = DefaultMaxEventBytes
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxBodyBytes
	}
	if c.maxError <= 0 {
		c.maxError = DefaultMaxErrorBytes
	}
	if c.sleep == nil {
		c.sleep = SleepContext
	}
	return c, nil
}

// responseHeaderTimeout bounds the wait for an answer's headers.
const responseHeaderTimeout = 60 * time.Second

func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = responseHeaderTimeout
	t.TLSHandshakeTimeout = 10 * time.Second
	return t
}

// routeKey is the key a path on the gateway's host needs: "management"
// under the destination routes, "api" elsewhere under the base path,
// "none" outside it and for the public models catalogue.
func routeKey(base *url.URL, path string) string {
	prefix := strings.TrimRight(base.Path, "/")
	rest, ok := strings.CutPrefix(path, prefix+"/")
	switch {
	case !ok:
		return "none"
	case strings.HasPrefix(rest, "observability/"):
		return "management"
	case rest == "models" || strings.HasPrefix(rest, "models/") || strings.HasPrefix(rest, "models?"):
		return "none"
	}
	return "api"
}

func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Host, b.Host) && a.Scheme == b.Scheme
}

// String shows where the client points, never its keys.
func (c *Client) String() string { return "gateway " + c.base.Host }

// GoString is String, so that %#v cannot reveal a key either.
func (c *Client) GoString() string { return c.String() }

// BaseURL returns the gateway's base URL.
func (c *Client) BaseURL() string { return c.base.String() }

// Host returns the gateway's host (and port).
func (c *Client) Host() string { return c.base.Host }

// HasAPIKey reports whether an API key is configured.
func (c *Client) HasAPIKey() bool { return c.creds.apiKey != "" }

// HasManagementKey reports whether a management key is configured.
func (c *Client) HasManagementKey() bool { return c.creds.managementKey != "" }

// WaitNotice describes a wait before a retry, for the user.
type WaitNotice struct {
	// Op is the operation ("PATCH /observability/destinations/{id}").
	Op string
	// Why is the answer that made gwdash wait ("HTTP 409 (...)").
	Why string
	// Wait is this wait; Attempt the attempt that follows it, of Attempts.
	Wait              time.Duration
	Attempt, Attempts int
	// Spent is what the operation has waited before this wait; Budget is
	// the most it waits in all (MaxOperationWait).
	Spent, Budget time.Duration
	// Status is the HTTP status of the answer that asked for the wait (0:
	// none).
	Status int
	// Done is set on a second notice, sent when this wait ends (slept, or
	// its context ended), so that a countdown on screen goes.
	Done bool
}

// waitBudget tracks the waits of one operation against MaxOperationWait.
type waitBudget struct {
	op       string
	attempts int
	spent    time.Duration
}

// wait waits d before attempt (of the budget's attempts) unless that
// would take the operation's waits past MaxOperationWait: then it gives
// up with a *GaveUpError naming the answer that asked for the wait.
func (c *Client) wait(ctx context.Context, b *waitBudget, d time.Duration, attempt int, last error) error {
	if b.spent+d > MaxOperationWait {
		return &GaveUpError{Op: b.op, Attempts: attempt - 1, Waited: b.spent, Next: d, Err: last}
	}
	n := WaitNotice{Op: b.op, Why: errorLine(last), Wait: d, Attempt: attempt, Attempts: b.attempts, Spent: b.spent, Budget: MaxOperationWait, Status: StatusOf(last)}
	if c.onWait != nil {
		c.onWait(n)
	}
	b.spent += d
	err := c.sleep(ctx, d)
	if c.onWait != nil {
		n.Done = true
		c.onWait(n)
	}
	return err
}

func errorLine(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// SleepContext waits d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type keyKind int

const (
	inferenceKey keyKind = iota
	managementKey
)

func (c *Client) bearer(k keyKind) string {
	if k == managementKey {
		return c.creds.managementKey
	}
	return c.creds.apiKey
}

// MissingKeyError is a call refused before sending because the key it
// needs is not configured (exit 2 in the commands).
type MissingKeyError struct {
	// Key is "management key" or "API key".
	Key string
	Op  string
}

func (e *MissingKeyError) Error() string {
	if e.Key == "management key" {
		return e.Op + " needs a management key: set GWDASH_MANAGEMENT_KEY, --management-key, or management_key / management_key_cmd in the config file (the API key is never sent there)"
	}
	return e.Op + " needs an API key: set GWDASH_API_KEY, --api-key, or api_key / api_key_cmd in the config file"
}

// request describes one call.
type request struct {
	method string
	path   string // relative to the base URL, starting with "/"
	query  url.Values
	body   any // marshalled as JSON when not nil; []byte is sent as is
	key    keyKind
	accept string
	header http.Header
	limit  int64 // answer cap; 0 means the client's MaxBodyBytes
	// op names the operation in errors ("GET /batches/{id}"); empty means
	// method and path. resource names what it is about, for hints.
	op       string
	resource string
	noAuth   bool // a route that needs no key (the models catalogue)
	// onHeader sees the headers of a 2xx answer.
	onHeader func(http.Header)
}

func (r request) opName() string {
	if r.op != "" {
		return r.op
	}
	return r.method + " " + r.path
}

// MaxIDBytes is the longest id gwdash puts in a path: a longer one is
// refused before any request (ids the service makes are far shorter).
const MaxIDBytes = 256

// pathID is an id as one path segment: escaped (a "/" cannot start
// another segment) and with "." and ".." escaped too, so that no id ever
// forms a dot segment that a proxy or server would resolve to another
// route.
func pathID(id string) string {
	e := url.PathEscape(id)
	if e == "." || e == ".." {
		return strings.ReplaceAll(e, ".", "%2E")
	}
	return e
}

// checkPathID refuses a request whose path ends in an id (its op ends in
// "{id}") when that id is empty or longer than MaxIDBytes, naming it.
func checkPathID(r request) error {
	if !strings.HasSuffix(r.op, "{id}") {
		return nil
	}
	seg := r.path[strings.LastIndexByte(r.path, '/')+1:]
	id, err := url.PathUnescape(seg)
	if err != nil {
		id = seg
	}
	field := strings.TrimSpace(r.resource + " id")
	switch {
	case id == "":
		return &ValidationError{Field: field, Rule: "is required"}
	case len(id) > MaxIDBytes:
		return &ValidationError{Field: field, Rule: fmt.Sprintf("is %d bytes long; an id is at most %d bytes", len(id), MaxIDBytes)}
	}
	return nil
}

func (c *Client) newRequest(ctx context.Context, r request) (*http.Request, error) {
	if err := checkPathID(r); err != nil {
		return nil, err
	}
	u := *c.base
	// r.path is escaped (ids go through url.PathEscape): it joins the
	// base's escaped path, and Path is its decoded form, so that an id is
	// encoded once on the wire, never twice.
	raw := strings.TrimRight(u.EscapedPath(), "/") + r.path
	p, err := url.PathUnescape(raw)
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	u.Path, u.RawPath = p, raw
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		var buf []byte
		switch b := r.body.(type) {
		case []byte:
			buf = b
		default:
			var err error
			if buf, err = json.Marshal(b); err != nil {
				return nil, fmt.Errorf("encoding request: %w", err)
			}
		}
		body = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	accept := r.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", c.userAgent)
	if k := c.bearer(r.key); k != "" && !r.noAuth {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	return req, nil
}

// send performs the request. On a non-2xx status it reads the error body
// and returns an *APIError (with the response closed). On success the
// caller owns resp.Body.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	if r.key == managementKey && c.creds.managementKey == "" && !r.noAuth {
		return nil, &MissingKeyError{Key: "management key", Op: r.opName()}
	}
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, r, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		ae := c.readAPIError(resp)
		ae.Op, ae.Resource = r.opName(), r.resource
		return nil, ae
	}
	return resp, nil
}

// call sends the request and decodes a JSON answer into out, returning the
// raw body as well.
func (c *Client) call(ctx context.Context, r request, out any) ([]byte, error) {
	return c.callWith(ctx, r, func(raw []byte) error { return decodeJSON(raw, out) })
}

// callWith sends the request, reads the answer under the cap and hands it
// to decode.
func (c *Client) callWith(ctx context.Context, r request, decode func([]byte) error) ([]byte, error) {
	return c.callRead(ctx, r, false, func(raw []byte, _ io.Reader) error { return decode(raw) })
}

// callRead sends the request and hands the answer to decode: the body's
// buffer and a reader of it. With overlap and a known length, decode runs
// while the body arrives (the reader gives the bytes as they are read into
// the buffer), so a large answer is parsed in the time it takes to
// download; otherwise the body is read in full first.
func (c *Client) callRead(ctx context.Context, r request, overlap bool, decode func(raw []byte, src io.Reader) error) ([]byte, error) {
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if r.onHeader != nil {
		r.onHeader(resp.Header)
	}
	limit := c.maxBody
	if r.limit > 0 && r.limit < limit {
		limit = r.limit
	}
	readErr := func(err error) error {
		var tl *TooLargeError
		switch {
		case errors.As(err, &tl):
			return err
		case errors.Is(ctx.Err(), context.Canceled):
			return ctx.Err()
		case ctx.Err() != nil:
			return &TransportError{Op: r.opName(), Err: fmt.Errorf("no complete answer within %s", c.timeout)}
		}
		return &TransportError{Op: r.opName(), Err: err}
	}
	if n := resp.ContentLength; overlap && n > 0 && n <= limit {
		f := newFilling(n)
		done := make(chan struct{})
		go func() { defer close(done); f.fill(resp.Body) }()
		// The member check needs the whole body: it runs once the body
		// is in, beside the decode's tail.
		checked := make(chan error, 1)
		go func() {
			<-done
			if f.failed() != nil {
				checked <- nil
				return
			}
			checked <- checkMembers(f.buf)
		}()
		derr := decode(f.buf, &fillReader{f: f})
		if derr != nil {
			// A body cut short explains the failed decode; otherwise the
			// decode's own error is the answer, and closing the body to
			// stop the download must not replace it by the read it cuts.
			cut := f.failed()
			resp.Body.Close()
			<-done
			if cut != nil {
				return nil, readErr(cut)
			}
			return f.buf, &DecodeError{Op: r.opName(), Status: resp.StatusCode, Err: derr}
		}
		<-done
		if ferr := f.failed(); ferr != nil {
			return nil, readErr(ferr)
		}
		if cerr := <-checked; derr == nil {
			derr = cerr
		}
		if derr != nil {
			return f.buf, &DecodeError{Op: r.opName(), Status: resp.StatusCode, Err: derr}
		}
		return f.buf, nil
	}
	raw, err := c.readSized(resp, limit, r.limit == 0)
	if err != nil {
		return nil, readErr(err)
	}
	if secretRoute(r.path) {
		raw = maskSecrets(raw)
	}
	if err := checkMembers(raw); err != nil {
		return raw, &DecodeError{Op: r.opName(), Status: resp.StatusCode, Err: err}
	}
	if err := decode(raw, bytes.NewReader(raw)); err != nil {
		return raw, &DecodeError{Op: r.opName(), Status: resp.StatusCode, Err: err}
	}
	return raw, nil
}

// filling is a buffer of known size that one goroutine fills from the
// network while another reads it as it fills.
type filling struct {
	buf  []byte
	mu   sync.Mutex
	more *sync.Cond
	n    int   // bytes filled so far
	err  error // why filling stopped early (nil while filling or complete)
	end  bool
}

func newFilling(n int64) *filling {
	f := &filling{buf: make([]byte, n)}
	f.more = sync.NewCond(&f.mu)
	return f
}

// fill reads the body into the buffer, a MiB at a time, publishing each
// read.
func (f *filling) fill(r io.Reader) {
	for {
		f.mu.Lock()
		at := f.n
		f.mu.Unlock()
		if at == len(f.buf) {
			break
		}
		m, err := r.Read(f.buf[at:min(len(f.buf), at+1<<20)])
		f.mu.Lock()
		f.n += m
		if err != nil && f.n < len(f.buf) {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			f.err = err
		}
		stop := f.err != nil
		f.more.Broadcast()
		f.mu.Unlock()
		if stop {
			break
		}
	}
	f.mu.Lock()
	f.end = true
	f.more.Broadcast()
	f.mu.Unlock()
}

// failed is why the body could not be read in full (after fill ended).
func (f *filling) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// fillReader reads a filling as it fills.
type fillReader struct {
	f   *filling
	pos int
}

func (r *fillReader) Read(p []byte) (int, error) {
	f := r.f
	f.mu.Lock()
	for f.n == r.pos && !f.end {
		f.more.Wait()
	}
	n, err, end := f.n, f.err, f.end
	f.mu.Unlock()
	if r.pos < n { // bytes below n are written and published: read them unlocked
		c := copy(p, f.buf[r.pos:n])
		r.pos += c
		return c, nil
	}
	if end && err == nil {
		return 0, io.EOF
	}
	return 0, err
}

// readSized reads a body under a cap. A Content-Length beyond the cap is
// refused before anything is read; a body without one is cut at the cap.
// A known length is allocated once (a 100 MB batch then costs 100 MB, not
// the doublings of a growing buffer). settable says whether the user can
// raise the cap (max_body_mb), for the message.
func (c *Client) readSized(resp *http.Response, limit int64, settable bool) ([]byte, error) {
	if n := resp.ContentLength; n > limit {
		return nil, &TooLargeError{What: "response body", Limit: limit, Size: n, Settable: settable}
	} else if n > 0 {
		buf := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	raw, err := c.readBody(resp.Body, limit)
	if tl, ok := err.(*TooLargeError); ok {
		tl.Settable = settable
	}
	return raw, err
}

// readBody reads at most limit bytes and fails beyond it. It counts the
// bytes as the body gives them, which for a compressed answer are the
// decoded bytes (the transport inflates while reading): a gzip bomb stops
// at the cap. It holds what it read in chunks, so that reading up to the
// cap costs the cap in memory, not the doublings of a growing buffer.
func (c *Client) readBody(r io.Reader, limit int64) ([]byte, error) {
	const first, chunk = 32 << 10, 1 << 20
	var chunks [][]byte
	var total int64
	size := first
	for {
		buf := make([]byte, min(int64(size), limit+1-total))
		n, err := io.ReadFull(r, buf)
		total += int64(n)
		if n > 0 {
			chunks = append(chunks, buf[:n])
		}
		if total > limit {
			return nil, &TooLargeError{What: "response body", Limit: limit}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = chunk
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	raw := make([]byte, 0, total)
	for _, b := range chunks {
		raw = append(raw, b...)
	}
	return raw, nil
}

func decodeJSON(raw []byte, out any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return errors.New("empty body where JSON was expected")
	}
	return decode(raw, out)
}

// decode is the hot-path JSON decoder: github.com/go-json-experiment/json,
// about twice as fast as encoding/json here, made to read names as
// encoding/json does (without regard to case, the policy of members.go:
// answers with a name twice are refused before decoding) and invalid
// UTF-8 replaced, since a server may send it.
func decode(data []byte, v any) error { return jsonv2.Unmarshal(data, v, lenient) }

var lenient = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsonv2.MatchCaseInsensitiveNames(true))

func (c *Client) transportError(ctx context.Context, r request, err error) error {
	var re *RedirectError
	if errors.As(err, &re) {
		return re
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &TransportError{Op: r.opName(), Err: fmt.Errorf("no answer within the time limit (%s): %w", c.timeout, ctx.Err())}
		}
		return ctx.Err()
	}
	// url.Error repeats the full URL; keep the operation short.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if strings.Contains(err.Error(), "timeout awaiting response headers") {
		err = fmt.Errorf("no answer headers within %s", responseHeaderTimeout)
	}
	return &TransportError{Op: r.opName(), Err: err}
}
