package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gwdash/gwdash/internal/jsonschema"
)

// Limits of function tools (the client's bounds).
const (
	MaxTools          = 128
	MaxToolsFileBytes = 1 << 20
	// MaxArgumentBytes bounds the arguments of one streamed call.
	MaxArgumentBytes = 1 << 20
	// MaxCalls bounds the calls one answer may make.
	MaxCalls = 64
	// MaxToolOutputBytes bounds one result sent back.
	MaxToolOutputBytes = 1 << 20
	// MaxToolTurns bounds the turns of a tool loop answered from a
	// results file (a model that keeps calling stops there).
	MaxToolTurns = 8
)

// Tool choice modes (service-facts.md, "Function tools").
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceNone     = "none"
	ToolChoiceRequired = "required"
)

// ToolChoiceModes are the named modes; a function name is the fourth form.
var ToolChoiceModes = []string{ToolChoiceAuto, ToolChoiceNone, ToolChoiceRequired}

// FunctionTool is one function the model may call. Parameters is a JSON
// Schema (JSON text); empty is sent as null.
type FunctionTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// MarshalJSON writes the tool as the service takes it: type function,
// parameters null rather than absent.
func (t FunctionTool) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": "function", "name": t.Name, "parameters": nil}
	if len(t.Parameters) > 0 {
		m["parameters"] = t.Parameters
	}
	if t.Description != "" {
		m["description"] = t.Description
	}
	if t.Strict != nil {
		m["strict"] = *t.Strict
	}
	return json.Marshal(m)
}

// Validate checks the name and that the parameters are a JSON Schema;
// field is the tool's place ("tools[0]").
func (t *FunctionTool) Validate(field string) error {
	if !nameRule.MatchString(t.Name) {
		return &ValidationError{Field: field + ".name", Rule: "must be " + NameRule}
	}
	if len(t.Parameters) == 0 || string(t.Parameters) == "null" {
		return nil
	}
	s, err := jsonschema.Compile(t.Parameters)
	if err != nil {
		return &ValidationError{Field: field + ".parameters", Rule: schemaRule(err)}
	}
	t.Parameters = s.Raw()
	return nil
}

// ParseTools reads a tools file: a JSON list of {name, description,
// parameters} (a "type": "function" member is allowed, and so is the
// chat form {"type":"function","function":{...}}). Each tool is checked;
// names must be unique.
func ParseTools(data []byte) ([]FunctionTool, error) {
	if len(data) > MaxToolsFileBytes {
		return nil, &ValidationError{Field: "tools", Rule: fmt.Sprintf("at most %d bytes (got %d)", MaxToolsFileBytes, len(data))}
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &ValidationError{Field: "tools", Rule: "must be a JSON list of {name, description, parameters}"}
	}
	if len(raw) == 0 {
		return nil, &ValidationError{Field: "tools", Rule: "needs at least 1 tool"}
	}
	tools := make([]FunctionTool, 0, len(raw))
	for i, r := range raw {
		field := fmt.Sprintf("tools[%d]", i)
		var w struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Strict      *bool           `json:"strict"`
			Function    *FunctionTool   `json:"function"`
		}
		if err := json.Unmarshal(r, &w); err != nil {
			return nil, &ValidationError{Field: field, Rule: "must be an object with name, description and parameters"}
		}
		if w.Type != "" && w.Type != "function" {
			return nil, &ValidationError{Field: field + ".type", Rule: "must be function"}
		}
		t := FunctionTool{Name: w.Name, Description: w.Description, Parameters: w.Parameters, Strict: w.Strict}
		if w.Function != nil {
			t = *w.Function
		}
		tools = append(tools, t)
	}
	if err := ValidateTools(tools); err != nil {
		return nil, err
	}
	return tools, nil
}

