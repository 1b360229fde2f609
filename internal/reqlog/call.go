package reqlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// Meta links a request to others.
type Meta struct {
	// CompareGroup names the comparison it is part of ("" for none).
	CompareGroup string
	// ReplayOf is the row it sends again (0 for none).
	ReplayOf int64
}

// Call is one request to /responses being recorded: Event takes what
// streams in, Finish writes the row. A nil *Call does nothing.
type Call struct {
	r *Recorder

	mu       sync.Mutex
	e        Entry
	history  []turnText
	answer   []byte
	finished bool

	// id and group are guarded by r.mu.
	id    int64
	group *group
}

type turnText struct{ Role, Text string }

// Begin starts recording a request.
func (r *Recorder) Begin(req api.ResponseRequest, m Meta) *Call {
	if r == nil {
		return nil
	}
	c := &Call{r: r}
	e := &c.e
	e.Time, e.Kind, e.Profile, e.Host = r.opts.Now(), KindResponse, r.opts.Profile, r.opts.Host
	e.Model, e.Instructions, e.CompareGroup = req.Model, req.Instructions, m.CompareGroup
	if m.ReplayOf > 0 {
		id := m.ReplayOf
		e.ReplayOf = &id
	}
	if b, err := json.Marshal(req); err == nil && len(b) <= MaxRequestBytes {
		e.Request = string(b)
	}
	if req.Input.Messages != nil {
		for _, msg := range req.Input.Messages {
			c.history = append(c.history, turnText{msg.Role, msg.Content})
		}
	} else if req.Input.Items != nil {
		// Items (a conversation with tool calls): its text messages;
		// the calls and their results are in the request kept.
		for _, raw := range req.Input.Items {
			var m struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			var text string
			if json.Unmarshal(raw, &m) == nil && m.Role != "" && json.Unmarshal(m.Content, &text) == nil {
				c.history = append(c.history, turnText{m.Role, text})
			}
		}
	} else {
		c.history = []turnText{{"user", req.Input.Text}}
	}
	for i := len(c.history) - 1; i >= 0; i-- {
		if c.history[i].Role == "user" {
			e.Input = c.history[i].Text
			break
		}
	}
	if len(c.history) > 1 {
		e.parentKey = threadKey(c.history[:len(c.history)-1])
	}
	return c
}

// replayKey marks a context as sending a replay of a logged row.
type replayKey struct{}

// WithReplay marks ctx as sending again the logged row id (the playground
// after r in the Logs view): the row written for it says what it replays.
func WithReplay(ctx context.Context, id int64) context.Context {
	if id <= 0 {
		return ctx
	}
	return context.WithValue(ctx, replayKey{}, id)
}

// BeginIn is Begin for a request sent under ctx: requests begun under
// one context at once (a comparison's panes) share a compare group.
func (r *Recorder) BeginIn(ctx context.Context, req api.ResponseRequest) *Call {
	var m Meta
	if id, ok := ctx.Value(replayKey{}).(int64); ok {
		m.ReplayOf = id
	}
	c := r.Begin(req, m)
	if c != nil {
		r.joinContext(ctx, c)
	}
	return c
}

// Event takes a streamed event: the answer's text is kept (up to
// MaxAnswerBytes).
func (c *Call) Event(ev api.Event) {
	if c == nil || ev.Delta == "" || ev.Type != api.EventOutputTextDelta && ev.Type != api.EventRefusalDelta {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return
	}
	if room := MaxAnswerBytes - len(c.answer); room > 0 {
		c.answer = append(c.answer, ev.Delta[:min(room, len(ev.Delta))]...)
	}
	if len(c.answer)+len(ev.Delta) > MaxAnswerBytes {
		c.e.AnswerTruncated = true
	}
}

// Finish writes the row for how the request ended; only the first call
// counts.
func (c *Call) Finish(o api.Outcome) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	c.finished = true
	e := c.e
	answer := string(c.answer)
	hist := c.history
	// The row's write takes what it needs; the call itself keeps nothing
	// of the conversation: its group remembers it (the last maxGroups
	// calls), and each prompt sends the whole conversation, so 32 kept
	// requests and histories were 32 copies of it (~20 MB at turn 200
	// of a demo chat).
	c.answer, c.history, c.e = nil, nil, Entry{}
	c.mu.Unlock()

	if answer == "" && o.FinalText != "" {
		answer = o.FinalText
		if len(answer) > MaxAnswerBytes {
			answer, e.AnswerTruncated = answer[:MaxAnswerBytes], true
		}
	}
	e.Answer = strings.ToValidUTF8(textsafe.Clean(answer), "")
	fillOutcome(&e, o)
	if e.Answer != "" {
		hist = append(hist[:len(hist):len(hist)], turnText{"assistant", e.Answer})
	}
	e.threadKey = threadKey(hist)
	r := c.r
	r.enqueue(func(ctx context.Context, db *DB) error {
		r.mu.Lock()
		if c.group != nil && c.group.id != "" {
			e.CompareGroup = c.group.id
		}
		r.mu.Unlock()
		id, err := db.Insert(ctx, &e)
		r.mu.Lock()
		c.id = id
		r.mu.Unlock()
		return err
	})
}

