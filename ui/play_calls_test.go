package ui

// Structured outputs and function tools in the playground, over real
// HTTP to the embedded gateway (and a hand-made server for parallel
// calls): the JSON indented as it streams and checked at the end, calls
// shown, checked, answered by hand or from a file, and the conversation
// going on with the results.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/reqlog"
)

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}`

const weatherTools = `[{"name":"get_weather","description":"The weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city","unit"]}}]`

// depthSet is what a test chooses in the settings before a prompt.
type depthSet struct {
	format  string // api.FormatText (""), FormatJSONObject, or FormatJSONSchema (the person schema)
	tools   string // the tools file's content ("": none)
	results string // the tool results file ("": none)
	stream  string // "on" or "off" ("": unchanged)
}

// setDepth chooses the format, tools and results in the settings form as
// a user does (files typed as paths, read by a command), waits until the
// settings are valid, and keeps them.
func (u *ui) setDepth(d depthSet) {
	u.t.Helper()
	u.runes("s")
	u.until("settings", func(m Model) bool { return inSettings(playOf(m)) })
	format := cmp.Or(d.format, api.FormatText)
	u.setField(setFormat, format)
	schema, tools := "", ""
	if format == api.FormatJSONSchema {
		schema = schemaFile(u.t, personSchema)
	}
	if d.tools != "" {
		tools = filepath.Join(u.t.TempDir(), "tools.json")
		if err := os.WriteFile(tools, []byte(d.tools), 0o600); err != nil {
			u.t.Fatal(err)
		}
	}
	u.setText(setSchema, schema)
	name, strict := "", "off"
	if schema != "" {
		name, strict = "person", "on"
	}
	u.setText("text.format.name", name)
	u.setField("text.format.strict", strict)
	u.setText(setTools, tools)
	u.setText(setToolResults, d.results)
	if d.stream != "" {
		u.setField(setStream, d.stream)
	}
	u.until("files read and the settings valid", func(m Model) bool {
		p := playOf(m)
		var req api.ResponseRequest
		_, errs := applySettings(p.settings, &req, nil)
		isSchema := p.settings.Format != nil && p.settings.Format.Type == api.FormatJSONSchema
		return len(errs) == 0 && (tools != "") == (len(p.settings.Tools) > 0) && (schema != "") == isSchema
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.until("settings kept", func(m Model) bool { return !inSettings(playOf(m)) })
}

// setText sets a text setting; "" clears it.
func (u *ui) setText(name, value string) {
	u.t.Helper()
	if value != "" {
		u.setField(name, value)
		return
	}
	u.until(name+" cleared", func(m Model) bool {
		p := playOf(m)
		p.settings.Field(name).Input.SetValue("")
		p.checkSettings()
		return true
	})
}

// checked waits for the last answer's verdict.
func checked(m Model) bool {
	t := lastTurn(m)
	return t != nil && !t.running && t.schema != nil && t.schema.state == schemaChecked && !playOf(m).running()
}

// holdAfterFirst makes the gateway hold each stream once the first event
// of a type is written, until release is closed (or the request ends):
// the test sees the answer mid-stream however slow the machine.
func holdAfterFirst(event string, release <-chan struct{}) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(&heldWriter{ResponseWriter: w, event: []byte(event), release: release, done: r.Context().Done()}, r)
		})
	}
}

type heldWriter struct {
	http.ResponseWriter
	event         []byte
	release, done <-chan struct{}
	held          bool
}

func (h *heldWriter) Write(b []byte) (int, error) {
	n, err := h.ResponseWriter.Write(b)
	if !h.held && bytes.Contains(b, h.event) {
		h.held = true
		h.Flush()
		select {
		case <-h.release:
		case <-h.done:
		}
	}
	return n, err
}

func (h *heldWriter) Flush() {
	if f, ok := h.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// The JSON is indented as it streams (the pieces join to the indentation
// of what arrived), and at the end each violation is listed at its JSON
// pointer.
func TestPlaygroundSchemaViolationsWithPointers(t *testing.T) {
	release := make(chan struct{})
	_, c := startGW(t, gateway.Options{TokensPerSecond: 50, Wrap: holdAfterFirst(api.EventOutputTextDelta, release)})
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelJSONBroken}, 120, 50)
	u.setDepth(depthSet{format: api.FormatJSONSchema})
	u.typePrompt("a person please")
	v := u.until("JSON streaming", func(m Model) bool {
		tn := lastTurn(m)
		if tn == nil || !tn.running || tn.schema == nil || tn.schema.fed == 0 {
			return false
		}
		if got, want := tn.schema.pretty.Text(), api.PrettyPartialJSON(tn.answer.Text()); got != want {
			t.Errorf("while streaming, the view is %q; the answer indented is %q", got, want)
		}
		return true
	})
	if !strings.Contains(v, "checked against the schema person when the answer ends") || !strings.Contains(v, "\n    \"") {
		t.Fatalf("the streaming JSON is not shown indented:\n%s", v)
	}
	close(release)
	v = u.until("checked", checked)
	for _, want := range []string{"✗ invalid: 3 violations of the schema person", "/age", "(root)", `"age": "not the right type"`} {
		if !strings.Contains(v, want) {
			t.Fatalf("the verdict lacks %q:\n%s", want, v)
		}
	}
	m := u.quit()
	chk := lastTurn(m).schema.chk
	if chk.Valid || len(chk.Problems) != 3 {
		t.Fatalf("verdict %+v", chk)
	}
}

// A schema answer that fits says valid; a json_object answer, valid JSON.
func TestPlaygroundSchemaValid(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini"}, 120, 40)
	u.setDepth(depthSet{format: api.FormatJSONSchema})
	u.typePrompt("a person please")
	v := u.until("checked", checked)
	if !strings.Contains(v, "✓ valid: the answer matches the schema person") {
		t.Fatalf("no valid verdict:\n%s", v)
	}
	u.setDepth(depthSet{format: api.FormatJSONObject})
	u.typePrompt("any JSON")
	u.until("second checked", func(m Model) bool { return len(playOf(m).turns) == 2 && checked(m) })
	u.screen("✓ valid JSON")
	u.quit()
}

// Not streamed (the settings' streaming off), the answer is indented and
// checked all the same, and its calls answered from the results file; the
// request log keeps the format sent.
func TestPlaygroundDepthNotStreamed(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	rec := requestLog(t)
	file := filepath.Join(t.TempDir(), "results.json")
	os.WriteFile(file, []byte(`{"get_weather": "sunny"}`), 0o600)
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Requests: rec}, 120, 50)
	u.setDepth(depthSet{format: api.FormatJSONSchema, stream: "off"})
	u.typePrompt("a person please")
	u.until("checked", checked)
	u.screen("✓ valid: the answer matches the schema person", "\n    \"age\": ")
	u.setDepth(depthSet{tools: weatherTools, results: file})
	u.until("model", func(m Model) bool { playOf(m).model = gateway.ModelTools; return true })
	u.typePrompt("weather?")
	u.until("answered from the file", func(m Model) bool { return len(playOf(m).turns) == 3 && ended(api.EndCompleted)(m) })
	u.screen("The get_weather tool answered: sunny")
	u.quit()
	rows := loggedRequests(t, rec)
	if len(rows) != 3 || !strings.Contains(rows[len(rows)-1].Request+rows[0].Request, `"json_schema"`) {
		t.Fatalf("%d rows; the format is not in the logged request", len(rows))
	}
}

// An interrupted structured answer keeps what arrived, indented, and
// says it was not checked.
func TestPlaygroundSchemaInterruptedKeepsWhatArrived(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelDrop}, 120, 40)
	u.setDepth(depthSet{format: api.FormatJSONSchema})
	u.typePrompt("a person please")
	v := u.until("interrupted", ended(api.EndInterrupted))
	if !strings.Contains(v, "not checked against the schema person: the answer ended before it was whole") {
		t.Fatalf("no word on the check:\n%s", v)
	}
	m := u.quit()
	tn := lastTurn(m)
	if tn.answer.Size() == 0 || tn.schema.pretty.Text() != api.PrettyPartialJSON(tn.answer.Text()) {
		t.Fatalf("what arrived is not kept indented: %q", tn.schema.pretty.Text())
	}
}

// demo/tools calls get_weather with arguments streamed in pieces: the
// call shows with its arguments indented and checked; the typed result
// goes back as a function_call_output after the call, and the model's
// answer from it streams as the next turn. The request log keeps the
// format, the tools and the results sent.
func TestPlaygroundToolCallAnsweredByHand(t *testing.T) {
	srv, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	rec := requestLog(t)
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelTools, Requests: rec}, 120, 50)
	u.setDepth(depthSet{tools: weatherTools})
	u.typePrompt("weather in Paris?")
	v := u.until("the call waits", func(m Model) bool { return ended(api.EndCompleted)(m) && playOf(m).callsWait() })
	requireLists(t, "help bar", lastLine(v), []string{"a answer the tool calls"}, nil)
	v = u.until("checked", func(m Model) bool {
		it := lastTurn(m).calls.items
		return len(it) == 1 && it[0].checked
	})
	for _, want := range []string{"⚙ call get_weather", "\n      \"city\": ", "✓ the arguments fit get_weather's parameters", "⧗ waits for its result · a answers it"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the call lacks %q:\n%s", want, v)
		}
	}
	u.runes("a")
	v = u.screen("result of get_weather")
	requireLists(t, "help bar", lastLine(v), []string{"ctrl+o result from a file", "esc close (asks if typed)"}, []string{"pick model"})
	u.runes(`{"temp": 21}`)
	// esc with a typed result asks first; n keeps it.
	u.key(tea.KeyEsc)
	u.screen("drop the typed result? y/N")
	u.until("unsaved", func(m Model) bool { return strings.Contains(playOf(m).Unsaved(), "a tool result typed") })
	u.runes("n")
	u.until("still answering", func(m Model) bool {
		a := playOf(m).answerInput()
		return a != nil && !a.sub.open() && a.text.Value() == `{"temp": 21}`
	})
	u.key(tea.KeyEnter)
	v = u.until("the answer from the result", func(m Model) bool { return len(playOf(m).turns) == 2 && ended(api.EndCompleted)(m) })
	for _, want := range []string{"tool results → demo/tools", `↳ get_weather: {"temp":21}`, "The get_weather tool answered:", `↳ result (typed): {"temp":21}`} {
		if !strings.Contains(v, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, v)
		}
	}
	u.quit()

	posts := srv.RequestsTo("POST", "/api/v1/responses")
	if len(posts) != 2 {
		t.Fatalf("%d POSTs", len(posts))
	}
	var second struct {
		Input []map[string]any `json:"input"`
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(posts[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	types := []string{}
	for _, it := range second.Input {
		types = append(types, fmt.Sprint(it["type"]))
	}
	if strings.Join(types, ",") != "message,function_call,function_call_output" || second.Input[2]["output"] != `{"temp":21}` ||
		second.Input[1]["call_id"] != second.Input[2]["call_id"] || len(second.Tools) != 1 {
		t.Fatalf("the second request's input is %v:\n%s", types, posts[1].Body)
	}
	rows := loggedRequests(t, rec)
	if len(rows) != 2 {
		t.Fatalf("%d rows logged", len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(r.Request, `"get_weather"`) || !strings.Contains(r.Request, `"tools"`) {
			t.Fatalf("the logged request lacks the tools: %s", r.Request)
		}
		if r.Input != "weather in Paris?" {
			t.Fatalf("a logged row's input is %q", r.Input)
		}
	}
	if !strings.Contains(rows[0].Request+rows[1].Request, `"function_call_output"`) {
		t.Fatal("no logged request holds the results sent")
	}
}

// loggedRequests are the logged rows with their request bodies.
func loggedRequests(t *testing.T, rec *reqlog.Recorder) []reqlog.Entry {
	t.Helper()
	rows := loggedRows(t, rec)
	db, _, err := reqlog.OpenExisting(rec.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range rows {
		if rows[i], err = db.Get(context.Background(), rows[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// A file of canned results answers the calls without asking, every time
// the prompt is sent again (read again each time: edited between tries).
func TestPlaygroundToolCallsFromResultsFile(t *testing.T) {
	srv, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	file := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(file, []byte(`{"get_weather": {"temp": 21}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelTools}, 120, 50)
	u.setDepth(depthSet{tools: weatherTools, results: file})
	u.typePrompt("weather in Paris?")
	u.until("answered from the file", func(m Model) bool { return len(playOf(m).turns) == 2 && ended(api.EndCompleted)(m) })
	u.screen("↳ result (from "+file+`): {"temp":21}`, `The get_weather tool answered: {"temp":21}`)
	if err := os.WriteFile(file, []byte(`{"get_weather": "sunny"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A prompt after the exchange carries it whole: the call and its
	// result go with the messages.
	u.typePrompt("thanks")
	u.until("third answer", func(m Model) bool { return len(playOf(m).turns) == 3 && ended(api.EndCompleted)(m) })
	posts := srv.RequestsTo("POST", "/api/v1/responses")
	var third struct {
		Input []map[string]any `json:"input"`
	}
	json.Unmarshal(posts[len(posts)-1].Body, &third)
	var types []string
	for _, it := range third.Input {
		types = append(types, fmt.Sprint(it["type"]))
	}
	if strings.Join(types, ",") != "message,function_call,function_call_output,message,message" {
		t.Fatalf("the third request's input: %v", types)
	}
	// Tried again in a new chat, the edited file answers.
	u.runes("n")
	u.screen("start a new chat?")
	u.runes("y")
	u.until("new chat", func(m Model) bool { return len(playOf(m).turns) == 0 })
	u.typePrompt("weather in Paris?")
	u.until("answered again", func(m Model) bool { return len(playOf(m).turns) == 2 && ended(api.EndCompleted)(m) })
	u.screen("The get_weather tool answered: sunny")
	u.quit()
}

// A call stopped while its arguments stream keeps what arrived and is
// not offered for an answer.
func TestPlaygroundToolCallStoppedKeepsWhatArrived(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	_, c := startGW(t, gateway.Options{TokensPerSecond: 50, Wrap: holdAfterFirst(api.EventFunctionArgsDelta, release)})
	u := start(t, Options{Client: c, View: "playground", Model: gateway.ModelTools}, 120, 40)
	u.setDepth(depthSet{tools: weatherTools})
	u.typePrompt("weather in Paris?")
	u.until("arguments arriving", func(m Model) bool {
		tn := lastTurn(m)
		return tn != nil && tn.running && len(tn.calls.list()) == 1 && len(tn.calls.list()[0].Arguments) > 0
	})
	u.screen("arguments arriving")
	u.key(tea.KeyEsc)
	v := u.until("stopped", ended(api.EndStopped))
	if !strings.Contains(v, "⚠ the call did not arrive whole") || !strings.Contains(v, "\n    {") {
		t.Fatalf("what arrived of the call is not kept:\n%s", v)
	}
	u.until("stop said", func(m Model) bool { return strings.Contains(m.notice, "stopped") })
	u.runes("a")
	u.until("refused", func(m Model) bool { return strings.Contains(m.notice, "no tool call waits") })
	u.quit()
}

// parallelServer answers the first request with two calls in one answer
// and the next with text; it keeps the bodies.
type parallelServer struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (s *parallelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var body struct {
		Input json.RawMessage `json:"input"`
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	json.Unmarshal(b, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, b)
	first := len(s.bodies) == 1
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(seq int, v string) {
		fmt.Fprintf(w, "data: %s\n\n", strings.Replace(v, "{", fmt.Sprintf(`{"sequence_number":%d,`, seq), 1))
	}
	if !first {
		ev(1, `{"type":"response.output_text.delta","delta":"both answered"}`)
		ev(2, `{"type":"response.completed","response":{"id":"r2","object":"response","status":"completed","output":[]}}`)
		return
	}
	call := func(id, name, args string) string {
		return fmt.Sprintf(`{"type":"function_call","id":"fc_%s","call_id":"call_%s","name":"%s","arguments":%q,"status":"completed"}`, id, id, name, args)
	}
	ev(1, `{"type":"response.output_item.added","output_index":0,"item":`+call("1", "get_weather", "")+`}`)
	ev(2, `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"city\":\"Paris\","}`)
	ev(3, `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"\"unit\":\"k\"}"}`)
	ev(4, `{"type":"response.output_item.done","output_index":0,"item":`+call("1", "get_weather", `{"city":"Paris","unit":"k"}`)+`}`)
	ev(5, `{"type":"response.output_item.added","output_index":1,"item":`+call("2", "get_time", "")+`}`)
	ev(6, `{"type":"response.output_item.done","output_index":1,"item":`+call("2", "get_time", `{"zone":"CET"}`)+`}`)
	ev(7, `{"type":"response.completed","response":{"id":"r1","object":"response","status":"completed","output":[`+
		call("1", "get_weather", `{"city":"Paris","unit":"k"}`)+","+call("2", "get_time", `{"zone":"CET"}`)+`]}}`)
}

// Several calls in one answer are each shown, checked (a bad argument is
// named at its pointer) and answered in turn, one typed and one from a
// file; both results go back in one request, in the calls' order.
func TestPlaygroundParallelCallsEachAnswered(t *testing.T) {
	ps := &parallelServer{}
	hs := httptest.NewServer(ps)
	t.Cleanup(hs.Close)
	ac, err := api.New(api.Options{BaseURL: hs.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	tools := `[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}}}},{"name":"get_time","parameters":{"type":"object"}}]`
	file := filepath.Join(t.TempDir(), "time.json")
	os.WriteFile(file, []byte("12:00 CET\n"), 0o600)
	u := start(t, Options{Client: FromAPI(ac, ""), View: "playground", Model: "a/b"}, 120, 60)
	u.setDepth(depthSet{tools: tools})
	u.typePrompt("weather and time?")
	v := u.until("both checked", func(m Model) bool {
		tn := lastTurn(m)
		return ended(api.EndCompleted)(m) && len(tn.calls.items) == 2 && tn.calls.items[0].checked && tn.calls.items[1].checked
	})
	for _, want := range []string{"⚙ call get_weather · call_1 · 1 of 2", "⚙ call get_time · call_2 · 2 of 2", "✗ the arguments do not fit get_weather's parameters: 1 violation", "/unit", "✓ the arguments fit get_time's parameters"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the calls lack %q:\n%s", want, v)
		}
	}
	u.runes("a")
	u.screen("result of get_weather (call 1 of 2)")
	u.runes("rainy")
	u.key(tea.KeyEnter)
	u.screen("result of get_time (call 2 of 2)")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO})
	u.screen("result file ›")
	u.runes(file)
	u.key(tea.KeyEnter)
	u.until("the answer", func(m Model) bool { return len(playOf(m).turns) == 2 && ended(api.EndCompleted)(m) })
	u.screen("both answered", "↳ get_weather: \"rainy\"", `↳ get_time: "12:00 CET\n"`)
	u.quit()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(ps.bodies) != 2 {
		t.Fatalf("%d requests", len(ps.bodies))
	}
	var second struct {
		Input []map[string]any `json:"input"`
	}
	json.Unmarshal(ps.bodies[1], &second)
	var got []string
	for _, it := range second.Input {
		got = append(got, fmt.Sprint(it["type"], " ", it["call_id"], " ", it["output"]))
	}
	want := "message <nil> <nil>|function_call call_1 <nil>|function_call call_2 <nil>|function_call_output call_1 \"rainy\"|function_call_output call_2 \"12:00 CET\\n\""
	if strings.Join(got, "|") != want {
		t.Fatalf("the second request's input:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// jsonDeltas is a JSON answer of about n bytes in stream-sized deltas.
func jsonDeltas(n int) []string {
	out := []string{`{"items": [`}
	for size := 0; size < n; size += 40 {
		out = append(out, fmt.Sprintf(`{"id": %d, "name": "item", "ok": true},`, size))
	}
	return append(out, `{}]}`)
}

// streamStructured feeds deltas to a live turn (structured, or plain),
// a frame after each.
func streamStructured(tb testing.TB, p *playground, deltas []string, structured bool, frame func()) *turn {
	started := time.Now()
	t := newTurn("json", "m/x", p.contentWidth(), started)
	if structured {
		t.expect(api.ResponseRequest{Text: &api.TextConfig{Format: &api.TextFormat{Type: api.FormatJSONObject}}}, p.contentWidth())
	}
	p.turns = append(p.turns, t)
	p.gen++
	p.live[0] = &liveStream{turn: t, events: make(chan streamItem)}
	o := api.Outcome{State: api.EndOpen, Model: "m/x", Started: started, FirstToken: started, Streamed: true}
	for _, d := range deltas {
		p.Update(streamChunkMsg{gen: p.gen, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: d}}, outcome: o})
		frame()
	}
	return t
}

// The indented view is bounded: past maxPretty the answer is shown as it
// arrived (whole, kept), under a note, and the indented copy stops
// growing.
func TestStructuredViewIsBounded(t *testing.T) {
	p := benchPlayground(t)
	var deltas []string // in 4 KiB deltas: the bound, not the speed, is tested here
	for small := jsonDeltas(maxPretty + 64<<10); len(small) > 0; small = small[min(100, len(small)):] {
		deltas = append(deltas, strings.Join(small[:min(100, len(small))], ""))
	}
	tn := streamStructured(t, p, deltas, true, func() {})
	if !tn.schema.over || tn.shown() != tn.answer || tn.schema.pretty.Size() > maxPretty*2 {
		t.Fatalf("over %v, indented %d bytes", tn.schema.over, tn.schema.pretty.Size())
	}
	if want := int64(len(strings.Join(deltas, ""))); tn.answer.Size() != want {
		t.Fatalf("kept %d of %d bytes", tn.answer.Size(), want)
	}
	if v := p.View(); !strings.Contains(v, "shown as it arrived: over the 1 MiB indented") {
		t.Fatalf("no note:\n%s", v)
	}
	// Below the bound, the view is the answer indented.
	p = benchPlayground(t)
	tn = streamStructured(t, p, jsonDeltas(4<<10), true, func() {})
	if tn.shown() != tn.schema.pretty || tn.schema.pretty.Text() != api.PrettyPartialJSON(tn.answer.Text()) {
		t.Fatal("the indented view differs from the answer indented")
	}
}

// BenchmarkPlaygroundStructured streams 256 KiB of JSON in 40-byte
// deltas, a frame after each, into the indented view and, for reference,
// into a plain answer: a frame costs what the window shows and the
// block growing (never the whole answer again). It reports the ratio of
// the two ("indented/plain", budget < 1.5).
func BenchmarkPlaygroundStructured(b *testing.B) {
	deltas := jsonDeltas(256 << 10)
	var took [2]time.Duration
	for i := 0; i < b.N; i++ {
		for k, structured := range []bool{true, false} {
			p := benchPlayground(b)
			start := time.Now()
			streamStructured(b, p, deltas, structured, func() { _ = p.View() })
			took[k] += time.Since(start)
		}
	}
	b.ReportMetric(float64(took[0])/float64(took[1]), "indented/plain")
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N*len(deltas)), "ns/frame")
}
