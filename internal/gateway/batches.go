package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Seeded batch names, as keys of Seeds().
const (
	SeedChat       = "chat"
	SeedResponses  = "responses"
	SeedMessages   = "messages"
	SeedEmbeddings = "embeddings"
	SeedRunning    = "running"
	SeedValidating = "validating"
	SeedFinalizing = "finalizing"
	SeedCancelling = "cancelling"
	SeedCancelled  = "cancelled"
	SeedExpired    = "expired"
	SeedFailed     = "failed"
	SeedPayment    = "payment"
	SeedOld        = "old"
	SeedMillis     = "millis"
	SeedLarge      = "large"
	SeedRateLimit  = "ratelimited"
	SeedFlaky500   = "flaky500"
	SeedFlaky502   = "flaky502"
	SeedTiny       = "tiny"
)

// SeedInfo describes a seeded batch for `gwdash demo --serve`.
type SeedInfo struct {
	Name, ID, About string
}

type batchRecord struct {
	ID        string
	Endpoint  string
	Model     string
	Status    string // for static batches
	CreatedAt int64  // as sent (seconds, or milliseconds for one)
	created   time.Time
	Finalized *time.Time
	Total     int
	Completed int
	Failed    int
	ErrorMsg  string
	// live batches move through their states from created over duration.
	live     bool
	duration time.Duration
	visible  time.Time
	// results generator and cache of the encoded result list
	results func() []json.RawMessage
	once    sync.Once
	encoded []json.RawMessage
	usage   map[string]any
	// listUsage is the usage a list shows, summed once from results made
	// for it and let go: a list does not keep a large batch's results.
	listOnce  sync.Once
	listUsage map[string]any
	// body is a settled static batch's answer, encoded once: a stored
	// batch is served as stored (a 138 MB body is not encoded per GET)
	bodyOnce sync.Once
	body     []byte
	// failPrefix[n] is how many of a submitted batch's first n rows
	// fail (nil for a seeded batch, whose rows fail by position).
	failPrefix []int32
	// behaviours
	failFirst  int // answer failCode this many times first
	failCode   int
	retryAfter string
	polls      int
	payment    bool
	gone       bool
	// deleted marks a tombstone: the batch answers 404 and leaves the
	// list; a repeated DELETE before purge resumes, after it is 404.
	deleted *time.Time
}

type batchStore struct {
	g     *Gateway
	mu    sync.Mutex
	byID  map[string]*batchRecord
	seeds []SeedInfo
	n     int
}

func newBatchStore(g *Gateway) *batchStore {
	s := &batchStore{g: g, byID: map[string]*batchRecord{}}
	s.seed()
	return s
}

// Seeds lists the seeded batches in a stable order.
func (g *Gateway) Seeds() []SeedInfo { return append([]SeedInfo(nil), g.batches.seeds...) }

// SeedID returns the id of a seeded batch by name.
func (g *Gateway) SeedID(name string) string {
	for _, s := range g.batches.seeds {
		if s.Name == name {
			return s.ID
		}
	}
	return ""
}

func (s *batchStore) add(name, about string, b *batchRecord) {
	if b.CreatedAt == 0 {
		b.CreatedAt = b.created.Unix()
	}
	b.ID = fmt.Sprintf("batch-%d-%s", b.created.Unix(), name)
	s.byID[b.ID] = b
	s.seeds = append(s.seeds, SeedInfo{Name: name, ID: b.ID, About: about})
}

