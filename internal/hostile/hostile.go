// Package hostile turns a server into a hostile one, for tests: every
// string member of every JSON answer (and of every server-sent event) gets
// a string of terminal escape sequences added, and so do the names of
// open maps (config members, metadata keys) and the headers gwdash reads.
// Incoming paths, queries and bodies are cleaned of the string again, so
// that ids the client sends back still find their resource.
//
// The tests of every view and every command run against it and check that
// none of the sequences reaches a terminal.
package hostile

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// String is what every string member gets: a title change (OSC 0), a
// clipboard write (OSC 52), a hyperlink (OSC 8), a clear screen and
// cursor home (CSI 2J, CSI H), leaving the alternate screen (CSI ?1049l),
// hiding the cursor (CSI ?25l), an 8-bit CSI (U+009B), BEL and a
// right-to-left override (U+202E).
const String = "\x1b]0;pwned-title\x07\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b[2J\x1b[H\x1b[?1049l\x1b[?25l\u009b31m\x07\u202eevil"

// HeaderString is what headers get: the part of String that an HTTP
// client accepts in a header value (the 8-bit CSI and the override; a raw
// ESC makes Go's client refuse the whole answer, which is tested on its
// own).
const HeaderString = "\u009b31m\u202eevil"

// Sequences are the byte sequences that must never reach a terminal.
var Sequences = []string{
	"\x1b]0;", "\x1b]52;", "\x1b]8;", "\x1b[2J", "\x1b[H", "\x1b[?1049l", "\x1b[?25l", "\u009b", "\xc2\x9b", "\x07", "\u202e",
}

// Found returns the first hostile sequence in b, or "".
func Found(b string) string {
	for _, s := range Sequences {
		if strings.Contains(b, s) {
			return s
		}
	}
	return ""
}

// Options choose what is left alone.
type Options struct {
	// Keep lists member names whose string values stay as sent: the
	// discriminators a client needs to read anything at all. Default:
	// type, object, role.
	Keep []string
	// CleanStatus leaves "status" members alone too, so that a test can
	// reach the screens of terminal states.
	CleanStatus bool
}

// openMaps are objects whose member names are data, not fields.
var openMaps = map[string]bool{"config": true, "metadata": true, "headers": true}

// headers gwdash reads and shows.
var headers = []string{"X-Generation-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"}

// Wrap makes h hostile.
func Wrap(h http.Handler, o Options) http.Handler {
	keep := map[string]bool{}
	if o.Keep == nil {
		o.Keep = []string{"type", "object", "role"}
	}
	for _, k := range o.Keep {
		keep[k] = true
	}
	if o.CleanStatus {
		keep["status"] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clean(r)
		hw := &writer{w: w, keep: keep}
		h.ServeHTTP(hw, r)
		hw.finish()
	})
}

// clean takes String out of what the client sent back.
func clean(r *http.Request) {
	if strings.Contains(r.URL.Path, String) || strings.Contains(r.URL.Path, HeaderString) {
		r.URL.Path = strip(r.URL.Path)
		r.URL.RawPath = ""
	}
	if q := r.URL.Query(); len(q) > 0 {
		for k, vs := range q {
			for i := range vs {
				vs[i] = strip(vs[i])
			}
			q[k] = vs
		}
		r.URL.RawQuery = q.Encode()
	}
	if r.Body == nil {
		return
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if v, err := decode(b); err == nil {
		b = encode(walk(v, func(s string) string { return strip(s) }, nil, ""))
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
}

func strip(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, String, ""), HeaderString, "")
}

// writer rewrites the answer on its way out.
type writer struct {
	w       http.ResponseWriter
	keep    map[string]bool
	status  int
	kind    string // "json", "sse" or "" (passed through)
	body    bytes.Buffer
	started bool
}

func (hw *writer) Header() http.Header { return hw.w.Header() }

func (hw *writer) WriteHeader(status int) {
	if hw.started {
		return
	}
	hw.started, hw.status = true, status
	h := hw.w.Header()
	for _, k := range headers {
		if v := h.Get(k); v != "" {
			h.Set(k, v+HeaderString)
		}
	}
	ct := h.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		hw.kind = "json"
		h.Del("Content-Length") // set again when the body is rewritten
	case strings.HasPrefix(ct, "text/event-stream"):
		hw.kind = "sse"
		hw.w.WriteHeader(status)
	default:
		hw.w.WriteHeader(status)
	}
}

func (hw *writer) Write(p []byte) (int, error) {
	if !hw.started {
		hw.WriteHeader(http.StatusOK)
	}
	switch hw.kind {
	case "json":
		hw.body.Write(p)
		return len(p), nil
	case "sse":
		hw.body.Write(p)
		if err := hw.frames(false); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return hw.w.Write(p)
}

// Flush passes complete events on.
func (hw *writer) Flush() {
	if hw.kind == "sse" {
		hw.frames(false)
	}
	if f, ok := hw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (hw *writer) finish() {
	switch hw.kind {
	case "json":
		b := hw.body.Bytes()
		if v, err := decode(b); err == nil {
			b = encode(walk(v, hostile, hw.keep, ""))
		}
		hw.w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		hw.w.WriteHeader(hw.status)
		hw.w.Write(b)
	case "sse":
		hw.frames(true)
	}
}

// frames rewrites each complete event's data line.
func (hw *writer) frames(all bool) error {
	for {
		b := hw.body.Bytes()
		i := bytes.Index(b, []byte("\n\n"))
		if i < 0 {
			if all && len(b) > 0 {
				_, err := hw.w.Write(hw.rewriteFrame(b))
				hw.body.Reset()
				return err
			}
			return nil
		}
		frame := append([]byte(nil), b[:i+2]...)
		hw.body.Next(i + 2)
		if _, err := hw.w.Write(hw.rewriteFrame(frame)); err != nil {
			return err
		}
	}
}

func (hw *writer) rewriteFrame(frame []byte) []byte {
	lines := bytes.Split(frame, []byte("\n"))
	for i, l := range lines {
		data, ok := bytes.CutPrefix(l, []byte("data: "))
		if !ok || bytes.Equal(data, []byte("[DONE]")) {
			continue
		}
		if v, err := decode(data); err == nil {
			lines[i] = append([]byte("data: "), encode(walk(v, hostile, hw.keep, ""))...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

func hostile(s string) string { return s + String }

func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	// encoding/json escapes C1 and U+2028/9 only partly; put the 8-bit CSI
	// and the override back raw, as a hostile server would send them.
	out := bytes.TrimRight(buf.Bytes(), "\n")
	out = bytes.ReplaceAll(out, []byte(`\u009b`), []byte("\u009b"))
	out = bytes.ReplaceAll(out, []byte(`\u202e`), []byte("\u202e"))
	return out
}

// walk applies f to every string value (and to the member names of open
// maps), leaving the values of kept member names as they are.
func walk(v any, f func(string) string, keep map[string]bool, parent string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walk(x[i], f, keep, parent)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			nk := k
			if openMaps[parent] {
				nk = f(k)
			}
			if s, ok := val.(string); ok && keep[k] && !openMaps[parent] {
				out[nk] = s
				continue
			}
			out[nk] = walk(val, f, keep, k)
		}
		return out
	}
	return v
}
