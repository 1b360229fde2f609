package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func destOf(m Model) *destView { return m.views[viewDestinations].(*destView) }

func patches(srv *gateway.Server, id string) []gateway.Recorded {
	return srv.RequestsTo("PATCH", "/api/v1/observability/destinations/"+id)
}

// selectDest moves the cursor to the destination with the given name.
func (u *ui) selectDest(name string) {
	u.t.Helper()
	u.until("destinations loaded", func(m Model) bool { return len(destOf(m).rows) > 0 && !destOf(m).loading })
	u.runes("g")
	for i := 0; i < 40; i++ {
		var found bool
		u.until("a probe", func(m Model) bool {
			if i, ok := destOf(m).selected(); ok && destOf(m).rows[i].DisplayName() == name {
				found = true
			}
			return true
		})
		if found {
			return
		}
		u.key(tea.KeyDown)
	}
	u.t.Fatalf("destination %s not found", name)
}

func TestDestPagesAndToggle(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 120, 20)
	u.screen("Destinations", "25 of 32 loaded")
	for i := 0; i < 25; i++ {
		u.key(tea.KeyDown)
	}
	u.screen("32 of 32 loaded")
	if n := len(srv.RequestsTo("GET", "/api/v1/observability/destinations")); n != 2 {
		t.Fatalf("%d pages fetched, want 2", n)
	}
	// Toggle and answer No: nothing is sent.
	u.selectDest("prod-langfuse")
	id := srv.DestinationID("prod-langfuse")
	u.space()
	u.screen("disable 'prod-langfuse'? y/N")
	u.runes("n")
	u.screen("nothing changed")
	// Toggle and confirm: the server's state changes.
	u.space()
	u.screen("disable 'prod-langfuse'? y/N")
	u.runes("y")
	u.screen("prod-langfuse is now disabled")
	if srv.DestinationEnabled(id) || len(patches(srv, id)) != 1 {
		t.Fatalf("enabled %v after %d PATCHes", srv.DestinationEnabled(id), len(patches(srv, id)))
	}
	// The 409 destination succeeds after a retry.
	u.selectDest(gateway.ConflictDestination)
	cid := srv.DestinationID(gateway.ConflictDestination)
	u.space()
	u.runes("y")
	u.screen(gateway.ConflictDestination + " is now disabled")
	if len(patches(srv, cid)) != 2 {
		t.Fatalf("409 not retried: %d", len(patches(srv, cid)))
	}
	// A failing PATCH rolls the row back with the server's message.
	u.selectDest(gateway.BrokenDestination)
	u.space()
	u.runes("y")
	u.screen("not saved, rolled back", "HTTP 500")
	u.until("rolled back", func(m Model) bool {
		i, _ := destOf(m).selected()
		return !destOf(m).rows[i].Enabled
	})
	u.quit()
}

func TestDestEditSendsOnlyChanges(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 140, 40)
	u.screen("prod-langfuse")
	id := srv.DestinationID("prod-langfuse")
	secret := srv.DestinationSecret(id, "secretKey")
	u.key(tea.KeyEnter)
	u.screen("Edit prod-langfuse", "sampling rate", "Secret key", "unchanged")
	// sampling rate: the third field
	u.key(tea.KeyTab)
	u.key(tea.KeyTab)
	for i := 0; i < 5; i++ {
		u.key(tea.KeyBackspace)
	}
	u.runes("0.5")
	// regions: global is on; turn europe on as well
	u.key(tea.KeyTab)
	u.key(tea.KeyRight)
	u.space()
	u.key(tea.KeyCtrlS)
	u.screen("This PATCH sends only these fields", "sampling_rate", "regions")
	u.runes("y")
	u.screen("saved prod-langfuse")
	sent := patches(srv, id)
	var body map[string]json.RawMessage
	json.Unmarshal(sent[0].Body, &body)
	if len(body) != 2 || string(body["sampling_rate"]) != "0.5" || string(body["regions"]) != `["global","europe"]` {
		t.Fatalf("PATCH body %s", sent[0].Body)
	}
	if srv.DestinationSecret(id, "secretKey") != secret {
		t.Fatalf("an untouched secret changed")
	}
	// Now change the secret: it is sent, and the diff says only "changed".
	u.key(tea.KeyEnter)
	u.screen("Edit prod-langfuse")
	u.until("secret field", func(m Model) bool {
		f := destOf(m).form
		return f != nil
	})
	for i := 0; i < 14; i++ { // to the last field (Secret key)
		u.key(tea.KeyShiftTab)
		var onSecret bool
		u.until("probe", func(m Model) bool {
			onSecret = destOf(m).form.current().name == "config.secretKey"
			return true
		})
		if onSecret {
			break
		}
	}
	u.runes("sk-lf-rotated-9999")
	u.key(tea.KeyCtrlS)
	view := u.screen("changed (secret)")
	if strings.Contains(view, "sk-lf-rotated-9999") {
		t.Fatalf("the diff shows the secret")
	}
	u.runes("y")
	// The first save's notice may still show: wait on state, not text.
	u.until("the second save", func(m Model) bool { return destOf(m).form == nil && len(destOf(m).inflight) == 0 })
	if srv.DestinationSecret(id, "secretKey") != "sk-lf-rotated-9999" {
		t.Fatalf("new secret not stored")
	}
	sent = patches(srv, id)
	if !strings.Contains(string(sent[1].Body), `"config":{"secretKey":"sk-lf-rotated-9999"}`) || len(sent[1].Body) > 60 {
		t.Fatalf("second PATCH %s", sent[1].Body)
	}
	u.quit()
}

