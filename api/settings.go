package api

// The request settings, declared once: each row says its name (the
// request member it feeds, as errors name it), how it is entered, its
// default, its help, which models support it, how its value is read into
// the request (and checked), and how a request's member reads back as a
// value. The dashboard's settings form, its validation, the request body,
// the cost estimate, the help and the "not listed by this model" checks
// all read this table: a new setting is one row here.

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gwdash/gwdash/internal/jsonschema"
)

// SettingKind is how a setting's value is entered.
type SettingKind int

// The kinds of settings.
const (
	// SettingText is typed text, parsed by the setting.
	SettingText SettingKind = iota
	// SettingChoice is one of the setting's Options.
	SettingChoice
	// SettingFile is a file path (read by the caller, bounded by
	// MaxBytes), or for JSON the text itself pasted in ("{" or "[" first).
	SettingFile
)

// Setting is one row of the settings table.
type Setting struct {
	// Name is the request member it feeds (as errors name it), or what
	// the client does beside the body ("stream", "tool results").
	Name  string
	Label string
	// Help says what the value may be (shown beside the field).
	Help    string
	Kind    SettingKind
	Options []string
	// Default is the value that sends nothing (the service's default).
	Default string
	// Params are the supported_parameters names a model lists when it
	// honours this setting (any of them); nil: not model-dependent.
	Params []string
	// Input marks what is sent as input tokens (the estimate counts it:
	// a file setting by its content).
	Input bool
	// MaxBytes bounds a file setting's content.
	MaxBytes int64
	// Apply reads the value (trimmed; for a file, its content in data)
	// into s. An error is a *ValidationError naming the member.
	Apply func(v string, data []byte, s *Settings) error
	// Sent reports whether a request carries the setting (for Params).
	Sent func(r *ResponseRequest) bool
	// Load is the value that gives back the request's member (a logged
	// request reopened); nil when a request cannot say it (a file path).
	Load func(r *ResponseRequest) string
}

// Settings are what the settings fill: the request, and what the client
// does beside it.
type Settings struct {
	Request ResponseRequest
	// Stream asks for the answer as it is written (SSE).
	Stream bool
	// Tools are the function tools sent, parsed (to check calls).
	Tools []FunctionTool
	// ToolResults are canned results by tool name (nil: none).
	ToolResults map[string]string
}

// Format is the response format sent (nil: plain text).
func (s *Settings) Format() *TextFormat {
	if s.Request.Text == nil {
		return nil
	}
	return s.Request.Text.Format
}

// Pasted reports whether a file setting's value is the JSON itself.
func Pasted(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")
}

// SettingNone is the choice that leaves a member out.
const SettingNone = "(default)"

// The options of on/off choices.
var (
	onOff        = []string{"on", "off"}
	optionalBool = []string{SettingNone, "on", "off"}
)

func boolOf(v string) *bool {
	switch v {
	case "on":
		t := true
		return &t
	case "off":
		f := false
		return &f
	}
	return nil
}

func boolWord(b *bool) string {
	switch {
	case b == nil:
		return SettingNone
	case *b:
		return "on"
	}
	return "off"
}

func rule(field, r string) error { return &ValidationError{Field: field, Rule: r} }

func intText(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

func numText(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'f', -1, 64)
}

func (r *ResponseRequest) format() *TextFormat {
	if r.Text == nil || r.Text.Format == nil {
		return nil
	}
	return r.Text.Format
}

// provider is the request's provider object, made when first set.
func (s *Settings) provider() *ProviderPreferences {
	if s.Request.Provider == nil {
		s.Request.Provider = &ProviderPreferences{}
	}
	return s.Request.Provider
}

func (r *ResponseRequest) prov() *ProviderPreferences {
	if r.Provider == nil {
		return &ProviderPreferences{}
	}
	return r.Provider
}

// nameList is a comma-separated list setting of the provider object.
func nameList(name, label, help string, member func(*ProviderPreferences) *[]string) Setting {
	return Setting{Name: name, Label: label, Help: help,
		Apply: func(v string, _ []byte, s *Settings) error {
			if l := SplitList(v); len(l) > 0 {
				*member(s.provider()) = l
			}
			return nil
		},
		Load: func(r *ResponseRequest) string { return strings.Join(*member(r.prov()), ", ") }}
}