func (s *batchStore) seed() {
	now := s.g.start
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	fin := func(t time.Time) *time.Time { return &t }
	static := func(status, endpoint, model string, created time.Time, total, done, failed int, gen func() []json.RawMessage) *batchRecord {
		b := &batchRecord{Status: status, Endpoint: endpoint, Model: model, created: created, Total: total, Completed: done, Failed: failed, results: gen}
		if terminal(status) {
			// finalized 37 minutes after creation, or, for a batch created
			// less long ago, a little before now: never in the future
			took := min(37*time.Minute, now.Sub(created)*9/10)
			b.Finalized = fin(created.Add(took))
		}
		return b
	}
	chat := func(id string, n int) func() []json.RawMessage {
		return func() []json.RawMessage { return chatResults(id, "openai/gpt-4o-mini", n, true) }
	}
	s.add(SeedChat, "completed chat batch: tool calls, citations, images, reasoning, logprobs, failures",
		withCounts(static("completed", "/v1/chat/completions", "openai/gpt-4o-mini", ago(3*time.Hour), 0, 0, 0, chat("chat", 40))))
	s.add(SeedResponses, "completed responses-format batch",
		withCounts(static("completed", "/v1/responses", "openai/gpt-4o", ago(5*time.Hour), 0, 0, 0, func() []json.RawMessage { return responsesResults("responses", "openai/gpt-4o", 12) })))
	s.add(SeedMessages, "completed messages-format batch",
		withCounts(static("completed", "/v1/messages", "anthropic/claude-sonnet-4", ago(7*time.Hour), 0, 0, 0, func() []json.RawMessage { return messagesResults("messages", "anthropic/claude-sonnet-4", 10) })))
	s.add(SeedEmbeddings, "completed embeddings batch (float and base64 vectors)",
		withCounts(static("completed", "/v1/embeddings", "openai/text-embedding-3-small", ago(9*time.Hour), 0, 0, 0, func() []json.RawMessage { return embeddingResults("embeddings", "openai/text-embedding-3-small", 8) })))
	run := &batchRecord{Endpoint: "/v1/chat/completions", Model: "openai/gpt-4o-mini", created: now, Total: 200, live: true, duration: s.g.opts.BatchDuration}
	run.results = func() []json.RawMessage { return chatResults("running", run.Model, run.Total, true) }
	s.add(SeedRunning, fmt.Sprintf("running now: validating -> in_progress -> finalizing -> completed over %s", s.g.opts.BatchDuration), run)
	s.add(SeedValidating, "validating", static("validating", "/v1/chat/completions", "openai/gpt-4o-mini", ago(2*time.Minute), 500, 0, 0, nil))
	s.add(SeedFinalizing, "finalizing", static("finalizing", "/v1/chat/completions", "openai/gpt-4o-mini", ago(50*time.Minute), 120, 117, 3, nil))
	s.add(SeedCancelling, "cancelling", static("cancelling", "/v1/responses", "openai/gpt-4o", ago(20*time.Minute), 300, 41, 2, nil))
	s.add(SeedCancelled, "cancelled with partial results",
		withCounts(static("cancelled", "/v1/chat/completions", "openai/gpt-4o-mini", ago(26*time.Hour), 0, 0, 0, chat("cancelled", 9))))
	exp := withCounts(static("expired", "/v1/chat/completions", "meta-llama/llama-3.1-70b-instruct", ago(50*time.Hour), 0, 0, 0, func() []json.RawMessage {
		return chatResults("expired", "meta-llama/llama-3.1-70b-instruct", 6, false)
	}))
	exp.Total = 80
	s.add(SeedExpired, "expired after the 24h window, partial results", exp)
	failed := static("failed", "/v1/chat/completions", "openai/gpt-4o-mini", ago(4*time.Hour), 25, 0, 25, func() []json.RawMessage { return []json.RawMessage{} })
	failed.ErrorMsg = "Batch validation failed: request 'req-7' targets model anthropic/claude-sonnet-4, but the batch model is openai/gpt-4o-mini"
	s.add(SeedFailed, "failed batch with its reason", failed)
	pay := withCounts(static("completed", "/v1/chat/completions", "openai/gpt-4o", ago(90*time.Minute), 0, 0, 0, func() []json.RawMessage {
		return chatResults("payment", "openai/gpt-4o", 15, false)
	}))
	pay.payment = true
	s.add(SeedPayment, fmt.Sprintf("402 until credits are added (after %d polls), then its results", s.g.opts.PaymentPolls), pay)
	old := withCounts(static("completed", "/v1/chat/completions", "openai/gpt-4o-mini", ago(45*24*time.Hour), 0, 0, 0, chat("old", 5)))
	old.gone = true
	s.add(SeedOld, "created 45 days ago: 410, results deleted", old)
	ms := withCounts(static("completed", "/v1/embeddings", "openai/text-embedding-3-small", ago(30*time.Minute), 0, 0, 0, func() []json.RawMessage {
		return embeddingResults("millis", "openai/text-embedding-3-small", 4)
	}))
	ms.CreatedAt = ms.created.UnixMilli()
	s.add(SeedMillis, "created_at in milliseconds", ms)
	n := s.g.opts.LargeBatchSize
	large := static("completed", "/v1/chat/completions", "openai/gpt-4o-mini", ago(11*time.Hour), 0, 0, 0, func() []json.RawMessage {
		return chatResults("large", "openai/gpt-4o-mini", n, false)
	})
	large.Total = n
	large.Failed = countFailures(n)
	large.Completed = n - large.Failed
	s.add(SeedLarge, fmt.Sprintf("%d results", n), large)
	if tiny := s.g.opts.TinyBatchSize; tiny > 0 {
		tb := static("completed", "/v1/embeddings", "openai/text-embedding-3-small", ago(12*time.Hour), tiny, tiny, 0, func() []json.RawMessage {
			out := make([]json.RawMessage, tiny)
			for i := range out {
				out[i] = fmt.Appendf(nil, `{"id":"g%d","custom_id":"t%d","response":{"status_code":200,"request_id":null,"body":{}},"error":null}`, i, i)
			}
			return out
		})
		s.add(SeedTiny, fmt.Sprintf("%d tiny results", tiny), tb)
	}
	rl := withCounts(static("completed", "/v1/responses", "openai/gpt-4o", ago(15*time.Hour), 0, 0, 0, func() []json.RawMessage { return responsesResults("ratelimited", "openai/gpt-4o", 3) }))
	rl.failFirst, rl.failCode, rl.retryAfter = 2, http.StatusTooManyRequests, "3"
	s.add(SeedRateLimit, "429 with Retry-After: 3 on the first 2 polls", rl)
	f5 := withCounts(static("completed", "/v1/chat/completions", "openai/gpt-4o-mini", ago(16*time.Hour), 0, 0, 0, chat("flaky500", 3)))
	f5.failFirst, f5.failCode = 2, http.StatusInternalServerError
	s.add(SeedFlaky500, "500 on the first 2 polls", f5)
	f2 := withCounts(static("completed", "/v1/chat/completions", "openai/gpt-4o-mini", ago(17*time.Hour), 0, 0, 0, chat("flaky502", 3)))
	f2.failFirst, f2.failCode = 2, http.StatusBadGateway
	s.add(SeedFlaky502, "502 on the first 2 polls", f2)
}

