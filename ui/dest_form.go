package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

type fieldKind int

const (
	fieldText fieldKind = iota
	fieldBool
	fieldRegions
	fieldKeys
	fieldConfig
	fieldRules
)

// formField is one editable member of a destination.
type formField struct {
	name   string // PATCH member (config members: "config.<member>")
	label  string
	rule   string
	kind   fieldKind
	input  textinput.Model
	on     bool             // fieldBool, and "all keys" for fieldKeys
	picks  map[string]bool  // fieldRegions
	pick   int              // focused option of fieldRegions
	secret bool             // a masked config member
	masked string           // the masked value the server sent
	rules  *api.FilterRules // fieldRules: the edited rules (nil = none)
	err    string           // validation or server message
}

// destForm edits one destination; it keeps the user's edits after any
// failure.
type destForm struct {
	orig    api.Destination
	fields  []*formField
	editor  *rulesEditor // open while filter rules are edited
	idx     int
	review  bool
	sending bool
	patch   api.DestinationPatch
}

var regionOrder = []string{"global", "europe", "us"}

// knownLabels label config members of known types; other types get a
// generic editor of whatever members they have.
var knownLabels = map[string]map[string]string{
	"langfuse": {"baseUrl": "Base URL", "publicKey": "Public key", "secretKey": "Secret key"},
	"datadog":  {"apiKey": "API key", "mlApp": "ML app", "url": "Site URL"},
	"webhook":  {"url": "URL", "method": "HTTP method", "headers": "Headers (JSON)"},
	"s3":       {"accessKeyId": "Access key id", "secretAccessKey": "Secret access key", "bucketName": "Bucket", "pathTemplate": "Path template", "prefix": "Prefix", "region": "Region", "endpoint": "Endpoint", "sessionToken": "Session token"},
}

func newDestForm(d api.Destination) *destForm {
	f := &destForm{orig: d}
	text := func(name, label, rule, value string) *formField {
		return &formField{name: name, label: label, rule: rule, kind: fieldText, input: newInput("", "", 2048, value)}
	}
	boolean := func(name, label, rule string, v bool) *formField {
		return &formField{name: name, label: label, rule: rule, kind: fieldBool, on: v}
	}
	name := ""
	if d.Name != nil {
		name = *d.Name
	}
	f.fields = append(f.fields,
		text("name", "name", "any text", name),
		boolean("enabled", "enabled", "space toggles", d.Enabled),
		text("sampling_rate", "sampling rate", "0.0001 to 1 (or 0.01% to 100%)", strconv.FormatFloat(d.SamplingRate, 'f', -1, 64)),
	)
	picks := map[string]bool{}
	for _, r := range api.NormalizeRegions(d.Regions) {
		picks[r] = true
	}
	f.fields = append(f.fields, &formField{name: "regions", label: "regions", rule: "←/→ choose, space toggles; at least one", kind: fieldRegions, picks: picks},
		boolean("privacy_mode", "privacy mode", "on: only metadata is forwarded", d.PrivacyMode),
		boolean("broadcast_generation_cost", "broadcast cost", "cost and billing metadata", d.BroadcastGenerationCost),
		boolean("broadcast_generation_cost_allocation", "cost allocation", "per-token-kind allocation (beta)", d.BroadcastGenerationCostAllocation),
		boolean("broadcast_generation_identity", "broadcast identity", "identity metadata", d.BroadcastGenerationIdentity),
		boolean("broadcast_generation_request_context", "request context", "request-context metadata", d.BroadcastGenerationRequestContext),
	)
	keys := text("api_key_hashes", "key allowlist", "space: all keys ↔ list; list = comma-separated hashes, ≥1", strings.Join(d.APIKeyHashes, ", "))
	keys.kind, keys.on = fieldKeys, d.APIKeyHashes == nil
	rules := &formField{name: "filter_rules", label: "filter rules", rule: "enter edits the groups of rules", kind: fieldRules, rules: d.FilterRules}
	f.fields = append(f.fields, keys, rules)
	labels := knownLabels[d.Type]
	for _, k := range d.ConfigKeys() {
		v := d.Config[k]
		label := k
		if l, ok := labels[k]; ok {
			label = l
		}
		ff := text("config."+k, label, "config member", "")
		switch val := v.(type) {
		case string:
			if api.IsMasked(val) {
				ff.secret, ff.masked = true, val
				ff.input.Placeholder = val + " (unchanged; type to replace)"
				ff.rule = "secret: stays untouched unless you type a new value"
			} else {
				ff.input.SetValue(val)
			}
		default:
			b, _ := json.Marshal(val)
			ff.input.SetValue(string(b))
			ff.rule = "JSON value"
		}
		ff.kind = fieldConfig
		f.fields = append(f.fields, ff)
	}
	f.focus()
	return f
}

