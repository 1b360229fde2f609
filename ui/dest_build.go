package ui

// Turning the editor's fields into a change: every field checked with
// the contract's rules and each problem placed beside its field, a
// server's field error placed the same way.

import (
	"encoding/json"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// build turns the form into the change to send; every problem is placed
// beside its field and returned.
func (e *destEditor) build() api.FieldErrors {
	var errs api.FieldErrors
	add := func(field, rule string) { errs = append(errs, &api.ValidationError{Field: field, Rule: rule}) }
	f := e.form
	get := func(n string) *widgets.Field { return f.Field(n) }
	var samplingRate *float64
	raw := strings.TrimSpace(get("sampling_rate").Value())
	if v, err := api.ParseSamplingRate(raw); err != nil {
		add("sampling_rate", err.(*api.ValidationError).Rule)
	} else {
		samplingRate = &v
	}
	var hashes api.Nullable[[]string]
	if get("api_key_hashes.mode").Choice() == keysAll {
		hashes = api.Null[[]string]()
	} else if hs, err := api.ParseKeyHashes(get("api_key_hashes").Value()); err != nil {
		add("api_key_hashes", "list at least one hash, or choose all keys")
	} else {
		hashes = api.Value(hs)
	}
	if e.rulesValue != nil {
		if err := e.rulesValue.Validate(); err != nil {
			var ve *api.ValidationError
			asErr(err, &ve)
			add("filter_rules", ve.Error())
		}
	}
	cfg := map[string]any{}
	for _, fl := range f.Fields {
		member, ok := strings.CutPrefix(fl.Name, "config.")
		if !ok {
			continue
		}
		val := fl.Value()
		if fl.Kind == widgets.KindSecret {
			if val == "" {
				continue // untouched: never sent
			}
			if api.IsMasked(val) {
				add(fl.Name, "type the real value, not a masked one")
				continue
			}
			cfg[member] = val
			continue
		}
		var current any
		if e.kind == editUpdate {
			if !f.Changed(fl.Name) {
				continue // untouched: never sent (nor re-encoded)
			}
			current = e.orig.Config[member]
		}
		if e.kind == editCreate && strings.TrimSpace(val) == "" {
			continue
		}
		v, err := api.ParseMemberValue(member, val, current)
		if err != nil {
			add(fl.Name, err.(*api.ValidationError).Rule)
			continue
		}
		cfg[member] = v
	}
	if e.kind == editCreate {
		if fl := f.Field("config"); fl != nil { // a type gwdash does not know
			var m map[string]any
			if err := json.Unmarshal([]byte(fl.Value()), &m); err != nil || m == nil {
				add("config", "must be a JSON object")
			}
			for k, v := range m {
				cfg[k] = v
			}
		}
		c := api.DestinationCreate{Type: e.typ, Name: strings.TrimSpace(get("name").Value()), Config: cfg, WorkspaceID: e.c.opts.Workspace,
			SamplingRate: samplingRate, FilterRules: e.rulesValue}
		if !hashes.IsNull() && hashes.IsSet() {
			c.APIKeyHashes = hashes.Get()
		}
		for _, b := range api.DestinationBools {
			if fl := f.Field(b.Name); fl != nil && b.Create != nil {
				on := fl.On
				b.Create(&c, &on)
			}
		}
		if verr := c.Validate(); verr != nil {
			var fe api.FieldErrors
			if asErr(verr, &fe) {
				errs = append(errs, fe...)
			}
		}
		e.create = c
		return e.place(errs)
	}
	// An update sends only what changed.
	o := e.orig
	if o.Type == "webhook" { // what is typed is checked as a create checks it
		errs = append(errs, api.CheckWebhookConfig(cfg)...)
	}
	var p api.DestinationPatch
	if v := get("name").Value(); f.Changed("name") && v != derefS(o.Name) {
		p.Name = &v
	}
	for _, b := range api.DestinationBools {
		if on := get(b.Name).On; on != b.Get(&o) {
			b.Patch(&p, &on)
		}
	}
	if samplingRate != nil && *samplingRate != o.SamplingRate {
		p.SamplingRate = samplingRate
	}
	if rs := get("regions").Picked(); len(rs) == 0 {
		add("regions", "pick at least one region: it cannot be cleared")
	} else if strings.Join(rs, ",") != strings.Join(sortedRegions(o.Regions), ",") {
		p.Regions = rs
	}
	switch {
	case hashes.IsNull() && o.APIKeyHashes != nil:
		p.APIKeyHashes = hashes
	case hashes.IsSet() && !hashes.IsNull() && strings.Join(hashes.Get(), ",") != strings.Join(o.APIKeyHashes, ","):
		p.APIKeyHashes = hashes
	}
	if rulesToText(e.rulesValue) != rulesToText(o.FilterRules) {
		if e.rulesValue == nil {
			p.FilterRules = api.Null[*api.FilterRules]()
		} else {
			p.FilterRules = api.Value(e.rulesValue)
		}
	}
	for k, v := range cfg {
		if jsonEqual(v, o.Config[k]) {
			delete(cfg, k)
		}
	}
	if len(cfg) > 0 {
		p.Config = cfg
	}
	e.patch = p
	return e.place(errs)
}

func (e *destEditor) place(errs api.FieldErrors) api.FieldErrors {
	rest := e.form.SetErrors(errs)
	for _, r := range rest {
		// an error naming no field of the form goes on the first field
		if e.form.Fields[0].Err == "" {
			e.form.Fields[0].Err = r.Error()
		}
	}
	return errs
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func derefS(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// applyServerError puts a 400's message next to the field it names.
func (e *destEditor) applyServerError(msg string) bool {
	for i, fl := range e.form.Fields {
		member := strings.TrimPrefix(fl.Name, "config.")
		if strings.Contains(msg, fl.Name) || strings.HasPrefix(fl.Name, "config.") && strings.Contains(msg, member) {
			fl.Err = textsafe.Line(msg)
			e.form.Cursor = i // the focus goes to the field the server refused
			e.form.Focus()
			return true
		}
	}
	return false
}