// reasoningChoice is a member of the reasoning object, chosen among
// options (off: the member is left out).
func reasoningChoice(name, label, off string, options []string, member func(*Reasoning) *string) Setting {
	return Setting{Name: name, Label: label, Help: "← → choose", Kind: SettingChoice,
		Options: append([]string{off}, options...), Default: off, Params: []string{"reasoning", "include_reasoning"},
		Apply: func(v string, _ []byte, s *Settings) error {
			if v != off {
				if s.Request.Reasoning == nil {
					s.Request.Reasoning = &Reasoning{}
				}
				*member(s.Request.Reasoning) = v
			}
			return nil
		},
		Sent: func(r *ResponseRequest) bool { return r.Reasoning != nil },
		Load: func(r *ResponseRequest) string {
			if r.Reasoning == nil || *member(r.Reasoning) == "" {
				return off
			}
			return *member(r.Reasoning)
		}}
}

// providerBool is an on/off member of the provider object ((default):
// left out).
func providerBool(name, label, help string, member func(*ProviderPreferences) **bool) Setting {
	return Setting{Name: name, Label: label, Help: help, Kind: SettingChoice, Options: optionalBool, Default: SettingNone,
		Apply: func(v string, _ []byte, s *Settings) error {
			if b := boolOf(v); b != nil {
				*member(s.provider()) = b
			}
			return nil
		},
		Load: func(r *ResponseRequest) string { return boolWord(*member(r.prov())) }}
}

// providerChoice is a member of the provider object chosen among options
// ((default): left out).
func providerChoice(name, label, help string, options []string, member func(*ProviderPreferences) *string) Setting {
	return Setting{Name: name, Label: label, Help: help, Kind: SettingChoice, Options: append([]string{SettingNone}, options...), Default: SettingNone,
		Apply: func(v string, _ []byte, s *Settings) error {
			if v != SettingNone {
				*member(s.provider()) = v
			}
			return nil
		},
		Load: func(r *ResponseRequest) string { return orDefault(*member(r.prov())) }}
}

// stopCondition is one stop_server_tools_when condition of a type: its
// value parsed (ok: it keeps the rule) and said back.
func stopCondition(name, label, help, typ, rule string, parse func(string) (StopCondition, bool), text func(StopCondition) string) Setting {
	return Setting{Name: name, Label: label, Help: help,
		Apply: func(v string, _ []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			c, ok := parse(v)
			if !ok {
				return &ValidationError{Field: name, Rule: rule}
			}
			c.Type = typ
			s.Request.StopServerToolsWhen = append(s.Request.StopServerToolsWhen, c)
			return nil
		},
		Load: func(r *ResponseRequest) string {
			for _, c := range r.StopServerToolsWhen {
				if c.Type == typ {
					return text(c)
				}
			}
			return ""
		}}
}

func traceText(name, label string, member func(*Trace) *string) Setting {
	return Setting{Name: name, Label: label, Help: "trace metadata",
		Apply: func(v string, _ []byte, s *Settings) error {
			if v != "" {
				if s.Request.Trace == nil {
					s.Request.Trace = &Trace{}
				}
				*member(s.Request.Trace) = v
			}
			return nil
		},
		Load: func(r *ResponseRequest) string {
			if r.Trace == nil {
				return ""
			}
			return *member(r.Trace)
		}}
}

