package ui

// Destinations over real HTTP to the embedded gateway: pages, toggle,
// edit, validation, failures, the rules editor, create, delete, conflicts,
// read-only and a missing management key.

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
)

func patches(srv *gateway.Server, id string) []gateway.Recorded {
	return srv.RequestsTo("PATCH", "/api/v1/observability/destinations/"+id)
}

// selectDest puts the cursor on the destination with that name.
func (u *ui) selectDest(name string) {
	u.t.Helper()
	u.until("destination "+name, func(m Model) bool {
		v := destOf(m)
		for k, i := range v.view {
			if v.rows[i].DisplayName() == name {
				v.nav.Cursor = k
				v.nav.Clamp()
				return true
			}
		}
		return false
	})
}

// editorIn waits for the editor to reach a stage.
func editorIn(st editorStage) func(Model) bool {
	return func(m Model) bool { e := destOf(m).editor(); return e != nil && e.stage == st }
}

// toField moves the form's focus to a field by name.
func (u *ui) toField(name string) {
	u.t.Helper()
	u.until("field "+name, func(m Model) bool {
		f := destOf(m).editor().form
		for i, fl := range f.Fields {
			if fl.Name == name {
				f.Cursor = i
				f.Focus()
				return true
			}
		}
		return false
	})
}

func TestDestPagesAndToggle(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 120, 20)
	u.screen("Destinations", "of 32 loaded")
	u.runes("G")
	u.screen("32 of 32 loaded")
	if n := len(srv.RequestsTo("GET", "/api/v1/observability/destinations")); n < 2 {
		t.Fatalf("%d pages fetched for 32 destinations", n)
	}
	// Toggle and answer N: nothing is sent.
	u.selectDest("prod-langfuse")
	id := srv.DestinationID("prod-langfuse")
	u.space()
	u.screen("disable 'prod-langfuse'? y/N")
	u.runes("N")
	u.until("nothing changed", func(m Model) bool { return strings.Contains(m.notice, "nothing changed") })
	// Toggle and confirm: read again, then the server's state changes.
	u.space()
	u.runes("y")
	u.until("disabled", func(m Model) bool { return strings.Contains(m.notice, "prod-langfuse is now disabled") })
	if srv.DestinationEnabled(id) || len(patches(srv, id)) != 1 {
		t.Fatalf("enabled %v after %d PATCHes", srv.DestinationEnabled(id), len(patches(srv, id)))
	}
	if n := len(srv.RequestsTo("GET", "/api/v1/observability/destinations/"+id)); n != 1 {
		t.Fatalf("a toggle reads the destination again first: %d GETs", n)
	}
	// The 409 destination succeeds after the client's bounded retry.
	u.selectDest(gateway.ConflictDestination)
	cid := srv.DestinationID(gateway.ConflictDestination)
	u.space()
	u.runes("y")
	u.until("conflict retried", func(m Model) bool { return strings.Contains(m.notice, gateway.ConflictDestination+" is now disabled") })
	if len(patches(srv, cid)) != 2 {
		t.Fatalf("409 not retried: %d", len(patches(srv, cid)))
	}
	// A failing PATCH rolls the row back, with the server's status.
	u.selectDest(gateway.BrokenDestination)
	u.space()
	u.runes("y")
	u.until("rolled back", func(m Model) bool {
		d := destOf(m).selected()
		return strings.Contains(m.errText, "not saved, rolled back") && strings.Contains(m.errText, "500") && d != nil && !d.Enabled
	})
	u.quit()
}