// withCounts fills counts from the generated results.
func withCounts(b *batchRecord) *batchRecord {
	rs := b.resultsJSON()
	b.Total, b.Completed, b.Failed = len(rs), 0, 0
	for _, r := range rs {
		if isFailure(r) {
			b.Failed++
		} else {
			b.Completed++
		}
	}
	return b
}

func isFailure(r json.RawMessage) bool {
	var v struct {
		Error    json.RawMessage `json:"error"`
		Response *struct {
			StatusCode int `json:"status_code"`
		} `json:"response"`
	}
	json.Unmarshal(r, &v)
	return (len(v.Error) > 0 && string(v.Error) != "null") || v.Response == nil || v.Response.StatusCode >= 300
}

func terminal(status string) bool {
	switch status {
	case "completed", "failed", "expired", "cancelled":
		return true
	}
	return false
}

func (b *batchRecord) resultsJSON() []json.RawMessage {
	b.once.Do(func() {
		if b.results != nil {
			b.encoded = b.results()
			b.usage = sumUsage(b.encoded, b.Model)
		}
	})
	return b.encoded
}

// failuresAmong is how many of the first n rows fail.
func (b *batchRecord) failuresAmong(n int) int {
	if b.failPrefix == nil {
		return countFailures(n)
	}
	return int(b.failPrefix[max(0, min(n, len(b.failPrefix)-1))])
}

