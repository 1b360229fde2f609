package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// DestinationType describes one destination type: a line about it, its
// config members (required ones first), the members holding secrets and
// the values some members must take. It is declared once here and read by
// the commands, the dashboard's form and the create check.
type DestinationType struct {
	Name     string
	About    string
	Required []string
	Optional []string
	Secret   []string
	Values   map[string][]string
}

// Members are the required then the optional members, and "headers",
// which every type takes.
func (t DestinationType) Members() []string {
	out := append(append([]string(nil), t.Required...), t.Optional...)
	return append(out, "headers")
}

// IsSecret reports whether a member of this type holds a secret.
func (t DestinationType) IsSecret(member string) bool {
	if t.Name == "" {
		return IsSecretMember(member)
	}
	return slices.Contains(t.Secret, member)
}

// DestinationTypeSpecs are the 17 known types (service-facts.md).
var DestinationTypeSpecs = []DestinationType{
	{Name: "arize", About: "Arize AX: traces and evaluations for LLM apps", Required: []string{"apiKey", "spaceKey", "modelId"}, Optional: []string{"baseUrl"}, Secret: []string{"apiKey", "spaceKey"}},
	{Name: "braintrust", About: "Braintrust: logs, evals and prompt playgrounds", Required: []string{"apiKey", "projectId"}, Optional: []string{"baseUrl"}, Secret: []string{"apiKey"}},
	{Name: "clickhouse", About: "ClickHouse: generations as rows in your own table", Required: []string{"host", "database", "username", "password"}, Optional: []string{"table"}, Secret: []string{"password"}},
	{Name: "datadog", About: "Datadog LLM Observability", Required: []string{"apiKey", "mlApp"}, Optional: []string{"url"}, Secret: []string{"apiKey"}},
	{Name: "grafana", About: "Grafana Cloud: traces over OTLP", Required: []string{"apiKey", "instanceId"}, Optional: []string{"baseUrl"}, Secret: []string{"apiKey"}},
	{Name: "langfuse", About: "Langfuse: open-source tracing and evals", Required: []string{"publicKey", "secretKey"}, Optional: []string{"baseUrl"}, Secret: []string{"secretKey"}},
	{Name: "langsmith", About: "LangSmith: tracing for LangChain and beyond", Required: []string{"apiKey"}, Optional: []string{"endpoint", "project", "workspaceId"}, Secret: []string{"apiKey"}},
	{Name: "newrelic", About: "New Relic AI monitoring", Required: []string{"licenseKey"}, Optional: []string{"region"}, Secret: []string{"licenseKey"}, Values: map[string][]string{"region": {"us", "eu"}}},
	{Name: "opik", About: "Opik (Comet): tracing and evaluation", Required: []string{"apiKey", "workspace", "projectName"}, Secret: []string{"apiKey"}},
	{Name: "otel-collector", About: "Any OpenTelemetry collector (OTLP over HTTP)", Required: []string{"endpoint"}},
	{Name: "posthog", About: "PostHog LLM analytics", Required: []string{"apiKey"}, Optional: []string{"endpoint"}, Secret: []string{"apiKey"}},
	{Name: "ramp", About: "Ramp: spend tracking of AI usage", Required: []string{"apiKey"}, Optional: []string{"baseUrl"}, Secret: []string{"apiKey"}},
	{Name: "s3", About: "Amazon S3 (or compatible): one JSON object per generation", Required: []string{"bucketName", "accessKeyId", "secretAccessKey"}, Optional: []string{"pathTemplate", "prefix", "endpoint", "region", "sessionToken"}, Secret: []string{"secretAccessKey", "sessionToken"}},
	{Name: "sentry", About: "Sentry: AI agent monitoring over OTLP", Required: []string{"otlpEndpoint", "dsn"}, Secret: []string{"dsn"}},
	{Name: "snowflake", About: "Snowflake: generations into a table", Required: []string{"account", "token"}, Optional: []string{"database", "schema", "table", "warehouse"}, Secret: []string{"token"}},
	{Name: "weave", About: "Weights & Biases Weave: traces and evals", Required: []string{"apiKey", "entity", "project"}, Optional: []string{"baseUrl"}, Secret: []string{"apiKey"}},
	{Name: "webhook", About: "Any HTTP endpoint: a JSON POST (or PUT) per generation", Required: []string{"url"}, Optional: []string{"method"}, Values: map[string][]string{"method": {"POST", "PUT"}}},
}