func TestDestEditSendsOnlyChanges(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 140, 50)
	u.selectDest("prod-langfuse")
	id := srv.DestinationID("prod-langfuse")
	secret := srv.DestinationSecret(id, "secretKey")
	u.key(tea.KeyEnter)
	u.screen("Edit prod-langfuse", "sampling rate", "secretKey", "unchanged")
	u.toField("sampling_rate")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.runes("0.5")
	u.toField("regions")
	u.key(tea.KeyRight) // global -> europe
	u.space()
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("This PATCH sends only these fields", "sampling_rate", "regions")
	u.runes("y")
	u.until("saved", func(m Model) bool {
		return destOf(m).editor() == nil && strings.Contains(m.notice, "saved 'prod-langfuse'")
	})
	sent := patches(srv, id)
	var body map[string]json.RawMessage
	json.Unmarshal(sent[0].Body, &body)
	if len(body) != 2 || string(body["sampling_rate"]) != "0.5" || !strings.Contains(string(body["regions"]), `"europe"`) {
		t.Fatalf("PATCH body %s", sent[0].Body)
	}
	if srv.DestinationSecret(id, "secretKey") != secret {
		t.Fatal("an untouched secret changed")
	}
	// Now replace the secret: masked while typed; the diff says only that
	// it changed.
	u.key(tea.KeyEnter)
	u.until("editor", editorIn(stageForm))
	u.toField("config.secretKey")
	u.runes("sk-lf-rotated-9999")
	if v := u.screen("••••"); strings.Contains(v, "sk-lf-rotated-9999") {
		t.Fatalf("a new secret shows while typed:\n%s", v)
	}
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	if v := u.screen("changed (secret)"); strings.Contains(v, "rotated") {
		t.Fatalf("the diff shows the secret:\n%s", v)
	}
	u.runes("y")
	u.until("the second save", func(m Model) bool { return destOf(m).editor() == nil && len(destOf(m).inflight) == 0 })
	u.quit()
	if srv.DestinationSecret(id, "secretKey") != "sk-lf-rotated-9999" {
		t.Fatal("the new secret was not stored")
	}
	sent = patches(srv, id)
	if len(sent) != 2 || string(sent[1].Body) != `{"config":{"secretKey":"sk-lf-rotated-9999"}}` {
		t.Fatalf("second PATCH %s", sent[len(sent)-1].Body)
	}
}

func TestDestInvalidFormIsNotSentAndKeepsEdits(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 140, 50)
	u.selectDest("prod-langfuse")
	u.key(tea.KeyEnter)
	u.until("editor", editorIn(stageForm))
	u.toField("sampling_rate")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.runes("1.5")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("✗ must be 0.0001 to 1")
	u.until("refused", func(m Model) bool { return strings.Contains(m.errText, "cannot save: 1 field needs fixing") })
	u.until("edit kept", func(m Model) bool { return destOf(m).editor().form.Field("sampling_rate").Value() == "1.5" })
	u.quit()
	if n := len(srv.RequestsTo("PATCH", "/api/v1/observability/destinations/")); n != 0 {
		t.Fatalf("%d PATCHes for an invalid form", n)
	}
}

func TestDestWithoutManagementKey(t *testing.T) {
	srv, _ := startGW(t, gateway.Options{})
	c, _ := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey})
	u := start(t, Options{Client: FromAPI(c, ""), View: "destinations"}, 120, 30)
	u.screen("Destinations need a management key", "GWDASH_MANAGEMENT_KEY")
	u.quit()
	if n := len(srv.RequestsTo("GET", "/api/v1/observability/destinations")); n != 0 {
		t.Fatal("listed without a management key")
	}
}

func TestDestReadOnlySendsNothing(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations", ReadOnly: true}, 120, 30)
	u.screen("read-only", "prod-langfuse")
	u.space()
	u.until("refused", func(m Model) bool {
		return strings.Contains(m.notice, "read-only: enabling or disabling a destination is disabled")
	})
	u.key(tea.KeyEnter)
	u.until("editor", editorIn(stageForm))
	u.runes("typed")
	u.until("not typed", func(m Model) bool { return !strings.Contains(destOf(m).editor().form.Field("name").Value(), "typed") })
	u.quit()
	if n := len(srv.RequestsTo("PATCH", "/api/v1/observability/destinations/")); n != 0 {
		t.Fatal("read-only sent a PATCH")
	}
}

