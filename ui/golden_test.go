package ui

// Goldens of every view in colour (truecolor), on a dark and a light
// background, at 80x24 and 160x48: a colour or layout regression fails
// here. Update them with: go test ./ui -run TestGolden -update

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/gwdash/gwdash/api"
)

func goldenCatalogue(t testing.TB) *api.Catalogue {
	var cat api.Catalogue
	raw := `{"data":[
{"id":"openai/gpt-4o-mini","name":"OpenAI: GPT-4o mini","context_length":128000,"pricing":{"prompt":"0.00000015","completion":"0.0000006"},"supported_parameters":["max_tokens","temperature","top_p"]},
{"id":"anthropic/claude-sonnet-4","name":"Anthropic: Claude Sonnet 4","context_length":200000,"pricing":{"prompt":"0.000003","completion":"0.000015"},"supported_parameters":["max_tokens","temperature","reasoning"]},
{"id":"google/gemma-3-27b-it:free","name":"Google: Gemma 3 27B (free)","context_length":96000,"pricing":{"prompt":"0","completion":"0"},"supported_parameters":["max_tokens"]},
{"id":"openrouter/auto","name":"Auto Router","context_length":2000000,"pricing":{"prompt":"-1","completion":"-1"},"supported_parameters":null}]}`
	if err := json.Unmarshal([]byte(raw), &cat); err != nil {
		t.Fatal(err)
	}
	return &cat
}

func goldenClient(t testing.TB) *fakeClient {
	fc := fakeBatches()
	fc.cat = goldenCatalogue(t)
	fc.key = &api.KeyInfo{}
	json.Unmarshal([]byte(`{"label":"demo","usage":6.8,"limit":10,"limit_remaining":3.2,"usage_monthly":6.8,"limit_reset":"monthly"}`), fc.key)
	name, hook := "prod-langfuse", "ops-webhook"
	fc.dests = []api.Destination{
		{ID: "11111111-2222-4333-8444-555555555555", Name: &name, Type: "langfuse", Enabled: true, PrivacyMode: true, Regions: []string{"global"}, SamplingRate: 1,
			Config: map[string]any{"baseUrl": "https://cloud.langfuse.com", "publicKey": "pk-lf-1234", "secretKey": "sk-l...abcd"}, UpdatedAt: "2026-11-18T10:00:00Z"},
		{ID: "22222222-2222-4333-8444-555555555555", Name: &hook, Type: "webhook", Regions: []string{"europe", "us"}, SamplingRate: 0.25,
			Config: map[string]any{"url": "https://hooks.example.com/gw", "method": "POST"}, UpdatedAt: "2026-11-01T08:00:00Z"},
	}
	return fc
}

// goldenTurn is a finished answer with fixed times and usage.
func goldenTurn(model, text string, width int) *turn {
	started := fixedNow.Add(-3 * time.Second)
	t := newTurn("Explain routing in two paragraphs", model, width, started)
	t.answer.Append(text)
	cost := 0.00042
	var final api.Response
	json.Unmarshal([]byte(`{"status":"completed","usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":96,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":108}}`), &final)
	final.Usage.Cost = &cost
	t.end(api.Outcome{State: api.EndCompleted, Model: model, Streamed: true, Deltas: 96, Final: &final,
		Started: started, FirstToken: started.Add(420 * time.Millisecond), Ended: started.Add(2400 * time.Millisecond), GenerationID: "gen-1763640000-golden"})
	for i := 0; i < 12; i++ {
		t.rates = append(t.rates, float64(30+i*4%17))
	}
	return t
}

const goldenAnswer = "## Routing\n\nThe gateway picks a **provider** for each request by price, latency and uptime.\n\n- fallbacks on errors\n- `provider.order` pins one\n\n```go\nresp, err := client.Stream(ctx, req)\n```\n\nThat is all."

type goldenScreen struct {
	name  string
	build func(t *testing.T, dark bool, w, h int) Model
}

func goldenModel(t *testing.T, dark bool, o Options, w, h int) Model {
	o.Renderer = colourRenderer(dark)
	return stateModel(t, goldenClient(t), o, w, h)
}

// settleMsg reaches every view and changes nothing: the renders that
// its Update asks for are done (drive runs commands at once). The
// playground acts only on its own messages; a test that set its turns
// directly marks its renders due, as a resize does.
type settleMsg struct{}

