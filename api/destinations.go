package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Destination is an observability destination. Config is an open map:
// members of types the client does not know still list, show and edit.
type Destination struct {
	ID                                string          `json:"id"`
	WorkspaceID                       string          `json:"workspace_id"`
	Name                              *string         `json:"name"`
	Type                              string          `json:"type"`
	Enabled                           bool            `json:"enabled"`
	Config                            map[string]any  `json:"config"`
	APIKeyHashes                      []string        `json:"api_key_hashes"`
	BroadcastGenerationCost           bool            `json:"broadcast_generation_cost"`
	BroadcastGenerationCostAllocation bool            `json:"broadcast_generation_cost_allocation"`
	BroadcastGenerationIdentity       bool            `json:"broadcast_generation_identity"`
	BroadcastGenerationRequestContext bool            `json:"broadcast_generation_request_context"`
	FilterRules                       *FilterRules    `json:"filter_rules"`
	PrivacyMode                       bool            `json:"privacy_mode"`
	Regions                           []string        `json:"regions"`
	SamplingRate                      float64         `json:"sampling_rate"`
	CreatedAt                         string          `json:"created_at"`
	UpdatedAt                         string          `json:"updated_at"`
	Raw                               json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw bytes.
func (d *Destination) UnmarshalJSON(b []byte) error {
	return decodeKeeping(b, (*plainDestination)(d), &d.Raw, json.Unmarshal)
}

// MarshalJSON returns the bytes the server sent, when there are some.
func (d Destination) MarshalJSON() ([]byte, error) { return encodeKept(d.Raw, plainDestination(d)) }

// DisplayName is the name, or "unnamed".
func (d *Destination) DisplayName() string {
	if d.Name == nil || *d.Name == "" {
		return "unnamed"
	}
	return *d.Name
}

// ConfigKeys are the config member names, sorted.
func (d *Destination) ConfigKeys() []string {
	keys := make([]string, 0, len(d.Config))
	for k := range d.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FilterRules are structured filter rules.
type FilterRules struct {
	Enabled bool          `json:"enabled"`
	Groups  []FilterGroup `json:"groups"`
}

// FilterGroup is a group of rules joined by Logic (and, or).
type FilterGroup struct {
	Logic string       `json:"logic"`
	Rules []FilterRule `json:"rules"`
}

// FilterRule is one rule. Value is a string or a number, or absent.
type FilterRule struct {
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    any    `json:"value,omitempty"`
}

// Filter rule vocabularies (service-facts.md).
var (
	FilterFields = []string{"model", "provider", "session_id", "user_id", "api_key_name", "finish_reason",
		"input", "output", "total_cost", "total_tokens", "prompt_tokens", "completion_tokens"}
	FilterOperators = []string{"equals", "not_equals", "contains", "not_contains", "regex", "starts_with",
		"ends_with", "gt", "lt", "gte", "lte", "exists", "not_exists"}
	// Regions are the output region values; eu is accepted on input.
	Regions = []string{"global", "europe", "us"}
	// RegionWords lists them for help and errors, with the input alias.
	RegionWords = strings.Join(Regions, ", ") + " (eu = europe)"
	// DestinationTypes are the 17 known types; others must still work.
	DestinationTypes = []string{"arize", "braintrust", "clickhouse", "datadog", "grafana", "langfuse",
		"langsmith", "newrelic", "opik", "otel-collector", "posthog", "ramp", "s3", "sentry", "snowflake",
		"weave", "webhook"}
)

// Validate checks the rules' vocabulary.
func (f *FilterRules) Validate() error {
	for gi, g := range f.Groups {
		if g.Logic != "and" && g.Logic != "or" {
			return &ValidationError{Field: fmt.Sprintf("filter_rules.groups[%d].logic", gi), Rule: "must be and or or"}
		}
		for ri, r := range g.Rules {
			at := fmt.Sprintf("filter_rules.groups[%d].rules[%d]", gi, ri)
			if !oneOf(r.Field, FilterFields) {
				return &ValidationError{Field: at + ".field", Rule: "must be one of " + strings.Join(FilterFields, ", ")}
			}
			if !oneOf(r.Operator, FilterOperators) {
				return &ValidationError{Field: at + ".operator", Rule: "must be one of " + strings.Join(FilterOperators, ", ")}
			}
			switch v := r.Value.(type) {
			case nil, string, float64, int, json.Number:
			default:
				return &ValidationError{Field: at + ".value", Rule: fmt.Sprintf("must be a string or a number (got %T)", v)}
			}
		}
	}
	return nil
}

// IsMasked reports whether a config value is the masked form the server
// returns for secrets: first characters, an ellipsis, last characters.
func IsMasked(v string) bool {
	return strings.Contains(v, "...") || strings.Contains(v, "…") || strings.Trim(v, "*•") == "" && v != ""
}

// MaskSecret shows a secret as the service does: its first and last
// characters around an ellipsis (only the ellipsis for a short one).
func MaskSecret(v string) string {
	r := []rune(v)
	if len(r) < 12 {
		return "..."
	}
	return string(r[:4]) + "..." + string(r[len(r)-4:])
}

var secretNames = regexp.MustCompile(`(?i)(key|secret|password|token|dsn|license|auth|credential)`)

// IsSecretMember reports whether a config member holds a secret, by name
// (keys, secrets, passwords, tokens, dsn, licence keys, authorization
// headers, credentials).
func IsSecretMember(name string) bool { return secretNames.MatchString(name) }

// DestinationPage is one page of GET /observability/destinations.
type DestinationPage struct {
	Data       []Destination `json:"data"`
	TotalCount int           `json:"total_count"`
	Raw        json.RawMessage
}

// ListOptions select a page. Limit 0 means the server's default.
type ListOptions struct {
	Offset      int
	Limit       int
	WorkspaceID string
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a UUID.
func IsUUID(s string) bool { return uuidRE.MatchString(s) }

// Validate checks offset, limit and workspace against the contract.
func (o ListOptions) Validate() error {
	if o.Offset < 0 {
		return &ValidationError{Field: "offset", Rule: "must be at least 0"}
	}
	if o.Limit != 0 && (o.Limit < 1 || o.Limit > 100) {
		return &ValidationError{Field: "limit", Rule: "must be 1 to 100"}
	}
	if o.WorkspaceID != "" && !IsUUID(o.WorkspaceID) {
		return &ValidationError{Field: "workspace_id", Rule: "must be a UUID"}
	}
	return nil
}

// ListDestinations fetches one page (management key).
func (c *Client) ListDestinations(ctx context.Context, o ListOptions) (*DestinationPage, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("offset", strconv.Itoa(o.Offset))
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.WorkspaceID != "" {
		q.Set("workspace_id", o.WorkspaceID)
	}
	var page DestinationPage
	raw, err := c.call(ctx, request{method: http.MethodGet, path: "/observability/destinations", query: q, key: managementKey, limit: MaxListPageBytes, resource: "destinations"}, &page)
	if err != nil {
		return nil, err
	}
	if page.Data == nil {
		return nil, &DecodeError{Op: "GET /observability/destinations", Status: 200, Err: errors.New("no data array")}
	}
	page.Raw = raw
	return &page, nil
}

// AllDestinations walks every page from offset 0 with a Pager, yielding
// each destination once (by id). It stops at total_count and at an empty
// page; a walk that stopped early (a page without news, a bound of
// DefaultListBounds) ends by yielding a *PagingStoppedError, one during
// which total_count changed by yielding a *ListChangedError; it stops at
// the first error.
func (c *Client) AllDestinations(ctx context.Context, workspaceID string, pageSize int) iter.Seq2[Destination, error] {
	return c.WalkDestinations(ctx, workspaceID, pageSize, NewPager())
}

// WalkDestinations is AllDestinations with a Pager of the caller's (its
// bounds).
func (c *Client) WalkDestinations(ctx context.Context, workspaceID string, pageSize int, p *Pager) iter.Seq2[Destination, error] {
	if pageSize <= 0 || pageSize > 100 {
		pageSize = 100
	}
	return walk(p, func() ([]Destination, error) {
		page, err := c.ListDestinations(ctx, ListOptions{Offset: p.Offset(), Limit: pageSize, WorkspaceID: workspaceID})
		if err != nil {
			return nil, err
		}
		return p.Destinations(page), nil
	})
}

// Nullable is a PATCH member that can be omitted (the zero value), sent as
// null, or sent with a value.
type Nullable[T any] struct {
	set   bool
	null  bool
	value T
}

// Omit leaves the member out.
func Omit[T any]() Nullable[T] { return Nullable[T]{} }

// Null sends null.
func Null[T any]() Nullable[T] { return Nullable[T]{set: true, null: true} }

// Value sends v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{set: true, value: v} }

// IsSet reports whether the member is sent.
func (n Nullable[T]) IsSet() bool { return n.set }

// IsNull reports whether the member is sent as null.
func (n Nullable[T]) IsNull() bool { return n.set && n.null }

// Get returns the value (zero when omitted or null).
func (n Nullable[T]) Get() T { return n.value }

// DestinationPatch is the body of PATCH /observability/destinations/{id}:
// nil pointers and unset Nullables are omitted, so only what the user
// changed is sent.
type DestinationPatch struct {
	Name                              *string
	Enabled                           *bool
	SamplingRate                      *float64
	Regions                           []string // nil: omitted
	PrivacyMode                       *bool
	BroadcastGenerationCost           *bool
	BroadcastGenerationCostAllocation *bool
	BroadcastGenerationIdentity       *bool
	BroadcastGenerationRequestContext *bool
	APIKeyHashes                      Nullable[[]string]
	FilterRules                       Nullable[*FilterRules]
	// Config holds only the members to change. Masked values are dropped
	// before sending.
	Config map[string]any
}

// MarshalJSON writes only the members that are set.
func (p DestinationPatch) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	put := func(k string, set bool, v any) {
		if set {
			m[k] = v
		}
	}
	put("name", p.Name != nil, p.Name)
	put("enabled", p.Enabled != nil, p.Enabled)
	put("sampling_rate", p.SamplingRate != nil, p.SamplingRate)
	put("regions", p.Regions != nil, p.Regions)
	put("privacy_mode", p.PrivacyMode != nil, p.PrivacyMode)
	put("broadcast_generation_cost", p.BroadcastGenerationCost != nil, p.BroadcastGenerationCost)
	put("broadcast_generation_cost_allocation", p.BroadcastGenerationCostAllocation != nil, p.BroadcastGenerationCostAllocation)
	put("broadcast_generation_identity", p.BroadcastGenerationIdentity != nil, p.BroadcastGenerationIdentity)
	put("broadcast_generation_request_context", p.BroadcastGenerationRequestContext != nil, p.BroadcastGenerationRequestContext)
	if p.APIKeyHashes.IsSet() {
		if p.APIKeyHashes.IsNull() {
			m["api_key_hashes"] = nil
		} else {
			m["api_key_hashes"] = p.APIKeyHashes.Get()
		}
	}
	if p.FilterRules.IsSet() {
		if p.FilterRules.IsNull() || p.FilterRules.Get() == nil {
			m["filter_rules"] = nil
		} else {
			m["filter_rules"] = p.FilterRules.Get()
		}
	}
	if cfg := p.sendableConfig(); len(cfg) > 0 {
		m["config"] = cfg
	}
	return json.Marshal(m)
}

// sendableConfig is Config without masked values.
func (p DestinationPatch) sendableConfig() map[string]any {
	out := map[string]any{}
	for k, v := range p.Config {
		if s, ok := v.(string); ok && IsMasked(s) {
			continue
		}
		out[k] = v
	}
	return out
}

// Empty reports whether the patch changes nothing.
func (p DestinationPatch) Empty() bool {
	b, _ := p.MarshalJSON()
	return string(b) == "{}"
}

// NormalizeRegions maps eu to europe and drops repeats.
func NormalizeRegions(in []string) []string {
	out := make([]string, 0, len(in))
	for _, r := range in {
		r = strings.ToLower(strings.TrimSpace(r))
		if r == "eu" {
			r = "europe"
		}
		if !oneOf(r, out) {
			out = append(out, r)
		}
	}
	return out
}

// ValidateSamplingRate checks 0.0001 to 1.
func ValidateSamplingRate(v float64) error {
	if !(v >= 0.0001 && v <= 1) {
		return &ValidationError{Field: "sampling_rate", Rule: "must be 0.0001 to 1 (1 = 100%)"}
	}
	return nil
}

// ValidateRegions checks a regions list for an update.
func ValidateRegions(rs []string) error {
	if len(rs) == 0 {
		return &ValidationError{Field: "regions", Rule: "needs at least 1 of " + RegionWords + "; it cannot be cleared"}
	}
	for _, r := range rs {
		if r != "eu" && !oneOf(r, Regions) {
			return &ValidationError{Field: "regions", Rule: fmt.Sprintf("%q is not one of %s", r, RegionWords)}
		}
	}
	return nil
}

// Validate checks the patch against the contract.
func (p DestinationPatch) Validate() error {
	if p.SamplingRate != nil {
		if err := ValidateSamplingRate(*p.SamplingRate); err != nil {
			return err
		}
	}
	if p.Regions != nil {
		if err := ValidateRegions(p.Regions); err != nil {
			return err
		}
	}
	if p.APIKeyHashes.IsSet() && !p.APIKeyHashes.IsNull() {
		hs := p.APIKeyHashes.Get()
		if len(hs) == 0 {
			return &ValidationError{Field: "api_key_hashes", Rule: "needs at least 1 hash, or null for all keys"}
		}
		for _, h := range hs {
			if strings.TrimSpace(h) == "" {
				return &ValidationError{Field: "api_key_hashes", Rule: "hashes must not be empty"}
			}
		}
	}
	if p.FilterRules.IsSet() && !p.FilterRules.IsNull() && p.FilterRules.Get() != nil {
		if err := p.FilterRules.Get().Validate(); err != nil {
			return err
		}
	}
	if p.Empty() {
		return &ValidationError{Field: "patch", Rule: "changes nothing"}
	}
	return nil
}

// UpdateDestination sends the patch (management key). A 409 is retried up
// to three more times with backoff (or the Retry-After asked), within
// MaxOperationWait in all, each wait told to Options.OnWait, then returned; nothing else is retried,
// since a PATCH that may have applied must not be sent twice.
func (c *Client) UpdateDestination(ctx context.Context, id string, p DestinationPatch) (*Destination, error) {
	if id == "" {
		return nil, &ValidationError{Field: "id", Rule: "is required"}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var lastErr error
	budget := &waitBudget{op: "PATCH /observability/destinations/{id}", attempts: 4}
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			wait := 250 * time.Millisecond << (attempt - 1)
			var ae *APIError
			if errors.As(lastErr, &ae) {
				if w, asked, capped, ok := ae.Wait(); capped {
					return nil, &WaitTooLongError{Err: ae, Asked: asked}
				} else if ok {
					wait = w
				}
			}
			if err := c.wait(ctx, budget, wait, attempt+1, lastErr); err != nil {
				return nil, err
			}
		}
		var out struct {
			Data *Destination `json:"data"`
		}
		_, err := c.call(ctx, request{method: http.MethodPatch, path: "/observability/destinations/" + pathID(id), body: bytes.Clone(body), key: managementKey, limit: maxPageBytes, op: "PATCH /observability/destinations/{id}", resource: "destination"}, &out)
		if err == nil {
			if out.Data == nil {
				return nil, &DecodeError{Op: "PATCH /observability/destinations", Status: 200, Err: errors.New("no data member")}
			}
			return out.Data, nil
		}
		lastErr = err
		if StatusOf(err) != http.StatusConflict {
			return nil, err
		}
	}
	return nil, lastErr
}

// PatchBody returns the exact JSON a patch sends (for --dry-run).
func PatchBody(p DestinationPatch) ([]byte, error) { return json.Marshal(p) }
