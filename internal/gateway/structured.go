package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Scripted models of structured outputs and function tools.
const (
	// ModelJSONBroken answers JSON that violates the request's schema (a
	// member of the wrong type, a required member missing).
	ModelJSONBroken = "demo/json-broken"
	// ModelTools calls the first tool (or the one tool_choice names) with
	// arguments that fit its parameters, streamed in pieces; given the
	// tool's output back, it answers from it.
	ModelTools = "demo/tools"
)

// scriptedCatalogue are the scripted models of this file: routable and
// listed by the endpoints route, not in GET /models (they answer only
// requests that carry a schema or tools).
var scriptedCatalogue = []catalogModel{
	{id: ModelJSONBroken, name: "Demo: broken JSON", desc: "Answers JSON that violates the request's schema.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1760000000},
	{id: ModelTools, name: "Demo: tools", desc: "Calls the first tool, then answers from its output.", ctx: 8192, in: "1", out: "2", input: []string{"text"}, output: []string{"text"}, params: params("tools", "tool_choice"), created: 1760000000},
}

// textFormat is the gateway's reading of text.format.
type textFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict *bool           `json:"strict"`
}

var formatName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// parseFormat reads text.format; the error names the member.
func parseFormat(raw json.RawMessage) (*textFormat, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var t struct {
		Format *textFormat `json:"format"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil, "text: must be an object with format and verbosity"
	}
	f := t.Format
	if f == nil {
		return nil, ""
	}
	switch f.Type {
	case "text", "json_object":
	case "json_schema":
		var schema any
		switch {
		case !formatName.MatchString(f.Name):
			return nil, "text.format.name: must be 1 to 64 letters, digits, _ or -"
		case len(f.Schema) == 0 || json.Unmarshal(f.Schema, &schema) != nil:
			return nil, "text.format.schema: is required (a JSON Schema object)"
		}
		if _, ok := schema.(map[string]any); !ok {
			return nil, "text.format.schema: must be a JSON Schema object"
		}
	default:
		return nil, "text.format.type: must be text, json_object or json_schema"
	}
	return f, ""
}

// prepareDepth reads and checks text.format, tools and the routing
// members, and routes the request. It writes the error and returns false
// when the request is refused.
func (g *Gateway) prepareDepth(w http.ResponseWriter, q *respRequest) bool {
	f, msg := parseFormat(q.raw["text"])
	if msg == "" {
		msg = checkTools(q.raw)
	}
	if msg != "" {
		badRequest(w, msg)
		return false
	}
	q.format = f
	return g.routeRequest(w, q)
}

// shapePlan turns the plan's text into JSON when the request asks for it,
// and answers demo/tools' second turn from the tool output.
func (g *Gateway) shapePlan(q *respRequest, p *plan) {
	if q.Model == ModelTools {
		if out, name, ok := lastToolOutput(q.Input); ok {
			p.tokens = strings.SplitAfter(fmt.Sprintf("The %s tool answered: %s", name, out), " ")
			p.status = "completed"
			return
		}
	}
	if q.format == nil || q.format.Type == "text" || p.bulk || q.Model == ModelFirehose {
		return // the benchmark models stream what they always do
	}
	r := seededRand(q.Model + "\x00json\x00" + q.prompt)
	var v any
	if q.format.Type == "json_schema" {
		var schema any
		json.Unmarshal(q.format.Schema, &schema)
		gen := &instanceGen{root: schema, r: r}
		v = gen.value(schema, 0)
		if q.Model == ModelJSONBroken {
			v = breakInstance(v, schema)
		}
	} else {
		v = map[string]any{"answer": strings.Join(genTokens(q.prompt, 12)[3:], ""), "confidence": 0.87}
		if q.Model == ModelJSONBroken {
			p.tokens = jsonPieces(`{"answer": "cut short`)
			return
		}
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	p.tokens = jsonPieces(string(b))
	p.status = "completed"
	if q.MaxOutputTokens != nil && *q.MaxOutputTokens < len(p.tokens) {
		p.tokens = p.tokens[:*q.MaxOutputTokens] // cut JSON, as a real capped answer is
		p.status = "incomplete"
	}
}

// jsonPieces splits JSON text into stream-sized pieces (a few bytes each,
// cut anywhere, as real streams do).
func jsonPieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 6)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// instanceGen makes a value that validates against an ordinary schema:
// type, enum, const, properties, required, items, min/max, lengths,
// formats, local $ref, anyOf/oneOf (the first branch), allOf (merged).
//
// The schema comes from the request: the instance is bounded (depth,
// array length, string length, and values in all), so that a hostile
// schema cannot make the gateway build a huge answer; past the bounds
// the answer may not validate.
type instanceGen struct {
	root  any
	r     *rand.Rand
	nodes int // values made so far
	chars int // string characters made so far
}

// Bounds of a generated instance.
const (
	genMaxDepth  = 12
	genMaxNodes  = 5000
	genMaxItems  = 20
	genMaxString = 4096
	genMaxChars  = 256 << 10
)

