package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/r3labs/sse/v2"
)

// StreamBenchTokens makes a stream of about 50 MB of delta events.
const StreamBenchTokens = 206_000

var (
	streamOnce  sync.Once
	streamBytes []byte
	batchOnce   sync.Once
	batchBytes  []byte
)

// answer records one answer of the embedded gateway, in-process.
func answer(g *gateway.Gateway, method, path, body string) []byte {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+gateway.DemoAPIKey)
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	return rec.Body.Bytes()
}

// recordedStream is the gateway's own stream, recorded once.
func recordedStream(b *testing.B) []byte {
	streamOnce.Do(func() {
		body := fmt.Sprintf(`{"model":%q,"input":"bench","stream":true,"max_output_tokens":%d}`, gateway.ModelFirehose, StreamBenchTokens)
		streamBytes = answer(gateway.New(gateway.Options{}), "POST", "/api/v1/responses", body)
	})
	return streamBytes
}

// BenchmarkStreamFraming is the floor: read the bytes and split them into
// events, decoding nothing.
func BenchmarkStreamFraming(b *testing.B) {
	data := recordedStream(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := sse.NewEventStreamReader(bytes.NewReader(data), 32<<20)
		n := 0
		for {
			if _, err := r.ReadEvent(); err != nil {
				break
			}
			n++
		}
		if n < StreamBenchTokens {
			b.Fatalf("%d events", n)
		}
	}
}

// BenchmarkStreamDecode is the client's Stream on the same bytes in memory.
func BenchmarkStreamDecode(b *testing.B) {
	data := recordedStream(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := api.NewStreamFromReader(bytes.NewReader(data), 0)
		for {
			if _, err := s.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
		if s.Outcome().State != api.EndCompleted {
			b.Fatal(s.Outcome().State)
		}
	}
}

// BenchmarkStreamDecodeLoopback is the same stream over loopback HTTP from
// the embedded gateway.
func BenchmarkStreamDecodeLoopback(b *testing.B) {
	data := recordedStream(b)
	srv, err := gateway.Start("127.0.0.1:0", gateway.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
	max := StreamBenchTokens
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := c.StreamResponse(context.Background(), api.ResponseRequest{Input: api.Input{Text: "bench"}, Model: gateway.ModelFirehose, MaxOutputTokens: &max})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
		if s.Outcome().State != api.EndCompleted {
			b.Fatal(s.Outcome().State)
		}
	}
}

// largeBatch is the gateway's 100,000-result batch body.
func largeBatch(b *testing.B) []byte {
	batchOnce.Do(func() {
		g := gateway.New(gateway.Options{LargeBatchSize: 100_000})
		batchBytes = answer(g, "GET", "/api/v1/batches/"+g.SeedID(gateway.SeedLarge), "")
	})
	return batchBytes
}

// BenchmarkBatchFloor is json.Unmarshal of the body into raw results.
func BenchmarkBatchFloor(b *testing.B) {
	data := largeBatch(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var v struct {
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(data, &v); err != nil || len(v.Results) != 100_000 {
			b.Fatal(err)
		}
	}
	reportBodySize(b, len(data))
}

// BenchmarkBatchDecode decodes the body into what the batch view needs:
// the Batch with every result, and the table's summary of each.
func BenchmarkBatchDecode(b *testing.B) {
	data := largeBatch(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var batch api.Batch
		if err := json.Unmarshal(data, &batch); err != nil || len(batch.Results) != 100_000 {
			b.Fatal(err)
		}
		for j := range batch.Results {
			if r := batch.Results[j].Response; r != nil {
				_ = api.Summarize(r.Body)
			}
		}
	}
	reportBodySize(b, len(data))
}

// BenchmarkBatchData decodes the body as the dashboard does: metadata,
// and one compact row per result, with the items kept as bytes.
func BenchmarkBatchData(b *testing.B) {
	data := largeBatch(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := api.ReadBatchData(data)
		if err != nil || len(d.Rows) != 100_000 {
			b.Fatal(err)
		}
	}
	reportBodySize(b, len(data))
}

// reportBodySize reports the body's size beside B/op, so that allocations
// can be read relative to it.
func reportBodySize(b *testing.B, size int) { b.ReportMetric(float64(size)/1e6, "body-MB") }