// ValidateTools checks each tool and that names are unique.
func ValidateTools(tools []FunctionTool) error {
	if len(tools) > MaxTools {
		return &ValidationError{Field: "tools", Rule: fmt.Sprintf("at most %d tools (got %d)", MaxTools, len(tools))}
	}
	seen := map[string]bool{}
	for i := range tools {
		field := fmt.Sprintf("tools[%d]", i)
		if err := tools[i].Validate(field); err != nil {
			return err
		}
		if seen[tools[i].Name] {
			return &ValidationError{Field: field + ".name", Rule: "must be unique (" + tools[i].Name + " appears twice)"}
		}
		seen[tools[i].Name] = true
	}
	return nil
}

// ToolChoice is tool_choice: a Mode (auto, none, required) or a Function
// the model must call.
type ToolChoice struct {
	Mode     string
	Function string
}

// ParseToolChoice reads auto, none, required, or a function name (also
// written function:NAME).
func ParseToolChoice(s string) (ToolChoice, error) {
	s = strings.TrimSpace(s)
	for _, m := range ToolChoiceModes {
		if s == m {
			return ToolChoice{Mode: s}, nil
		}
	}
	name := strings.TrimPrefix(s, "function:")
	if !nameRule.MatchString(name) {
		return ToolChoice{}, &ValidationError{Field: "tool_choice", Rule: "must be auto, none, required or a function name (" + NameRule + ")"}
	}
	return ToolChoice{Function: name}, nil
}

// MarshalJSON writes the mode as a string, a function as an object.
func (c ToolChoice) MarshalJSON() ([]byte, error) {
	if c.Function != "" {
		return json.Marshal(map[string]string{"type": "function", "name": c.Function})
	}
	return json.Marshal(c.Mode)
}

// SetTools puts the tools and the choice into the request (a zero choice
// leaves tool_choice out: the service's default is auto).
func (r *ResponseRequest) SetTools(tools []FunctionTool, choice ToolChoice) error {
	r.Tools = r.Tools[:0:0]
	for _, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("encoding tool %s: %w", t.Name, err)
		}
		r.Tools = append(r.Tools, b)
	}
	r.ToolChoice = nil
	if choice != (ToolChoice{}) {
		b, err := json.Marshal(choice)
		if err != nil {
			return fmt.Errorf("encoding tool_choice: %w", err)
		}
		r.ToolChoice = b
	}
	return nil
}

// validateTools checks the tools, tool_choice and parallel_tool_calls
// members as they will be sent.
func (r *ResponseRequest) validateTools() error {
	if len(r.Tools) > MaxTools {
		return &ValidationError{Field: "tools", Rule: fmt.Sprintf("at most %d tools (got %d)", MaxTools, len(r.Tools))}
	}
	names := map[string]bool{}
	for i, raw := range r.Tools {
		field := fmt.Sprintf("tools[%d]", i)
		var w struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return &ValidationError{Field: field, Rule: "must be a JSON object"}
		}
		if w.Type != "function" {
			continue // server tools (web search, ...) are the service's to check
		}
		t := FunctionTool{Name: w.Name, Parameters: w.Parameters}
		if err := t.Validate(field); err != nil {
			return err
		}
		if names[w.Name] {
			return &ValidationError{Field: field + ".name", Rule: "must be unique (" + w.Name + " appears twice)"}
		}
		names[w.Name] = true
	}
	if len(r.ToolChoice) == 0 || string(r.ToolChoice) == "null" {
		return nil
	}
	var mode string
	if json.Unmarshal(r.ToolChoice, &mode) == nil {
		if !oneOf(mode, ToolChoiceModes) {
			return &ValidationError{Field: "tool_choice", Rule: "must be auto, none, required or {\"type\":\"function\",\"name\":...}"}
		}
		if mode == ToolChoiceRequired && len(r.Tools) == 0 {
			return &ValidationError{Field: "tool_choice", Rule: "required needs at least 1 tool"}
		}
		return nil
	}
	var fn struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(r.ToolChoice, &fn) != nil || (fn.Type != "function" && fn.Type != "allowed_tools") {
		return &ValidationError{Field: "tool_choice", Rule: "must be auto, none, required or {\"type\":\"function\",\"name\":...}"}
	}
	if fn.Type == "function" && !names[fn.Name] {
		return &ValidationError{Field: "tool_choice.name", Rule: "must name one of the request's function tools (" + fn.Name + " is not one)"}
	}
	return nil
}