// fillOutcome copies how a response ended into a row.
func fillOutcome(e *Entry, o api.Outcome) {
	e.State = string(o.State)
	if !o.OK() {
		e.Error = textsafe.Clean(o.Message())
	}
	e.Streamed = o.Streamed
	e.GenerationID = textsafe.Line(o.GenerationID)
	if !o.Ended.IsZero() && !o.Started.IsZero() {
		e.DurationMillis = ptr(o.Ended.Sub(o.Started).Milliseconds())
	}
	if o.Streamed && !o.FirstToken.IsZero() {
		e.TTFTMillis = ptr(o.TTFT().Milliseconds())
	}
	if tps, ok := o.TokensPerSecond(); ok {
		e.TokensPerSecond = &tps
	}
	if f := o.Final; f != nil {
		e.ModelServed = textsafe.Line(f.Model)
		e.Provider = textsafe.Line(f.OpenRouterMetadata.SelectedProvider())
	}
	if u := o.Usage(); u != nil {
		e.InputTokens, e.OutputTokens = ptr(int64(u.InputTokens)), ptr(int64(u.OutputTokens))
		e.ReasoningTokens, e.CachedTokens = ptr(int64(u.OutputTokensDetails.ReasoningTokens)), ptr(int64(u.InputTokensDetails.CachedTokens))
		if u.Cost != nil {
			c := *u.Cost
			e.Cost = &c
		}
	} else if o.Deltas > 0 {
		e.OutputTokens = ptr(int64(o.Deltas))
	}
}

func ptr[T any](v T) *T { return &v }

// threadKey names a conversation by its turns (text compared with its
// spacing folded, as the playground sends answers cleaned).
func threadKey(turns []turnText) string {
	h := sha256.New()
	for _, t := range turns {
		fmt.Fprintf(h, "%s\x00%s\x00", t.Role, strings.Join(strings.Fields(textsafe.Clean(t.Text)), " "))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Generation stores a generation's record on its row (the provider and
// latency it names too).
func (r *Recorder) Generation(g *api.Generation) {
	if r == nil || g == nil || g.ID == "" {
		return
	}
	b, err := json.Marshal(g)
	if err != nil {
		return
	}
	provider := ""
	if g.ProviderName != nil {
		provider = textsafe.Line(*g.ProviderName)
	}
	var latency *int64
	if g.Latency != nil && *g.Latency >= 0 && *g.Latency < 1e12 {
		latency = ptr(int64(*g.Latency))
	}
	id, rec := textsafe.Line(g.ID), string(b)
	r.enqueue(func(ctx context.Context, db *DB) error { return db.SetGeneration(ctx, id, rec, provider, latency) })
}

// Batch records a submitted batch (or one the server refused): its
// requests, as many as MaxRequestBytes holds.
func (r *Recorder) Batch(endpoint, model string, reqs []api.BatchRequest, b *api.Batch, err error) {
	if r == nil {
		return
	}
	e := Entry{Time: r.opts.Now(), Kind: KindBatch, Profile: r.opts.Profile, Host: r.opts.Host, Model: model,
		BatchRequests: ptr(int64(len(reqs)))}
	e.Input = fmt.Sprintf("batch of %d requests to %s", len(reqs), endpoint)
	e.Request = batchJSON(endpoint, model, reqs)
	switch {
	case err != nil:
		e.State, e.Error = string(api.EndNoAnswer), textsafe.Clean(err.Error())
	case b != nil:
		e.State, e.BatchID = StateSubmitted, textsafe.Line(b.ID)
	}
	r.enqueue(func(ctx context.Context, db *DB) error { _, err := db.Insert(ctx, &e); return err })
}

// batchJSON is a batch's requests as JSON, cut to whole requests within
// MaxRequestBytes (then "truncated" is true).
func batchJSON(endpoint, model string, reqs []api.BatchRequest) string {
	var sb strings.Builder
	head, _ := json.Marshal(map[string]string{"endpoint": endpoint, "model": model})
	sb.Write(head[:len(head)-1])
	sb.WriteString(`,"requests":[`)
	truncated := false
	for i, rq := range reqs {
		b, err := json.Marshal(rq)
		if err != nil {
			continue
		}
		if sb.Len()+len(b)+32 > MaxRequestBytes {
			truncated = true
			break
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.Write(b)
	}
	fmt.Fprintf(&sb, `],"truncated":%t}`, truncated)
	return sb.String()
}

// Record writes a finished entry as it is (imports, tests).
func (r *Recorder) Record(e Entry) {
	if r == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = r.opts.Now()
	}
	r.enqueue(func(ctx context.Context, db *DB) error { _, err := db.Insert(ctx, &e); return err })
}

// DecodeRequest reads a stored request back (for a replay).
func DecodeRequest(s string) (api.ResponseRequest, error) {
	var req api.ResponseRequest
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return req, fmt.Errorf("the stored request is not JSON")
	}
	input := m["input"]
	delete(m, "input")
	rest, _ := json.Marshal(m)
	type plain api.ResponseRequest
	var p plain
	if err := json.Unmarshal(rest, &p); err != nil {
		return req, fmt.Errorf("the stored request cannot be read: %v", err)
	}
	req = api.ResponseRequest(p)
	if len(input) > 0 && input[0] == '[' {
		if err := json.Unmarshal(input, &req.Input.Messages); err != nil {
			return req, fmt.Errorf("the stored request's input cannot be read")
		}
	} else if err := json.Unmarshal(input, &req.Input.Text); err != nil {
		return req, fmt.Errorf("the stored request's input cannot be read")
	}
	return req, nil
}

// ErrNoRequest is a row without a request to send again (a batch).
var ErrNoRequest = fmt.Errorf("this row has no request that can be sent again (only responses replay)")

// ReplayRequest is the request of a row, ready to send again.
func ReplayRequest(e Entry) (api.ResponseRequest, error) {
	if e.Kind != KindResponse || e.Request == "" {
		return api.ResponseRequest{}, ErrNoRequest
	}
	return DecodeRequest(e.Request)
}
