package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

// `gwdash credits` prints the organisation's balance (management key);
// --json prints what the server sent; without a management key it is
// refused before any request.
func TestCreditsCommand(t *testing.T) {
	h := newHarness(t, gateway.Options{Credits: 25, KeyUsage: 6.8})
	h.run("", "credits").must(t, 0, []string{"balance", "$18.20 left of $25.00", "bought", "$25.00", "used", "$6.80"}, nil)
	var out struct {
		Data struct {
			Total float64 `json:"total_credits"`
			Used  float64 `json:"total_usage"`
		} `json:"data"`
	}
	r := h.run("", "credits", "--json")
	r.must(t, 0, nil, nil)
	if err := json.Unmarshal([]byte(r.out), &out); err != nil || out.Data.Total != 25 || out.Data.Used != 6.8 {
		t.Fatalf("--json: %v %q", err, r.out)
	}
	before := len(h.srv.Requests())
	delete(h.env, "GWDASH_MANAGEMENT_KEY")
	h.run("", "credits").must(t, 2, nil, []string{"credits needs a management key"})
	if len(h.srv.Requests()) != before {
		t.Fatal("a request went out without a management key")
	}
	if strings.Contains(r.out+r.err, gateway.DemoManagementKey) {
		t.Fatal("the key was printed")
	}
}

// `gwdash key` shows what the key's new members offer: BYOK usage, the
// rate limit with its note, today's free-model requests; `gwdash
// generation` the providers tried and the data region.
func TestKeyAndGenerationPanels(t *testing.T) {
	h := newHarness(t, gateway.Options{GenerationDelay: time.Nanosecond})
	h.run("", "key").must(t, 0, []string{"BYOK usage", "this month $0.3125", "not counted in the limit", "rate limit", "rate limit    240 requests per 10s\n",
		"free models", "1,000 of 1,000 requests left today", "data regions", "global, europe, us", "workspace", gateway.DefaultWorkspace}, nil)
	r := h.run("", "respond", "hello", "--model", "openrouter/auto")
	r.must(t, 0, nil, []string{"generation gen-"})
	gen := strings.Fields(r.err[strings.Index(r.err, "generation gen-")+len("generation "):])[0]
	for i := 0; ; i++ {
		if r = h.run("", "generation", gen); r.code == 0 || i > 100 {
			break
		}
	}
	r.must(t, 0, []string{"data region", "global", "providers tried", "Azure 429 (41ms) → OpenAI 200"}, nil)
}

// `gwdash models` on a server that lists more than the catalogue's bound
// keeps the first models and says so.
func TestModelsSaysTheCatalogueWasCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[`)
		for i := range api.MaxCatalogueModels + 10 {
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, `{"id":"m/%d"}`, i)
		}
		io.WriteString(w, `]}`)
	}))
	defer srv.Close()
	h := newHarness(t, gateway.Options{})
	h.env["GWDASH_BASE_URL"] = srv.URL + "/api/v1"
	h.run("", "models").must(t, 0, []string{"m/0", "5,000 models"}, []string{"only the first 5,000 were read"})
}