// listed is the batch object as a list shows it: no results.
func (b *batchRecord) listed(now time.Time) map[string]any {
	if b.live || !terminal(b.Status) {
		snap := b.snapshot(now)
		snap["results"] = nil
		return snap
	}
	b.listOnce.Do(func() {
		if b.results != nil {
			b.listUsage = sumUsage(b.results(), b.Model)
		}
	})
	snap := b.base(b.Status, b.Completed, b.Failed, nil)
	if b.listUsage != nil {
		snap["usage"] = b.listUsage
	}
	return snap
}

// snapshot computes the batch object as of now.
func (b *batchRecord) snapshot(now time.Time) map[string]any {
	status, done, failed := b.Status, b.Completed, b.Failed
	var finalized *int64
	millis := b.CreatedAt > 1e11 // this batch speaks milliseconds
	if b.Finalized != nil {
		v := b.Finalized.Unix()
		if millis {
			v = b.Finalized.UnixMilli()
		}
		finalized = &v
	}
	if b.live {
		frac := float64(now.Sub(b.created)) / float64(b.duration)
		total := b.Total
		switch {
		case frac < 0.1:
			status, done, failed = "validating", 0, 0
		case frac < 0.8:
			// The first n requests are done, and exactly those of them
			// that the results will show failed: the counts only grow,
			// and end where the results say.
			status = "in_progress"
			n := int(float64(total) * (frac - 0.1) / 0.7)
			failed = b.failuresAmong(n)
			done = n - failed
		case frac < 0.9:
			status = "finalizing"
			failed = b.failuresAmong(total)
			done = total - failed
		default:
			status = "completed"
			rs := b.resultsJSON()
			done, failed = 0, 0
			for _, r := range rs {
				if isFailure(r) {
					failed++
				} else {
					done++
				}
			}
			v := b.created.Add(b.duration * 9 / 10).Unix()
			finalized = &v
		}
	}
	obj := b.base(status, done, failed, finalized)
	if terminal(status) {
		obj["results"] = b.resultsJSON()
		if b.usage != nil {
			obj["usage"] = b.usage
		}
	} else if done+failed > 0 {
		// A running batch reports usage so far.
		in, out := (done+failed)*42, done*118
		cost, _, _ := costOf(b.Model, in, out)
		obj["usage"] = map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out, "cost": round6(cost), "is_byok": false}
	}
	return obj
}

// base is the batch object without results or usage; finalized is the
// live batch's (nil: the stored one).
func (b *batchRecord) base(status string, done, failed int, finalized *int64) map[string]any {
	if finalized == nil && b.Finalized != nil {
		v := b.Finalized.Unix()
		if b.CreatedAt > 1e11 { // this batch speaks milliseconds
			v = b.Finalized.UnixMilli()
		}
		finalized = &v
	}
	obj := map[string]any{
		"id": b.ID, "object": "batch", "endpoint": b.Endpoint, "model": b.Model,
		"completion_window": "24h", "status": status, "created_at": b.CreatedAt,
		"finalized_at":   finalized,
		"request_counts": map[string]int{"total": b.Total, "completed": done, "failed": failed},
		"usage":          nil, "results": nil, "error": nil,
	}
	if status == "failed" && b.ErrorMsg != "" {
		obj["error"] = map[string]any{"message": b.ErrorMsg}
	}
	return obj
}

