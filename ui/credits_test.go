package ui

import (
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

// With a management key the status bar shows the organisation's credit
// balance (GET /credits) beside the key's credit; without one it asks
// nothing of /credits and shows none.
func TestStatusBarShowsCredits(t *testing.T) {
	srv, c := startGW(t, gateway.Options{Credits: 25, KeyUsage: 6.8, KeyLimit: 10})
	u := start(t, Options{Client: c, View: "playground"}, 180, 30)
	u.screen("credits $18.20 left of $25.00", "$3.20 of $10.00 left this month")
	u.quit()
	if n := len(srv.RequestsTo("GET", "/api/v1/credits")); n == 0 {
		t.Fatal("no GET /credits")
	}

	srv2, err := gateway.Start("127.0.0.1:0", gateway.Options{KeyLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv2.Close() })
	ac, err := api.New(api.Options{BaseURL: srv2.URL, APIKey: gateway.DemoAPIKey})
	if err != nil {
		t.Fatal(err)
	}
	u = start(t, Options{Client: FromAPI(ac, ""), View: "playground"}, 180, 30)
	v := u.screen("$10.00 of $10.00 left this month")
	u.quit()
	if strings.Contains(v, "credits $") || len(srv2.RequestsTo("GET", "/api/v1/credits")) != 0 {
		t.Fatalf("credits without a management key:\n%s", v)
	}
}

// The playground's card shows a generation's record with what its new
// members offer: the providers tried (a fallback) and the data region.
func TestGenerationRecordShowsAttemptsAndRegion(t *testing.T) {
	_, c := startGW(t, gateway.Options{GenerationDelay: 1})
	u := start(t, Options{Client: c, View: "playground", Model: "openrouter/auto"}, 200, 60)
	u.typePrompt("hello")
	u.until("record", func(m Model) bool { t := lastTurn(m); return t != nil && t.gen != nil })
	u.screen("tried Azure 429", "→ OpenAI 200", "region global")
	u.quit()
}

// A catalogue cut at its bound says so in the model picker.
func TestPickerSaysTheCatalogueWasCut(t *testing.T) {
	cat := &api.Catalogue{Data: []api.Model{{ID: "a/one"}, {ID: "b/two"}}, Truncated: true}
	p := newModelPicker(nil, cat, nil, "a/one", false)
	p.setSize(120, 20)
	v := p.view(NewStyles(DefaultTheme(), plainRenderer()), 120, 20)
	if !strings.Contains(v, "the server lists more: only the first 2 were read") {
		t.Fatalf("no note:\n%s", v)
	}
	cat.Truncated = false
	if v := newModelPicker(nil, cat, nil, "a/one", false).view(NewStyles(DefaultTheme(), plainRenderer()), 120, 20); strings.Contains(v, "lists more") {
		t.Fatalf("a whole catalogue noted as cut:\n%s", v)
	}
}