func (g *instanceGen) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	g.nodes++
	if !ok || depth > genMaxDepth || g.nodes > genMaxNodes {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if t := g.resolve(ref); t != nil {
			return g.value(t, depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.r.IntN(len(e))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return g.value(alts[0], depth+1)
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		props := map[string]any{}
		var req []any
		for _, a := range all {
			am, _ := a.(map[string]any)
			for k, v := range am {
				merged[k] = v
			}
			if p, ok := am["properties"].(map[string]any); ok {
				for k, v := range p {
					props[k] = v
				}
			}
			if rq, ok := am["required"].([]any); ok {
				req = append(req, rq...)
			}
		}
		if len(props) > 0 {
			merged["properties"], merged["required"] = props, req
		}
		return g.value(merged, depth+1)
	}
	switch typeOf(m) {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out[k] = g.value(props[k], depth+1)
		}
		if req, ok := m["required"].([]any); ok {
			for _, k := range req {
				if ks, ok := k.(string); ok {
					if _, have := out[ks]; !have {
						out[ks] = "value"
					}
				}
			}
		}
		return out
	case "array":
		n := 2
		if v, ok := schemaNum(m["minItems"]); ok {
			n = int(min(max(float64(n), v), genMaxItems))
		}
		if v, ok := schemaNum(m["maxItems"]); ok {
			n = int(max(0, min(float64(n), v)))
		}
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			if pi, ok := m["prefixItems"].([]any); ok && i < len(pi) {
				out = append(out, g.value(pi[i], depth+1))
				continue
			}
			out = append(out, g.value(m["items"], depth+1))
		}
		return out
	case "string":
		return g.str(m)
	case "integer":
		lo, hi := bounds(m, 0, 100)
		lo, hi = math.Ceil(lo), math.Floor(hi)
		if hi < lo {
			return int64(lo)
		}
		return int64(lo) + int64(g.r.IntN(int(min(hi-lo, 1000))+1))
	case "number":
		lo, hi := bounds(m, 0, 100)
		return math.Round((lo+(hi-lo)*g.r.Float64())*100) / 100
	case "boolean":
		return g.r.IntN(2) == 0
	case "null":
		return nil
	}
	return "value"
}

func (g *instanceGen) str(m map[string]any) string {
	switch m["format"] {
	case "date-time":
		return "2026-11-25T14:30:00Z"
	case "date":
		return "2026-11-25"
	case "time":
		return "14:30:00Z"
	case "email":
		return "ada@example.com"
	case "uri", "url":
		return "https://example.com/item"
	case "uuid":
		return "3f2b8c1e-9a4d-4e7b-8c2f-1d5e6a7b8c9d"
	case "ipv4":
		return "192.0.2.7"
	}
	w := words[g.r.IntN(len(words))] + " " + words[g.r.IntN(len(words))]
	if v, ok := schemaNum(m["minLength"]); ok {
		for n := min(int(max(0, v)), genMaxString, max(0, genMaxChars-g.chars)); utf8.RuneCountInString(w) < n; {
			w += " " + words[g.r.IntN(len(words))]
		}
	}
	if v, ok := schemaNum(m["maxLength"]); ok && v >= 0 && utf8.RuneCountInString(w) > int(v) {
		w = string([]rune(w)[:int(v)])
	}
	g.chars += len(w)
	return w
}

func (g *instanceGen) resolve(ref string) any {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	cur := g.root
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}

// typeOf is a schema's type: the first non-null one of a list, or guessed
// from its keywords.
func typeOf(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		return "null"
	}
	switch {
	case m["properties"] != nil:
		return "object"
	case m["items"] != nil:
		return "array"
	}
	return "string"
}

func schemaNum(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// bounds are a number's limits, exclusive ones nudged inside.
func bounds(m map[string]any, lo, hi float64) (float64, float64) {
	if v, ok := schemaNum(m["minimum"]); ok {
		lo = v
		hi = max(hi, v+100)
	}
	if v, ok := schemaNum(m["exclusiveMinimum"]); ok {
		lo = v + 1
		hi = max(hi, v+100)
	}
	if v, ok := schemaNum(m["maximum"]); ok {
		hi = v
	}
	if v, ok := schemaNum(m["exclusiveMaximum"]); ok {
		hi = v - 1
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// breakInstance makes a valid instance invalid: its first property gets a
// value of the wrong type, another required property goes missing, and a
// property the schema forbids appears; a value that is not an object is
// replaced by an object.
func breakInstance(v any, schema any) any {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		return map[string]any{"unexpected": true}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	switch obj[keys[0]].(type) {
	case string:
		obj[keys[0]] = 12345
	default:
		obj[keys[0]] = "not the right type"
	}
	if m, ok := schema.(map[string]any); ok {
		req, _ := m["required"].([]any)
		for i := len(req) - 1; i >= 0; i-- {
			if k, ok := req[i].(string); ok && k != keys[0] {
				delete(obj, k)
				break
			}
		}
		if m["additionalProperties"] == false {
			obj["unexpected"] = true
		}
	}
	return obj
}
