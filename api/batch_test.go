package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func TestGetBatchShapes(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	cases := []struct {
		seed     string
		kind     api.BodyKind
		endpoint string
	}{
		{gateway.SeedChat, api.BodyChatCompletion, "/v1/chat/completions"},
		{gateway.SeedResponses, api.BodyResponse, "/v1/responses"},
		{gateway.SeedMessages, api.BodyMessage, "/v1/messages"},
		{gateway.SeedEmbeddings, api.BodyEmbeddings, "/v1/embeddings"},
	}
	for _, tc := range cases {
		b, err := c.GetBatch(ctx(t), srv.SeedID(tc.seed))
		if err != nil {
			t.Fatalf("%s: %v", tc.seed, err)
		}
		if b.Object != "batch" || b.Status != api.BatchCompleted || b.CompletionWindow != "24h" || b.Endpoint != tc.endpoint {
			t.Fatalf("%s: unexpected batch %+v", tc.seed, b)
		}
		if b.Results == nil || len(b.Results) != b.RequestCounts.Total {
			t.Fatalf("%s: %d results for %d requests", tc.seed, len(b.Results), b.RequestCounts.Total)
		}
		if b.Usage == nil || b.Usage.TotalTokens != b.Usage.PromptTokens+b.Usage.CompletionTokens || b.Usage.Cost == nil {
			t.Fatalf("%s: usage %+v", tc.seed, b.Usage)
		}
		failed := 0
		for _, it := range b.Results {
			if (it.Response == nil) == (it.Error == nil) {
				t.Fatalf("%s: exactly one of response and error must be set: %s", tc.seed, it.Raw)
			}
			if it.Failed() {
				failed++
				if it.Error.ErrorType == nil || !it.Error.ErrorType.Known() {
					t.Fatalf("failed item without a canonical error_type: %s", it.Raw)
				}
				continue
			}
			body, err := api.DecodeBody(it.Response.Body)
			if err != nil || body.Kind != tc.kind {
				t.Fatalf("%s: body kind %s (%v), want %s", tc.seed, body.Kind, err, tc.kind)
			}
		}
		if failed != b.RequestCounts.Failed || failed == 0 {
			t.Fatalf("%s: %d failed items, counts say %d", tc.seed, failed, b.RequestCounts.Failed)
		}
		if counts := b.ErrorTypeCounts(); len(counts) == 0 {
			t.Fatalf("no error type counts")
		}
	}
}

func TestChatBodyDetails(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	b, err := c.GetBatch(ctx(t), srv.SeedID(gateway.SeedChat))
	if err != nil {
		t.Fatal(err)
	}
	var tools, cites, web, files, images, reasoning, logprobs, refusals int
	for _, it := range b.Results {
		if it.Failed() {
			continue
		}
		body, err := api.DecodeBody(it.Response.Body)
		if err != nil {
			t.Fatal(err)
		}
		ch := body.Chat.Choices[0]
		if body.Chat.Object != "chat.completion" || ch.FinishReason == nil {
			t.Fatalf("bad chat body %s", it.Response.Body)
		}
		m := ch.Message
		for _, tc := range m.ToolCalls {
			if tc.Type == "function" && tc.Function.Name != "" && json.Valid([]byte(tc.Function.Arguments)) {
				tools++
			}
		}
		for _, a := range m.Annotations {
			switch {
			case a.Type == "url_citation" && a.URLCitation != nil && a.URLCitation.URL != "":
				cites++
			case a.Type == "web_search_citation" && a.WebSearchCitation != nil:
				web++
			case a.Type == "file" && a.File != nil && a.File.Hash != "" && len(a.File.Content) == 2:
				files++
			}
		}
		for _, im := range m.Images {
			if im.Type == "image_url" && im.ImageURL.URL != "" {
				images++
			}
		}
		if m.Reasoning != nil && len(m.ReasoningDetails) > 0 {
			reasoning++
		}
		if ch.Logprobs != nil && len(ch.Logprobs.Content) > 0 && ch.Logprobs.Content[0].Token == "The" && len(ch.Logprobs.Content[0].TopLogprobs) == 1 {
			logprobs++
		}
		if m.Refusal != nil && *m.Refusal != "" {
			refusals++
		}
	}
	for name, n := range map[string]int{"tool calls": tools, "url citations": cites, "web citations": web, "file annotations": files,
		"images": images, "reasoning": reasoning, "logprobs": logprobs, "refusals": refusals} {
		if n == 0 {
			t.Errorf("no chat result with %s", name)
		}
	}
}

