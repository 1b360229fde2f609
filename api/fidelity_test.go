package api_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

// Prices are read exactly from their decimal strings; what is not a
// plain decimal is no price.
func TestPriceParsedExactly(t *testing.T) {
	for s, want := range map[string]float64{"0.0000004": 0.4, "0.0000001": 0.1, "0.00000005": 0.05, "0.000015": 15, " 0.0000008 ": 0.8, "4e-7": 0.4, "0": 0} {
		m := api.Model{Pricing: map[string]string{"prompt": s}}
		if p := m.PriceOf("prompt"); !p.Known || p.Routed || p.PerMillion != want {
			t.Errorf("%q: %+v, want %v per million", s, p, want)
		}
	}
	for _, s := range []string{"0x1p-3", "NaN", "Inf", "1/3", "1e400", "abc", "", strings.Repeat("1", 65), "0.1.2", "+-1"} {
		m := api.Model{Pricing: map[string]string{"prompt": s}}
		if p := m.PriceOf("prompt"); p.Known {
			t.Errorf("%q read as a price: %+v", s, p)
		}
	}
	m := api.Model{Pricing: map[string]string{"prompt": "-1"}}
	if p := m.PriceOf("prompt"); !p.Known || !p.Routed {
		t.Errorf("-1 is a router's price: %+v", p)
	}
	// Every price the embedded gateway sends reads back to the decimal it
	// was written from.
	_, c := startGateway(t, gateway.Options{})
	cat, err := c.Models(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if p := cat.Find("meta-llama/llama-3.1-70b-instruct").PriceOf("prompt"); p.PerMillion != 0.4 {
		t.Fatalf("llama 70b: %v", p.PerMillion)
	}
	if cat.Total != len(cat.Data) || cat.Truncated || cat.Find("openai/text-embedding-3-small") != nil {
		t.Fatalf("default catalogue: total %d, %d models, truncated %v", cat.Total, len(cat.Data), cat.Truncated)
	}
}

// tinyCatalogue serves n models of a few bytes each, written 64 KiB at a
// time.
func tinyCatalogue(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		buf := bytes.NewBufferString(`{"data":[`)
		for i := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(buf, `{"id":"m/%d"}`, i)
			if buf.Len() >= 64<<10 {
				if _, err := w.Write(buf.Bytes()); err != nil {
					return // the client stopped reading
				}
				buf.Reset()
			}
		}
		fmt.Fprintf(buf, `],"total_count":%d,"links":{"next":null}}`, n)
		w.Write(buf.Bytes())
	}
}