// TypeSpec returns the known description of a type, or a generic one (no
// required members) for a type gwdash does not know.
func TypeSpec(name string) (DestinationType, bool) {
	for _, t := range DestinationTypeSpecs {
		if t.Name == name {
			return t, true
		}
	}
	return DestinationType{}, false
}

// BoolField is one boolean member of a destination, declared once for the
// commands' flags, the form, the diff and the printed views.
type BoolField struct {
	Name  string // wire name
	Flag  string // command-line flag
	Label string
	About string
	Get   func(*Destination) bool
	// Patch and Create set the member in a patch or a create body.
	Patch  func(*DestinationPatch, *bool)
	Create func(*DestinationCreate, *bool) // nil: not settable on create
}

// DestinationBools are the boolean members, in the order shown.
var DestinationBools = []BoolField{
	{Name: "enabled", Flag: "enabled", Label: "enabled", About: "forward generations",
		Get: func(d *Destination) bool { return d.Enabled }, Patch: func(p *DestinationPatch, v *bool) { p.Enabled = v }, Create: func(c *DestinationCreate, v *bool) { c.Enabled = v }},
	{Name: "privacy_mode", Flag: "privacy-mode", Label: "privacy mode", About: "on: only metadata is forwarded, no bodies",
		Get: func(d *Destination) bool { return d.PrivacyMode }, Patch: func(p *DestinationPatch, v *bool) { p.PrivacyMode = v }, Create: func(c *DestinationCreate, v *bool) { c.PrivacyMode = v }},
	{Name: "broadcast_generation_cost", Flag: "broadcast-cost", Label: "broadcast cost", About: "cost and billing metadata",
		Get: func(d *Destination) bool { return d.BroadcastGenerationCost }, Patch: func(p *DestinationPatch, v *bool) { p.BroadcastGenerationCost = v }, Create: func(c *DestinationCreate, v *bool) { c.BroadcastGenerationCost = v }},
	{Name: "broadcast_generation_cost_allocation", Flag: "broadcast-cost-allocation", Label: "cost allocation", About: "per-token-kind cost allocation (beta)",
		Get: func(d *Destination) bool { return d.BroadcastGenerationCostAllocation }, Patch: func(p *DestinationPatch, v *bool) { p.BroadcastGenerationCostAllocation = v }},
	{Name: "broadcast_generation_identity", Flag: "broadcast-identity", Label: "broadcast identity", About: "identity metadata",
		Get: func(d *Destination) bool { return d.BroadcastGenerationIdentity }, Patch: func(p *DestinationPatch, v *bool) { p.BroadcastGenerationIdentity = v }, Create: func(c *DestinationCreate, v *bool) { c.BroadcastGenerationIdentity = v }},
	{Name: "broadcast_generation_request_context", Flag: "broadcast-request-context", Label: "request context", About: "request-context metadata",
		Get: func(d *Destination) bool { return d.BroadcastGenerationRequestContext }, Patch: func(p *DestinationPatch, v *bool) { p.BroadcastGenerationRequestContext = v }, Create: func(c *DestinationCreate, v *bool) { c.BroadcastGenerationRequestContext = v }},
}

// NewDestinationDefaults is what a new destination starts as, in the
// dashboard's create form and in dest create alike: enabled, every
// generation sampled, the other switches off. Both send these values
// explicitly, so the server's own defaults never decide.
func NewDestinationDefaults() Destination { return Destination{Enabled: true, SamplingRate: 1} }