func TestEmbeddingVectors(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	b, err := c.GetBatch(ctx(t), srv.SeedID(gateway.SeedEmbeddings))
	if err != nil {
		t.Fatal(err)
	}
	forms := map[bool]bool{}
	for _, it := range b.Results {
		if it.Failed() {
			continue
		}
		body, _ := api.DecodeBody(it.Response.Body)
		e := body.Embeddings.Data[0]
		v, err := e.Vector()
		if err != nil || len(v) != 256 {
			t.Fatalf("vector: %d dims, %v", len(v), err)
		}
		forms[strings.HasPrefix(string(e.Embedding), "[")] = true
	}
	if !forms[true] || !forms[false] {
		t.Fatalf("want both float and base64 embeddings, got %v", forms)
	}
}

func TestBatchErrorRows(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{PaymentPolls: 2})
	cx := ctx(t)

	// 401: missing and invalid keys.
	for _, key := range []string{"", "wrong-key-123"} {
		bad := newClient(t, srv.URL, key, "")
		_, err := bad.GetBatch(cx, srv.SeedID(gateway.SeedChat))
		var ae *api.APIError
		if !errors.As(err, &ae) || ae.Status != 401 || ae.Code != "401" || ae.Message == "" {
			t.Fatalf("key %q: want 401 envelope, got %v", key, err)
		}
		if key != "" && strings.Contains(err.Error(), key) {
			t.Fatalf("error leaks the key: %v", err)
		}
	}
	// 404
	if _, err := c.GetBatch(cx, "batch-0-nope"); api.StatusOf(err) != 404 {
		t.Fatalf("want 404, got %v", err)
	}
	// 410
	if _, err := c.GetBatch(cx, srv.SeedID(gateway.SeedOld)); api.StatusOf(err) != 410 {
		t.Fatalf("want 410, got %v", err)
	}
	// 429 with Retry-After and rate-limit headers
	_, err := c.GetBatch(cx, srv.SeedID(gateway.SeedRateLimit))
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != 429 || ae.RetryAfter != 3*time.Second || ae.RateLimit == nil || ae.RateLimit.Limit != "60" || ae.RateLimit.Remaining != "0" {
		t.Fatalf("want 429 with Retry-After 3s, got %#v", err)
	}
	// 500 and 502
	if _, err := c.GetBatch(cx, srv.SeedID(gateway.SeedFlaky500)); api.StatusOf(err) != 500 {
		t.Fatalf("want 500, got %v", err)
	}
	if _, err := c.GetBatch(cx, srv.SeedID(gateway.SeedFlaky502)); api.StatusOf(err) != 502 {
		t.Fatalf("want 502, got %v", err)
	}
	// 402 carries the metadata, then the results come back.
	id := srv.SeedID(gateway.SeedPayment)
	for i := 0; i < 2; i++ {
		_, err := c.GetBatch(cx, id)
		if !errors.As(err, &ae) || ae.Status != 402 || ae.Batch == nil || ae.Batch.ID != id || ae.Batch.Results != nil || ae.Batch.Error == nil {
			t.Fatalf("poll %d: want 402 with metadata, got %v", i, err)
		}
		// Said once: the server's message tells to add credits, the hint
		// adds only what it does not say.
		all := strings.ToLower(ae.Error() + " " + ae.Hint())
		if strings.Count(all, "add credits") != 1 || !strings.Contains(ae.Hint(), "not re-run") {
			t.Fatalf("402 message and hint: %q / %q", ae.Error(), ae.Hint())
		}
	}
	b, err := c.GetBatch(cx, id)
	if err != nil || len(b.Results) == 0 {
		t.Fatalf("after credits: %v", err)
	}
	// A failed batch carries its reason.
	b, err = c.GetBatch(cx, srv.SeedID(gateway.SeedFailed))
	if err != nil || b.Status != api.BatchFailed || b.Error == nil || b.Error.Message == "" {
		t.Fatalf("failed batch: %+v %v", b, err)
	}
	// Non-terminal batches have null results.
	b, err = c.GetBatch(cx, srv.SeedID(gateway.SeedValidating))
	if err != nil || b.Results != nil || b.Status.Terminal() {
		t.Fatalf("validating batch: %+v %v", b, err)
	}
}

func TestCreatedAtUnits(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{})
	ms, err := c.GetBatch(ctx(t), srv.SeedID(gateway.SeedMillis))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.GetBatch(ctx(t), srv.SeedID(gateway.SeedChat))
	if err != nil {
		t.Fatal(err)
	}
	if ms.CreatedAt < 1e11 || s.CreatedAt > 1e11 {
		t.Fatalf("seeds should use both units: %d %d", ms.CreatedAt, s.CreatedAt)
	}
	for _, b := range []*api.Batch{ms, s} {
		if age := time.Since(b.CreatedTime()); age < 0 || age > 24*time.Hour {
			t.Fatalf("created_at %d read as %v", b.CreatedAt, b.CreatedTime())
		}
	}
}

