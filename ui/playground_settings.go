package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/gwdash/gwdash/api"
)

// setting is one field of the playground's settings panel. Its rule is
// shown next to it, and its error (if any) under it.
type setting struct {
	name  string // the request field it feeds, as errors name it
	label string
	rule  string
	input textinput.Model
	err   string
}

// Settings field names, in panel order.
const (
	setInstructions = "instructions"
	setMaxOut       = "max_output_tokens"
	setTemperature  = "temperature"
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

func newSettings() []*setting {
	mk := func(name, label, rule, value string) *setting {
		return &setting{name: name, label: label, rule: rule, input: newInput("", "", 4096, value)}
	}
	return []*setting{
		mk(setInstructions, "instructions", "free text", ""),
		mk(setMaxOut, "max output tokens", "whole number ≥ 1, empty = model default", ""),
		mk(setTemperature, "temperature", "0 to 2, empty = default", ""),
		mk(setEffort, "reasoning effort", strings.Join(api.ReasoningEfforts, ", ")+", empty = off", ""),
		mk(setSummary, "reasoning summary", strings.Join(api.ReasoningSummaries, ", "), ""),
		mk(setTier, "service tier", strings.Join(api.ServiceTiers, ", ")+" (fast = priority)", "auto"),
		mk(setMetadata, "metadata", "k=v, k=v · ≤16 pairs, key ≤64 chars without [ ], value ≤512", ""),
		mk(setSession, "session id", "≤256 characters", ""),
		mk(setUser, "user", "≤256 characters", ""),
		mk(setMaxTools, "max tool calls", "0 to 30, empty = 30", ""),
		mk(setStopSteps, "stop: step count", "whole number ≥ 1 (step_count_is)", ""),
		mk(setStopCost, "stop: max cost $", "number > 0 (max_cost)", ""),
		mk(setTraceID, "trace id", "trace metadata", ""),
		mk(setTraceName, "trace name", "trace metadata", ""),
		mk(setSpanName, "span name", "trace metadata", ""),
		mk(setGenName, "generation name", "trace metadata", ""),
		mk(setParentSpan, "parent span id", "trace metadata", ""),
		mk(setTruncation, "truncation", "auto, disabled, empty = default", ""),
		mk(setStream, "streaming", "on or off", "on"),
		mk(setRouting, "routing metadata", "on or off (X-OpenRouter-Metadata)", "off"),
	}
}

func settingValue(ss []*setting, name string) string {
	for _, s := range ss {
		if s.name == name {
			return strings.TrimSpace(s.input.Value())
		}
	}
	return ""
}

// applySettings fills req from the panel. Every field's own error is set
// on it; the first error is returned.
func applySettings(ss []*setting, req *api.ResponseRequest) (stream bool, err error) {
	for _, s := range ss {
		s.err = ""
	}
	fail := func(name, msg string) {
		for _, s := range ss {
			if s.name == name && s.err == "" {
				s.err = msg
			}
		}
		if err == nil {
			err = &api.ValidationError{Field: name, Rule: msg}
		}
	}
	get := func(n string) string { return settingValue(ss, n) }
	req.Instructions = get(setInstructions)
	if v := get(setMaxOut); v != "" {
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 {
			fail(setMaxOut, "must be a whole number of at least 1")
		} else {
			req.MaxOutputTokens = &n
		}
	}
	if v := get(setTemperature); v != "" {
		f, e := strconv.ParseFloat(v, 64)
		if e != nil {
			fail(setTemperature, "must be a number from 0 to 2")
		} else {
			req.Temperature = &f
		}
	}
	if e, sm := get(setEffort), get(setSummary); e != "" || sm != "" {
		req.Reasoning = &api.Reasoning{Effort: e, Summary: sm}
	}
	req.ServiceTier = get(setTier)
	if v := get(setMetadata); v != "" {
		req.Metadata = map[string]string{}
		for _, kv := range strings.Split(v, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, val, ok := strings.Cut(kv, "=")
			if !ok {
				fail(setMetadata, fmt.Sprintf("%q is not key=value", kv))
				break
			}
			req.Metadata[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
	}
	req.SessionID = get(setSession)
	req.User = get(setUser)
	if v := get(setMaxTools); v != "" {
		n, e := strconv.Atoi(v)
		if e != nil {
			fail(setMaxTools, "must be a whole number from 0 to 30")
		} else {
			req.MaxToolCalls = &n
		}
	}
	if v := get(setStopSteps); v != "" {
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 {
			fail(setStopSteps, "must be a whole number of at least 1")
		} else {
			req.StopServerToolsWhen = append(req.StopServerToolsWhen, api.StopCondition{Type: "step_count_is", StepCount: &n})
		}
	}
	if v := get(setStopCost); v != "" {
		f, e := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
		if e != nil || f <= 0 {
			fail(setStopCost, "must be a number above 0")
		} else {
			req.StopServerToolsWhen = append(req.StopServerToolsWhen, api.StopCondition{Type: "max_cost", MaxCostInDollars: &f})
		}
	}
	tr := api.Trace{TraceID: get(setTraceID), TraceName: get(setTraceName), SpanName: get(setSpanName), GenerationName: get(setGenName), ParentSpanID: get(setParentSpan)}
	if tr.TraceID+tr.TraceName+tr.SpanName+tr.GenerationName+tr.ParentSpanID != "" {
		req.Trace = &tr
	}
	req.Truncation = get(setTruncation)
	onOff := func(name string) bool {
		switch strings.ToLower(get(name)) {
		case "on", "true", "yes", "":
			return true
		case "off", "false", "no":
			return false
		}
		fail(name, "must be on or off")
		return false
	}
	stream = onOff(setStream)
	req.RoutingMetadata = onOff(setRouting) && get(setRouting) != ""
	if err != nil {
		return stream, err
	}
	// The contract's own rules, checked by the client.
	if verr := req.Validate(); verr != nil {
		var ve *api.ValidationError
		if errors.As(verr, &ve) {
			name := ve.Field
			switch {
			case strings.HasPrefix(name, "metadata"):
				name = setMetadata
			case strings.HasPrefix(name, "stop_server_tools_when"):
				name = setStopSteps
			}
			fail(name, ve.Rule)
			err = verr
		} else {
			err = verr
		}
	}
	return stream, err
}