func TestDestInvalidCannotBeSaved(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 140, 40)
	u.screen("prod-langfuse")
	u.key(tea.KeyEnter)
	u.key(tea.KeyTab)
	u.key(tea.KeyTab)
	for i := 0; i < 5; i++ {
		u.key(tea.KeyBackspace)
	}
	u.runes("1.5")
	u.screen("✗ must be 0.0001 to 1")
	u.key(tea.KeyCtrlS)
	u.screen("cannot save: sampling_rate")
	// The edit is kept.
	u.until("edit kept", func(m Model) bool { return destOf(m).form.field("sampling_rate").input.Value() == "1.5" })
	u.quit()
	if n := len(srv.RequestsTo("PATCH", "/api/v1/observability/destinations/")); n != 0 {
		t.Fatalf("%d PATCHes for an invalid form", n)
	}
}

func TestDestWithoutManagementKey(t *testing.T) {
	srv, _ := startGW(t, gateway.Options{})
	c, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
	u := start(t, Options{Client: c, View: "destinations"}, 120, 30)
	u.screen("Destinations need a management key", "GWDASH_MANAGEMENT_KEY")
	u.quit()
	if n := len(srv.RequestsTo("GET", "/api/v1/observability/destinations")); n != 0 {
		t.Fatalf("listed without a management key")
	}
}

func TestDestReadOnly(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations", ReadOnly: true}, 120, 30)
	u.screen("read-only", "prod-langfuse")
	u.space()
	u.screen("read-only: changes are disabled")
	u.quit()
	if n := len(srv.RequestsTo("PATCH", "/api/v1/observability/destinations/")); n != 0 {
		t.Fatalf("read-only sent a PATCH")
	}
}

func TestDestFailedSaveKeepsEdits(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 140, 40)
	u.selectDest(gateway.BrokenDestination)
	u.key(tea.KeyEnter)
	u.screen("Edit " + gateway.BrokenDestination)
	u.runes("-renamed")
	u.key(tea.KeyCtrlS)
	u.screen("This PATCH sends only these fields", "name")
	u.runes("y")
	u.screen("not saved (your edits are kept)", "HTTP 500")
	u.until("edits kept", func(m Model) bool {
		f := destOf(m).form
		return f != nil && !f.review && f.field("name").input.Value() == gateway.BrokenDestination+"-renamed"
	})
	u.quit()
	if len(patches(srv, srv.DestinationID(gateway.BrokenDestination))) != 1 {
		t.Fatalf("a PATCH that may have applied was retried")
	}
}

func TestServerErrorLandsOnItsField(t *testing.T) {
	f := newDestForm(api.Destination{ID: "d", Type: "langfuse", Regions: []string{"global"}, SamplingRate: 1,
		Config: map[string]any{"baseUrl": "https://x", "secretKey": "sk-...abcd"}})
	if !f.applyServerError("Invalid request parameters: sampling_rate must be a number from 0.0001 to 1") || f.field("sampling_rate").err == "" {
		t.Fatalf("sampling_rate error not placed")
	}
	if !f.applyServerError("config baseUrl: not a URL") || f.field("config.baseUrl").err == "" {
		t.Fatalf("config error not placed")
	}
}

