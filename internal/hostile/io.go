package hostile

// Scenarios of the second hostile round, one per class of issue 22 that
// is about what crosses gwdash's input and output: output hygiene (raw
// controls in unknown members), ids (dot segments, long ids), decoding
// (gzip bombs, duplicate and case-variant member names), secrets sent in
// clear, waits and redirects, files behind symlinks, numbers beyond any
// width, and a fast endless stream.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// ---------------------------------------------------------------------
// A rewriting handler.

// rewrite serves h with every JSON answer passed through onJSON and every
// data line of a server-sent event through onEvent (either may be nil).
func rewrite(h http.Handler, onJSON, onEvent func([]byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &rewriter{w: w, onJSON: onJSON, onEvent: onEvent}
		h.ServeHTTP(rw, r)
		rw.finish()
	})
}

type rewriter struct {
	w               http.ResponseWriter
	onJSON, onEvent func([]byte) []byte
	status          int
	kind            string
	body            bytes.Buffer
	started         bool
}

func (rw *rewriter) Header() http.Header { return rw.w.Header() }

func (rw *rewriter) WriteHeader(status int) {
	if rw.started {
		return
	}
	rw.started, rw.status = true, status
	ct := rw.w.Header().Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json") && rw.onJSON != nil:
		rw.kind = "json"
		rw.w.Header().Del("Content-Length")
	case strings.HasPrefix(ct, "text/event-stream") && rw.onEvent != nil:
		rw.kind = "sse"
		rw.w.WriteHeader(status)
	default:
		rw.w.WriteHeader(status)
	}
}

func (rw *rewriter) Write(p []byte) (int, error) {
	if !rw.started {
		rw.WriteHeader(http.StatusOK)
	}
	switch rw.kind {
	case "json":
		rw.body.Write(p)
		return len(p), nil
	case "sse":
		rw.body.Write(p)
		return len(p), rw.frames(false)
	}
	return rw.w.Write(p)
}