// Call is one function call the model made: what arrived so far while
// streaming, all of it once Done.
type Call struct {
	ItemID      string
	CallID      string
	Name        string
	Arguments   string
	OutputIndex int
	Done        bool
	// Truncated is set when the arguments passed MaxArgumentBytes (the
	// rest was dropped).
	Truncated bool
}

// Calls gathers the function calls of a streamed answer from its events.
// Deltas join their call by item_id (as the SDK does). The zero value is
// ready to use.
type Calls struct {
	list  []Call
	index map[string]int
	// Dropped counts calls past MaxCalls.
	Dropped int
}

// Apply folds one event in; it returns the call the event touched, or
// nil.
func (c *Calls) Apply(ev Event) *Call {
	switch ev.Type {
	case EventOutputItemAdded, EventOutputItemDone:
		if ev.Item == nil || ev.Item.Type != "function_call" {
			return nil
		}
		fc := c.get(ev.Item.ID, ev.OutputIndex)
		if fc == nil {
			return nil
		}
		if ev.Item.CallID != "" {
			fc.CallID = ev.Item.CallID
		}
		if ev.Item.Name != "" {
			fc.Name = ev.Item.Name
		}
		if ev.Type == EventOutputItemDone {
			c.setArgs(fc, ev.Item.Arguments)
			fc.Done = true
		} else if ev.Item.Arguments != "" {
			c.setArgs(fc, ev.Item.Arguments)
		}
		return fc
	case EventFunctionArgsDelta:
		fc := c.get(ev.ItemID, ev.OutputIndex)
		if fc == nil {
			return nil
		}
		if len(fc.Arguments)+len(ev.Delta) > MaxArgumentBytes {
			fc.Truncated = true
			return fc
		}
		fc.Arguments += ev.Delta
		return fc
	case EventFunctionArgsDone:
		fc := c.get(ev.ItemID, ev.OutputIndex)
		if fc == nil {
			return nil
		}
		c.setArgs(fc, ev.Text)
		return fc
	case EventCompleted, EventIncomplete:
		if ev.Response != nil {
			for i := range ev.Response.Output {
				c.Apply(Event{Type: EventOutputItemDone, OutputIndex: i, Item: &ev.Response.Output[i]})
			}
		}
	}
	return nil
}

func (c *Calls) setArgs(fc *Call, args string) {
	if args == "" {
		return
	}
	if len(args) > MaxArgumentBytes {
		fc.Truncated = true
		return
	}
	fc.Arguments = args
	fc.Truncated = false
}

func (c *Calls) get(itemID string, outputIndex int) *Call {
	key := itemID
	if key == "" {
		key = fmt.Sprintf("#%d", outputIndex)
	}
	if i, ok := c.index[key]; ok {
		return &c.list[i]
	}
	if len(c.list) >= MaxCalls {
		c.Dropped++
		return nil
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	c.index[key] = len(c.list)
	c.list = append(c.list, Call{ItemID: itemID, OutputIndex: outputIndex})
	return &c.list[len(c.list)-1]
}

// List is the calls so far, in the order they began.
func (c *Calls) List() []Call { return append([]Call(nil), c.list...) }

// CallsOf reads the function calls of a finished response.
func CallsOf(r *Response) []Call {
	var c Calls
	if r == nil {
		return nil
	}
	for i := range r.Output {
		c.Apply(Event{Type: EventOutputItemDone, OutputIndex: i, Item: &r.Output[i]})
	}
	return c.List()
}

// CheckArguments checks a call's arguments against its tool's parameters:
// nil when they are JSON and validate; an error naming every violation
// with its JSON pointer otherwise. A call of an unknown tool is an error.
func CheckArguments(call Call, tools []FunctionTool) error {
	var tool *FunctionTool
	for i := range tools {
		if tools[i].Name == call.Name {
			tool = &tools[i]
		}
	}
	if tool == nil {
		return fmt.Errorf("the model called %q, which is not one of the tools", call.Name)
	}
	if call.Truncated {
		return fmt.Errorf("the arguments are longer than %d bytes and were cut", MaxArgumentBytes)
	}
	params := tool.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type":"object"}`)
	}
	s, err := jsonschema.Compile(params)
	if err != nil {
		return fmt.Errorf("the tool's parameters are not a JSON Schema: %w", err)
	}
	return s.Validate([]byte(call.Arguments))
}

