package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is an answer outside 2xx, decoded from the contract's envelope
// {"error":{"code","message","metadata"?}} when the body holds one. Its
// strings are the server's, unchanged: whoever prints them passes them
// through internal/textsafe.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Op is the operation, e.g. "GET /batches/{id}".
	Op string
	// Resource names what the operation is about ("batch", "destination",
	// "route"), for hints; "route" means a collection that should exist.
	Resource string
	// Code is the envelope's code as sent (an integer equal to Status for
	// most operations, a string on some), empty when there was none.
	Code string
	// Message is the server's message, or a description of a body that was
	// not the envelope (an HTML page from a proxy, an empty body).
	Message string
	// Metadata is the envelope's metadata, when sent.
	Metadata json.RawMessage
	// RetryAfter is what the server's Retry-After asked for (429, 503),
	// uncapped; zero when absent. Use Wait for what to do about it.
	RetryAfter time.Duration
	// RetryAfterHeader is the Retry-After header as sent.
	RetryAfterHeader string
	// RateLimit holds the X-RateLimit-* headers when present.
	RateLimit *RateLimit
	// Body is the raw body when it was JSON.
	Body json.RawMessage
	// Batch is set on a 402 from GET /batches/{id}: the batch metadata the
	// server sends with the error (results are always null then).
	Batch *Batch
	// Everywhere is set (by Client.Explain404) on a 404 when the server
	// answers 404 on every route tried: the base URL is likely wrong.
	Everywhere bool

	at time.Time // when the answer arrived, for X-RateLimit-Reset
}

// MaxServerWait is the longest gwdash waits because a server asked it to
// (Retry-After, X-RateLimit-Reset). Beyond it a command stops and names
// what was asked, and the dashboard waits this long with a countdown.
const MaxServerWait = 5 * time.Minute

// MaxOperationWait is the most one operation waits in all before its
// retries (the sum of its Retry-After, 409 backoffs, ...): past it the
// operation gives up with a *GaveUpError rather than wait on in silence.
const MaxOperationWait = MaxServerWait

// GaveUpError is an operation that stopped retrying because the next wait
// would take its waits past MaxOperationWait.
type GaveUpError struct {
	Op       string
	Attempts int
	Waited   time.Duration
	Next     time.Duration
	// Err is the answer of the last attempt.
	Err error
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("%s: giving up after %d attempts (%s waited; the next wait, %s, would pass the %s gwdash waits in all for one operation): %v",
		e.Op, e.Attempts, HumanDuration(e.Waited), HumanDuration(e.Next), HumanDuration(MaxOperationWait), e.Err)
}

// Unwrap returns the last answer.
func (e *GaveUpError) Unwrap() error { return e.Err }

// RateLimit is the X-RateLimit-* header triple, as sent.
type RateLimit struct {
	Limit     string
	Remaining string
	Reset     string
}

// ResetIn reads X-RateLimit-Reset: epoch milliseconds, epoch seconds or a
// number of seconds, by magnitude. ok is false when it is not a number.
func (r *RateLimit) ResetIn(now time.Time) (time.Duration, bool) {
	if r == nil {
		return 0, false
	}
	v, err := ParseNumber(r.Reset)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	var d time.Duration
	switch {
	case v > 1e11: // epoch milliseconds
		d = time.UnixMilli(int64(v)).Sub(now)
	case v > 1e9: // epoch seconds
		d = time.Unix(int64(v), 0).Sub(now)
	default:
		d = durationOf(v)
	}
	return max(0, d), true
}

// Wait is how long to wait before retrying, as the server asked
// (Retry-After, else on a 429 X-RateLimit-Reset) but never more than
// MaxServerWait. asked is what the server asked for and capped reports
// that it was more than gwdash waits; ok is false when the server asked
// nothing.
func (e *APIError) Wait() (wait, asked time.Duration, capped, ok bool) {
	switch {
	case e.RetryAfter > 0:
		asked, ok = e.RetryAfter, true
	case e.Status == http.StatusTooManyRequests && e.RateLimit != nil:
		at := e.at
		if at.IsZero() {
			at = time.Now()
		}
		asked, ok = e.RateLimit.ResetIn(at)
		ok = ok && asked > 0
	}
	if !ok {
		return 0, 0, false, false
	}
	if asked > MaxServerWait {
		return MaxServerWait, asked, true, true
	}
	return asked, asked, false, true
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
	if _, asked, capped, ok := e.Wait(); ok {
		if capped {
			fmt.Fprintf(&b, " (the server asked to wait %s, more than the %s gwdash waits)", HumanDuration(asked), HumanDuration(MaxServerWait))
		} else {
			fmt.Fprintf(&b, " (retry after %s)", HumanDuration(asked))
		}
	}
	return b.String()
}

// Hint says what the user can do about the error, where that is known:
// only the parts the server's message does not say already, so that each
// thing is said once.
func (e *APIError) Hint() string {
	msg := strings.ToLower(e.Message)
	var parts []string
	for _, h := range e.hints() {
		if h.phrase == "" || !strings.Contains(msg, h.phrase) {
			parts = append(parts, h.text)
		}
	}
	return strings.Join(parts, "; ")
}

// hint is one piece of advice and a phrase that, found in the server's
// message, shows the advice is given already.
type hint struct{ text, phrase string }

