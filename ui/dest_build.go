package ui

// Turning the editor's fields into a change: every field checked with
// the contract's rules and each problem placed beside its field, a
// server's field error placed the same way.

import (
	"encoding/json"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// build turns the form into the change to send; every problem is placed
// beside its field and returned.
func (e *destEditor) build() api.FieldErrors {
	var errs api.FieldErrors
	add := func(field, rule string) { errs = append(errs, &api.ValidationError{Field: field, Rule: rule}) }
	f := e.form
	get := func(n string) *formField { return f.field(n) }
	var samplingRate *float64
	raw := strings.TrimSpace(get("sampling_rate").value())
	if v, err := api.ParseSamplingRate(raw); err != nil {
		add("sampling_rate", err.(*api.ValidationError).Rule)
	} else {
		samplingRate = &v
	}
	var hashes api.Nullable[[]string]
	if get("api_key_hashes.mode").choice() == keysAll {
		hashes = api.Null[[]string]()
	} else if hs, err := api.ParseKeyHashes(get("api_key_hashes").value()); err != nil {
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
	for _, fl := range f.fields {
		member, ok := strings.CutPrefix(fl.name, "config.")
		if !ok {
			continue
		}
		val := fl.value()
		if fl.kind == fieldSecret {
			if val == "" {
				continue // untouched: never sent
			}
			if api.IsMasked(val) {
				add(fl.name, "type the real value, not a masked one")
				continue
			}
			cfg[member] = val
			continue
		}
		var current any
		if e.kind == editUpdate {
			if !f.changed(fl.name) {
				continue // untouched: never sent (nor re-encoded)
			}
			current = e.orig.Config[member]
		}
		if e.kind == editCreate && strings.TrimSpace(val) == "" {
			continue
		}
		v, err := api.ParseMemberValue(member, val, current)
		if err != nil {
			add(fl.name, err.(*api.ValidationError).Rule)
			continue
		}
		cfg[member] = v
	}
	if e.kind == editCreate {
		if fl := f.field("config"); fl != nil { // a type gwdash does not know
			var m map[string]any
			if err := json.Unmarshal([]byte(fl.value()), &m); err != nil || m == nil {
				add("config", "must be a JSON object")
			}
			for k, v := range m {
				cfg[k] = v
			}
		}
		c := api.DestinationCreate{Type: e.typ, Name: strings.TrimSpace(get("name").value()), Config: cfg, WorkspaceID: e.c.opts.Workspace,
			SamplingRate: samplingRate, FilterRules: e.rulesValue}
		if !hashes.IsNull() && hashes.IsSet() {
			c.APIKeyHashes = hashes.Get()
		}
		for _, b := range api.DestinationBools {
			if fl := f.field(b.Name); fl != nil && b.Create != nil {
				on := fl.on
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
	if v := get("name").value(); f.changed("name") && v != derefS(o.Name) {
		p.Name = &v
	}
	for _, b := range api.DestinationBools {
		if on := get(b.Name).on; on != b.Get(&o) {
			b.Patch(&p, &on)
		}
	}
	if samplingRate != nil && *samplingRate != o.SamplingRate {
		p.SamplingRate = samplingRate
	}
	if rs := get("regions").picked(); len(rs) == 0 {
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
	rest := e.form.setErrors(errs)
	for _, r := range rest {
		// an error naming no field of the form goes on the first field
		if e.form.fields[0].err == "" {
			e.form.fields[0].err = r.Error()
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
	for i, fl := range e.form.fields {
		member := strings.TrimPrefix(fl.name, "config.")
		if strings.Contains(msg, fl.name) || strings.HasPrefix(fl.name, "config.") && strings.Contains(msg, member) {
			fl.err = textsafe.Line(msg)
			e.form.idx = i // the focus goes to the field the server refused
			e.form.focus()
			return true
		}
	}
	return false
}