func (g *Gateway) getBatch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s := g.batches
	s.mu.Lock()
	b, ok := s.byID[id]
	if ok && (g.now().Before(b.visible) || b.deleted != nil) {
		ok = false
	}
	var failCode int
	var payment bool
	if ok {
		b.polls++
		if b.polls <= b.failFirst {
			failCode = b.failCode
		}
		payment = b.payment && b.polls <= g.opts.PaymentPolls
	}
	s.mu.Unlock()
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "Batch "+strconv.Quote(id)+" not found")
		return
	case b.gone || g.now().Sub(b.created) > 30*24*time.Hour:
		writeError(w, http.StatusGone, "Batch results were deleted: results are kept 30 days after the batch is created")
		return
	case failCode == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", b.retryAfter)
		w.Header().Set("X-RateLimit-Limit", "60")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(g.now().Add(3*time.Second).UnixMilli(), 10))
		writeError(w, failCode, "Batch rate limit exceeded for this billable entity")
		return
	case failCode == http.StatusInternalServerError:
		writeError(w, failCode, "Unexpected error in the batch ingress")
		return
	case failCode == http.StatusBadGateway:
		writeError(w, failCode, "Batch service unavailable: upstream provider operation failed")
		return
	}
	if !b.live && terminal(b.Status) && !payment {
		b.bodyOnce.Do(func() {
			b.body, _ = json.Marshal(b.snapshot(g.now()))
		})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b.body)))
		w.WriteHeader(http.StatusOK)
		w.Write(b.body)
		return
	}
	obj := b.snapshot(g.now())
	if payment {
		obj["results"] = nil
		obj["error"] = map[string]any{"code": 402, "message": "The finalized batch cost exceeds your available balance. Add credits and poll again to receive the results."}
		writeJSON(w, http.StatusPaymentRequired, obj)
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

type submitBody struct {
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	Requests []struct {
		CustomID *string        `json:"custom_id"`
		Body     map[string]any `json:"body"`
	} `json:"requests"`
}

var batchEndpoints = map[string]bool{"/v1/chat/completions": true, "/v1/responses": true, "/v1/messages": true, "/v1/embeddings": true}

func (g *Gateway) submitBatch(w http.ResponseWriter, r *http.Request) {
	var body submitBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid JSON body: "+err.Error())
		return
	}
	if !batchEndpoints[body.Endpoint] {
		writeError(w, http.StatusBadRequest, "endpoint: must be one of /v1/chat/completions, /v1/responses, /v1/messages, /v1/embeddings")
		return
	}
	if !validModel(body.Model) {
		writeError(w, http.StatusBadRequest, "model: must be <provider>/<model>")
		return
	}
	if len(body.Requests) == 0 {
		writeError(w, http.StatusBadRequest, "requests: at least one request is required")
		return
	}
	seen := map[string]bool{}
	for i, rq := range body.Requests {
		if rq.CustomID == nil || *rq.CustomID == "" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("requests[%d]: custom_id is required", i))
			return
		}
		if seen[*rq.CustomID] {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("requests[%d]: custom_id %q is not unique", i, *rq.CustomID))
			return
		}
		seen[*rq.CustomID] = true
		if m, ok := rq.Body["model"].(string); ok && m != body.Model {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("requests[%d].body.model must equal the batch model", i))
			return
		}
	}
	now := g.now()
	s := g.batches
	s.mu.Lock()
	s.n++
	b := &batchRecord{Endpoint: body.Endpoint, Model: body.Model, created: now, CreatedAt: now.Unix(), Total: len(body.Requests),
		live: true, duration: g.opts.BatchDuration, visible: now.Add(g.opts.SubmitVisibleAfter)}
	suffix := fmt.Sprintf("%06x", g.rng.Uint32()&0xffffff)
	b.ID = fmt.Sprintf("batch-%d-%s", now.Unix(), suffix)
	// The rows' failures are seeded by the id's random part (the same
	// for a gateway of the same Seed, whatever the clock) and each
	// custom_id; the counts while it runs follow them.
	plan := newFailurePlan(suffix)
	ids := make([]string, len(body.Requests))
	b.failPrefix = make([]int32, len(body.Requests)+1)
	for i, rq := range body.Requests {
		ids[i] = *rq.CustomID
		b.failPrefix[i+1] = b.failPrefix[i]
		if plan.failure(ids[i]) >= 0 {
			b.failPrefix[i+1]++
		}
	}
	endpoint, model := body.Endpoint, body.Model
	b.results = func() []json.RawMessage { return resultsFor(endpoint, model, ids, plan) }
	s.byID[b.ID] = b
	s.mu.Unlock()
	writeJSON(w, http.StatusAccepted, b.snapshot(now))
}

