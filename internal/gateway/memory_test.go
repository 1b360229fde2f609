package gateway

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// A list of batches carries no results, so it keeps none: listing used
// to encode the large seeded batch's 10,000 results (~11 MB) and keep
// them for the life of the gateway (the demo's process). Its usage is
// listed all the same, and opening it still serves every result.
func TestListingKeepsNoBatchResults(t *testing.T) {
	g := New(Options{LargeBatchSize: 2000})
	id := g.SeedID(SeedLarge)
	rec := do(t, g, "GET", "/api/v1/batches?limit=100", DemoAPIKey, "")
	var list struct {
		Data []struct {
			ID      string          `json:"id"`
			Usage   json.RawMessage `json:"usage"`
			Results json.RawMessage `json:"results"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var usage json.RawMessage
	for _, b := range list.Data {
		if b.ID == id {
			usage = b.Usage
		}
		if string(b.Results) != "null" {
			t.Fatalf("%s listed with results", b.ID)
		}
	}
	large := g.batches.byID[id]
	if large.encoded != nil {
		t.Fatalf("listing kept %d encoded results of the large batch", len(large.encoded))
	}
	rec = do(t, g, "GET", "/api/v1/batches/"+id, DemoAPIKey, "")
	var got struct {
		Usage   json.RawMessage   `json:"usage"`
		Results []json.RawMessage `json:"results"`
	}
	json.Unmarshal(rec.Body.Bytes(), &got)
	if len(got.Results) != 2000 || len(usage) < 10 || string(usage) != string(got.Usage) {
		t.Fatalf("opened: %d results, usage %s (listed %s)", len(got.Results), got.Usage, usage)
	}
}

// The request bodies kept for tests stay within their bound in memory,
// not only in length: each is kept at its own size (a body read by
// io.ReadAll holds up to a quarter more), and one dropped is let go at
// once (the slice's array kept the dropped ones until it grew again).
func TestRecordedBodiesAreBoundedInMemory(t *testing.T) {
	g := New(Options{})
	body := `{"model":"openai/gpt-4o-mini","input":"` + strings.Repeat("a conversation sent whole. ", 11000) + `"}`
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	do(t, g, "POST", "/api/v1/responses", DemoAPIKey, body)
	before := heap()
	for i := 0; i < 60; i++ {
		do(t, g, "POST", "/api/v1/responses", DemoAPIKey, body)
	}
	held := int64(heap()) - int64(before)
	if bound := int64(g.opts.RecordBytes); held > bound+2*int64(len(body)) {
		t.Fatalf("60 bodies of %d bytes: the gateway holds %d bytes more (bound %d)", len(body), held, bound)
	}
	runtime.KeepAlive(g)
}

// With no bodies kept (the demo), the requests themselves are still kept,
// up to RecordLimit.
func TestNoBodiesKeptStillKeepsTheRequests(t *testing.T) {
	g := New(Options{RecordBytes: -1})
	for i := 0; i < 3; i++ {
		do(t, g, "GET", "/api/v1/models", DemoAPIKey, "")
	}
	got := g.RequestsTo("GET", "/api/v1/models")
	if len(got) != 3 {
		t.Fatalf("%d requests kept, want 3", len(got))
	}
	for _, r := range got {
		if r.Body != nil {
			t.Fatal("a body was kept")
		}
	}
}