// SettingsTable is every request setting, in the order a form shows them.
var SettingsTable = []Setting{
	{Name: "instructions", Label: "instructions", Help: "free text", Input: true,
		Apply: func(v string, _ []byte, s *Settings) error { s.Request.Instructions = v; return nil },
		Load:  func(r *ResponseRequest) string { return r.Instructions }},
	{Name: "max_output_tokens", Label: "max output tokens", Help: "whole number ≥ 1; empty = model default",
		Params: []string{"max_tokens", "max_output_tokens"},
		Apply: func(v string, _ []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return rule("max_output_tokens", "must be a whole number of at least 1")
			}
			s.Request.MaxOutputTokens = &n
			return nil
		},
		Sent: func(r *ResponseRequest) bool { return r.MaxOutputTokens != nil },
		Load: func(r *ResponseRequest) string { return intText(r.MaxOutputTokens) }},
	{Name: "temperature", Label: "temperature", Help: "0 to 2; empty = default", Params: []string{"temperature"},
		Apply: numberSetting("temperature", "must be a number from 0 to 2", func(r *ResponseRequest) **float64 { return &r.Temperature }),
		Sent:  func(r *ResponseRequest) bool { return r.Temperature != nil },
		Load:  func(r *ResponseRequest) string { return numText(r.Temperature) }},
	{Name: "top_p", Label: "top p", Help: "0 to 1; empty = default", Params: []string{"top_p"},
		Apply: numberSetting("top_p", "must be a number from 0 to 1", func(r *ResponseRequest) **float64 { return &r.TopP }),
		Sent:  func(r *ResponseRequest) bool { return r.TopP != nil },
		Load:  func(r *ResponseRequest) string { return numText(r.TopP) }},
	reasoningChoice("reasoning.effort", "reasoning effort", "(off)", ReasoningEfforts, func(r *Reasoning) *string { return &r.Effort }),
	reasoningChoice("reasoning.summary", "reasoning summary", "(none)", ReasoningSummaries, func(r *Reasoning) *string { return &r.Summary }),
	{Name: "service_tier", Label: "service tier", Help: "fast = priority", Kind: SettingChoice, Options: ServiceTiers, Default: "auto",
		Apply: func(v string, _ []byte, s *Settings) error { s.Request.ServiceTier = v; return nil },
		Load: func(r *ResponseRequest) string {
			if r.ServiceTier == "" {
				return "auto"
			}
			return r.ServiceTier
		}},
	{Name: "metadata", Label: "metadata", Help: "k=v, k=v · ≤16 pairs, key ≤64 chars without [ ], value ≤512",
		Apply: func(v string, _ []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			md, err := ParseMetadata([]string{v})
			if err != nil {
				return err
			}
			s.Request.Metadata = md
			return nil
		},
		Load: func(r *ResponseRequest) string {
			var pairs []string
			for _, k := range slices.Sorted(maps.Keys(r.Metadata)) {
				pairs = append(pairs, k+"="+r.Metadata[k])
			}
			return strings.Join(pairs, ", ")
		}},
	{Name: "session_id", Label: "session id", Help: "≤256 characters",
		Apply: func(v string, _ []byte, s *Settings) error { s.Request.SessionID = v; return nil },
		Load:  func(r *ResponseRequest) string { return r.SessionID }},
	{Name: "user", Label: "user", Help: "≤256 characters",
		Apply: func(v string, _ []byte, s *Settings) error { s.Request.User = v; return nil },
		Load:  func(r *ResponseRequest) string { return r.User }},
	{Name: "max_tool_calls", Label: "max tool calls", Help: "0 to 30; empty = 30",
		Apply: func(v string, _ []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return rule("max_tool_calls", "must be a whole number from 0 to 30")
			}
			s.Request.MaxToolCalls = &n
			return nil
		},
		Load: func(r *ResponseRequest) string { return intText(r.MaxToolCalls) }},
	stopCondition("stop_server_tools_when.step_count_is", "stop after steps", "whole number ≥ 1 (step_count_is)", "step_count_is",
		"must be a whole number of at least 1", func(v string) (StopCondition, bool) {
			n, err := strconv.Atoi(v)
			return StopCondition{StepCount: &n}, err == nil && n >= 1
		}, func(c StopCondition) string { return intText(c.StepCount) }),
	stopCondition("stop_server_tools_when.max_cost", "stop at cost $", "number > 0 (max_cost)", "max_cost",
		"must be a number above 0", func(v string) (StopCondition, bool) {
			x, err := ParseNumber(strings.TrimPrefix(v, "$"))
			return StopCondition{MaxCostInDollars: &x}, err == nil && x > 0
		}, func(c StopCondition) string { return numText(c.MaxCostInDollars) }),
	traceText("trace.trace_id", "trace id", func(t *Trace) *string { return &t.TraceID }),
	traceText("trace.trace_name", "trace name", func(t *Trace) *string { return &t.TraceName }),
	traceText("trace.span_name", "span name", func(t *Trace) *string { return &t.SpanName }),
	traceText("trace.generation_name", "generation name", func(t *Trace) *string { return &t.GenerationName }),
	traceText("trace.parent_span_id", "parent span id", func(t *Trace) *string { return &t.ParentSpanID }),
	{Name: "truncation", Label: "truncation", Help: "← → choose", Kind: SettingChoice, Options: []string{SettingNone, "auto", "disabled"}, Default: SettingNone,
		Apply: func(v string, _ []byte, s *Settings) error {
			if v != SettingNone {
				s.Request.Truncation = v
			}
			return nil
		},
		Load: func(r *ResponseRequest) string { return orDefault(r.Truncation) }},
	{Name: "stream", Label: "streaming", Help: "off sends one plain request", Kind: SettingChoice, Options: onOff, Default: "on",
		Apply: func(v string, _ []byte, s *Settings) error { s.Stream = v == "on"; return nil }},
	{Name: "routing_metadata", Label: "routing metadata", Help: "X-OpenRouter-Metadata", Kind: SettingChoice, Options: []string{"off", "on"}, Default: "off",
		Apply: func(v string, _ []byte, s *Settings) error { s.Request.RoutingMetadata = v == "on"; return nil },
		Load:  func(r *ResponseRequest) string { return boolWord(&r.RoutingMetadata) }},

	// Structured outputs (text.format).
	{Name: "text.format", Label: "response format", Help: "json_schema needs a schema", Kind: SettingChoice, Options: FormatTypes, Default: FormatText,
		Params: []string{"response_format", "structured_outputs"},
		Apply: func(v string, _ []byte, s *Settings) error {
			if v != FormatText {
				s.Request.Text = &TextConfig{Format: &TextFormat{Type: v}}
			}
			return nil
		},
		Sent: func(r *ResponseRequest) bool { return r.format() != nil && r.format().Type != FormatText },
		Load: func(r *ResponseRequest) string {
			if f := r.format(); f != nil {
				return f.Type
			}
			return FormatText
		}},
	{Name: "text.format.schema", Label: "JSON schema", Help: "a file, or the schema pasted · checked as JSON Schema 2020-12", Kind: SettingFile,
		MaxBytes: jsonschema.MaxSchemaBytes, Input: true,
		Apply: func(v string, data []byte, s *Settings) error {
			f := s.Format()
			switch {
			case v == "" && f != nil && f.Type == FormatJSONSchema:
				return rule("text.format.schema", "is required for json_schema: a file or the schema pasted")
			case v == "":
				return nil
			case f == nil || f.Type != FormatJSONSchema:
				return rule("text.format.schema", "is sent only with response format json_schema")
			}
			f.Schema = data
			if f.Name == "" && !Pasted(v) {
				f.Name = SchemaName(v)
			}
			_, err := f.Compile()
			return err
		},
		Load: func(r *ResponseRequest) string {
			if f := r.format(); f != nil && len(f.Schema) > 0 {
				return string(f.Schema)
			}
			return ""
		}},
	{Name: "text.format.name", Label: "schema name", Help: NameRule + "; empty = the file's name",
		Apply: func(v string, _ []byte, s *Settings) error {
			f := s.Format()
			if f == nil || f.Type != FormatJSONSchema {
				if v != "" {
					return rule("text.format.name", "is sent only with response format json_schema")
				}
				return nil
			}
			if v != "" {
				f.Name = v
			}
			if f.Name == "" {
				f.Name = "answer"
			}
			if !nameRule.MatchString(f.Name) {
				return rule("text.format.name", "must be "+NameRule)
			}
			return nil
		},
		Load: func(r *ResponseRequest) string {
			if f := r.format(); f != nil {
				return f.Name
			}
			return ""
		}},
	{Name: "text.format.strict", Label: "strict schema", Help: "ask for strict adherence", Kind: SettingChoice, Options: []string{"off", "on"}, Default: "off",
		Apply: func(v string, _ []byte, s *Settings) error {
			f := s.Format()
			if v == "on" {
				if f == nil || f.Type != FormatJSONSchema {
					return rule("text.format.strict", "is sent only with response format json_schema")
				}
				f.Strict = boolOf("on")
			}
			return nil
		},
		Load: func(r *ResponseRequest) string {
			if f := r.format(); f != nil && f.Strict != nil && *f.Strict {
				return "on"
			}
			return "off"
		}},

	// Function tools.
	{Name: "tools", Label: "tools file", Help: "JSON list of {name, description, parameters}", Kind: SettingFile, MaxBytes: MaxToolsFileBytes,
		Params: []string{"tools"}, Input: true,
		Apply: func(v string, data []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			tools, err := ParseTools(data)
			if err != nil {
				return err
			}
			s.Tools = tools
			return s.Request.SetTools(tools, ToolChoice{})
		},
		Sent: func(r *ResponseRequest) bool { return len(r.Tools) > 0 },
		// a request's tools read back as their JSON, pasted
		Load: func(r *ResponseRequest) string {
			if len(r.Tools) == 0 {
				return ""
			}
			b, _ := json.Marshal(r.Tools)
			return string(b)
		}},
	{Name: "tool_choice", Label: "tool choice", Help: "auto, none, required or a tool's name; empty = auto",
		Params: []string{"tool_choice"},
		Apply: func(v string, _ []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			if len(s.Tools) == 0 {
				return rule("tool_choice", "needs a tools file")
			}
			c, err := ParseToolChoice(v)
			if err != nil {
				return err
			}
			b, err := json.Marshal(c)
			if err != nil {
				return fmt.Errorf("encoding tool_choice: %w", err)
			}
			s.Request.ToolChoice = b
			return nil
		},
		Sent: func(r *ResponseRequest) bool { return len(r.ToolChoice) > 0 },
		Load: func(r *ResponseRequest) string {
			var mode string
			if json.Unmarshal(r.ToolChoice, &mode) == nil {
				return mode
			}
			var fn struct {
				Name string `json:"name"`
			}
			json.Unmarshal(r.ToolChoice, &fn)
			return fn.Name
		}},
	{Name: "parallel_tool_calls", Label: "parallel calls", Help: "several calls at once", Kind: SettingChoice, Options: optionalBool, Default: SettingNone,
		Apply: func(v string, _ []byte, s *Settings) error {
			if b := boolOf(v); b != nil {
				if len(s.Tools) == 0 {
					return rule("parallel_tool_calls", "needs a tools file")
				}
				s.Request.ParallelToolCalls = b
			}
			return nil
		},
		Load: func(r *ResponseRequest) string { return boolWord(r.ParallelToolCalls) }},
	{Name: "tool results", Label: "tool results file", Help: "canned results by tool name: answers calls by itself", Kind: SettingFile, MaxBytes: MaxToolsFileBytes,
		Apply: func(v string, data []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			if len(s.Tools) == 0 {
				return rule("tool results", "needs a tools file")
			}
			m, err := ParseToolResults(data)
			if err != nil {
				return err
			}
			s.ToolResults = m
			return nil
		}},

	// Provider routing.
	nameList("provider.order", "provider order", "providers to try first, in order: a, b", func(p *ProviderPreferences) *[]string { return &p.Order }),
	nameList("provider.only", "only providers", "only these providers: a, b", func(p *ProviderPreferences) *[]string { return &p.Only }),
	nameList("provider.ignore", "ignore providers", "never these providers: a, b", func(p *ProviderPreferences) *[]string { return &p.Ignore }),
	providerBool("provider.allow_fallbacks", "provider fallbacks", "off: only the first provider that fits",
		func(p *ProviderPreferences) **bool { return &p.AllowFallbacks }),
	providerBool("provider.require_parameters", "require parameters", "only providers that take every setting sent",
		func(p *ProviderPreferences) **bool { return &p.RequireParameters }),
	providerChoice("provider.data_collection", "data collection", "deny: no provider that may keep prompts", DataCollections,
		func(p *ProviderPreferences) *string { return &p.DataCollection }),
	providerChoice("provider.sort", "provider sort", "rank providers by", ProviderSorts,
		func(p *ProviderPreferences) *string { return &p.Sort }),
	nameList("provider.quantizations", "quantizations", "only these: "+strings.Join(Quantizations, ", "), func(p *ProviderPreferences) *[]string { return &p.Quantizations }),
	{Name: "provider.max_price", Label: "max price $/M", Help: "prompt=0.5, completion=2 (request, image, audio too)",
		Apply: func(v string, _ []byte, s *Settings) error {
			if v == "" {
				return nil
			}
			mp, err := ParseMaxPrice(v)
			if err != nil {
				return err
			}
			s.provider().MaxPrice = mp
			return nil
		},
		Load: func(r *ResponseRequest) string { return r.prov().MaxPrice.String() }},
	{Name: "models", Label: "fallback models", Help: "models to try in order when the first fails: a/b, c/d",
		Apply: func(v string, _ []byte, s *Settings) error { s.Request.Models = SplitList(v); return nil },
		Load:  func(r *ResponseRequest) string { return strings.Join(r.Models, ", ") }},
}

