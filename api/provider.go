package api

import (
	"fmt"
	"slices"
	"strings"
)

// Provider routing values (service-facts.md, "Provider routing").
var (
	ProviderSorts   = []string{"price", "throughput", "latency"}
	DataCollections = []string{"allow", "deny"}
	Quantizations   = []string{"int4", "int8", "fp4", "mxfp4", "nvfp4", "fp6", "fp8", "mxfp8", "fp16", "bf16", "fp32", "unknown"}
)

// Bounds of the routing lists (the client's).
const (
	MaxProviderNames  = 64
	MaxProviderName   = 100
	MaxFallbackModels = 8
)

// ProviderPreferences is the request's provider object. Nil pointers and
// empty lists are left out (the service's defaults apply).
type ProviderPreferences struct {
	Order             []string  `json:"order,omitempty"`
	Only              []string  `json:"only,omitempty"`
	Ignore            []string  `json:"ignore,omitempty"`
	AllowFallbacks    *bool     `json:"allow_fallbacks,omitempty"`
	RequireParameters *bool     `json:"require_parameters,omitempty"`
	DataCollection    string    `json:"data_collection,omitempty"`
	Sort              string    `json:"sort,omitempty"`
	Quantizations     []string  `json:"quantizations,omitempty"`
	MaxPrice          *MaxPrice `json:"max_price,omitempty"`
}

// MaxPrice caps what a provider may charge: Prompt and Completion in
// dollars per million tokens, Request per request, Image and Audio per
// unit; decimal strings as the service takes them.
type MaxPrice struct {
	Prompt     string `json:"prompt,omitempty"`
	Completion string `json:"completion,omitempty"`
	Image      string `json:"image,omitempty"`
	Audio      string `json:"audio,omitempty"`
	Request    string `json:"request,omitempty"`
}

// Empty reports whether nothing is set.
func (p *ProviderPreferences) Empty() bool {
	return p == nil || (len(p.Order) == 0 && len(p.Only) == 0 && len(p.Ignore) == 0 && p.AllowFallbacks == nil &&
		p.RequireParameters == nil && p.DataCollection == "" && p.Sort == "" && len(p.Quantizations) == 0 && p.MaxPrice == nil)
}

// Validate checks the preferences; errors name the member and the rule.
func (p *ProviderPreferences) Validate() error {
	if p == nil {
		return nil
	}
	lists := []struct {
		field string
		names []string
	}{{"provider.order", p.Order}, {"provider.only", p.Only}, {"provider.ignore", p.Ignore}}
	for _, l := range lists {
		if err := checkNames(l.field, l.names); err != nil {
			return err
		}
	}
	for _, name := range p.Ignore {
		if slices.ContainsFunc(p.Order, func(o string) bool { return strings.EqualFold(o, name) }) {
			return &ValidationError{Field: "provider.order", Rule: name + " is also in provider.ignore"}
		}
		if slices.ContainsFunc(p.Only, func(o string) bool { return strings.EqualFold(o, name) }) {
			return &ValidationError{Field: "provider.only", Rule: name + " is also in provider.ignore"}
		}
	}
	if p.DataCollection != "" && !oneOf(p.DataCollection, DataCollections) {
		return &ValidationError{Field: "provider.data_collection", Rule: "must be allow or deny"}
	}
	if p.Sort != "" && !oneOf(p.Sort, ProviderSorts) {
		return &ValidationError{Field: "provider.sort", Rule: "must be one of " + strings.Join(ProviderSorts, ", ")}
	}
	for i, q := range p.Quantizations {
		if !oneOf(q, Quantizations) {
			return &ValidationError{Field: fmt.Sprintf("provider.quantizations[%d]", i), Rule: "must be one of " + strings.Join(Quantizations, ", ")}
		}
	}
	if m := p.MaxPrice; m != nil {
		for _, f := range []struct{ name, v string }{{"prompt", m.Prompt}, {"completion", m.Completion}, {"image", m.Image}, {"audio", m.Audio}, {"request", m.Request}} {
			if f.v == "" {
				continue
			}
			r, ok := ParseDecimal(f.v)
			if !ok || r.Sign() < 0 || strings.ContainsAny(f.v, "eE") {
				return &ValidationError{Field: "provider.max_price." + f.name, Rule: "must be a plain decimal number of dollars, 0 or more (e.g. 0.5)"}
			}
		}
	}
	return nil
}

func checkNames(field string, names []string) error {
	if len(names) > MaxProviderNames {
		return &ValidationError{Field: field, Rule: fmt.Sprintf("at most %d providers (got %d)", MaxProviderNames, len(names))}
	}
	seen := map[string]bool{}
	for i, n := range names {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case strings.TrimSpace(n) == "":
			return &ValidationError{Field: f, Rule: "must not be empty"}
		case len(n) > MaxProviderName || strings.ContainsAny(n, ",\r\n\t\x00"):
			return &ValidationError{Field: f, Rule: fmt.Sprintf("must be a provider name (at most %d characters, no commas or control characters)", MaxProviderName)}
		case seen[strings.ToLower(n)]:
			return &ValidationError{Field: f, Rule: n + " appears twice"}
		}
		seen[strings.ToLower(n)] = true
	}
	return nil
}

// validateModels checks the models fallback list.
func validateModels(models []string) error {
	if len(models) > MaxFallbackModels {
		return &ValidationError{Field: "models", Rule: fmt.Sprintf("at most %d fallback models (got %d)", MaxFallbackModels, len(models))}
	}
	for i, m := range models {
		if err := ValidateModel(m); err != nil {
			return &ValidationError{Field: fmt.Sprintf("models[%d]", i), Rule: "must be <provider>/<model>, e.g. openai/gpt-4o-mini"}
		}
	}
	return nil
}

// validateDepth checks the structured-output, tool and routing members.
func (r *ResponseRequest) validateDepth() error {
	if r.Text != nil && r.Text.Format != nil {
		if err := r.Text.Format.validate(); err != nil {
			return err
		}
	}
	if err := r.validateTools(); err != nil {
		return err
	}
	if err := r.Provider.Validate(); err != nil {
		return err
	}
	return validateModels(r.Models)
}