func (f *destForm) current() *formField { return f.fields[f.idx] }

func (f *destForm) focus() {
	for i, fl := range f.fields {
		if i == f.idx && (fl.kind == fieldText || fl.kind == fieldConfig || fl.kind == fieldKeys && !fl.on) {
			fl.input.Focus()
		} else {
			fl.input.Blur()
		}
	}
}

func (f *destForm) move(d int) {
	f.idx = (f.idx + d + len(f.fields)) % len(f.fields)
	f.focus()
}

// key handles a key in the form; it reports whether the key was used.
func (f *destForm) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	fl := f.current()
	if f.editor != nil {
		cmd, done := f.editor.key(msg)
		if done {
			fl.rules, f.editor = f.editor.rules(), nil
			f.validate()
		}
		return cmd, true
	}
	switch fl.kind {
	case fieldRules:
		if msg.Type == tea.KeyEnter {
			f.editor = newRulesEditor(fl.rules)
			return nil, true
		}
		return nil, false
	case fieldBool:
		if msg.String() == " " || msg.Type == tea.KeySpace {
			fl.on = !fl.on
			return nil, true
		}
		return nil, false
	case fieldRegions:
		switch msg.Type {
		case tea.KeyLeft:
			fl.pick = (fl.pick + len(regionOrder) - 1) % len(regionOrder)
			return nil, true
		case tea.KeyRight:
			fl.pick = (fl.pick + 1) % len(regionOrder)
			return nil, true
		case tea.KeySpace:
			r := regionOrder[fl.pick]
			fl.picks[r] = !fl.picks[r]
			f.validate()
			return nil, true
		}
		return nil, false
	case fieldKeys:
		if msg.Type == tea.KeySpace && (fl.on || fl.input.Value() == "") {
			fl.on = !fl.on
			f.focus()
			f.validate()
			return nil, true
		}
		if fl.on {
			return nil, false
		}
	}
	var cmd tea.Cmd
	fl.input, cmd = fl.input.Update(msg)
	f.validate()
	return cmd, true
}

func (f *destForm) field(name string) *formField {
	for _, fl := range f.fields {
		if fl.name == name {
			return fl
		}
	}
	return nil
}