func orDefault(v string) string {
	if v == "" {
		return SettingNone
	}
	return v
}

func numberSetting(field, r string, member func(*ResponseRequest) **float64) func(string, []byte, *Settings) error {
	return func(v string, _ []byte, s *Settings) error {
		if v == "" {
			return nil
		}
		x, err := ParseNumber(v)
		if err != nil {
			return rule(field, r)
		}
		*member(&s.Request) = &x
		return nil
	}
}

// SettingNamed is the table's row of a name, or nil.
func SettingNamed(name string) *Setting {
	for i := range SettingsTable {
		if SettingsTable[i].Name == name {
			return &SettingsTable[i]
		}
	}
	return nil
}

// ownerOf is the setting a member's error belongs to: the one named so,
// or whose member holds it (metadata.k, tools[0].name), else the first
// of its root ("stop_server_tools_when[0].step_count").
func ownerOf(table []Setting, field string) string {
	best := ""
	for _, s := range table {
		if field == s.Name || strings.HasPrefix(field, s.Name+".") || strings.HasPrefix(field, s.Name+"[") {
			if len(s.Name) > len(best) {
				best = s.Name
			}
		}
	}
	if best != "" {
		return best
	}
	root := field
	if i := strings.IndexAny(root, ".["); i >= 0 {
		root = root[:i]
	}
	for _, s := range table {
		if s.Name == root || strings.HasPrefix(s.Name, root+".") {
			return s.Name
		}
	}
	return ""
}

