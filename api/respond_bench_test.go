package api_test

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/hostile"
	"github.com/gwdash/gwdash/internal/textsafe"
)

var (
	fastOnce  sync.Map
	fastBytes sync.Map
)

// fastStream records hostile.FastStream's answer of 64 MiB in deltas of
// delta bytes.
func fastStream(delta int) []byte {
	once, _ := fastOnce.LoadOrStore(delta, &sync.Once{})
	once.(*sync.Once).Do(func() {
		rec := httptest.NewRecorder()
		rec.Body.Grow(66 << 20) // one allocation, out of the profile's way
		(&hostile.FastStream{Bytes: 64 << 20, DeltaBytes: delta}).ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1/responses", strings.NewReader("{}")))
		fastBytes.Store(delta, rec.Body.Bytes())
	})
	b, _ := fastBytes.Load(delta)
	return b.([]byte)
}

// BenchmarkRespondPath is what `gwdash respond` does with a stream, in
// memory: decode each event and write its delta through the output
// boundary (textsafe.Writer) to nowhere. bench/respond.sh measures the
// whole process against curl; this is where its time goes.
func BenchmarkRespondPath(b *testing.B) {
	for _, delta := range []int{64 << 10, 1 << 10} {
		b.Run(byteSize(delta), func(b *testing.B) {
			data := fastStream(delta)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s := api.NewStreamFromReader(bytes.NewReader(data), 0)
				w := textsafe.NewWriter(io.Discard)
				for {
					ev, err := s.Next()
					if err != nil {
						break
					}
					if ev.Type == api.EventOutputTextDelta {
						io.WriteString(w, ev.Delta)
					}
				}
				if s.Outcome().State != api.EndCompleted {
					b.Fatal(s.Outcome().State)
				}
			}
		})
	}
}

func byteSize(n int) string {
	if n >= 1<<10 {
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