func TestDestFailedSaveKeepsEdits(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 140, 50)
	u.selectDest(gateway.BrokenDestination)
	u.key(tea.KeyEnter)
	u.screen("Edit " + gateway.BrokenDestination)
	u.runes("-renamed")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("This PATCH sends only these fields", "name")
	u.runes("y")
	u.until("failed, edits kept", func(m Model) bool {
		e := destOf(m).editor()
		return strings.Contains(m.errText, "not saved (your edits are kept)") && strings.Contains(m.errText, "500") &&
			e != nil && e.stage == stageForm && e.form.Field("name").Value() == gateway.BrokenDestination+"-renamed"
	})
	u.quit()
	if len(patches(srv, srv.DestinationID(gateway.BrokenDestination))) != 1 {
		t.Fatal("a PATCH that may have applied was retried")
	}
}

func TestDestConflictShowsThreeVersions(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 160, 50)
	u.selectDest("staging-posthog")
	id := srv.DestinationID("staging-posthog")
	u.key(tea.KeyEnter)
	u.until("editor", editorIn(stageForm))
	u.toField("sampling_rate")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.runes("0.2")
	// Someone else changes it meanwhile.
	srv.EditDestination(id, func(_ *string, rate *float64) { *rate = 0.9 })
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("This PATCH sends only these fields")
	u.runes("y")
	u.until("conflict", editorIn(stageConflict))
	u.screen("AS LOADED", "ON THE SERVER NOW", "YOURS", "0.9")
	if n := len(patches(srv, id)); n != 0 {
		t.Fatal("a conflicting change was sent")
	}
	u.runes("a") // apply mine on top
	u.until("saved", func(m Model) bool { return destOf(m).editor() == nil && len(destOf(m).inflight) == 0 })
	u.quit()
	if sent := patches(srv, id); len(sent) != 1 || !strings.Contains(string(sent[0].Body), `"sampling_rate":0.2`) {
		t.Fatalf("apply on top: %d PATCHes", len(sent))
	}
}

func TestDestServerErrorLandsOnItsField(t *testing.T) {
	e := newEditEditor(&common{}, api.Destination{ID: "d", Type: "langfuse", Regions: []string{"global"}, SamplingRate: 1,
		Config: map[string]any{"baseUrl": "https://x", "secretKey": "sk-...abcd"}})
	if !e.applyServerError("Invalid request parameters: sampling_rate must be a number from 0.0001 to 1") || e.form.Field("sampling_rate").Err == "" {
		t.Fatal("sampling_rate error not placed")
	}
	if !e.applyServerError("config baseUrl: not a URL") || e.form.Field("config.baseUrl").Err == "" {
		t.Fatal("config error not placed")
	}
}

func TestDestFilterRulesEditor(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	name := "staging-datadog" // seeded with: and: model starts_with openai/, total_cost gt 0.01
	id := srv.DestinationID(name)
	u := start(t, Options{Client: c, View: "destinations"}, 140, 50)
	u.selectDest(name)
	u.key(tea.KeyEnter)
	u.screen("Edit "+name, "filter rules", "and: model starts_with openai/, total_cost gt 0.01")
	u.toField("filter_rules")
	u.key(tea.KeyEnter)
	u.screen("Filter rules", "group 1 · and: every rule must match")
	u.key(tea.KeyDown)  // rule 1
	u.key(tea.KeyTab)   // its operator
	u.key(tea.KeyRight) // starts_with -> ends_with
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlN})
	u.key(tea.KeyRight) // field: provider
	u.key(tea.KeyTab)
	u.key(tea.KeyTab) // value
	u.runes("anthropic")
	u.key(tea.KeyEsc)
	u.screen("and: model ends_with openai/, total_cost gt 0.01, provider equals anthropic")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("This PATCH sends only these fields", "filter_rules")
	u.runes("y")
	u.until("saved", func(m Model) bool { return destOf(m).editor() == nil && len(destOf(m).inflight) == 0 })
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
	u.until("editor", editorIn(stageForm))
	u.toField("filter_rules")
	u.key(tea.KeyEnter)
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlX})
	u.screen("no filter rules (sent as null)")
	u.key(tea.KeyEsc)
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("none (null)")
	u.runes("y")
	u.until("saved", func(m Model) bool { return destOf(m).editor() == nil && len(destOf(m).inflight) == 0 })
	u.quit()
	if got := string(patches(srv, id)[1].Body); got != `{"filter_rules":null}` {
		t.Fatalf("clear sent %s", got)
	}
}