// SettingValues gives a setting's value (trimmed by the caller or not)
// and, for a file setting, its content.
type SettingValues interface {
	Value(name string) string
	File(name string) ([]byte, error)
}

// ApplySettings reads every setting of table into a request and checks
// them all: each problem is a *ValidationError naming its setting (a
// member inside it, such as tools[1].parameters, is said in the rule), so
// that every error can stand beside its field. Settings in error are left
// out of the request returned; the contract's own rules (Validate) are
// checked too, every one rather than only the first.
func ApplySettings(table []Setting, in SettingValues) (Settings, []*ValidationError) {
	failed := map[string]bool{}
	var errs []*ValidationError
	// add files an error under its setting (owner, unless the member
	// names another); false when that setting already has one.
	add := func(err error, owner string) bool {
		ve, ok := err.(*ValidationError)
		if !ok {
			ve = &ValidationError{Field: owner, Rule: err.Error()}
		}
		if o := ownerOf(table, ve.Field); o != "" {
			owner = o
		}
		if owner == "" || failed[owner] {
			return false
		}
		rule := ve.Rule
		if ve.Field != owner && ve.Field != "" {
			rule = strings.TrimPrefix(ve.Field, owner+".") + ": " + rule
		}
		errs = append(errs, &ValidationError{Field: owner, Rule: rule})
		failed[owner] = true
		return true
	}
	// skip leaves a setting out of the contract's probe without an error
	// of its own (the format whose schema failed).
	skip := map[string]bool{}
	build := func(record bool) Settings {
		var s Settings
		for i := range table {
			st := &table[i]
			if failed[st.Name] || (!record && skip[st.Name]) {
				continue
			}
			v := strings.TrimSpace(in.Value(st.Name))
			var data []byte
			if st.Kind == SettingFile && v != "" {
				var err error
				if Pasted(v) {
					data = []byte(v)
					if st.MaxBytes > 0 && int64(len(data)) > st.MaxBytes {
						err = rule(st.Name, fmt.Sprintf("at most %d bytes", st.MaxBytes))
					}
				} else {
					data, err = in.File(st.Name)
				}
				if err != nil {
					if record {
						add(err, st.Name)
					}
					continue
				}
			}
			if err := st.Apply(v, data, &s); err != nil && record {
				add(err, st.Name)
			}
		}
		return s
	}
	build(true)
	// The contract's rules, member by member: a setting that breaks one
	// is left out and the request checked again.
	for range 2 * len(table) {
		s := build(false)
		probe := s.Request
		probe.Input, probe.Model = Input{Text: "x"}, "x/x"
		err := probe.Validate()
		if err == nil {
			break
		}
		ve, ok := err.(*ValidationError)
		if !ok {
			break
		}
		owner := ownerOf(table, ve.Field)
		if owner == "" {
			break
		}
		if !add(err, owner) {
			// its setting is already in error: leave out the first of
			// its group (text.format for text.format.schema) and look on
			root := owner
			if i := strings.IndexAny(root, ".["); i >= 0 {
				root = root[:i]
			}
			first := ownerOf(table, root)
			if first == "" || skip[first] {
				break
			}
			skip[first] = true
		}
	}
	return build(false), errs
}