func TestDestFilterRulesEditor(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	name := "staging-datadog" // seeded with: and: model starts_with openai/, total_cost gt 0.01
	id := srv.DestinationID(name)
	u := start(t, Options{Client: c, View: "destinations"}, 140, 40)
	u.selectDest(name)
	u.key(tea.KeyEnter)
	u.screen("Edit "+name, "filter rules", "and: model starts_with openai/, total_cost gt 0.01")
	for i := 0; i < 10; i++ {
		u.key(tea.KeyTab)
	}
	u.key(tea.KeyEnter)
	u.screen("Filter rules", "group 1 · and: every rule must match")
	u.key(tea.KeyDown)  // rule 1
	u.key(tea.KeyTab)   // its operator
	u.key(tea.KeyRight) // starts_with -> ends_with
	u.key(tea.KeyCtrlN) // a new rule: model equals
	u.key(tea.KeyRight) // field: provider
	u.key(tea.KeyTab)
	u.key(tea.KeyTab) // value
	u.runes("anthropic")
	u.key(tea.KeyEsc)
	u.screen("and: model ends_with openai/, total_cost gt 0.01, provider equals ant")
	u.key(tea.KeyCtrlS)
	u.screen("This PATCH sends only these fields", "filter_rules")
	u.runes("y")
	u.until("saved", func(m Model) bool { return destOf(m).form == nil && len(destOf(m).inflight) == 0 })
	sent := patches(srv, id)
	var body struct {
		FilterRules *api.FilterRules `json:"filter_rules"`
	}
	var all map[string]json.RawMessage
	json.Unmarshal(sent[0].Body, &all)
	json.Unmarshal(sent[0].Body, &body)
	fr := body.FilterRules
	if len(all) != 1 || fr == nil || !fr.Enabled || len(fr.Groups) != 1 || len(fr.Groups[0].Rules) != 3 ||
		fr.Groups[0].Rules[0].Operator != "ends_with" || fr.Groups[0].Rules[1].Value != 0.01 ||
		fr.Groups[0].Rules[2].Field != "provider" || fr.Groups[0].Rules[2].Value != "anthropic" {
		t.Fatalf("PATCH body %s", sent[0].Body)
	}
	// Clear to null.
	u.key(tea.KeyEnter)
	u.screen("Edit " + name)
	for i := 0; i < 10; i++ {
		u.key(tea.KeyTab)
	}
	u.key(tea.KeyEnter)
	u.key(tea.KeyCtrlX)
	u.screen("no filter rules (sent as null)")
	u.key(tea.KeyEsc)
	u.key(tea.KeyCtrlS)
	u.screen("none (null)")
	u.runes("y")
	u.until("saved", func(m Model) bool { return destOf(m).form == nil && len(destOf(m).inflight) == 0 })
	if got := string(patches(srv, id)[1].Body); got != `{"filter_rules":null}` {
		t.Fatalf("clear sent %s", got)
	}
	u.quit()
}

func TestRulesEditorModel(t *testing.T) {
	if newRulesEditor(nil).rules() != nil {
		t.Fatal("no rules must stay null")
	}
	e := newRulesEditor(nil)
	e.key(tea.KeyMsg{Type: tea.KeyCtrlG})
	e.key(tea.KeyMsg{Type: tea.KeyCtrlN})
	e.key(tea.KeyMsg{Type: tea.KeyUp})
	e.key(tea.KeyMsg{Type: tea.KeyUp})
	e.key(tea.KeyMsg{Type: tea.KeySpace}) // group logic -> or
	e.key(tea.KeyMsg{Type: tea.KeyCtrlE}) // disabled
	fr := e.rules()
	if fr == nil || fr.Enabled || len(fr.Groups) != 1 || fr.Groups[0].Logic != "or" || len(fr.Groups[0].Rules) != 2 || fr.Validate() != nil {
		t.Fatalf("%+v", fr)
	}
	if rulesToText(fr) != "off: or: model equals, model equals" {
		t.Fatalf("%q", rulesToText(fr))
	}
	e.key(tea.KeyMsg{Type: tea.KeyCtrlD}) // on the group line: deletes the group
	if e.rules() != nil {
		t.Fatalf("deleting the only group leaves no rules")
	}
}