// build turns the form into a patch of only the changed fields; each
// invalid field gets its error and the first error is returned.
func (f *destForm) build() (api.DestinationPatch, error) {
	var p api.DestinationPatch
	var first error
	fail := func(fl *formField, msg string) {
		fl.err = msg
		if first == nil {
			first = &api.ValidationError{Field: fl.name, Rule: msg}
		}
	}
	for _, fl := range f.fields {
		fl.err = ""
	}
	o := f.orig
	if fl := f.field("name"); fl.input.Value() != deref(o.Name, "") {
		v := fl.input.Value()
		p.Name = &v
	}
	bools := []struct {
		name string
		orig bool
		dst  **bool
	}{
		{"enabled", o.Enabled, &p.Enabled}, {"privacy_mode", o.PrivacyMode, &p.PrivacyMode},
		{"broadcast_generation_cost", o.BroadcastGenerationCost, &p.BroadcastGenerationCost},
		{"broadcast_generation_cost_allocation", o.BroadcastGenerationCostAllocation, &p.BroadcastGenerationCostAllocation},
		{"broadcast_generation_identity", o.BroadcastGenerationIdentity, &p.BroadcastGenerationIdentity},
		{"broadcast_generation_request_context", o.BroadcastGenerationRequestContext, &p.BroadcastGenerationRequestContext},
	}
	for _, b := range bools {
		if v := f.field(b.name).on; v != b.orig {
			*b.dst = &v
		}
	}
	if fl := f.field("sampling_rate"); strings.TrimSpace(fl.input.Value()) != strconv.FormatFloat(o.SamplingRate, 'f', -1, 64) {
		raw := strings.TrimSpace(fl.input.Value())
		v, err := strconv.ParseFloat(strings.TrimSuffix(raw, "%"), 64)
		if strings.HasSuffix(raw, "%") {
			v /= 100
		}
		if err != nil {
			fail(fl, "must be a number from 0.0001 to 1")
		} else if verr := api.ValidateSamplingRate(v); verr != nil {
			fail(fl, "must be 0.0001 to 1 (1 = 100%)")
		} else if v != o.SamplingRate {
			p.SamplingRate = &v
		}
	}
	if fl := f.field("regions"); true {
		var rs []string
		for _, r := range regionOrder {
			if fl.picks[r] {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			fail(fl, "pick at least one region: it cannot be cleared")
		} else if strings.Join(rs, ",") != strings.Join(sortedRegions(o.Regions), ",") {
			p.Regions = rs
		}
	}
	if fl := f.field("api_key_hashes"); true {
		hs := format.SplitList(fl.input.Value())
		switch {
		case fl.on && o.APIKeyHashes != nil:
			p.APIKeyHashes = api.Null[[]string]()
		case !fl.on && len(hs) == 0:
			fail(fl, "list at least one hash, or switch to all keys (space)")
		case !fl.on && strings.Join(hs, ",") != strings.Join(o.APIKeyHashes, ","):
			p.APIKeyHashes = api.Value(hs)
		}
	}
	if fl := f.field("filter_rules"); rulesToText(fl.rules) != rulesToText(o.FilterRules) {
		switch {
		case fl.rules == nil:
			p.FilterRules = api.Null[*api.FilterRules]()
		default:
			if verr := fl.rules.Validate(); verr != nil {
				fail(fl, verr.Error())
			} else {
				p.FilterRules = api.Value(fl.rules)
			}
		}
	}
	for _, fl := range f.fields {
		if fl.kind != fieldConfig {
			continue
		}
		member := strings.TrimPrefix(fl.name, "config.")
		val := fl.input.Value()
		if fl.secret {
			if val == "" {
				continue // untouched secret: never sent
			}
			if api.IsMasked(val) {
				fail(fl, "type the real value, not a masked one")
				continue
			}
		} else if orig, ok := o.Config[member].(string); ok && val == orig {
			continue
		}
		var v any = val
		if _, isString := o.Config[member].(string); !isString && !fl.secret {
			var j any
			if err := json.Unmarshal([]byte(val), &j); err != nil {
				fail(fl, "must be valid JSON")
				continue
			}
			origJSON, _ := json.Marshal(o.Config[member])
			newJSON, _ := json.Marshal(j)
			if string(origJSON) == string(newJSON) {
				continue
			}
			v = j
		}
		if p.Config == nil {
			p.Config = map[string]any{}
		}
		p.Config[member] = v
	}
	return p, first
}

func (f *destForm) validate() { f.build() }

func sortedRegions(rs []string) []string {
	n := api.NormalizeRegions(rs)
	var out []string
	for _, r := range regionOrder {
		if slices.Contains(n, r) {
			out = append(out, r)
		}
	}
	return out
}

// rulesToText renders filter rules on one line, as the form and the diff
// show them: "and: model starts_with openai/, total_cost gt 0.01; or: …";
// a disabled set starts with "off:". Equal rules render equally, so it also
// tells whether the rules changed.
func rulesToText(fr *api.FilterRules) string {
	if fr == nil {
		return ""
	}
	var groups []string
	for _, g := range fr.Groups {
		var rules []string
		for _, r := range g.Rules {
			s := r.Field + " " + r.Operator
			if r.Value != nil {
				s += " " + fmt.Sprint(r.Value)
			}
			rules = append(rules, s)
		}
		groups = append(groups, g.Logic+": "+strings.Join(rules, ", "))
	}
	s := strings.Join(groups, "; ")
	if !fr.Enabled {
		s = "off: " + s
	}
	return s
}

// diffLines shows exactly what the patch sends: old -> new, secrets as
// "changed".
func (f *destForm) diffLines(s Styles, p api.DestinationPatch) []string {
	o := f.orig
	var out []string
	add := func(name, old, new string) {
		out = append(out, fmt.Sprintf("%s %s %s %s", s.Label.Render(fmt.Sprintf("%-38s", name)), s.Error.Render(textsafe.Line(old)), s.Muted.Render("→"), s.Success.Render(textsafe.Line(new))))
	}
	if p.Name != nil {
		add("name", deref(o.Name, "(none)"), *p.Name)
	}
	bools := []struct {
		name string
		old  bool
		new  *bool
	}{
		{"enabled", o.Enabled, p.Enabled}, {"privacy_mode", o.PrivacyMode, p.PrivacyMode},
		{"broadcast_generation_cost", o.BroadcastGenerationCost, p.BroadcastGenerationCost},
		{"broadcast_generation_cost_allocation", o.BroadcastGenerationCostAllocation, p.BroadcastGenerationCostAllocation},
		{"broadcast_generation_identity", o.BroadcastGenerationIdentity, p.BroadcastGenerationIdentity},
		{"broadcast_generation_request_context", o.BroadcastGenerationRequestContext, p.BroadcastGenerationRequestContext},
	}
	for _, b := range bools {
		if b.new != nil {
			add(b.name, fmt.Sprint(b.old), fmt.Sprint(*b.new))
		}
	}
	if p.SamplingRate != nil {
		add("sampling_rate", format.Percent(o.SamplingRate), format.Percent(*p.SamplingRate))
	}
	if p.Regions != nil {
		add("regions", strings.Join(o.Regions, ","), strings.Join(p.Regions, ","))
	}
	if p.APIKeyHashes.IsSet() {
		old := "all keys"
		if o.APIKeyHashes != nil {
			old = strings.Join(o.APIKeyHashes, ",")
		}
		nw := "all keys (null)"
		if !p.APIKeyHashes.IsNull() {
			nw = strings.Join(p.APIKeyHashes.Get(), ",")
		}
		add("api_key_hashes", old, nw)
	}
	if p.FilterRules.IsSet() {
		nw := "none (null)"
		if !p.FilterRules.IsNull() {
			nw = rulesToText(p.FilterRules.Get())
		}
		add("filter_rules", orText(rulesToText(o.FilterRules), "none"), nw)
	}
	keys := make([]string, 0, len(p.Config))
	for k := range p.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ff := f.field("config." + k); ff != nil && ff.secret {
			out = append(out, fmt.Sprintf("%s %s", s.Label.Render(fmt.Sprintf("%-38s", "config."+k)), s.Warning.Render("changed (secret)")))
			continue
		}
		old, _ := json.Marshal(o.Config[k])
		nw, _ := json.Marshal(p.Config[k])
		add("config."+k, string(old), string(nw))
	}
	return out
}