// Unsupported lists the request settings a model does not list in its
// supported_parameters (checked before sending), each by the first
// parameter name of its row.
func Unsupported(m *Model, r *ResponseRequest) []string {
	if m == nil || m.SupportedParameters == nil {
		return nil
	}
	var out []string
	for _, s := range SettingsTable {
		if s.Params == nil || s.Sent == nil || !s.Sent(r) || slices.Contains(out, s.Params[0]) {
			continue
		}
		if !slices.ContainsFunc(s.Params, m.Supports) {
			out = append(out, s.Params[0])
		}
	}
	return out
}

// SchemaName makes a schema name from a file name ("person.schema.json"
// is person_schema; "answer" when nothing is left).
func SchemaName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	for _, r := range base {
		if b.Len() == 64 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || path == "-" {
		return "answer"
	}
	return b.String()
}

// ParseMaxPrice reads price caps: prompt=0.5, completion=2 (request,
// image and audio too), in dollars; each is checked by Validate.
func ParseMaxPrice(s string) (*MaxPrice, error) {
	mp := &MaxPrice{}
	for _, kv := range SplitList(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, &ValidationError{Field: "provider.max_price", Rule: "must be kind=dollars pairs, e.g. prompt=0.5,completion=2"}
		}
		switch strings.TrimSpace(k) {
		case "prompt":
			mp.Prompt = strings.TrimSpace(v)
		case "completion":
			mp.Completion = strings.TrimSpace(v)
		case "request":
			mp.Request = strings.TrimSpace(v)
		case "image":
			mp.Image = strings.TrimSpace(v)
		case "audio":
			mp.Audio = strings.TrimSpace(v)
		default:
			return nil, &ValidationError{Field: "provider.max_price", Rule: "kinds are prompt, completion, request, image and audio"}
		}
	}
	return mp, nil
}

// String writes the caps as ParseMaxPrice reads them.
func (m *MaxPrice) String() string {
	if m == nil {
		return ""
	}
	var parts []string
	for _, kv := range [][2]string{{"prompt", m.Prompt}, {"completion", m.Completion}, {"request", m.Request}, {"image", m.Image}, {"audio", m.Audio}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	return strings.Join(parts, ", ")
}
