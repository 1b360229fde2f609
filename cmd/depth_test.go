package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/internal/gateway"
)

func depthFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`

func TestRespondSchema(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	schema := depthFile(t, "person.schema.json", personSchema)
	r := h.run("", "respond", "a person", "--model", "openai/gpt-4o-mini", "--schema", schema, "--strict")
	r.must(t, 0, []string{`"name"`, `"age"`}, []string{"matches the schema"})
	var v map[string]any
	if err := json.Unmarshal([]byte(r.out), &v); err != nil {
		t.Fatalf("stdout is not the JSON: %v\n%s", err, r.out)
	}
	var body struct {
		Text struct {
			Format map[string]any `json:"format"`
		} `json:"text"`
	}
	json.Unmarshal(h.srv.RequestsTo("POST", "/api/v1/responses")[0].Body, &body)
	if body.Text.Format["name"] != "person_schema" || body.Text.Format["strict"] != true {
		t.Fatalf("format sent %v", body.Text.Format)
	}
	// a violating answer: exit 1, every violation on stderr with its pointer
	r = h.run("", "respond", "a person", "--model", gateway.ModelJSONBroken, "--schema", schema, "--schema-name", "p", "--no-stream")
	r.must(t, 1, []string{"{"}, []string{"does not match the schema", "/age:", "(root):"})
	// json_object without a schema
	h.run("", "respond", "x", "--model", "openai/gpt-4o-mini", "--format", "json_object").must(t, 0, []string{`"answer"`}, []string{"valid JSON"})
}

func TestRespondTools(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	tools := depthFile(t, "tools.json", `[{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`)
	// without results: the call is printed as JSON and the command ends well
	r := h.run("", "respond", "weather?", "--model", gateway.ModelTools, "--tools", tools, "--tool-choice", "get_weather")
	r.must(t, 0, []string{`"type":"function_call"`, `"name":"get_weather"`, `"call_id":"call_`}, nil)
	var call map[string]string
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.out)), &call); err != nil {
		t.Fatalf("the call is not one JSON line: %v\n%s", err, r.out)
	}
	// with canned results the conversation continues to a text answer
	results := depthFile(t, "results.json", `{"get_weather":{"temp_c":-3}}`)
	r = h.run("", "respond", "weather?", "--model", gateway.ModelTools, "--tools", tools, "--tool-results", results)
	r.must(t, 0, []string{`The get_weather tool answered: {"temp_c":-3}`}, []string{"answered from"})
	sent := h.srv.RequestsTo("POST", "/api/v1/responses")
	last := sent[len(sent)-1].Body
	if !strings.Contains(string(last), `"type":"function_call_output"`) {
		t.Fatalf("the second turn did not send the output: %s", last)
	}
	// a results file without the called tool: exit 1, naming it
	other := depthFile(t, "other.json", `{"lookup":"x"}`)
	h.run("", "respond", "weather?", "--model", gateway.ModelTools, "--tools", tools, "--tool-results", other).must(t, 1, nil, []string{"get_weather", "has no result"})
}

func TestRespondProviderFlags(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "x", "--model", "meta-llama/llama-3.1-70b-instruct", "--provider-order", "Lambda,Together",
		"--provider-ignore", "Fireworks", "--provider-sort", "throughput", "--fallback-models", "openai/gpt-4o-mini", "--routing-metadata", "--json").
		must(t, 0, []string{`"selected":true`, `"provider":"Together"`}, nil)
	var body map[string]json.RawMessage
	json.Unmarshal(h.srv.RequestsTo("POST", "/api/v1/responses")[0].Body, &body)
	if string(body["provider"]) != `{"order":["Lambda","Together"],"ignore":["Fireworks"],"sort":"throughput"}` || string(body["models"]) != `["openai/gpt-4o-mini"]` {
		t.Fatalf("sent provider %s models %s", body["provider"], body["models"])
	}
	h.run("", "respond", "x", "--model", "meta-llama/llama-3.1-70b-instruct", "--provider-order", "Lambda", "--no-fallbacks").
		must(t, 1, nil, []string{"HTTP 503", "Lambda"})
}

func TestRespondDepthRefusedBeforeAnyRequest(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	bad := depthFile(t, "bad.json", `{"type":"objekt"}`)
	notJSON := depthFile(t, "nj.json", "{\n\"type\": }")
	schema := depthFile(t, "s.json", personSchema)
	tools := depthFile(t, "t.json", `[{"name":"a b"}]`)
	good := depthFile(t, "g.json", `[{"name":"f","parameters":null}]`)
	before := len(h.srv.Requests())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--schema", bad}, "text.format.schema"},
		{[]string{"--schema", notJSON}, "line 2"},
		{[]string{"--schema", filepath.Join(t.TempDir(), "none.json")}, "does not exist"},
		{[]string{"--schema", schema, "--schema-name", "has space"}, "text.format.name"},
		{[]string{"--strict"}, "need --schema"},
		{[]string{"--format", "yaml"}, "--format"},
		{[]string{"--tools", tools}, "tools[0].name"},
		{[]string{"--tools", good, "--tool-choice", "g"}, "tool_choice.name"},
		{[]string{"--tool-choice", "auto"}, "need --tools"},
		{[]string{"--provider-sort", "cheapest"}, "provider.sort"},
		{[]string{"--provider-only", "A,,B", "--provider-ignore", "a"}, "provider.only"},
		{[]string{"--quantizations", "fp3"}, "provider.quantizations"},
		{[]string{"--max-price", "prompt=abc"}, "provider.max_price.prompt"},
		{[]string{"--data-collection", "maybe"}, "provider.data_collection"},
		{[]string{"--fallback-models", "nope"}, "models[0]"},
	} {
		args := append([]string{"respond", "x", "--model", "openai/gpt-4o-mini"}, c.args...)
		h.run("", args...).must(t, 2, nil, []string{c.want})
	}
	if len(h.srv.Requests()) != before {
		t.Fatalf("refused input reached the server")
	}
}

func TestModelsEndpoints(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "models", "endpoints", "meta-llama/llama-3.1-70b-instruct").must(t, 0,
		[]string{"PROVIDER", "DeepInfra", "Together", "Lambda", "down", "ms", "4 endpoints of meta-llama/llama-3.1-70b-instruct"}, nil)
	r := h.run("", "models", "endpoints", "openai/gpt-4o-mini", "--json")
	r.must(t, 0, []string{`"provider_name":"OpenAI"`, `"provider_name":"Azure"`}, nil)
	if n := strings.Count(strings.TrimSpace(r.out), "\n") + 1; n != 2 {
		t.Fatalf("want one JSON line per endpoint, got %d:\n%s", n, r.out)
	}
	h.run("", "models", "endpoints", "nobody/nothing").must(t, 1, nil, []string{"404"})
	h.run("", "models", "endpoints", "noslash").must(t, 2, nil, []string{"model"})
}

// A respond with a schema is a row of the request log like any other, with
// its response format in the request kept.
func TestRespondSchemaIsLogged(t *testing.T) {
	h := newHarness(t, gateway.Options{TokensPerSecond: 2000})
	schema := depthFile(t, "person.schema.json", personSchema)
	h.run("", "respond", "a person", "--model", "openai/gpt-4o-mini", "--schema", schema, "--provider-sort", "price").must(t, 0, nil, nil)
	rows := h.logRows()
	if len(rows) != 1 || rows[0]["state"] != "completed" {
		t.Fatalf("rows %v", rows)
	}
	show := h.run("", "logs", "show", id(rows[0]), "--json")
	show.must(t, 0, []string{`json_schema`, `person_schema`, `"sort":"price"`}, nil)
}