func TestRulesEditorModel(t *testing.T) {
	if newRulesEditor(nil, nil).rules() != nil {
		t.Fatal("no rules must stay null")
	}
	e := newRulesEditor(nil, nil)
	for _, k := range []tea.KeyMsg{{Type: tea.KeyCtrlG}, {Type: tea.KeyCtrlN}, {Type: tea.KeyUp}, {Type: tea.KeyUp},
		{Type: tea.KeySpace, Runes: []rune{' '}}, {Type: tea.KeyCtrlE}} {
		e.key(k)
	}
	fr := e.rules()
	if fr == nil || fr.Enabled || len(fr.Groups) != 1 || fr.Groups[0].Logic != "or" || len(fr.Groups[0].Rules) != 2 || fr.Validate() != nil {
		t.Fatalf("%+v", fr)
	}
	if rulesToText(fr) != "off: or: model equals, model equals" {
		t.Fatalf("%q", rulesToText(fr))
	}
	e.key(tea.KeyMsg{Type: tea.KeyCtrlD}) // on the group line: deletes the group
	if e.rules() != nil {
		t.Fatal("deleting the only group leaves no rules")
	}
}

func TestDestCreateAndDeleteOverHTTP(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "destinations"}, 160, 50)
	u.screen("prod-langfuse")
	// The list is read whole first (50 lines want a second page): a page
	// read after the create would rightly say the list changed.
	u.until("every page read", func(m Model) bool { d := destOf(m); return !d.loading && !d.pager.More() })
	u.runes("n")
	u.screen("choose its type", "webhook")
	u.until("webhook", func(m Model) bool {
		tp := destOf(m).types()
		for i, s := range api.DestinationTypeSpecs {
			if s.Name == "webhook" {
				tp.nav.Cursor = i
				return true
			}
		}
		return false
	})
	u.key(tea.KeyEnter)
	u.until("create form", func(m Model) bool {
		e := destOf(m).editor()
		return e != nil && e.kind == editCreate && e.typ == "webhook"
	})
	// Saving at once names every missing member; nothing is sent.
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.until("missing", func(m Model) bool {
		f := destOf(m).editor().form
		return f.Field("name").Err != "" && f.Field("config.url").Err != ""
	})
	u.runes("my-hook")
	u.toField("config.url")
	u.runes("https://hooks.example.com/mine")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen(`"type": "webhook"`, `"url": "https://hooks.example.com/mine"`)
	u.runes("y")
	u.until("created", func(m Model) bool { return strings.Contains(m.notice, "created 'my-hook'") })
	posts := srv.RequestsTo("POST", "/api/v1/observability/destinations")
	if len(posts) != 1 {
		t.Fatalf("%d POSTs", len(posts))
	}
	id := srv.DestinationID("my-hook")
	if id == "" {
		t.Fatal("the gateway has no my-hook")
	}
	// Delete: the name must be typed; a wrong one deletes nothing.
	u.selectDest("my-hook")
	u.runes("D")
	u.screen("Type its name to confirm")
	u.runes("my-hoo")
	u.key(tea.KeyEnter)
	u.until("not deleted", func(m Model) bool { return strings.Contains(m.notice, "not deleted") })
	u.runes("D")
	u.runes("my-hook")
	u.key(tea.KeyEnter)
	u.until("deleted", func(m Model) bool { return strings.Contains(m.notice, "deleted 'my-hook'") })
	u.quit()
	if n := len(srv.RequestsTo("DELETE", "/api/v1/observability/destinations/"+id)); n != 1 {
		t.Fatalf("%d DELETEs", n)
	}
}