// DestinationCreate is the body of POST /observability/destinations.
type DestinationCreate struct {
	Type        string
	Name        string
	Config      map[string]any
	WorkspaceID string
	Enabled     *bool
	PrivacyMode *bool
	// SamplingRate nil: the server's default.
	SamplingRate *float64
	// APIKeyHashes nil: all keys.
	APIKeyHashes []string
	FilterRules  *FilterRules

	BroadcastGenerationCost           *bool
	BroadcastGenerationIdentity       *bool
	BroadcastGenerationRequestContext *bool
}

// MarshalJSON writes the members that are set.
func (c DestinationCreate) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": c.Type, "name": c.Name, "config": c.Config}
	if c.Config == nil {
		m["config"] = map[string]any{}
	}
	put := func(k string, v any, set bool) {
		if set {
			m[k] = v
		}
	}
	put("workspace_id", c.WorkspaceID, c.WorkspaceID != "")
	put("enabled", c.Enabled, c.Enabled != nil)
	put("privacy_mode", c.PrivacyMode, c.PrivacyMode != nil)
	put("sampling_rate", c.SamplingRate, c.SamplingRate != nil)
	put("api_key_hashes", c.APIKeyHashes, c.APIKeyHashes != nil)
	put("filter_rules", c.FilterRules, c.FilterRules != nil)
	put("broadcast_generation_cost", c.BroadcastGenerationCost, c.BroadcastGenerationCost != nil)
	put("broadcast_generation_identity", c.BroadcastGenerationIdentity, c.BroadcastGenerationIdentity != nil)
	put("broadcast_generation_request_context", c.BroadcastGenerationRequestContext, c.BroadcastGenerationRequestContext != nil)
	return json.Marshal(m)
}

// FieldErrors is every problem of an input at once, each naming its
// field: the dashboard puts each beside its field, a command names them
// all on one line.
type FieldErrors []*ValidationError

func (fe FieldErrors) Error() string {
	parts := make([]string, len(fe))
	for i, e := range fe {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// As lets errors.As find a *ValidationError (the first), so that callers
// treat the whole as input refused before sending.
func (fe FieldErrors) As(target any) bool {
	if t, ok := target.(**ValidationError); ok && len(fe) > 0 {
		*t = fe[0]
		return true
	}
	return false
}

// Field returns the error of one field, or nil.
func (fe FieldErrors) Field(name string) *ValidationError {
	for _, e := range fe {
		if e.Field == name {
			return e
		}
	}
	return nil
}

// Validate checks a create body before sending: type and name present,
// every required config member of a known type present (all named), the
// values some members must take, no masked values, and the common fields'
// rules.
func (c DestinationCreate) Validate() error {
	var fe FieldErrors
	add := func(field, rule string) { fe = append(fe, &ValidationError{Field: field, Rule: rule}) }
	if !destTypeName.MatchString(c.Type) {
		add("type", "is required: one of "+strings.Join(typeNames(), ", ")+" (or a newer type the server knows)")
	}
	if strings.TrimSpace(c.Name) == "" {
		add("name", "is required")
	}
	if spec, ok := TypeSpec(c.Type); ok {
		for _, m := range spec.Required {
			if v, ok := c.Config[m]; !ok || strings.TrimSpace(fmt.Sprint(v)) == "" {
				add("config."+m, "is required for "+c.Type)
			}
		}
		for m, allowed := range spec.Values {
			if v, ok := c.Config[m]; ok && !slices.Contains(allowed, fmt.Sprint(v)) {
				add("config."+m, "must be one of "+strings.Join(allowed, ", "))
			}
		}
	}
	keys := make([]string, 0, len(c.Config))
	for k := range c.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s, ok := c.Config[k].(string); ok && IsMasked(s) {
			add("config."+k, "looks like a masked value; give the real one")
		}
	}
	if c.Type == "webhook" {
		fe = append(fe, CheckWebhookConfig(c.Config)...)
	}
	if c.WorkspaceID != "" && !IsUUID(c.WorkspaceID) {
		add("workspace_id", "must be a UUID")
	}
	if c.SamplingRate != nil {
		if err := ValidateSamplingRate(*c.SamplingRate); err != nil {
			add("sampling_rate", err.(*ValidationError).Rule)
		}
	}
	if c.APIKeyHashes != nil && len(c.APIKeyHashes) == 0 {
		add("api_key_hashes", "needs at least 1 hash, or leave it out for all keys")
	}
	if c.FilterRules != nil {
		if err := c.FilterRules.Validate(); err != nil {
			var ve *ValidationError
			errors.As(err, &ve)
			fe = append(fe, ve)
		}
	}
	if len(fe) > 0 {
		return fe
	}
	return nil
}

// CheckWebhookConfig checks a webhook's config members that are given,
// before anything is sent: url an http or https URL with a host, headers
// a JSON object whose values are strings.
func CheckWebhookConfig(cfg map[string]any) FieldErrors {
	var fe FieldErrors
	if v, ok := cfg["url"]; ok {
		s, _ := v.(string)
		u, err := url.Parse(strings.TrimSpace(s))
		if s != "" && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			fe = append(fe, &ValidationError{Field: "config.url", Rule: "must be an http or https URL with a host, like https://hooks.example.com/gw"})
		}
	}
	if v, ok := cfg["headers"]; ok && v != nil {
		if s, isString := v.(string); isString { // as typed: it must hold the object
			if json.Unmarshal([]byte(s), &v) != nil {
				v = s
			}
		}
		obj, isObject := v.(map[string]any)
		bad := !isObject
		for _, x := range obj {
			if _, ok := x.(string); !ok {
				bad = true
			}
		}
		if bad {
			fe = append(fe, &ValidationError{Field: "config.headers", Rule: `must be a JSON object of strings, like {"X-Team": "infra"}`})
		}
	}
	return fe
}