func settle(m Model) Model {
	playOf(m).resized = true
	return drive(m, settleMsg{})
}

var goldenScreens = []goldenScreen{
	{"home", func(t *testing.T, dark bool, w, h int) Model {
		return goldenModel(t, dark, Options{}, w, h)
	}},
	{"batch_running", func(t *testing.T, dark bool, w, h int) Model {
		return goldenModel(t, dark, Options{BatchID: "batch-run"}, w, h)
	}},
	{"batch_results", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{BatchID: "batch-done"}, w, h)
		return drive(m, keyMsg("down"))
	}},
	{"result_detail", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{BatchID: "batch-done"}, w, h)
		return drive(m, keyMsg("enter"))
	}},
	{"playground_answer", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{View: "playground"}, w, h)
		p := playOf(m)
		p.turns = []*turn{goldenTurn("openai/gpt-4o-mini", goldenAnswer, p.contentWidth())}
		return settle(m)
	}},
	{"model_picker", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{View: "playground"}, w, h)
		return drive(m, keyMsg("m"))
	}},
	{"compare", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{View: "playground"}, w, h)
		p := playOf(m)
		p.startCompare([]string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4"})
		for _, pn := range p.cmp.panes {
			pn.turn = goldenTurn(pn.model, goldenAnswer, pn.innerWidth())
		}
		p.cmp.prompt = "Explain routing in two paragraphs"
		return settle(m)
	}},
	{"providers", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{View: "playground"}, w, h)
		p := playOf(m)
		p.openProviders("meta-llama/llama-3.1-70b-instruct")
		panelOf(p).got(endpointsMsg{gen: p.provGen, data: goldenEndpoints()})
		panelOf(p).marked = []string{"Together", "Fireworks"}
		panelOf(p).arrange()
		return settle(m)
	}},
	{"settings", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{View: "playground"}, w, h)
		return drive(m, keyMsg("s"))
	}},
	{"destinations", func(t *testing.T, dark bool, w, h int) Model {
		return goldenModel(t, dark, Options{View: "destinations"}, w, h)
	}},
	{"destination_form", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{View: "destinations"}, w, h)
		return drive(m, keyMsg("enter"))
	}},
	{"help", func(t *testing.T, dark bool, w, h int) Model {
		m := goldenModel(t, dark, Options{}, w, h)
		return drive(m, keyMsg("?"))
	}},
}

func TestGolden(t *testing.T) {
	for _, sc := range goldenScreens {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			for _, dark := range []bool{true, false} {
				bg := "light"
				if dark {
					bg = "dark"
				}
				t.Run(fmt.Sprintf("%s/%dx%d_%s", sc.name, sz[0], sz[1], bg), func(t *testing.T) {
					v := sc.build(t, dark, sz[0], sz[1]).View()
					if !strings.Contains(v, "\x1b[38;2;") {
						t.Fatal("a golden must be in colour")
					}
					golden.RequireEqual(t, []byte(v))
				})
			}
		}
	}
}

// goldenEndpoints are three providers of a model: one fast, one cheap, one
// down.
func goldenEndpoints() *api.ModelEndpoints {
	f := func(x float64) *float64 { return &x }
	st := func(n int) *int { return &n }
	q := func(s string) *string { return &s }
	ep := func(name, in, out, quant string, up, lat, tps float64, status int) api.Endpoint {
		e := api.Endpoint{ProviderName: name, ContextLength: 131072, Pricing: map[string]string{"prompt": in, "completion": out},
			Quantization: q(quant), UptimeLast1d: f(up), Status: st(status)}
		if status == 0 {
			e.LatencyLast30m = &api.Percentiles{P50: lat}
			e.ThroughputLast30m = &api.Percentiles{P50: tps}
		}
		return e
	}
	return &api.ModelEndpoints{ID: "meta-llama/llama-3.1-70b-instruct", Endpoints: []api.Endpoint{
		ep("DeepInfra", "0.0000004", "0.0000004", "bf16", 99.5, 453, 167, 0),
		ep("Together", "0.00000088", "0.00000088", "fp8", 99.9, 310, 212, 0),
		ep("Fireworks", "0.0000009", "0.0000009", "fp8", 99.7, 280, 240, 0),
		ep("Lambda", "0.000000344", "0.000000344", "int8", 61.3, 0, 0, -10),
	}}
}