func (rw *rewriter) Flush() {
	if rw.kind == "sse" {
		rw.frames(false)
	}
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (rw *rewriter) finish() {
	switch rw.kind {
	case "json":
		b := rw.onJSON(rw.body.Bytes())
		rw.w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		rw.w.WriteHeader(rw.status)
		rw.w.Write(b)
	case "sse":
		rw.frames(true)
	}
}

func (rw *rewriter) frames(all bool) error {
	for {
		b := rw.body.Bytes()
		i := bytes.Index(b, []byte("\n\n"))
		if i < 0 {
			if all && len(b) > 0 {
				_, err := rw.w.Write(rw.frame(b))
				rw.body.Reset()
				return err
			}
			return nil
		}
		frame := append([]byte(nil), b[:i+2]...)
		rw.body.Next(i + 2)
		if _, err := rw.w.Write(rw.frame(frame)); err != nil {
			return err
		}
	}
}

func (rw *rewriter) frame(frame []byte) []byte {
	lines := bytes.Split(frame, []byte("\n"))
	for i, l := range lines {
		if data, ok := bytes.CutPrefix(l, []byte("data: ")); ok && !bytes.Equal(data, []byte("[DONE]")) {
			lines[i] = append([]byte("data: "), rw.onEvent(data)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// Rewrite serves h with every JSON answer passed through f: for a
// scenario of a test's own.
func Rewrite(h http.Handler, f func([]byte) []byte) http.Handler { return rewrite(h, f, nil) }

// addMember puts member (a complete `"name":value` pair) first into every
// object of the first levels of a JSON text (depth < levels), except
// the open maps (config, metadata, headers), whose members are data.
func addMember(b []byte, member string, levels int) []byte {
	out := make([]byte, 0, len(b)+len(member)*8)
	depth, inString, escaped := 0, false, false
	var open []bool // per level: an open map
	last := ""      // the last member name read, for open maps
	var name []byte
	for _, c := range b {
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				last = string(name)
			default:
				name = append(name, c)
			}
			continue
		}
		out = append(out, c)
		switch c {
		case '"':
			inString, name = true, name[:0]
		case '{':
			isOpen := openMaps[last]
			open = append(open, isOpen)
			if depth < levels && !isOpen {
				out = append(out, member...)
				out = append(out, ',')
			}
			depth++
		case '[':
			open = append(open, false)
			depth++
		case '}', ']':
			depth--
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	// an object that was empty now ends in a comma
	return bytes.ReplaceAll(out, []byte(member+",}"), []byte(member+"}"))
}

// ---------------------------------------------------------------------
// 6. Output hygiene.

// ControlMember is the name of the unknown member Controls adds; its
// name carries an escape too.
const ControlMember = "x_gwdash_io"

// controlMember is `"name":"value"` with, raw on the wire: a CR as white
// space before it, an 8-bit CSI (U+009B) and OSC (U+009D), DEL, an invalid
// byte (0x9B alone) and a right-to-left override; escaped: CR, ESC
// sequences and U+009B.
const controlMember = "\r\"" + ControlMember + `\u001b]0;t\u0007":"ok\rstatus: completed\u001b[2J\u009b31m` + "\u009b\u009d\x7f\x9b\u202e" + `x"`

// Controls serves h with, in every object of the first three levels of
// every JSON answer and stream event (not config, metadata or headers),
// an unknown member whose name and value hold every kind of control, raw
// and escaped. A `--json` that passes unknown members through must print
// none of them raw.
func Controls(h http.Handler) http.Handler {
	add := func(b []byte) []byte { return addMember(b, controlMember, 3) }
	return rewrite(h, add, add)
}

// RawControl returns a description of the first byte of out that must not
// reach a terminal raw ("" when there is none): a C0 control other than
// newline and tab, DEL, a C1 control (U+0080-U+009F), a bidi override, or
// a byte that is not UTF-8.
func RawControl(out string) string {
	for i := 0; i < len(out); {
		c := out[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return "raw byte 0x" + strconv.FormatUint(uint64(c), 16) + " at " + strconv.Itoa(i)
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return "invalid UTF-8 byte 0x" + strconv.FormatUint(uint64(c), 16) + " at " + strconv.Itoa(i)
		case r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return "raw U+" + strconv.FormatInt(int64(r), 16) + " at " + strconv.Itoa(i)
		}
		i += size
	}
	return ""
}

// ---------------------------------------------------------------------
// 8. Ids.

// Paths records the raw request targets a server receives.
type Paths struct {
	mu   sync.Mutex
	seen []string
}

// Record serves h and records every request's raw target (path and query
// as sent, before any cleaning).
func (p *Paths) Record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.RequestURI)
		p.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// Seen returns the targets recorded so far.
func (p *Paths) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// DotSegment reports whether a raw request target has a "." or ".."
// path segment (which a proxy or server would resolve to another route).
func DotSegment(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	for _, s := range strings.Split(path, "/") {
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}

// DotIDs are ids that form dot segments when put in a path as they are.
var DotIDs = []string{".", ".."}

// LongID is an id of 4 KiB, longer than any id gwdash sends.
var LongID = "batch_" + strings.Repeat("0123456789abcdef", 256)

// ---------------------------------------------------------------------
// 9. Decoding.

// GzipBomb serves, on every request, a gzip-encoded 200 answer with
// Content-Type ctype: prefix, then white space, inflating to inflate
// bytes while the wire carries about a thousandth of that. It counts
// what it inflated and sent, so that a test can see where the client
// stopped.
type GzipBomb struct {
	Prefix  string
	Inflate int64
	CType   string
	sent    atomic.Int64 // inflated bytes written
}

var (
	bombOnce  sync.Once
	bombChunk []byte // one gzip member of 1 MiB of spaces
)

const bombChunkSize = 1 << 20

func (g *GzipBomb) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bombOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(bytes.Repeat([]byte(" "), bombChunkSize))
		zw.Close()
		bombChunk = b.Bytes()
	})
	ct := g.CType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(http.StatusOK)
	var head bytes.Buffer
	zw := gzip.NewWriter(&head)
	zw.Write([]byte(g.Prefix))
	zw.Close()
	if _, err := w.Write(head.Bytes()); err != nil {
		return
	}
	g.sent.Add(int64(len(g.Prefix)))
	for n := int64(0); n < g.Inflate; n += bombChunkSize {
		if _, err := w.Write(bombChunk); err != nil {
			return
		}
		g.sent.Add(bombChunkSize)
	}
}

// Inflated is how many inflated bytes the bomb has written so far (what
// the client's transport may have read is at most this).
func (g *GzipBomb) Inflated() int64 { return g.sent.Load() }

// DuplicateMembers serves h with every "status" member of the first two
// levels of every JSON answer preceded by a second one of another value:
// a case variant with the long s ("ſtatus": "failed") when exact is
// false, the same name ("status": "failed") when it is true. A decoder
// that ignores case reads "failed" from one and the real status from the
// other; gwdash must read every answer one way.
func DuplicateMembers(h http.Handler, exact bool) http.Handler {
	name := "ſtatus"
	if exact {
		name = "status"
	}
	return rewrite(h, func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"status":`), []byte(`"`+name+`":"failed","status":`))
	}, nil)
}

// ---------------------------------------------------------------------
// 10. Secrets from the server.

// ClearSecret is the value Secrets puts into every secret-like config
// member: what must never be printed or stored.
const ClearSecret = "sk-live-CLEARTEXT-7f3a9c2e5b81d4"

// Secrets serves h with every config member of a destination whose name
// looks secret (key, secret, password, token, dsn, license, auth) sent in
// clear, as a broken server would echo it.
func Secrets(h http.Handler) http.Handler {
	return rewrite(h, eachValue(func(v any) any { return unmask(v, false) }), nil)
}

var secretLike = []string{"key", "secret", "password", "token", "dsn", "license", "auth"}

func unmask(v any, inConfig bool) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = unmask(x[i], inConfig)
		}
	case map[string]any:
		for k, val := range x {
			if inConfig {
				l := strings.ToLower(k)
				for _, s := range secretLike {
					if strings.Contains(l, s) {
						if _, ok := val.(string); ok {
							x[k] = ClearSecret
						}
					}
				}
				continue
			}
			x[k] = unmask(val, k == "config")
		}
	}
	return v
}

// ---------------------------------------------------------------------
// 11. Waits and redirects.

// Conflicts serves h, except that the first N requests of method Method
// are answered 409 with Retry-After: RetryAfter (seconds). It counts them.
type Conflicts struct {
	H          http.Handler
	Method     string
	N          int
	RetryAfter string
	count      atomic.Int64
}

func (c *Conflicts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == c.Method && c.count.Add(1) <= int64(c.N) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", c.RetryAfter)
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, `{"error":{"code":409,"message":"Conflict: changed concurrently, retry"}}`)
		return
	}
	c.H.ServeHTTP(w, r)
}

// Count is how many requests of Method arrived.
func (c *Conflicts) Count() int { return int(c.count.Load()) }

// Redirects serves h, except that requests whose path starts with From
// are redirected (Status, 307 by default) to the same path with To in
// place of From on the same host; a From equal to To is a loop. It
// records, per path prefix To, every Authorization header that arrived
// there and counts requests by method.
type Redirects struct {
	H        http.Handler
	From, To string
	Status   int
	mu       sync.Mutex
	auth     []string
	methods  map[string]int
}

func (d *Redirects) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	if d.methods == nil {
		d.methods = map[string]int{}
	}
	d.methods[r.Method]++
	if strings.HasPrefix(r.URL.Path, d.To) {
		d.auth = append(d.auth, r.Header.Get("Authorization"))
	}
	d.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, d.From) {
		st := d.Status
		if st == 0 {
			st = http.StatusTemporaryRedirect
		}
		http.Redirect(w, r, d.To+strings.TrimPrefix(r.URL.Path, d.From), st)
		return
	}
	d.H.ServeHTTP(w, r)
}

// AuthAtTarget is every Authorization header that reached To.
func (d *Redirects) AuthAtTarget() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.auth...)
}

// Requests is how many requests of a method arrived.
func (d *Redirects) Requests(method string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.methods[method]
}

// ---------------------------------------------------------------------
// 12. Files.

// SymlinkTrap puts a symlink at path pointing to a victim file beside it
// and returns the victim's path and content. With dangling the victim
// does not exist (content is nil): a program that creates path through
// the link creates the victim. Whatever gwdash does to path must leave
// the victim as it was (or absent).
func SymlinkTrap(path string, dangling bool) (victim string, content []byte, err error) {
	victim = path + ".victim"
	os.Remove(path)
	if !dangling {
		content = []byte("victim: not gwdash's to write\n")
		if err := os.WriteFile(victim, content, 0o644); err != nil {
			return "", nil, err
		}
	}
	return victim, content, os.Symlink(victim, path)
}

// ---------------------------------------------------------------------
// 13. Numbers.

// Numbers serves h with its numbers made absurd: every "limit" is 1e300,
// every "usage" -0, every cost ("cost", "total_cost") a number of 300
// digits, and numeric headers (X-RateLimit-*, Retry-After) hexadecimal
// floats ("0x1p4"). None may blank a status bar or be read as a number
// it is not.
func Numbers(h http.Handler) http.Handler {
	huge := json.Number(strings.Repeat("9", 300))
	each := eachValue(func(v any) any { return absurd(v, huge) })
	return rewrite(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hw := &headerHex{ResponseWriter: w}
		h.ServeHTTP(hw, r)
	}), each, each)
}

func absurd(v any, huge json.Number) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = absurd(x[i], huge)
		}
	case map[string]any:
		for k, val := range x {
			if _, isNum := val.(json.Number); isNum {
				switch k {
				case "limit", "limit_remaining":
					x[k] = json.Number("1e300")
					continue
				case "usage", "usage_daily":
					x[k] = json.Number("-0")
					continue
				case "cost", "total_cost":
					x[k] = huge
					continue
				}
			}
			x[k] = absurd(val, huge)
		}
	}
	return v
}

type headerHex struct{ http.ResponseWriter }

func (w *headerHex) WriteHeader(status int) {
	for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
		if w.Header().Get(k) != "" {
			w.Header().Set(k, "0x1p4")
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *headerHex) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// ---------------------------------------------------------------------
// 14. Speed.

// FastStream answers every POST /responses with a streamed answer of
// about Bytes bytes of text, in deltas of DeltaBytes, as fast as the
// connection takes them: the measure of what gwdash adds to a stream.
type FastStream struct {
	Bytes      int64
	DeltaBytes int
}

func (f *FastStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	d := f.DeltaBytes
	if d <= 0 {
		d = 64
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	text := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", d/56+1)[:d]
	delta := []byte(`event: response.output_text.delta` + "\n" + `data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"` + text + `"}` + "\n\n")
	var buf bytes.Buffer
	buf.WriteString("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_fast\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"fast/model\",\"output\":[]}}\n\n")
	for n := int64(0); n < f.Bytes; n += int64(d) {
		buf.Write(delta)
		if buf.Len() >= 256<<10 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			buf.Reset()
		}
	}
	buf.WriteString("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_fast\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"fast/model\",\"output\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}\n\n")
	w.Write(buf.Bytes())
}
