package ui

// The settings table (api.SettingsTable) is the one home of a request
// setting: the form, validation, the request body, the estimate and the
// unsupported flags read it. The depth settings (response format, tools,
// provider routing) over real HTTP, the providers panel and the race
// across providers.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/ui/widgets"
)

// sampleValues are a value for each typed setting of the table (choices
// are tried with every option): the test fails when a typed row has none.
var sampleValues = map[string]string{
	"instructions":                         "be brief",
	"max_output_tokens":                    "40",
	"temperature":                          "0.5",
	"top_p":                                "0.9",
	"metadata":                             "team=ml",
	"session_id":                           "s-1",
	"user":                                 "u-1",
	"max_tool_calls":                       "3",
	"stop_server_tools_when.step_count_is": "2",
	"stop_server_tools_when.max_cost":      "0.5",
	"trace.trace_id":                       "t-1",
	"trace.trace_name":                     "tn",
	"trace.span_name":                      "sn",
	"trace.generation_name":                "gn",
	"trace.parent_span_id":                 "ps",
	"text.format.schema":                   `{"type":"object","properties":{"city":{"type":"string"}}}`,
	"text.format.name":                     "place",
	"tools":                                `[{"name":"get_weather","description":"w","parameters":{"type":"object"}}]`,
	"tool_choice":                          "get_weather",
	"tool results":                         `{"get_weather":"sunny"}`,
	"provider.order":                       "Together, Fireworks",
	"provider.only":                        "Together",
	"provider.ignore":                      "Lambda",
	"provider.quantizations":               "fp8",
	"provider.max_price":                   "prompt=0.5, completion=2",
	"models":                               "openai/gpt-4o, openai/gpt-4.1",
}