func TestBatchKeepsUnknownMembers(t *testing.T) {
	body := `{"id":"b1","object":"batch","endpoint":"/v1/chat/completions","model":"a/b","completion_window":"24h","status":"completed",` +
		`"created_at":1,"finalized_at":2,"request_counts":{"total":1,"completed":1,"failed":0},"usage":null,"error":null,"future_member":{"x":1},` +
		`"results":[{"id":"r1","custom_id":"c1","response":{"status_code":200,"request_id":null,"body":{"object":"chat.completion","id":"x","model":"a/b","created":1,"choices":[],"new_thing":true}},"error":null,"extra":7}]}`
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	})
	c := newClient(t, srv.URL, "k", "")
	b, raw, err := c.GetBatchRaw(ctx(t), "b1")
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != body {
		t.Fatalf("raw body changed")
	}
	out, _ := json.Marshal(b)
	if !strings.Contains(string(out), "future_member") {
		t.Fatalf("batch lost an unknown member: %s", out)
	}
	item, _ := json.Marshal(b.Results[0])
	if !strings.Contains(string(item), `"extra":7`) || !strings.Contains(string(item), "new_thing") {
		t.Fatalf("result lost unknown members: %s", item)
	}
	if k := api.KindOf(b.Results[0].Response.Body); k != api.BodyChatCompletion {
		t.Fatalf("kind %s", k)
	}
	if k := api.KindOf(json.RawMessage(`{"choices":[]}`)); k != api.BodyUnknown {
		t.Fatalf("a body without markers must not be guessed, got %s", k)
	}
}

func TestSubmitBatch(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{BatchDuration: time.Hour})
	reqs := []api.BatchRequest{
		{CustomID: "a", Body: json.RawMessage(`{"messages":[{"role":"user","content":"hi"}]}`)},
		{CustomID: "b", Body: json.RawMessage(`{"model":"openai/gpt-4o-mini","messages":[]}`)},
	}
	b, err := c.SubmitBatch(ctx(t), "/v1/chat/completions", "openai/gpt-4o-mini", reqs)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != api.BatchValidating || b.RequestCounts.Total != 2 || !strings.HasPrefix(b.ID, "batch-") {
		t.Fatalf("submitted: %+v", b)
	}
	sent := srv.RequestsTo("POST", "/api/v1/batches")
	if len(sent) != 1 || !strings.HasPrefix(string(sent[0].Body), `{"endpoint":"/v1/chat/completions","model":"openai/gpt-4o-mini","requests":[`) {
		t.Fatalf("body order: %s", sent[0].Body)
	}
	got, err := c.GetBatch(ctx(t), b.ID)
	if err != nil || got.ID != b.ID {
		t.Fatalf("get submitted: %v", err)
	}
}

func TestSubmitBatchRefusedLocally(t *testing.T) {
	srv, n := countingServer(t, func(w http.ResponseWriter, r *http.Request) {})
	c := newClient(t, srv.URL, "k", "")
	body := json.RawMessage(`{}`)
	cases := []struct {
		endpoint, model string
		reqs            []api.BatchRequest
		field           string
	}{
		{"/v1/nope", "a/b", []api.BatchRequest{{CustomID: "x", Body: body}}, "endpoint"},
		{"/v1/responses", "nomodel", []api.BatchRequest{{CustomID: "x", Body: body}}, "model"},
		{"/v1/responses", "a/b", []api.BatchRequest{{CustomID: "", Body: body}}, "requests[0].custom_id"},
		{"/v1/responses", "a/b", []api.BatchRequest{{CustomID: "x", Body: body}, {CustomID: "x", Body: body}}, "requests[1].custom_id"},
		{"/v1/responses", "a/b", []api.BatchRequest{{CustomID: "x", Body: json.RawMessage(`{"model":"c/d"}`)}}, "requests[0].body.model"},
	}
	for _, tc := range cases {
		_, err := c.SubmitBatch(ctx(t), tc.endpoint, tc.model, tc.reqs)
		var ve *api.ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field {
			t.Fatalf("want validation of %s, got %v", tc.field, err)
		}
	}
	if n.Load() != 0 {
		t.Fatalf("%d requests sent for refused input", n.Load())
	}
}