var destTypeName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

func typeNames() []string {
	out := make([]string, len(DestinationTypeSpecs))
	for i, t := range DestinationTypeSpecs {
		out[i] = t.Name
	}
	return out
}

// CreateDestination creates a destination (management key) and returns it
// as the server has it (secrets masked). It is never retried.
func (c *Client) CreateDestination(ctx context.Context, d DestinationCreate) (*Destination, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	created, _, err := callData[Destination](ctx, c, request{method: http.MethodPost, path: "/observability/destinations", body: body, key: managementKey, limit: maxPageBytes, resource: "destinations"}, http.StatusCreated)
	return created, err
}

// GetDestination reads one destination (management key).
func (c *Client) GetDestination(ctx context.Context, id string) (*Destination, error) {
	if err := checkDestinationID(id); err != nil {
		return nil, err
	}
	d, _, err := callData[Destination](ctx, c, request{method: http.MethodGet, path: "/observability/destinations/" + pathID(id), key: managementKey, limit: maxPageBytes,
		op: "GET /observability/destinations/{id}", resource: "destination"}, http.StatusOK)
	return d, err
}

// DeleteDestination deletes a destination (a soft delete: it answers 404
// afterwards). It is never retried.
func (c *Client) DeleteDestination(ctx context.Context, id string) error {
	if err := checkDestinationID(id); err != nil {
		return err
	}
	var out map[string]json.RawMessage
	_, err := c.call(ctx, request{method: http.MethodDelete, path: "/observability/destinations/" + pathID(id), key: managementKey,
		op: "DELETE /observability/destinations/{id}", resource: "destination"}, &out)
	return err
}

func checkDestinationID(id string) error {
	if id == "" {
		return &ValidationError{Field: "id", Rule: "is required"}
	}
	return nil
}

// FieldChange is one member that differs between two versions of a
// destination, rendered for people (secrets as the server masks them).
type FieldChange struct {
	Field string
	A, B  string
}

