package ui

// The playground's settings: a form whose every value is checked as it is
// typed (all errors at once, each beside its field) and whose settings the
// chosen model does not list are flagged.

import (
	"strconv"
	"strings"

	"github.com/gwdash/gwdash/api"
)

// Settings field names: the request members they feed, as errors name
// them.
const (
	setInstructions = "instructions"
	setMaxOut       = "max_output_tokens"
	setTemperature  = "temperature"
	setTopP         = "top_p"
	setEffort       = "reasoning.effort"
	setSummary      = "reasoning.summary"
	setTier         = "service_tier"
	setMetadata     = "metadata"
	setSession      = "session_id"
	setUser         = "user"
	setMaxTools     = "max_tool_calls"
	setStopSteps    = "stop_server_tools_when.step_count_is"
	setStopCost     = "stop_server_tools_when.max_cost"
	setTraceID      = "trace.trace_id"
	setTraceName    = "trace.trace_name"
	setSpanName     = "trace.span_name"
	setGenName      = "trace.generation_name"
	setParentSpan   = "trace.parent_span_id"
	setTruncation   = "truncation"
	setStream       = "stream"
	setRouting      = "routing_metadata"
)

// settingParam maps a setting to the supported_parameters name a model
// lists for it.
var settingParam = map[string][]string{
	setMaxOut:      {"max_tokens", "max_output_tokens"},
	setTemperature: {"temperature"},
	setTopP:        {"top_p"},
	setEffort:      {"reasoning", "include_reasoning"},
	setSummary:     {"reasoning", "include_reasoning"},
}

func newSettingsForm() *form {
	onOff := []string{"on", "off"}
	f := newForm(
		textField(setInstructions, "instructions", "free text", ""),
		textField(setMaxOut, "max output tokens", "whole number ≥ 1; empty = model default", ""),
		textField(setTemperature, "temperature", "0 to 2; empty = default", ""),
		textField(setTopP, "top p", "0 to 1; empty = default", ""),
		choiceField(setEffort, "reasoning effort", "← → choose", append([]string{"(off)"}, api.ReasoningEfforts...), "(off)"),
		choiceField(setSummary, "reasoning summary", "← → choose", append([]string{"(none)"}, api.ReasoningSummaries...), "(none)"),
		choiceField(setTier, "service tier", "fast = priority", api.ServiceTiers, "auto"),
		textField(setMetadata, "metadata", "k=v, k=v · ≤16 pairs, key ≤64 chars without [ ], value ≤512", ""),
		textField(setSession, "session id", "≤256 characters", ""),
		textField(setUser, "user", "≤256 characters", ""),
		textField(setMaxTools, "max tool calls", "0 to 30; empty = 30", ""),
		textField(setStopSteps, "stop after steps", "whole number ≥ 1 (step_count_is)", ""),
		textField(setStopCost, "stop at cost $", "number > 0 (max_cost)", ""),
		textField(setTraceID, "trace id", "trace metadata", ""),
		textField(setTraceName, "trace name", "trace metadata", ""),
		textField(setSpanName, "span name", "trace metadata", ""),
		textField(setGenName, "generation name", "trace metadata", ""),
		textField(setParentSpan, "parent span id", "trace metadata", ""),
		choiceField(setTruncation, "truncation", "← → choose", []string{"(default)", "auto", "disabled"}, "(default)"),
		choiceField(setStream, "streaming", "off sends one plain request", onOff, "on"),
		choiceField(setRouting, "routing metadata", "X-OpenRouter-Metadata", []string{"off", "on"}, "off"),
	)
	f.keys = DefaultSettingsKeys()
	return f
}