// applyServerError puts a 400's message next to the field it names.
func (f *destForm) applyServerError(msg string) bool {
	for _, fl := range f.fields {
		member := strings.TrimPrefix(fl.name, "config.")
		if strings.Contains(msg, fl.name) || fl.kind == fieldConfig && strings.Contains(msg, member) {
			fl.err = textsafe.Line(msg)
			return true
		}
	}
	return false
}

func (f *destForm) view(s Styles, w, h int, readOnly bool) string {
	var lines []string
	title := s.Title.Render("Edit "+textsafe.Line(f.orig.DisplayName())) + s.Muted.Render("  "+textsafe.Line(f.orig.Type)+" · "+textsafe.Line(f.orig.ID))
	lines = append(lines, title)
	if f.review {
		p, _ := f.build()
		lines = append(lines, s.Subtle.Render("This PATCH sends only these fields:"), "")
		lines = append(lines, f.diffLines(s, p)...)
		if f.sending {
			lines = append(lines, "", s.Busy.Render("sending…"))
		} else {
			lines = append(lines, "", s.Warning.Render("y send · esc back to the form"))
		}
		return strings.Join(lines, "\n")
	}
	if f.editor != nil {
		return title + "\n" + f.editor.view(s, w, h-1)
	}
	room := max(1, h-3)
	start := max(0, min(f.idx-room/2, len(f.fields)-room))
	for i := start; i < len(f.fields) && i < start+room; i++ {
		fl := f.fields[i]
		label := fmt.Sprintf("%-20s", ansi.Truncate(fl.label, 20, "…"))
		if i == f.idx {
			label = s.Focused.Render("▸ " + label)
		} else {
			label = s.Label.Render("  " + label)
		}
		var val string
		switch fl.kind {
		case fieldBool:
			val = map[bool]string{true: s.Success.Render("[x] on"), false: s.Muted.Render("[ ] off")}[fl.on]
		case fieldRegions:
			var opts []string
			for j, r := range regionOrder {
				box := "[ ]"
				if fl.picks[r] {
					box = "[x]"
				}
				o := box + " " + r
				if i == f.idx && j == fl.pick {
					o = s.Selected.Render(o)
				}
				opts = append(opts, o)
			}
			val = strings.Join(opts, "  ")
		case fieldKeys:
			if fl.on {
				val = s.Value.Render("all keys")
			} else {
				val = fl.input.View()
			}
		case fieldRules:
			val = s.Value.Render(orText(rulesToText(fl.rules), "none (null)"))
		default:
			val = fl.input.View()
		}
		line := label + " " + val
		line = ansi.Truncate(line, max(10, w*2/3), "…")
		rule := s.Muted.Render(fl.rule)
		if fl.err != "" {
			rule = s.FieldErr.Render("✗ " + fl.err)
		}
		lines = append(lines, ansi.Truncate(line+"  "+rule, w, "…"))
	}
	foot := "tab/↑/↓ move · space toggle · ctrl+s review & save · esc close"
	if readOnly {
		foot = s.Warning.Render("read-only: changes are disabled") + " · esc close"
	}
	lines = append(lines, "", s.Muted.Render(foot))
	return strings.Join(lines, "\n")
}
