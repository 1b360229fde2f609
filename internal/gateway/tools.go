package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// functionTool is the gateway's reading of one tools entry.
type functionTool struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters"`
}

// checkTools checks tools and tool_choice; "" when they are fine.
func checkTools(raw map[string]json.RawMessage) string {
	var tools []functionTool
	if v, ok := raw["tools"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &tools) != nil {
			return "tools: must be a list of tool objects"
		}
	}
	names := map[string]bool{}
	for i, t := range tools {
		if t.Type != "function" {
			continue
		}
		if !formatName.MatchString(t.Name) {
			return fmt.Sprintf("tools[%d].name: must be 1 to 64 letters, digits, _ or -", i)
		}
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			var schema map[string]any
			if json.Unmarshal(t.Parameters, &schema) != nil {
				return fmt.Sprintf("tools[%d].parameters: must be a JSON Schema object or null", i)
			}
		}
		names[t.Name] = true
	}
	v, ok := raw["tool_choice"]
	if !ok || string(v) == "null" {
		return ""
	}
	var mode string
	if json.Unmarshal(v, &mode) == nil {
		if mode != "auto" && mode != "none" && mode != "required" {
			return "tool_choice: must be auto, none, required or a function"
		}
		return ""
	}
	var fn struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(v, &fn) != nil || (fn.Type != "function" && fn.Type != "allowed_tools") {
		return "tool_choice: must be auto, none, required or a function"
	}
	if fn.Type == "function" && !names[fn.Name] {
		return "tool_choice.name: " + fn.Name + " is not one of the function tools"
	}
	return ""
}

// lastToolOutput finds the last function_call_output of the input and
// the name of the call it answers.
func lastToolOutput(in json.RawMessage) (output, name string, ok bool) {
	var items []struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
		Output string `json:"output"`
	}
	if json.Unmarshal(in, &items) != nil {
		return "", "", false
	}
	names := map[string]string{}
	for _, it := range items {
		switch it.Type {
		case "function_call":
			names[it.CallID] = it.Name
		case "function_call_output":
			output, name, ok = it.Output, names[it.CallID], true
		}
	}
	if name == "" {
		name = "function"
	}
	return output, name, ok
}

// toolToCall is the tool demo/tools calls: the one tool_choice names, or
// the first function tool; nil when it calls none.
func (q *respRequest) toolToCall() *functionTool {
	var tools []functionTool
	json.Unmarshal(q.raw["tools"], &tools)
	var choice any
	json.Unmarshal(q.raw["tool_choice"], &choice)
	if choice == "none" {
		return nil
	}
	want := ""
	if m, ok := choice.(map[string]any); ok {
		want, _ = m["name"].(string)
	}
	for i := range tools {
		if tools[i].Type == "function" && (want == "" || tools[i].Name == want) {
			return &tools[i]
		}
	}
	return nil
}

// answerToolCall answers demo/tools' first turn with a function call; it
// returns false when the request is not such a turn (the answer is text).
func (g *Gateway) answerToolCall(w http.ResponseWriter, r *http.Request, q *respRequest, p plan) bool {
	if q.Model != ModelTools {
		return false
	}
	if _, _, answered := lastToolOutput(q.Input); answered {
		return false
	}
	tool := q.toolToCall()
	if tool == nil {
		return false
	}
	var schema any
	json.Unmarshal(tool.Parameters, &schema)
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	gen := &instanceGen{root: schema, r: seededRand(q.Model + "\x00call\x00" + q.prompt)}
	args, _ := json.Marshal(gen.value(schema, 0))
	pieces := jsonPieces(string(args))
	itemID, callID := "fc-"+p.id, "call_"+strings.TrimPrefix(p.id, "gen-")
	item := func(status, arguments string) map[string]any {
		return map[string]any{"type": "function_call", "id": itemID, "call_id": callID, "name": tool.Name, "arguments": arguments, "status": status}
	}
	start := g.now()
	final := func() map[string]any {
		resp := fullResponse(p.id, q.Model, p.created, "completed", "", p.inTokens, len(pieces), 0)
		q.echo(resp)
		resp["output"] = []any{item("completed", string(args))}
		resp["output_text"] = ""
		if q.routing {
			resp["openrouter_metadata"] = q.routingMetadata(g.now().Sub(start))
		}
		return resp
	}
	if !q.Stream {
		if !g.pace(r, len(pieces)) {
			g.charge(q, p, start, 0, "", false, true)
			return true
		}
		g.charge(q, p, start, len(pieces), "tool_calls", false, false)
		writeJSON(w, http.StatusOK, final())
		return true
	}
	s := startSSE(w)
	ctx := r.Context()
	s.raw(": OPENROUTER PROCESSING\n\n")
	inProgress := fullResponse(p.id, q.Model, p.created, "in_progress", "", 0, 0, 0)
	q.echo(inProgress)
	s.event("response.created", map[string]any{"response": inProgress})
	s.event("response.in_progress", map[string]any{"response": inProgress})
	s.event("response.output_item.added", map[string]any{"output_index": 0, "item": item("in_progress", "")})
	s.flush()
	var tick pacer
	tick.init(g.opts.TokensPerSecond)
	for i, piece := range pieces {
		s.event("response.function_call_arguments.delta", map[string]any{"item_id": itemID, "output_index": 0, "delta": piece})
		if !tick.wait(ctx.Done(), s) {
			g.charge(q, p, start, i+1, "", true, true)
			return true
		}
	}
	s.event("response.function_call_arguments.done", map[string]any{"item_id": itemID, "output_index": 0, "name": tool.Name, "arguments": string(args)})
	s.event("response.output_item.done", map[string]any{"output_index": 0, "item": item("completed", string(args))})
	g.charge(q, p, start, len(pieces), "tool_calls", true, false)
	s.event("response.completed", map[string]any{"response": final()})
	s.raw("data: [DONE]\n\n")
	s.flush()
	return true
}