// The catalogue is capped: past MaxCatalogueModels models the rest is
// skipped and the catalogue says it was cut; past MaxCatalogueBytes it is
// refused, whatever the server sends.
func TestCatalogueIsBounded(t *testing.T) {
	many, _ := countingServer(t, tinyCatalogue(api.MaxCatalogueModels*2))
	cat, err := newClient(t, many.URL, "", "").Models(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Data) != api.MaxCatalogueModels || !cat.Truncated || cat.Data[0].ID != "m/0" || cat.Total != api.MaxCatalogueModels*2 {
		t.Fatalf("%d models kept, truncated %v, total %d", len(cat.Data), cat.Truncated, cat.Total)
	}
	// 1.5 million tiny models (27 MB): refused at the byte cap.
	huge, _ := countingServer(t, tinyCatalogue(1_500_000))
	_, err = newClient(t, huge.URL, "", "").Models(ctx(t))
	var tl *api.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("a 27 MB catalogue: %v", err)
	}
	// A small one is whole.
	few, _ := countingServer(t, tinyCatalogue(3))
	if cat, err := newClient(t, few.URL, "", "").Models(ctx(t)); err != nil || len(cat.Data) != 3 || cat.Truncated {
		t.Fatalf("3 models: %v %+v", err, cat)
	}
	// Not a catalogue.
	for _, body := range []string{`[]`, `{"data":{}}`, `{"links":{}}`, `{"data":[]} {}`, `{"data":[{"id":"a"}`, `{"data":[`, `{"data":[1]}`, `{"total_count":3`} {
		bad, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		})
		var de *api.DecodeError
		if _, err := newClient(t, bad.URL, "", "").Models(ctx(t)); !errors.As(err, &de) {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// Explaining a 404 asks whether the models route exists without reading
// the catalogue: one model asked for, a few KiB read at most.
func TestExplain404DoesNotFetchTheCatalogue(t *testing.T) {
	var written atomic.Int64
	var queries atomic.Value
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/models":
			queries.Store(r.URL.RawQuery)
			// A server that ignores limit and sends 32 MiB.
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat(`{"id":"m/x"},`, 1000))
			io.WriteString(w, `{"data":[`)
			for written.Load() < 32<<20 {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
			io.WriteString(w, `{"id":"end"}]}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			io.WriteString(w, `{"error":{"code":404,"message":"no such batch"}}`)
		}
	})
	c := newClient(t, srv.URL+"/api/v1", "k", "")
	_, err := c.GetBatch(ctx(t), "batch-1-x")
	err = c.Explain404(ctx(t), err)
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Everywhere {
		t.Fatalf("the models route exists, so the 404 is the id's: %v", err)
	}
	if q, _ := queries.Load().(string); q != "limit=1" {
		t.Fatalf("the probe asked for %q", q)
	}
	if w := written.Load(); w >= 32<<20 {
		t.Fatalf("the probe read the whole catalogue (%d bytes)", w)
	}
}

// GET /credits: management key only; the balance is bought minus used.
func TestCredits(t *testing.T) {
	_, c := startGateway(t, gateway.Options{Credits: 30, KeyUsage: 2.5})
	cr, raw, err := c.Credits(ctx(t))
	if err != nil || cr.TotalCredits != 30 || cr.TotalUsage != 2.5 || cr.Balance() != 27.5 || !strings.Contains(string(raw), "total_credits") {
		t.Fatalf("%v %+v", err, cr)
	}
	srv, _ := startGateway(t, gateway.Options{})
	noMgmt := newClient(t, srv.URL, gateway.DemoAPIKey, "")
	var mk *api.MissingKeyError
	if _, _, err := noMgmt.Credits(ctx(t)); !errors.As(err, &mk) {
		t.Fatalf("without a management key: %v", err)
	}
	bare, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	if _, _, err := newClient(t, bare.URL, "", "m").Credits(ctx(t)); !api.IsNotOffered(err) {
		t.Fatalf("a server without credits: %v", err)
	}
}

// The key's and the generation's new members are read; members gwdash
// does not know are ignored.
func TestKeyAndGenerationMembers(t *testing.T) {
	srv, c := startGateway(t, gateway.Options{GenerationDelay: time.Nanosecond})
	k, _, err := c.Key(ctx(t))
	if err != nil || k.RateLimit == nil || k.RateLimit.Note == "" || k.RateLimit.Requests == nil || *k.RateLimit.Requests != 240 ||
		k.BYOKUsage == nil || k.BYOKUsageMonthly == nil || *k.BYOKUsageMonthly > *k.BYOKUsage || k.FreeModelDailyRequests == nil ||
		len(k.AllowedDataRegions) == 0 || k.WorkspaceID == nil || *k.WorkspaceID != gateway.DefaultWorkspace {
		t.Fatalf("key: %v %+v", err, k)
	}
	r, err := c.CreateResponse(ctx(t), api.ResponseRequest{Input: api.Input{Text: "hi"}, Model: "openrouter/auto"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := newClient(t, srv.URL, gateway.DemoAPIKey, "").WaitGeneration(ctx(t), r.GenerationID)
	if err != nil || g.DataRegion == nil || *g.DataRegion != "global" || len(g.ProviderResponses) != 2 ||
		*g.ProviderResponses[0].Status != 429 || *g.ProviderResponses[1].ProviderName != "OpenAI" {
		t.Fatalf("generation: %v %+v", err, g)
	}
	// Unknown members, on a server of tomorrow.
	future, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"label":"x","usage":1,"rate_limit":{"requests":10,"interval":"1m","note":"n","burst":{"x":1}},"quantum_usage":[1,2],"limit":null}}`)
	})
	if k, _, err := newClient(t, future.URL, "k", "").Key(ctx(t)); err != nil || k.RateLimit.Interval != "1m" || k.Usage != 1 {
		t.Fatalf("unknown members: %v %+v", err, k)
	}
}
