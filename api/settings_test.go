package api_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
)

type values map[string]string

func (v values) Value(name string) string { return v[name] }
func (v values) File(name string) ([]byte, error) {
	return nil, errors.New("no file in this test")
}

// Every bad setting is named at once, each by its own row, with the
// member inside it in the rule; rules of the contract (Validate) too,
// past a group already in error.
func TestApplySettingsNamesEveryProblem(t *testing.T) {
	in := values{}
	for _, st := range api.SettingsTable {
		in[st.Name] = st.Default
	}
	in["temperature"] = "3"                     // the contract's range
	in["metadata"] = "a[b]=1"                   // the contract's key rule
	in["text.format"] = api.FormatJSONSchema    // without a schema
	in["provider.order"] = "Together, Together" // twice
	in["provider.ignore"] = "Fireworks"
	in["provider.only"] = "Fireworks" // also ignored
	in["tool_choice"] = "auto"        // without tools
	in["models"] = "openai/gpt-4o, nope"
	_, errs := api.ApplySettings(api.SettingsTable, in)
	got := map[string]string{}
	for _, e := range errs {
		if _, twice := got[e.Field]; twice {
			t.Fatalf("%s named twice", e.Field)
		}
		got[e.Field] = e.Rule
	}
	want := map[string]string{
		"temperature":        "0 to 2",
		"metadata":           "[ or ]",
		"text.format.schema": "is required for json_schema",
		"provider.order":     "order[1]: Together appears twice",
		"provider.only":      "also in provider.ignore",
		"tool_choice":        "needs a tools file",
		"models":             "models[1]: must be <provider>/<model>",
	}
	for f, r := range want {
		if !strings.Contains(got[f], r) {
			t.Errorf("%s: %q, want %q", f, got[f], r)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("errors %v", got)
	}
}

// The models a setting needs are the table's: Unsupported reads them.
func TestUnsupportedReadsTheTable(t *testing.T) {
	m := &api.Model{ID: "a/b", SupportedParameters: []string{"max_tokens"}}
	one := 1
	r := &api.ResponseRequest{MaxOutputTokens: &one, Text: &api.TextConfig{Format: &api.TextFormat{Type: api.FormatJSONObject}},
		Reasoning: &api.Reasoning{Effort: "low", Summary: "auto"}}
	got := strings.Join(api.Unsupported(m, r), ",")
	if got != "reasoning,response_format" {
		t.Fatalf("unsupported %q", got)
	}
}