func TestRunningBatchProgresses(t *testing.T) {
	now := time.Now()
	var mu = make(chan time.Time, 1)
	mu <- now
	clock := func() time.Time { t := <-mu; mu <- t; return t }
	set := func(tm time.Time) { <-mu; mu <- tm }
	srv, c := startGateway(t, gateway.Options{BatchDuration: 100 * time.Second, Now: clock})
	id := srv.SeedID(gateway.SeedRunning)
	var seen []api.BatchStatus
	var lastDone int
	for _, at := range []time.Duration{1, 20, 50, 75, 85, 95} {
		set(now.Add(at * time.Second))
		b, err := c.GetBatch(ctx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if b.RequestCounts.Done() < lastDone {
			t.Fatalf("counts went down")
		}
		lastDone = b.RequestCounts.Done()
		if len(seen) == 0 || seen[len(seen)-1] != b.Status {
			seen = append(seen, b.Status)
		}
		if b.Status.Terminal() != (b.Results != nil) {
			t.Fatalf("results must be present exactly for terminal batches")
		}
	}
	want := []api.BatchStatus{"validating", "in_progress", "finalizing", "completed"}
	if len(seen) != len(want) {
		t.Fatalf("statuses %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("statuses %v, want %v", seen, want)
		}
	}
	_ = context.Background
}

// BatchData reads the same batch as GetBatch: the same metadata, the same
// items byte for byte, and the summaries a table shows.
func TestBatchDataMatchesFullDecode(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{LargeBatchSize: 2000})
	for _, seed := range []string{gateway.SeedChat, gateway.SeedResponses, gateway.SeedMessages, gateway.SeedEmbeddings, gateway.SeedCancelled, gateway.SeedLarge, gateway.SeedFailed, gateway.SeedValidating} {
		id := srv.SeedID(seed)
		full, err := c.GetBatch(ctx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.GetBatchData(ctx(t), id)
		if err != nil {
			t.Fatalf("%s: %v", seed, err)
		}
		if d.Batch.ID != full.ID || d.Batch.Status != full.Status || d.Batch.RequestCounts != full.RequestCounts || d.Batch.Results != nil {
			t.Fatalf("%s: metadata %+v", seed, d.Batch)
		}
		if (full.Results == nil) != (d.Rows == nil) || len(d.Rows) != len(full.Results) {
			t.Fatalf("%s: %d rows for %d results", seed, len(d.Rows), len(full.Results))
		}
		for i, row := range d.Rows {
			it := &full.Results[i]
			if !bytes.Equal(d.ItemBytes(i), it.Raw) {
				t.Fatalf("%s %d: item bytes differ", seed, i)
			}
			want := api.BodySummary{}
			if it.Response != nil {
				want = api.Summarize(it.Response.Body)
			}
			if d.CustomID(i) != it.CustomID || row.Failed != it.Failed() || d.Word(row.ErrType) != it.ErrorTypeName() ||
				d.Word(row.Model) != want.Model || int(row.Tokens) != want.Tokens || d.Word(row.Finish) != want.FinishReason {
				t.Fatalf("%s %d: row %+v, want %+v / %+v", seed, i, row, it, want)
			}
			if got, err := d.Item(i); err != nil || got.CustomID != it.CustomID {
				t.Fatalf("%s %d: Item: %v", seed, i, err)
			}
		}
		if fmt.Sprint(d.ErrorTypeCounts()) != fmt.Sprint(full.ErrorTypeCounts()) {
			t.Fatalf("%s: error type counts differ", seed)
		}
	}
	// Odd bodies: escapes in strings, unknown members, results null.
	for _, body := range []string{
		`{"id":"b","object":"batch","status":"completed","results":[{"id":"r","custom_id":"a\u001b]0;x\u0007","response":null,"error":{"type":"t","message":"m","param":null}}],"extra":{"x":[1,2]}}`,
		`{"results":null,"id":"b"}`,
	} {
		d, err := api.ReadBatchData([]byte(body))
		if err != nil || d.Batch.ID != "b" {
			t.Fatalf("%s: %v", body, err)
		}
	}
	for _, bad := range []string{"", "[]", `{"results":5}`, `{"results":[{"custom_id":`} {
		if _, err := api.ReadBatchData([]byte(bad)); err == nil {
			t.Fatalf("%q decoded", bad)
		}
	}
}

// A custom_id is read from the body's own bytes, or kept aside when the
// body escapes it; a nested "custom_id" is never taken for it.
func TestCustomIDsFromTheBody(t *testing.T) {
	body := `{"id":"b","object":"batch","status":"completed","request_counts":{"total":3,"completed":3,"failed":0},"results":[` +
		`{"id":"r1","response":{"status_code":200,"body":{"custom_id":"nested"}},"custom_id":"plain-1","error":null},` +
		`{"id":"r2","custom_id":"esc\"aped\u00e9","response":null,"error":{"type":"x","message":"m"}},` +
		`{"id":"r3","custom_id" : "spaced","response":null,"error":null}]}`
	d, err := api.ReadBatchData([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"plain-1", "esc\"apedé", "spaced"} {
		if got := d.CustomID(i); got != want {
			t.Fatalf("row %d: %q, want %q", i, got, want)
		}
	}
	if cap(d.Rows) != 3 {
		t.Fatalf("rows made room for request_counts.total: cap %d", cap(d.Rows))
	}
}