// ToolOutput is the result of one call, sent back as a
// function_call_output item.
type ToolOutput struct {
	CallID string
	Output string
}

// ToolResultText makes the output text of a result: JSON stays as it is;
// other text is sent as a JSON string, as the SDK's tool loop does.
func ToolResultText(result []byte) string {
	t := bytes.TrimSpace(result)
	if json.Valid(t) {
		var c bytes.Buffer
		if json.Compact(&c, t) == nil {
			return c.String()
		}
	}
	b, _ := json.Marshal(string(result))
	return string(b)
}

// ContinueWith builds the input of the next turn as the SDK's tool loop
// does: the first input (a string becomes a user message), then the
// previous turn's output items unchanged (the function calls included),
// then one function_call_output per result. Results must answer calls of
// the previous turn.
func ContinueWith(first Input, previous []OutputItem, outputs []ToolOutput) (Input, error) {
	calls := map[string]bool{}
	for _, it := range previous {
		if it.Type == "function_call" {
			calls[it.CallID] = true
		}
	}
	var items []json.RawMessage
	switch {
	case first.Items != nil:
		items = append(items, first.Items...)
	case first.Messages != nil:
		for _, m := range first.Messages {
			b, err := json.Marshal(m)
			if err != nil {
				return Input{}, err
			}
			items = append(items, b)
		}
	default:
		b, err := json.Marshal(map[string]string{"role": "user", "content": first.Text})
		if err != nil {
			return Input{}, err
		}
		items = append(items, b)
	}
	for _, it := range previous {
		b, err := json.Marshal(it)
		if err != nil {
			return Input{}, err
		}
		items = append(items, b)
	}
	for i, o := range outputs {
		field := fmt.Sprintf("input.function_call_output[%d]", i)
		if !calls[o.CallID] {
			return Input{}, &ValidationError{Field: field + ".call_id", Rule: "must answer a call of the previous turn"}
		}
		if len(o.Output) > MaxToolOutputBytes {
			return Input{}, &ValidationError{Field: field + ".output", Rule: fmt.Sprintf("at most %d bytes", MaxToolOutputBytes)}
		}
		b, err := json.Marshal(map[string]string{"type": "function_call_output", "call_id": o.CallID, "output": o.Output})
		if err != nil {
			return Input{}, err
		}
		items = append(items, b)
	}
	return Input{Items: items}, nil
}

// ParseToolResults reads a file of canned results: a JSON object mapping
// a tool name to its result (any JSON value; a string is sent as it is
// written, other values as JSON text).
func ParseToolResults(data []byte) (map[string]string, error) {
	if len(data) > MaxToolsFileBytes {
		return nil, &ValidationError{Field: "tool results", Rule: fmt.Sprintf("at most %d bytes (got %d)", MaxToolsFileBytes, len(data))}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &ValidationError{Field: "tool results", Rule: "must be a JSON object mapping tool names to results"}
	}
	out := make(map[string]string, len(m))
	for name, v := range m {
		if !nameRule.MatchString(name) {
			return nil, &ValidationError{Field: "tool results." + name, Rule: "key must be a tool name (" + NameRule + ")"}
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[name] = s
			continue
		}
		out[name] = ToolResultText(v)
	}
	return out, nil
}

// AnswerCalls pairs each call with its canned result by tool name. A call
// without a result is returned in missing.
func AnswerCalls(calls []Call, results map[string]string) (outputs []ToolOutput, missing []Call) {
	for _, c := range calls {
		r, ok := results[c.Name]
		if !ok {
			missing = append(missing, c)
			continue
		}
		outputs = append(outputs, ToolOutput{CallID: c.CallID, Output: r})
	}
	return outputs, missing
}