// DestinationValues renders every member of a destination by field name
// (secrets as the server masks them), for side-by-side views.
func DestinationValues(d *Destination) map[string]string {
	m := map[string]string{
		"name":           derefStr(d.Name),
		"sampling_rate":  fmt.Sprint(d.SamplingRate),
		"regions":        strings.Join(d.Regions, ","),
		"api_key_hashes": hashesText(d.APIKeyHashes),
		"filter_rules":   jsonText(d.FilterRules),
		"updated_at":     d.UpdatedAt,
	}
	for _, f := range DestinationBools {
		m[f.Name] = fmt.Sprint(f.Get(d))
	}
	for k, v := range d.Config {
		m["config."+k] = jsonText(v)
	}
	return m
}

// destinationFieldOrder is the order fields are shown in.
func destinationFieldOrder(vals ...map[string]string) []string {
	order := []string{"name", "sampling_rate", "regions"}
	for _, f := range DestinationBools {
		order = append(order, f.Name)
	}
	order = append(order, "api_key_hashes", "filter_rules")
	var cfg []string
	seen := map[string]bool{}
	for _, v := range vals {
		for k := range v {
			if strings.HasPrefix(k, "config.") && !seen[k] {
				seen[k] = true
				cfg = append(cfg, k)
			}
		}
	}
	sort.Strings(cfg)
	return append(append(order, cfg...), "updated_at")
}

// DiffDestinations lists the members that differ between a and b:
// updated_at, the common fields, the booleans and each config member.
func DiffDestinations(a, b *Destination) []FieldChange {
	va, vb := DestinationValues(a), DestinationValues(b)
	var out []FieldChange
	for _, f := range destinationFieldOrder(va, vb) {
		x, y := orNone(va[f]), orNone(vb[f])
		if x != y {
			out = append(out, FieldChange{Field: f, A: x, B: y})
		}
	}
	return out
}

// ConflictRow is one row of a three-way view: as loaded, on the server
// now, and what the user's change sends ("" when it leaves it).
type ConflictRow struct {
	Field, Loaded, Now, Yours string
}

// ConflictRows lists, for a change about to be applied on a destination
// that changed on the server, every field that changed there or that the
// change sends.
func ConflictRows(loaded, now *Destination, p DestinationPatch) []ConflictRow {
	vl, vn := DestinationValues(loaded), DestinationValues(now)
	yours := PatchValues(p)
	var out []ConflictRow
	for _, f := range destinationFieldOrder(vl, vn, yours) {
		y, mine := yours[f]
		if orNone(vl[f]) == orNone(vn[f]) && !mine {
			continue
		}
		out = append(out, ConflictRow{Field: f, Loaded: orNone(vl[f]), Now: orNone(vn[f]), Yours: y})
	}
	return out
}

// PatchValues renders what a patch sends, by field (a new secret as
// "(new value)").
func PatchValues(p DestinationPatch) map[string]string {
	out := map[string]string{}
	var m map[string]json.RawMessage
	body, _ := json.Marshal(p)
	json.Unmarshal(body, &m)
	for k, v := range m {
		if k != "config" {
			s := string(v)
			var str string
			if json.Unmarshal(v, &str) == nil {
				s = str
			}
			if k == "api_key_hashes" && s == "null" {
				s = "all keys"
			}
			out[k] = s
			continue
		}
		var cfg map[string]json.RawMessage
		json.Unmarshal(v, &cfg)
		for ck, cv := range cfg {
			if IsSecretMember(ck) {
				out["config."+ck] = "(new value)"
			} else {
				out["config."+ck] = string(cv)
			}
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func derefStr(p *string) string {
	if p == nil {
		return "(null)"
	}
	return *p
}

func hashesText(hs []string) string {
	if hs == nil {
		return "all keys"
	}
	return strings.Join(hs, ",")
}

func jsonText(v any) string {
	if v == nil {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	if string(b) == "null" {
		return "(none)"
	}
	return string(b)
}