func (e *APIError) hints() []hint {
	dest := strings.HasPrefix(e.Resource, "destination")
	switch e.Status {
	case http.StatusUnauthorized:
		if dest {
			return []hint{{"check the management key in your configuration", ""}}
		}
		return []hint{{"check the API key in your configuration", ""}}
	case http.StatusPaymentRequired:
		if e.Batch != nil {
			return []hint{{"add credits, then poll again", "credit"}, {"the results are kept and the batch is not re-run", "re-run"}}
		}
		return []hint{{"add credits, or raise the key's spending limit", "credit"}}
	case http.StatusForbidden:
		if dest {
			return []hint{{"destinations need a management key (management_key or GWDASH_MANAGEMENT_KEY)", "management key"}}
		}
	case http.StatusNotFound:
		if e.Everywhere {
			return []hint{{"the server answers 404 on every route tried (/models, /key too): check the base URL, which ends in /api/v1", ""}}
		}
		switch e.Resource {
		case "batch":
			return []hint{{"no batch has that id: check it", ""}}
		case "destination":
			return []hint{{"no destination has that id in this workspace", ""}}
		case "generation":
			return []hint{{"no generation has that id (records appear a few seconds after an answer)", ""}}
		case "batches", "models", "key":
			return []hint{{"this server does not offer " + e.Op, ""}}
		case "responses", "destinations":
			return []hint{{"the server has no such route: check the base URL (it ends in /api/v1)", ""}}
		}
	case http.StatusConflict:
		if e.Resource == "batch" {
			return []hint{{"only a settled batch (completed, failed, expired, cancelled) can be deleted", "settled"}}
		}
		return []hint{{"it changed concurrently; try again shortly", "retry"}}
	case http.StatusGone:
		return []hint{{"batch results are kept 30 days after the batch is created", "30 days"}}
	case http.StatusTooManyRequests:
		return []hint{{"rate limited: wait, then try again", "rate limit"}}
	}
	return nil
}

// HumanDuration renders a wait: 850ms, 7s, 4m30s, 2h5m, 104166d.
func HumanDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	case d < 48*time.Hour:
		return d.Round(time.Minute).String()
	}
	return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
}

// durationOf converts seconds to a duration without overflowing.
func durationOf(secs float64) time.Duration {
	if secs*float64(time.Second) >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs * float64(time.Second))
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

// TooLargeError is a body or event over the client's limit, refused
// before it was read in full.
type TooLargeError struct {
	What  string
	Limit int64
	// Size is the size the server announced, 0 when unknown.
	Size int64
	// Settable says the user can raise the limit (max_body_mb).
	Settable bool
}

func (e *TooLargeError) Error() string {
	s := e.What + " larger than " + humanBytes(e.Limit)
	if e.Size > 0 {
		s = fmt.Sprintf("%s of %s is larger than the %s limit", e.What, humanBytes(e.Size), humanBytes(e.Limit))
	}
	s += ": refused"
	if e.Settable {
		s += " (raise it with --max-body-mb or max_body_mb in the config file)"
	}
	return s
}

// WaitTooLongError is an answer that asked to wait longer than
// MaxServerWait before retrying: a command stops instead of waiting.
type WaitTooLongError struct {
	Err   *APIError
	Asked time.Duration
}

func (e *WaitTooLongError) Error() string {
	asked := ""
	switch {
	case e.Err.RetryAfterHeader != "":
		asked = " (Retry-After: " + e.Err.RetryAfterHeader + ")"
	case e.Err.RateLimit != nil:
		asked = " (X-RateLimit-Reset: " + e.Err.RateLimit.Reset + ")"
	}
	return fmt.Sprintf("HTTP %d: the server asked to wait %s%s, more than gwdash waits (%s): stopped", e.Err.Status, HumanDuration(e.Asked), asked, HumanDuration(MaxServerWait))
}

// Unwrap returns the answer.
func (e *WaitTooLongError) Unwrap() error { return e.Err }

// RedirectError is a redirect that is never followed: to another host,
// or of a request that changes something (Method set).
type RedirectError struct {
	To string
	// Method is set when the redirected request was not a GET: it is sent
	// once, never again on a redirect.
	Method string
}

func (e *RedirectError) Error() string {
	if e.Method != "" {
		return "the server redirected a " + e.Method + " to " + e.To + "; not followed: a request that changes something is sent once (check base_url)"
	}
	return "the server redirected to another host (" + e.To + "); not followed, so the key stays here"
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readAPIError turns a non-2xx answer into an *APIError.
func (c *Client) readAPIError(resp *http.Response) *APIError {
	now := time.Now()
	e := &APIError{Status: resp.StatusCode, at: now, RetryAfterHeader: resp.Header.Get("Retry-After")}
	e.RetryAfter = parseRetryAfter(e.RetryAfterHeader, now)
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
	dup := checkMembers(trimmed)
	if trimmed[0] == '{' && dup == nil && json.Unmarshal(trimmed, &env) == nil && env.Error != nil {
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
		if dup != nil {
			kind = "a JSON body refused: " + dup.Error()
		}
		e.Body = json.RawMessage(trimmed)
	}
	e.Message = statusText(e.Status) + " (" + kind + ", " + snippet(trimmed) + ")"
}

// maxCodeRunes bounds an error code as shown (a server may send a number
// of 400 digits): longer ones keep their ends.
const maxCodeRunes = 40

func rawCode(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	if r := []rune(s); len(r) > maxCodeRunes {
		s = string(r[:maxCodeRunes/2-1]) + "…" + string(r[len(r)-maxCodeRunes/2:])
	}
	return s
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
	if n, err := ParseNumber(v); err == nil {
		if n < 0 || math.IsNaN(n) {
			return 0
		}
		return durationOf(n)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}
