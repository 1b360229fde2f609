package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzStreamDecoder feeds arbitrary bytes through the event stream reader:
// it must end (io.EOF, an interruption or a refusal) without panicking,
// and never keep more text than arrived.
func FuzzStreamDecoder(f *testing.F) {
	f.Add([]byte("data: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(": keep-alive\r\n\r\nevent: error\r\ndata: {\"type\":\"error\",\"error\":{\"code\":1}}\r\n\r\n"))
	f.Add([]byte("data: {\"type\":\"response.completed\",\"response\":{\"status\":\"incomplete\"}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"x\",\"message\":\"m\"}}}\r\r"))
	f.Add([]byte("data:\ndata:\n\n\n\n:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := NewStreamFromReader(strings.NewReader(string(b)), 1<<16)
		for i := 0; ; i++ {
			_, err := s.Next()
			if err != nil {
				var ee *EndError
				if err != io.EOF && !errors.As(err, &ee) {
					t.Fatalf("unexpected end: %v", err)
				}
				break
			}
			if i > len(b)+1 {
				t.Fatal("more events than bytes")
			}
		}
		o := s.Outcome()
		if !o.Done() || o.Message() == "" {
			t.Fatalf("a stream that ended has an end state: %+v", o)
		}
		if o.TextBytes+o.ReasoningBytes > int64(len(b))*4+1024 {
			t.Fatal("text grew beyond the input")
		}
	})
}

// FuzzBatchDecoder decodes arbitrary batch bodies and everything the views
// derive from them.
func FuzzBatchDecoder(f *testing.F) {
	f.Add([]byte(`{"id":"b","status":"completed","results":[{"id":"r","custom_id":"c","response":{"status_code":200,"body":{"object":"chat.completion","choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"total_tokens":3}}},"error":null}]}`))
	f.Add([]byte(`{"results":[{"response":{"body":{"object":"list","data":[{"embedding":"AAAA"}]}}},{"error":{"type":"t","error_type":"timeout"}}]}`))
	f.Add([]byte(`{"results":[{"response":{"body":{"type":"message","role":"assistant","content":[{"type":"text","text":"t"}]}}}],"created_at":99999999999999}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var batch Batch
		if json.Unmarshal(b, &batch) != nil {
			return
		}
		_ = batch.CreatedTime()
		_ = batch.FinalizedTime()
		_ = batch.ErrorTypeCounts()
		for i := range batch.Results {
			it := &batch.Results[i]
			_ = it.Failed()
			_ = it.ErrorTypeName()
			if it.Response != nil {
				_ = Summarize(it.Response.Body)
				if body, err := DecodeBody(it.Response.Body); err == nil && body.Embeddings != nil {
					for _, e := range body.Embeddings.Data {
						e.Vector()
					}
				}
			}
			var out, want bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(it); err != nil {
				t.Fatal(err)
			}
			json.Compact(&want, it.Raw)
			if len(it.Raw) > 0 && strings.TrimSpace(out.String()) != want.String() {
				t.Fatalf("raw not kept:\n%s\n%s", out.String(), want.String())
			}
		}
	})
}

// FuzzDestinationDecoder decodes arbitrary pages and builds patches from
// what it decoded.
func FuzzDestinationDecoder(f *testing.F) {
	f.Add([]byte(`{"data":[{"id":"a","config":{"secretKey":"sk-...abcd","headers":{"x":"y"}},"regions":["eu"],"api_key_hashes":null,"filter_rules":{"enabled":true,"groups":[{"logic":"and","rules":[{"field":"model","operator":"equals","value":1}]}]}}],"total_count":1}`))
	f.Add([]byte(`{"data":[{"name":null,"sampling_rate":"x"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var page DestinationPage
		if json.Unmarshal(b, &page) != nil {
			return
		}
		for _, d := range page.Data {
			_ = d.DisplayName()
			p := DestinationPatch{Config: d.Config, Regions: NormalizeRegions(d.Regions)}
			if d.FilterRules != nil {
				p.FilterRules = Value(d.FilterRules)
				_ = d.FilterRules.Validate()
			}
			body, err := json.Marshal(p)
			if err != nil {
				return // config values that do not marshal are the caller's problem
			}
			if strings.Contains(string(body), "...") {
				var m map[string]any
				json.Unmarshal(body, &m)
				if cfg, ok := m["config"].(map[string]any); ok {
					for k, v := range cfg {
						if s, ok := v.(string); ok && IsMasked(s) {
							t.Fatalf("masked %s would be sent", k)
						}
					}
				}
			}
		}
	})
}

var nowForFuzz = time.Unix(1_700_000_000, 0)

// FuzzErrorDecoder turns arbitrary error bodies into an APIError that
// always carries the status and a single-line message.
func FuzzErrorDecoder(f *testing.F) {
	f.Add([]byte(`{"error":{"code":402,"message":"m","metadata":{"a":1}}}`), "application/json")
	f.Add([]byte(`<html>oops</html>`), "text/html; charset=utf-8")
	f.Add([]byte(``), "")
	f.Add([]byte(`{"error":{"code":"rate_limited"}}`), "application/json")
	f.Fuzz(func(t *testing.T, b []byte, ctype string) {
		e := &APIError{Status: 503}
		fillFromBody(e, b, ctype)
		if e.Message == "" {
			t.Fatal("no message")
		}
		if !strings.HasPrefix(e.Error(), "HTTP 503") {
			t.Fatalf("status lost: %s", e.Error())
		}
		_ = parseRetryAfter(string(b), nowForFuzz)
		_ = http.StatusText(e.Status)
	})
}
