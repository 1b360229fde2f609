package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// providerPrefs is the gateway's reading of the request's provider object.
type providerPrefs struct {
	Order             []string          `json:"order"`
	Only              []string          `json:"only"`
	Ignore            []string          `json:"ignore"`
	AllowFallbacks    *bool             `json:"allow_fallbacks"`
	RequireParameters *bool             `json:"require_parameters"`
	DataCollection    *string           `json:"data_collection"`
	Zdr               *bool             `json:"zdr"`
	Sort              json.RawMessage   `json:"sort"`
	Quantizations     []string          `json:"quantizations"`
	MaxPrice          map[string]string `json:"max_price"`
}

var quantizationNames = map[string]bool{"int4": true, "int8": true, "fp4": true, "mxfp4": true, "nvfp4": true, "fp6": true, "fp8": true,
	"mxfp8": true, "fp16": true, "bf16": true, "fp32": true, "unknown": true}

// attempt is one provider tried for a request.
type attempt struct {
	model, provider string
	status          int
}

// route is where a request went: the model and provider that served it,
// and every attempt before.
type route struct {
	requested string
	served    *endpointSpec
	attempts  []attempt
	available []endpointSpec
	strategy  string
	// explicit is set when the request had provider preferences or
	// fallback models (otherwise the metadata keeps its plain form).
	explicit bool
}

func (rt *route) fallback() bool { return len(rt.attempts) > 1 }

// parseProvider reads and checks the provider object; the error names the
// member.
func parseProvider(raw json.RawMessage) (*providerPrefs, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return &providerPrefs{}, ""
	}
	var p providerPrefs
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, "provider: must be an object with order, only, ignore, allow_fallbacks, require_parameters, data_collection, sort, quantizations, max_price"
	}
	if p.DataCollection != nil && *p.DataCollection != "allow" && *p.DataCollection != "deny" {
		return nil, "provider.data_collection: must be allow or deny"
	}
	if len(p.Sort) > 0 && string(p.Sort) != "null" {
		var s string
		if json.Unmarshal(p.Sort, &s) != nil {
			var o struct {
				By string `json:"by"`
			}
			if json.Unmarshal(p.Sort, &o) != nil {
				return nil, "provider.sort: must be price, throughput, latency or exacto"
			}
			s = o.By
		}
		if !slices.Contains([]string{"price", "throughput", "latency", "exacto"}, s) {
			return nil, "provider.sort: must be price, throughput, latency or exacto"
		}
		p.Sort = json.RawMessage(`"` + s + `"`)
	}
	for _, q := range p.Quantizations {
		if !quantizationNames[q] {
			return nil, "provider.quantizations: " + q + " is not a quantization"
		}
	}
	for k, v := range p.MaxPrice {
		if f := price(v); f < 0 || (f == 0 && strings.Trim(v, "0.") != "") {
			return nil, "provider.max_price." + k + ": must be a decimal string"
		}
	}
	return &p, ""
}