// resultsFor generates results for submitted requests of an endpoint;
// plan says which fail.
func resultsFor(endpoint, model string, ids []string, plan failurePlan) []json.RawMessage {
	out := make([]json.RawMessage, len(ids))
	for i, id := range ids {
		if k := plan.failure(id); k >= 0 {
			f := submittedFailures[k]
			out[i] = mustJSON(failedItem(id, f.typ, f.errorType, f.msg, f.param))
			continue
		}
		// Most answers depend on the row alone; some differ from batch
		// to batch, in text and length, as a sampled model's do.
		seed, n := id, i
		if v := plan.variant(id); v > 0 {
			seed, n = id+"_"+plan.seed, i+v
		}
		var body any
		switch endpoint {
		case "/v1/responses":
			body = responseBody(seed, model, n)
		case "/v1/messages":
			body = messageBody(seed, model, n)
		case "/v1/embeddings":
			body = embeddingBody(seed, model, n)
		default:
			body = chatBody(seed, model, n, false)
		}
		out[i] = mustJSON(okItem(id, i, body))
	}
	return out
}

// listBatches answers GET /batches: newest first, limit 1-100 (default
// 20), after=<id> as the cursor, status as a filter, in the OpenAI-style
// list envelope, results always null.
func (g *Gateway) listBatches(w http.ResponseWriter, r *http.Request) {
	if g.opts.NoBatchList {
		writeError(w, http.StatusNotFound, "no route for GET /api/v1/batches")
		return
	}
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			badRequest(w, "limit: must be an integer from 1 to 100")
			return
		}
		limit = n
	}
	status := q.Get("status")
	if status != "" && !batchStatuses[status] {
		badRequest(w, "status: must be one of validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled")
		return
	}
	now := g.now()
	s := g.batches
	s.mu.Lock()
	var list []*batchRecord
	for _, b := range s.byID {
		if b.deleted == nil && !now.Before(b.visible) {
			list = append(list, b)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if !list[i].created.Equal(list[j].created) {
			return list[i].created.After(list[j].created)
		}
		return list[i].ID > list[j].ID
	})
	start := 0
	if after := q.Get("after"); after != "" {
		start = -1
		for i, b := range list {
			if b.ID == after {
				start = i + 1
			}
		}
		if start < 0 {
			s.mu.Unlock()
			badRequest(w, "after: no batch has the id "+strconv.Quote(after))
			return
		}
	}
	data := []any{}
	more := false
	for _, b := range list[start:] {
		snap := b.listed(now)
		if status != "" && snap["status"] != status {
			continue
		}
		if len(data) == limit {
			more = true
			break
		}
		data = append(data, snap)
	}
	s.mu.Unlock()
	env := map[string]any{"object": "list", "data": data, "first_id": nil, "last_id": nil, "has_more": more}
	if len(data) > 0 {
		env["first_id"] = data[0].(map[string]any)["id"]
		env["last_id"] = data[len(data)-1].(map[string]any)["id"]
	}
	writeJSON(w, http.StatusOK, env)
}

var batchStatuses = map[string]bool{"validating": true, "in_progress": true, "finalizing": true, "completed": true, "failed": true,
	"expired": true, "cancelling": true, "cancelled": true}

// deleteBatch answers DELETE /batches/{id}: settled batches only (409 in
// flight); a tombstone first (a repeated DELETE resumes it), 404 once
// purged.
func (g *Gateway) deleteBatch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	now := g.now()
	s := g.batches
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.byID[id]
	if !ok || now.Before(b.visible) {
		writeError(w, http.StatusNotFound, "Batch "+strconv.Quote(id)+" not found")
		return
	}
	if b.deleted != nil {
		if now.Sub(*b.deleted) > g.opts.PurgeAfter {
			delete(s.byID, id)
			writeError(w, http.StatusNotFound, "Batch "+strconv.Quote(id)+" not found")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "batch", "deleted": true})
		return
	}
	status, _ := b.snapshot(now)["status"].(string)
	if !terminal(status) {
		writeError(w, http.StatusConflict, "Batch "+strconv.Quote(id)+" is "+status+": only a settled batch (completed, failed, expired or cancelled) can be deleted")
		return
	}
	b.deleted = &now
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "batch", "deleted": true})
}

func validModel(m string) bool {
	p, rest, ok := strings.Cut(m, "/")
	return ok && p != "" && rest != "" && !strings.ContainsAny(m, " \t\r\n")
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func round6(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 8, 64), 64)
	return v
}
