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
	each := eachValue(func(v any) any { return walk(v, hostile, keep, "") })
	hw := rewrite(h, each, each)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clean(r)
		hw.ServeHTTP(&headerMark{w}, r)
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
	b = eachValue(func(v any) any { return walk(v, strip, nil, "") })(b)
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
}

func strip(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, String, ""), HeaderString, "")
}

// headerMark adds HeaderString to the headers gwdash reads, as the
// answer's headers are written.
type headerMark struct{ http.ResponseWriter }

func (w *headerMark) WriteHeader(status int) {
	h := w.Header()
	for _, k := range headers {
		if v := h.Get(k); v != "" {
			h.Set(k, v+HeaderString)
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *headerMark) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func hostile(s string) string { return s + String }

// eachValue is a rewrite of JSON text by f on its decoded value (numbers
// as json.Number); text that is not JSON is left as it is.
func eachValue(f func(any) any) func([]byte) []byte {
	return func(b []byte) []byte {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return b
		}
		return encode(f(v))
	}
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