func (p *providerPrefs) sortBy() string {
	var s string
	json.Unmarshal(p.Sort, &s)
	return s
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

// candidates are a model's endpoints that the preferences allow, in the
// order they are tried.
func (p *providerPrefs) candidates(model string, needs []string) []endpointSpec {
	var keep []endpointSpec
	for _, e := range endpointsOf(model) {
		switch {
		case len(p.Only) > 0 && !containsFold(p.Only, e.provider):
		case containsFold(p.Ignore, e.provider):
		case len(p.Quantizations) > 0 && !slices.Contains(p.Quantizations, orUnknown(e.quantization)):
		case p.DataCollection != nil && *p.DataCollection == "deny" && e.trainsOnData:
		case p.MaxPrice["prompt"] != "" && price(e.in) > price(p.MaxPrice["prompt"]):
		case p.MaxPrice["completion"] != "" && price(e.out) > price(p.MaxPrice["completion"]):
		case p.RequireParameters != nil && *p.RequireParameters && !supportsAll(e.params, needs):
		default:
			keep = append(keep, e)
		}
	}
	switch p.sortBy() {
	case "price":
		sort.SliceStable(keep, func(i, j int) bool {
			return price(keep[i].in)+price(keep[i].out) < price(keep[j].in)+price(keep[j].out)
		})
	case "throughput":
		sort.SliceStable(keep, func(i, j int) bool { return keep[i].throughput50 > keep[j].throughput50 })
	case "latency":
		sort.SliceStable(keep, func(i, j int) bool { return keep[i].latencyP50 < keep[j].latencyP50 })
	}
	if len(p.Order) > 0 {
		var ordered []endpointSpec
		for _, name := range p.Order {
			for _, e := range keep {
				if strings.EqualFold(e.provider, name) {
					ordered = append(ordered, e)
				}
			}
		}
		if p.AllowFallbacks == nil || *p.AllowFallbacks {
			for _, e := range keep {
				if !containsFold(p.Order, e.provider) {
					ordered = append(ordered, e)
				}
			}
		}
		keep = ordered
	} else if p.AllowFallbacks != nil && !*p.AllowFallbacks && len(keep) > 1 {
		keep = keep[:1]
	}
	return keep
}

func orUnknown(q string) string {
	if q == "" {
		return "unknown"
	}
	return q
}

func supportsAll(have, needs []string) bool {
	for _, n := range needs {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

// needsOf names the parameters a request uses that an endpoint must
// support under require_parameters.
func (q *respRequest) needsOf() []string {
	var needs []string
	if v, ok := q.raw["tools"]; ok && string(v) != "null" && string(v) != "[]" {
		needs = append(needs, "tools")
	}
	if v, ok := q.raw["tool_choice"]; ok && string(v) != "null" {
		needs = append(needs, "tool_choice")
	}
	if q.format != nil && q.format.Type == "json_schema" {
		needs = append(needs, "structured_outputs")
	}
	if q.Temperature != nil {
		needs = append(needs, "temperature")
	}
	if q.TopP != nil {
		needs = append(needs, "top_p")
	}
	return needs
}

// routeRequest picks the model and provider that serve the request,
// trying the fallback models in turn. It writes the error and returns
// false when nothing can serve it.
func (g *Gateway) routeRequest(w http.ResponseWriter, q *respRequest) bool {
	prefs, msg := parseProvider(q.raw["provider"])
	if msg != "" {
		badRequest(w, msg)
		return false
	}
	var models []string
	if v, ok := q.raw["models"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &models) != nil {
			badRequest(w, "models: must be a list of model slugs")
			return false
		}
		for _, m := range models {
			if !validModel(m) {
				badRequest(w, "models: "+m+" is not <provider>/<model>")
				return false
			}
		}
	}
	_, hasProvider := q.raw["provider"]
	rt := &route{requested: q.Model, strategy: "direct", explicit: hasProvider || len(models) > 0}
	if prefs.sortBy() != "" {
		rt.strategy = "pareto"
	}
	matched := false
	for i, model := range append([]string{q.Model}, models...) {
		if endpointsOf(model) == nil {
			if i == 0 && len(models) == 0 {
				// a model outside the catalogue is served by its namesake
				// provider, as before routing existed
				rt.served = &endpointSpec{model: &catalogModel{id: model}, provider: providerOf(model)}
				rt.attempts = append(rt.attempts, attempt{model, rt.served.provider, http.StatusOK})
				q.route = rt
				return true
			}
			continue
		}
		cands := prefs.candidates(model, q.needsOf())
		if len(cands) > 0 {
			matched = true
		}
		for _, e := range cands {
			if e.status <= -10 {
				rt.attempts = append(rt.attempts, attempt{model, e.provider, http.StatusServiceUnavailable})
				continue
			}
			rt.attempts = append(rt.attempts, attempt{model, e.provider, http.StatusOK})
			served := e
			rt.served, rt.available = &served, cands
			if model != q.Model {
				rt.strategy = "fallback"
				q.Model = model
			}
			q.route = rt
			return true
		}
	}
	if !matched {
		writeError(w, http.StatusNotFound, "No endpoints found that match the provider preferences (only, ignore, quantizations, data_collection, max_price, require_parameters) for "+q.Model)
		return false
	}
	tried := make([]string, 0, len(rt.attempts))
	for _, a := range rt.attempts {
		tried = append(tried, a.provider)
	}
	writeError(w, http.StatusServiceUnavailable, "Every provider allowed for "+q.Model+" failed ("+strings.Join(tried, ", ")+"); allow fallbacks or widen the provider preferences")
	return false
}

// metadata is openrouter_metadata for a routed request.
func (rt *route) metadata(elapsed time.Duration) map[string]any {
	avail := []any{}
	for _, e := range rt.available {
		avail = append(avail, map[string]any{"model": e.model.id, "provider": e.provider, "selected": e.provider == rt.served.provider})
	}
	if len(avail) == 0 {
		avail = append(avail, map[string]any{"model": rt.served.model.id, "provider": rt.served.provider, "selected": true})
	}
	summary := "routed to " + rt.served.provider
	if rt.fallback() {
		summary = fmt.Sprintf("routed to %s after %d failed attempt(s)", rt.served.provider, len(rt.attempts)-1)
	}
	return map[string]any{"attempt": len(rt.attempts), "strategy": rt.strategy, "requested": rt.requested, "region": "us", "is_byok": false,
		"generation_time": elapsed.Milliseconds(), "summary": summary,
		"endpoints": map[string]any{"total": len(avail), "available": avail}}
}

// tried is the generation record's provider_responses.
func (rt *route) tried(latency int64) []any {
	out := make([]any, 0, len(rt.attempts))
	for _, a := range rt.attempts {
		slug, _, _ := strings.Cut(a.model, ":")
		l := latency
		if a.status != http.StatusOK {
			l = 30
		}
		out = append(out, map[string]any{"status": a.status, "provider_name": a.provider, "latency": l, "is_byok": false,
			"endpoint_id": endpointID(slug + "@" + a.provider), "model_permaslug": slug})
	}
	return out
}

// provider names who served the request.
func (q *respRequest) provider() string {
	if q.route != nil && q.route.served != nil {
		return q.route.served.provider
	}
	return providerOf(q.Model)
}