// what the settings send: the request body and what the client does
// beside it.
func sent(t *testing.T, ps *requestSettings) string {
	t.Helper()
	var req api.ResponseRequest
	stream, errs := applySettings(ps, &req, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	extra, _ := json.Marshal(req.Extra)
	return string(b) + string(extra) + " stream=" + onOffWord(stream) + " routing=" + onOffWord(req.RoutingMetadata) +
		" results=" + onOffWord(ps.ToolResults != nil)
}

func onOffWord(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// base fills the settings a sample leans on (a schema needs its format,
// a tool choice its tools).
func base(ps *requestSettings, name string) {
	switch {
	case strings.HasPrefix(name, "text.format."):
		ps.set(setFormat, api.FormatJSONSchema)
		if name != setSchema {
			ps.set(setSchema, sampleValues[setSchema])
		}
	case name == "tool_choice" || name == "parallel_tool_calls" || name == setToolResults:
		ps.set(setTools, sampleValues[setTools])
	}
}

func TestSettingsTableIsTheFormAndTheRequest(t *testing.T) {
	ps := newSettingsForm()
	if len(ps.Fields) != len(api.SettingsTable) {
		t.Fatalf("%d fields for %d settings", len(ps.Fields), len(api.SettingsTable))
	}
	for i, st := range api.SettingsTable {
		fl := ps.Fields[i]
		if fl.Name != st.Name || fl.Label != st.Label || !strings.HasPrefix(fl.Hint, st.Help) {
			t.Fatalf("row %d: field %q %q %q, setting %q %q %q", i, fl.Name, fl.Label, fl.Hint, st.Name, st.Label, st.Help)
		}
		if got := ps.Value(st.Name); got != st.Default {
			t.Fatalf("%s starts at %q, its default is %q", st.Name, got, st.Default)
		}
	}
	// Every setting changes what is sent: typed ones with their sample,
	// choices with each option but their default.
	for _, st := range api.SettingsTable {
		values := st.Options
		if st.Kind != api.SettingChoice {
			v, ok := sampleValues[st.Name]
			if !ok {
				t.Fatalf("no sample value for %s", st.Name)
			}
			values = []string{v}
		}
		for _, v := range values {
			if v == st.Default {
				continue
			}
			before, after := newSettingsForm(), newSettingsForm()
			if st.Name != setSchema { // a schema alone is not valid
				base(before, st.Name)
			}
			base(after, st.Name)
			after.set(st.Name, v)
			if st.Name == setFormat && v == api.FormatJSONSchema {
				after.set(setSchema, sampleValues[setSchema])
			}
			if sent(t, before) == sent(t, after) {
				t.Fatalf("%s = %q sends nothing different:\n%s", st.Name, v, sent(t, after))
			}
			// and what a request says reads back as the same value
			if st.Load != nil && st.Kind != api.SettingFile {
				var req api.ResponseRequest
				applySettings(after, &req, nil)
				if got := st.Load(&req); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(v, " ", "") {
					t.Fatalf("%s = %q reads back as %q", st.Name, v, got)
				}
			}
		}
	}
}

// A new setting is a row of the table and nothing else: the form shows
// it, its rule is checked beside it, and the body the gateway receives
// carries it.
func TestANewSettingIsOneRow(t *testing.T) {
	table := append(slices.Clip(api.SettingsTable), api.Setting{Name: "seed", Label: "seed", Help: "whole number",
		Apply: func(v string, _ []byte, s *api.Settings) error {
			if v == "" {
				return nil
			}
			if strings.Trim(v, "0123456789") != "" {
				return &api.ValidationError{Field: "seed", Rule: "must be a whole number"}
			}
			s.Request.Extra = map[string]json.RawMessage{"seed": json.RawMessage(v)}
			return nil
		}})
	ps := newSettingsFrom(table)
	if fl := ps.Field("seed"); fl == nil || fl.Label != "seed" || fl.Hint != "whole number" {
		t.Fatalf("the form has no seed field: %+v", fl)
	}
	ps.set("seed", "x1")
	var req api.ResponseRequest
	if _, errs := applySettings(ps, &req, nil); len(errs) != 1 || ps.Field("seed").Err != "must be a whole number" {
		t.Fatalf("errors %v, beside seed %q", errs, ps.Field("seed").Err)
	}
	ps.set("seed", "42")
	req = api.ResponseRequest{Model: "openai/gpt-4o-mini", Input: api.Input{Text: "hi"}}
	if _, errs := applySettings(ps, &req, nil); len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	srv, c := startGW(t, gateway.Options{})
	if _, err := c.CreateResponse(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := lastBody(t, srv)
	if string(body["seed"]) != "42" {
		t.Fatalf("seed not sent: %s", body["seed"])
	}
}

func lastBody(t *testing.T, srv *gateway.Server) map[string]json.RawMessage {
	t.Helper()
	rs := srv.RequestsTo("POST", "/api/v1/responses")
	if len(rs) == 0 {
		t.Fatal("no request reached the gateway")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(rs[len(rs)-1].Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The estimate counts what the table marks as input: the instructions,
// the schema, the tools.
func TestEstimateCountsTheSettingsSentAsInput(t *testing.T) {
	ps := newSettingsForm()
	n := ps.inputChars()
	ps.set("instructions", "be brief")
	ps.set(setSchema, sampleValues[setSchema])
	if got := ps.inputChars() - n; got != len("be brief")+len(sampleValues[setSchema]) {
		t.Fatalf("input chars grew by %d", got)
	}
}

// setField types a value into a settings field (a choice is picked),
// as a user would: the field is focused and the keys typed.
func (u *ui) setField(name, value string) {
	u.t.Helper()
	choice := false
	u.until("field "+name, func(m Model) bool {
		p := playOf(m)
		for i, fl := range p.settings.Fields {
			if fl.Name == name {
				p.settings.Cursor = i
				p.settings.Focus()
				if fl.Kind == widgets.KindChoice {
					p.settings.set(name, value)
					p.checkSettings()
					choice = true
				} else {
					fl.Input.SetValue("")
				}
				return true
			}
		}
		return false
	})
	if !choice {
		u.runes(value)
	}
	u.until(name+" typed", func(m Model) bool { return playOf(m).settings.Value(name) == value })
}

func schemaFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "person.schema.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Bad depth settings are refused before any request, each error beside
// its field, with its location for a schema.
func TestDepthSettingsAreCheckedBeforeSending(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 160, 50)
	u.runes("s")
	u.until("settings", func(m Model) bool { return inSettings(playOf(m)) })
	u.setField(setFormat, api.FormatJSONSchema)
	u.setField(setSchema, schemaFile(t, `{"type":"object","properties":{"age":{"type":"integr"}}}`))
	u.setField(setTools, filepath.Join(t.TempDir(), "missing.json"))
	u.setField(setOrder, "Together, Together")
	u.setField("models", "nope")
	u.until("errors beside their fields", func(m Model) bool {
		f := playOf(m).settings
		return strings.Contains(f.Field(setSchema).Err, "/properties/age/type") &&
			strings.Contains(f.Field(setTools).Err, "no such file") &&
			strings.Contains(f.Field(setOrder).Err, "appears twice") &&
			strings.Contains(f.Field("models").Err, "<provider>/<model>")
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("settings not kept: 4 fields need fixing", "JSON schema", "tools file", "provider order", "fallback models")
	u.key(tea.KeyEsc)
	u.screen("discard the changed settings?")
	u.runes("n")
	u.until("still in the settings", func(m Model) bool { return inSettings(playOf(m)) })
	if n := len(srv.RequestsTo("POST", "/api/v1/responses")); n != 0 {
		t.Fatalf("%d requests sent with invalid settings", n)
	}
	u.quit()
}

// Valid depth settings reach the gateway as text.format, tools,
// tool_choice, parallel_tool_calls, provider and models.
func TestDepthSettingsReachTheGateway(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 160, 50)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(`[{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`), 0o600)
	u.runes("s")
	u.until("settings", func(m Model) bool { return inSettings(playOf(m)) })
	u.setField(setFormat, api.FormatJSONSchema)
	u.setField(setSchema, schemaFile(t, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`))
	u.setField("text.format.strict", "on")
	u.setField(setTools, tools)
	u.setField("tool_choice", "auto")
	u.setField("parallel_tool_calls", "off")
	u.setField(setOrder, "OpenAI, Azure")
	u.setField("provider.sort", "price")
	u.setField("provider.max_price", "prompt=1")
	u.setField("models", "openai/gpt-4o")
	u.until("files read and valid", func(m Model) bool {
		p := playOf(m)
		var req api.ResponseRequest
		_, errs := applySettings(p.settings, &req, nil)
		return len(errs) == 0 && len(p.settings.Tools) == 1 && p.settings.Format != nil
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("settings kept")
	u.typePrompt("weather?")
	u.until("answered", func(m Model) bool { t := lastTurn(m); return t != nil && !t.running })
	body := lastBody(t, srv)
	var got struct {
		Text struct {
			Format struct {
				Type, Name string
				Strict     bool
				Schema     map[string]any
			}
		}
		Tools []struct {
			Type, Name string
		}
		ToolChoice        string `json:"tool_choice"`
		ParallelToolCalls *bool  `json:"parallel_tool_calls"`
		Provider          struct {
			Order    []string
			Sort     string
			MaxPrice map[string]string `json:"max_price"`
		}
		Models []string
	}
	whole, _ := json.Marshal(body)
	if err := json.Unmarshal(whole, &got); err != nil {
		t.Fatal(err)
	}
	f := got.Text.Format
	if f.Type != "json_schema" || f.Name != "person_schema" || !f.Strict || f.Schema["type"] != "object" {
		t.Fatalf("text.format: %+v", f)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "get_weather" || got.Tools[0].Type != "function" || got.ToolChoice != "auto" ||
		got.ParallelToolCalls == nil || *got.ParallelToolCalls {
		t.Fatalf("tools: %s", whole)
	}
	if !reflect.DeepEqual(got.Provider.Order, []string{"OpenAI", "Azure"}) || got.Provider.Sort != "price" || got.Provider.MaxPrice["prompt"] != "1" ||
		!reflect.DeepEqual(got.Models, []string{"openai/gpt-4o"}) {
		t.Fatalf("routing: %s", whole)
	}
	u.quit()
}

const llama = "meta-llama/llama-3.1-70b-instruct"

// The providers panel lists the model's endpoints; marking providers in
// order and enter makes them the provider order setting.
func TestProvidersPanelSetsTheOrder(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: llama}, 160, 40)
	u.runes("p")
	v := u.screen("Providers of "+llama, "Together", "Fireworks", gateway.DownProvider, "UPTIME 1D", "LATENCY P50")
	if !strings.Contains(v, "down") {
		t.Fatalf("the down provider's status is not shown:\n%s", v)
	}
	if n := len(srv.RequestsTo("GET", "/api/v1/models/meta-llama/llama-3.1-70b-instruct/endpoints")); n != 1 {
		t.Fatalf("%d endpoint reads", n)
	}
	// sorted by input price: s steps from provider to input price
	u.runes("s")
	u.until("sorted by price", func(m Model) bool {
		pp := panelOf(playOf(m))
		if pp == nil || len(pp.rows) < 2 || pp.sortBy != 1 {
			return false
		}
		for k := 1; k < len(pp.rows); k++ {
			a, b := pp.data.Endpoints[pp.rows[k-1]].PriceOf("prompt"), pp.data.Endpoints[pp.rows[k]].PriceOf("prompt")
			if a.PerMillion > b.PerMillion {
				return false
			}
		}
		return true
	})
	// mark the second row then the first: the order is as marked
	var want []string
	u.until("rows", func(m Model) bool {
		pp := panelOf(playOf(m))
		want = []string{pp.data.Endpoints[pp.rows[1]].ProviderName, pp.data.Endpoints[pp.rows[0]].ProviderName}
		return true
	})
	u.runes("j")
	u.space()
	u.runes("k")
	u.space()
	u.screen("order: " + want[0] + " → " + want[1])
	u.key(tea.KeyEnter)
	u.screen("provider order " + want[0] + " → " + want[1])
	u.until("order set", func(m Model) bool {
		p := playOf(m)
		return panelOf(p) == nil && p.settings.Value(setOrder) == want[0]+", "+want[1]
	})
	// and it is sent
	u.typePrompt("hello")
	u.until("completed", ended(api.EndCompleted))
	var got struct{ Provider struct{ Order []string } }
	whole, _ := json.Marshal(lastBody(t, srv))
	json.Unmarshal(whole, &got)
	if !reflect.DeepEqual(got.Provider.Order, want) {
		t.Fatalf("provider.order sent: %s", whole)
	}
	u.quit()
}

// From the model picker, ctrl+o opens the panel of the highlighted
// model; enter there picks the model and the order.
func TestProvidersPanelFromThePicker(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 160, 40)
	u.runes("m")
	u.until("picker", func(m Model) bool { p := playOf(m); return p.picker() != nil && p.cat != nil })
	u.runes("llama-3.1-70b")
	u.until("filtered", func(m Model) bool { return playOf(m).picker().selectedID() == llama })
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO})
	u.screen("Providers of "+llama, "Fireworks")
	u.key(tea.KeyEnter) // the provider under the cursor goes first
	u.until("model and order", func(m Model) bool {
		p := playOf(m)
		return p.model == llama && p.picker() == nil && p.mode == playNav && p.settings.Value(setOrder) != ""
	})
	u.quit()
}

// A race across providers: a pane per provider, each request pinned to
// its provider without fallbacks, each pane naming its provider with
// the first token time and the cost.
func TestRaceAcrossProviders(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: llama}, 180, 50)
	u.runes("p")
	u.screen("Providers of "+llama, "Fireworks")
	var want []string
	u.until("rows", func(m Model) bool {
		pp := panelOf(playOf(m))
		for _, i := range pp.rows {
			if name := pp.data.Endpoints[i].ProviderName; name != gateway.DownProvider && len(want) < 2 {
				want = append(want, name)
			}
		}
		return true
	})
	for _, name := range want {
		u.until("cursor on "+name, func(m Model) bool {
			pp := panelOf(playOf(m))
			for k, i := range pp.rows {
				if pp.data.Endpoints[i].ProviderName == name {
					pp.nav.Cursor = k
				}
			}
			return true
		})
		u.space()
	}
	u.runes("c")
	u.until("race", func(m Model) bool {
		p := playOf(m)
		return p.cmp != nil && len(p.cmp.panes) == 2 && p.cmp.panes[0].provider == want[0] && p.cmp.panes[1].provider == want[1]
	})
	u.screen("race " + llama + " across " + want[0] + ", " + want[1])
	u.typePrompt("hello")
	v := u.until("both answered", func(m Model) bool {
		p := playOf(m)
		for _, pn := range p.cmp.panes {
			if pn.turn == nil || pn.turn.running || pn.turn.gen == nil {
				return false
			}
		}
		return !p.running()
	})
	for _, name := range want {
		if !strings.Contains(v, name+" · "+llama) {
			t.Fatalf("no pane titled %s:\n%s", name, v)
		}
	}
	if !strings.Contains(v, "ttft") || !strings.Contains(v, "charged") {
		t.Fatalf("the panes show no first token time or cost:\n%s", v)
	}
	u.until("each pane served by its provider", func(m Model) bool {
		for i, pn := range playOf(m).cmp.panes {
			if g := pn.turn.gen; g.ProviderName == nil || *g.ProviderName != want[i] {
				return false
			}
		}
		return true
	})
	var pinnedTo []string
	for _, r := range srv.RequestsTo("POST", "/api/v1/responses") {
		var b struct {
			Provider struct {
				Only           []string
				AllowFallbacks *bool `json:"allow_fallbacks"`
			}
		}
		json.Unmarshal(r.Body, &b)
		if len(b.Provider.Only) != 1 || b.Provider.AllowFallbacks == nil || *b.Provider.AllowFallbacks {
			t.Fatalf("a race request not pinned: %s", r.Body)
		}
		pinnedTo = append(pinnedTo, b.Provider.Only[0])
	}
	slices.Sort(pinnedTo)
	sorted := slices.Sorted(slices.Values(want))
	if !reflect.DeepEqual(pinnedTo, sorted) {
		t.Fatalf("pinned to %v, raced %v", pinnedTo, want)
	}
	u.quit()
}

// The usage card says which provider served, and a fallback: a down
// provider first in the order falls back to the next.
func TestUsageCardSaysTheProviderAndTheFallback(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "playground", Model: llama}, 200, 50)
	u.runes("s")
	u.until("settings", func(m Model) bool { return inSettings(playOf(m)) })
	u.setField(setOrder, gateway.DownProvider+", Together")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.screen("settings kept")
	u.typePrompt("hello")
	u.until("generation", func(m Model) bool { t := lastTurn(m); return t != nil && t.gen != nil })
	u.screen("provider Together", "fallback: tried "+gateway.DownProvider+" 503", "→ Together 200")
	u.quit()
}

// The panel's own keys, without a server: a stale read is dropped, s and
// S sort, space marks in order (again unmarks), u unmarks all, enter with
// nothing marked puts the provider under the cursor first, c needs 2 to
// 4 marks.
func TestProvidersPanelKeys(t *testing.T) {
	pp := newProvidersPanel(nil, llama, nil, 2)
	pp.setSize(120, 30)
	pp.got(endpointsMsg{gen: 1, data: goldenEndpoints()})
	if pp.data != nil || !pp.loading {
		t.Fatal("a stale read was taken")
	}
	pp.got(endpointsMsg{gen: 2, data: goldenEndpoints()})
	names := func() []string {
		var out []string
		for _, i := range pp.rows {
			out = append(out, pp.data.Endpoints[i].ProviderName)
		}
		return out
	}
	key := func(s string) providersResult {
		_, res := pp.key(keyMsg(s), nil, context.Background())
		return res
	}
	if got := strings.Join(names(), ","); got != "DeepInfra,Fireworks,Lambda,Together" {
		t.Fatalf("by provider: %s", got)
	}
	key("s") // input price
	if got := strings.Join(names(), ","); got != "Lambda,DeepInfra,Together,Fireworks" {
		t.Fatalf("by input price: %s", got)
	}
	key("S")
	if got := strings.Join(names(), ","); got != "Fireworks,Together,DeepInfra,Lambda" {
		t.Fatalf("reversed: %s", got)
	}
	key("space")
	key("down")
	key("space")
	if strings.Join(pp.marked, ",") != "Fireworks,Together" {
		t.Fatalf("marked %v", pp.marked)
	}
	if key("c") != providersRaced {
		t.Fatal("c with 2 marked does not race")
	}
	key("space") // Together again: unmarked
	if key("c") != providersOpen || strings.Join(pp.marked, ",") != "Fireworks" {
		t.Fatalf("c with 1 marked, marks %v", pp.marked)
	}
	key("u")
	if len(pp.marked) != 0 {
		t.Fatal("u left marks")
	}
	if key("enter") != providersOrdered || strings.Join(pp.marked, ",") != "Together" {
		t.Fatalf("enter with none marked: %v", pp.marked)
	}
	if key("esc") != providersClosed {
		t.Fatal("esc does not close")
	}
}
