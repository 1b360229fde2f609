package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is an answer outside 2xx, decoded from the contract's envelope
// {"error":{"code","message","metadata"?}} when the body holds one.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the envelope's code as sent (an integer equal to Status for
	// most operations, a string on some), empty when there was none.
	Code string
	// Message is the server's message, or a description of a body that was
	// not the envelope (an HTML page from a proxy, an empty body).
	Message string
	// Metadata is the envelope's metadata, when sent.
	Metadata json.RawMessage
	// RetryAfter is the server's Retry-After (429, 503); zero when absent.
	RetryAfter time.Duration
	// RateLimit holds the X-RateLimit-* headers when present.
	RateLimit *RateLimit
	// Body is the raw body when it was JSON.
	Body json.RawMessage
	// Batch is set on a 402 from GET /batches/{id}: the batch metadata the
	// server sends with the error (results are always null then).
	Batch *Batch
}

// RateLimit is the X-RateLimit-* header triple.
type RateLimit struct {
	Limit     string
	Remaining string
	Reset     string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d", e.Status)
	if e.Code != "" && e.Code != strconv.Itoa(e.Status) {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}

// Hint says what the user can do about the error, where that is known.
func (e *APIError) Hint() string {
	switch e.Status {
	case http.StatusUnauthorized:
		return "check the API key (or management key) in your configuration"
	case http.StatusPaymentRequired:
		return "add credits, then poll again: the results are kept and the batch is not re-run"
	case http.StatusForbidden:
		return "this needs a management key (set management_key or GWDASH_MANAGEMENT_KEY)"
	case http.StatusNotFound:
		return "check the id; a batch submitted a moment ago can take a few seconds to appear"
	case http.StatusConflict:
		return "the resource changed concurrently; try again shortly"
	case http.StatusGone:
		return "batch results are kept 30 days after creation"
	case http.StatusTooManyRequests:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("rate limited: wait %s", e.RetryAfter)
		}
		return "rate limited: wait and try again"
	}
	return ""
}

// StatusOf returns the HTTP status of an *APIError in err's chain, or 0.
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// ValidationError is input refused before any request was sent.
type ValidationError struct {
	Field string
	Rule  string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Rule }

// IsValidation reports whether err is (or wraps) a *ValidationError.
func IsValidation(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}

// TransportError is a failure to reach the server or read its answer.
type TransportError struct {
	Op  string
	Err error
}

func (e *TransportError) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// DecodeError is a 2xx answer whose body did not decode.
type DecodeError struct {
	Op     string
	Status int
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: HTTP %d with a body that is not the expected JSON: %v", e.Op, e.Status, e.Err)
}
func (e *DecodeError) Unwrap() error { return e.Err }

// TooLargeError is a body or event over the client's limit.
type TooLargeError struct {
	What  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s larger than %s: refused", e.What, humanBytes(e.Limit))
}

// RedirectError is a redirect to another host, which is never followed.
type RedirectError struct{ To string }

func (e *RedirectError) Error() string {
	return "the server redirected to another host (" + e.To + "); not followed, so the key stays here"
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readAPIError turns a non-2xx answer into an *APIError.
func (c *Client) readAPIError(resp *http.Response) *APIError {
	e := &APIError{Status: resp.StatusCode}
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if l := resp.Header.Get("X-RateLimit-Limit"); l != "" || resp.Header.Get("X-RateLimit-Remaining") != "" {
		e.RateLimit = &RateLimit{
			Limit:     l,
			Remaining: resp.Header.Get("X-RateLimit-Remaining"),
			Reset:     resp.Header.Get("X-RateLimit-Reset"),
		}
	}
	raw, err := c.readBody(resp.Body, c.maxError)
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			e.Message = fmt.Sprintf("%s (error body over %s, not read)", statusText(resp.StatusCode), humanBytes(c.maxError))
		} else {
			e.Message = fmt.Sprintf("%s (error body unreadable: %v)", statusText(resp.StatusCode), err)
		}
		return e
	}
	fillFromBody(e, raw, resp.Header.Get("Content-Type"))
	return e
}

// fillFromBody decodes the envelope; anything else becomes a clear message.
func fillFromBody(e *APIError, raw []byte, contentType string) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		e.Message = statusText(e.Status) + " (empty body)"
		return
	}
	var env struct {
		Error *struct {
			Code     json.RawMessage `json:"code"`
			Message  string          `json:"message"`
			Metadata json.RawMessage `json:"metadata"`
		} `json:"error"`
	}
	if trimmed[0] == '{' && json.Unmarshal(trimmed, &env) == nil && env.Error != nil {
		e.Body = json.RawMessage(trimmed)
		e.Code = rawCode(env.Error.Code)
		e.Message = env.Error.Message
		if len(env.Error.Metadata) > 0 && string(env.Error.Metadata) != "null" {
			e.Metadata = env.Error.Metadata
		}
		if e.Message == "" {
			e.Message = statusText(e.Status)
		}
		return
	}
	kind := "a non-JSON body"
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && mt != "" {
		kind = "a " + mt + " body"
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		kind = "a JSON body without the error envelope"
		e.Body = json.RawMessage(trimmed)
	}
	e.Message = statusText(e.Status) + " (" + kind + ", " + snippet(trimmed) + ")"
}

func rawCode(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "HTTP " + strconv.Itoa(code)
}

// snippet gives a short, single-line, printable beginning of a body.
func snippet(b []byte) string {
	const max = 80
	s := strings.Join(strings.Fields(string(b)), " ")
	out := make([]rune, 0, max)
	for _, r := range s {
		if len(out) >= max {
			return string(out) + "…"
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}