// applySettings fills req from the form. Every invalid field gets its
// error; the model's unsupported settings are flagged in their hints.
// It reports whether to stream, and every error.
func applySettings(f *form, req *api.ResponseRequest, model *api.Model) (stream bool, errs []*api.ValidationError) {
	add := func(field, rule string) { errs = append(errs, &api.ValidationError{Field: field, Rule: rule}) }
	get := func(n string) string { return strings.TrimSpace(f.field(n).value()) }
	choice := func(n string) string { return f.field(n).choice() }
	req.Instructions = get(setInstructions)
	if v := get(setMaxOut); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			add(setMaxOut, "must be a whole number of at least 1")
		} else {
			req.MaxOutputTokens = &n
		}
	}
	number := func(name, rule string, dst **float64) {
		if v := get(name); v != "" {
			if x, err := api.ParseNumber(v); err != nil {
				add(name, rule)
			} else {
				*dst = &x
			}
		}
	}
	number(setTemperature, "must be a number from 0 to 2", &req.Temperature)
	number(setTopP, "must be a number from 0 to 1", &req.TopP)
	effort, summary := choice(setEffort), choice(setSummary)
	if effort != "(off)" || summary != "(none)" {
		req.Reasoning = &api.Reasoning{}
		if effort != "(off)" {
			req.Reasoning.Effort = effort
		}
		if summary != "(none)" {
			req.Reasoning.Summary = summary
		}
	}
	req.ServiceTier = choice(setTier)
	if v := get(setMetadata); v != "" {
		md, err := api.ParseMetadata([]string{v})
		if err != nil {
			var ve *api.ValidationError
			asErr(err, &ve)
			add(setMetadata, ve.Rule)
		} else {
			req.Metadata = md
		}
	}
	req.SessionID, req.User = get(setSession), get(setUser)
	if v := get(setMaxTools); v != "" {
		if n, err := strconv.Atoi(v); err != nil {
			add(setMaxTools, "must be a whole number from 0 to 30")
		} else {
			req.MaxToolCalls = &n
		}
	}
	if v := get(setStopSteps); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			add(setStopSteps, "must be a whole number of at least 1")
		} else {
			req.StopServerToolsWhen = append(req.StopServerToolsWhen, api.StopCondition{Type: "step_count_is", StepCount: &n})
		}
	}
	if v := get(setStopCost); v != "" {
		if x, err := api.ParseNumber(strings.TrimPrefix(v, "$")); err != nil || x <= 0 {
			add(setStopCost, "must be a number above 0")
		} else {
			req.StopServerToolsWhen = append(req.StopServerToolsWhen, api.StopCondition{Type: "max_cost", MaxCostInDollars: &x})
		}
	}
	tr := api.Trace{TraceID: get(setTraceID), TraceName: get(setTraceName), SpanName: get(setSpanName), GenerationName: get(setGenName), ParentSpanID: get(setParentSpan)}
	if tr.TraceID+tr.TraceName+tr.SpanName+tr.GenerationName+tr.ParentSpanID != "" {
		req.Trace = &tr
	}
	if t := choice(setTruncation); t != "(default)" {
		req.Truncation = t
	}
	stream = choice(setStream) == "on"
	req.RoutingMetadata = choice(setRouting) == "on"
	// The contract's own rules, checked by the client: every one, not
	// only the first, and whatever else failed (a field that did not
	// parse is left out of the probe, so it is not named twice).
	failed := map[string]bool{}
	for _, e := range errs {
		failed[e.Field] = true
	}
	for _, ve := range contractErrors(req) {
		name := ve.Field
		switch {
		case strings.HasPrefix(name, "metadata"):
			name = setMetadata
		case strings.HasPrefix(name, "stop_server_tools_when"):
			name = setStopSteps
		}
		if !failed[name] {
			add(name, ve.Rule)
		}
	}
	f.setErrors(errs)
	flagUnsupported(f, model)
	return stream, errs
}

// contractErrors runs the request's own validation once per member it
// checks, so that every problem is found (Validate stops at the first).
func contractErrors(req *api.ResponseRequest) []*api.ValidationError {
	var out []*api.ValidationError
	probe := *req
	probe.Input, probe.Model = api.Input{Text: "x"}, "x/x"
	for i := 0; i < 12; i++ {
		err := probe.Validate()
		if err == nil {
			break
		}
		var ve *api.ValidationError
		if !asErr(err, &ve) {
			break
		}
		out = append(out, ve)
		// clear the member that failed and look again
		switch {
		case ve.Field == "metadata" || strings.HasPrefix(ve.Field, "metadata."):
			probe.Metadata = nil
		case ve.Field == "session_id":
			probe.SessionID = ""
		case ve.Field == "user":
			probe.User = ""
		case ve.Field == "max_tool_calls":
			probe.MaxToolCalls = nil
		case ve.Field == "max_output_tokens":
			probe.MaxOutputTokens = nil
		case strings.HasPrefix(ve.Field, "stop_server_tools_when"):
			probe.StopServerToolsWhen = nil
		case ve.Field == "service_tier":
			probe.ServiceTier = ""
		case ve.Field == "temperature":
			probe.Temperature = nil
		case ve.Field == "top_p":
			probe.TopP = nil
		case strings.HasPrefix(ve.Field, "reasoning"):
			probe.Reasoning = nil
		case ve.Field == "truncation":
			probe.Truncation = ""
		default:
			return out
		}
	}
	return out
}

// flagUnsupported marks the settings the model does not list; they are
// still sent if the user insists (enter again), but never silently.
func flagUnsupported(f *form, model *api.Model) {
	for name, params := range settingParam {
		fl := f.field(name)
		fl.hint = strings.TrimSuffix(fl.hint, unsupportedNote)
		if model == nil || model.SupportedParameters == nil || !settingSet(fl) {
			continue
		}
		supported := false
		for _, p := range params {
			supported = supported || model.Supports(p)
		}
		if !supported {
			fl.hint += unsupportedNote
		}
	}
}

const unsupportedNote = " · ⚠ not listed by this model"

func settingSet(fl *formField) bool {
	switch fl.kind {
	case fieldChoice:
		return fl.pick != 0
	}
	return strings.TrimSpace(fl.value()) != ""
}

// settingsMap is the settings that are set, for saving with a
// conversation.
func settingsMap(f *form) map[string]string {
	out := map[string]string{}
	for _, fl := range f.fields {
		switch fl.kind {
		case fieldChoice:
			out[fl.name] = fl.choice()
		default:
			if v := strings.TrimSpace(fl.value()); v != "" {
				out[fl.name] = v
			}
		}
	}
	return out
}
