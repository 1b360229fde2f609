package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Workspaces of the seeded destinations. The first is the default.
const (
	DefaultWorkspace = "6f1c2a8e-3b7d-4e29-9a51-0c8d7e6f5a41"
	SecondWorkspace  = "b2e4d6f8-1a3c-4e5f-8a7b-9c0d1e2f3a4b"
	// BrokenWorkspace answers 500 on GET, to make that row reachable.
	BrokenWorkspace = "00000000-0000-4000-8000-000000000500"
)

// Names of destinations with scripted behaviour.
const (
	ConflictDestination = "conflict-once"  // 409 on its first PATCH
	BrokenDestination   = "broken-webhook" // 500 on every PATCH
)

type destination struct {
	ID, WorkspaceID   string
	Name              *string
	Type              string
	Enabled           bool
	Config            map[string]any // secrets stored whole
	APIKeyHashes      []string
	BCost, BAlloc     bool
	BIdentity, BReqCx bool
	FilterRules       json.RawMessage
	PrivacyMode       bool
	Regions           []string
	SamplingRate      float64
	Created, Updated  time.Time
	stable            bool
	conflicts         int
	broken            bool
	deleted           bool
}

type destStore struct {
	g     *Gateway
	mu    sync.Mutex
	list  []*destination
	byID  map[string]*destination
	idSeq uint64
}

// configFor builds a realistic config of a type; secrets are whole here.
func configFor(typ string, i int) map[string]any {
	s := func(prefix string) string { return fmt.Sprintf("%s%04d%s", prefix, i, strings.Repeat("x7Kq", 6)) }
	switch typ {
	case "langfuse":
		return map[string]any{"baseUrl": "https://cloud.langfuse.com", "publicKey": fmt.Sprintf("pk-lf-%04d", i), "secretKey": s("sk-lf-")}
	case "datadog":
		return map[string]any{"apiKey": s("dd"), "mlApp": "gateway-prod", "url": "https://api.datadoghq.eu"}
	case "braintrust":
		return map[string]any{"apiKey": s("bt-"), "baseUrl": "https://api.braintrust.dev", "projectId": fmt.Sprintf("proj_%d", i)}
	case "langsmith":
		return map[string]any{"apiKey": s("lsv2_"), "endpoint": "https://api.smith.langchain.com", "project": "routing"}
	case "webhook":
		return map[string]any{"url": fmt.Sprintf("https://hooks.example.com/gw/%d", i), "method": "POST", "headers": map[string]any{"X-Team": "infra"}}
	case "s3":
		return map[string]any{"accessKeyId": fmt.Sprintf("AKIA%012d", i), "secretAccessKey": s("s3s"), "bucketName": "gw-traces",
			"pathTemplate": "{date}/{generation_id}.json", "prefix": "prod/", "region": "eu-west-1"}
	case "posthog":
		return map[string]any{"apiKey": s("phc_"), "endpoint": "https://eu.posthog.com"}
	case "sentry":
		return map[string]any{"dsn": "https://" + s("") + "@o1.ingest.sentry.io/42", "otlpEndpoint": "https://o1.ingest.sentry.io/otlp"}
	case "otel-collector":
		return map[string]any{"endpoint": fmt.Sprintf("https://otel-%d.internal.example:4318", i)}
	case "newrelic":
		return map[string]any{"licenseKey": s("NRAK-"), "region": "eu"}
	case "grafana":
		return map[string]any{"apiKey": s("glc_"), "baseUrl": "https://otlp-gateway-prod-eu-west-2.grafana.net", "instanceId": strconv.Itoa(100000 + i)}
	case "clickhouse":
		return map[string]any{"host": "https://ch.example.com:8443", "database": "gw", "table": "generations", "username": "gw_writer", "password": s("ch")}
	case "opik":
		return map[string]any{"apiKey": s("opik-"), "projectName": "gateway", "workspace": "infra"}
	case "weave":
		return map[string]any{"apiKey": s("wv-"), "baseUrl": "https://trace.wandb.ai", "entity": "infra", "project": "gateway"}
	case "arize":
		return map[string]any{"apiKey": s("ak-"), "baseUrl": "https://otlp.arize.com", "modelId": "gateway", "spaceKey": s("space")}
	case "snowflake":
		return map[string]any{"account": "xy12345.eu-central-1", "database": "GW", "schema": "PUBLIC", "table": "GENERATIONS", "token": s("sf"), "warehouse": "COMPUTE_WH"}
	case "ramp":
		return map[string]any{"apiKey": s("ramp_"), "baseUrl": "https://api.ramp.com"}
	}
	return map[string]any{"endpoint": "https://example.com/ingest", "token": s("tok")}
}

var destTypes = []string{"langfuse", "datadog", "braintrust", "langsmith", "webhook", "s3", "posthog", "sentry", "otel-collector",
	"newrelic", "grafana", "clickhouse", "opik", "weave", "arize", "snowflake", "ramp"}

func newDestStore(g *Gateway) *destStore {
	s := &destStore{g: g, byID: map[string]*destination{}}
	envs := []string{"prod", "staging", "dev", "eu", "batch"}
	base := g.start.Add(-60 * 24 * time.Hour)
	for i := 0; i < 34; i++ {
		typ := destTypes[i%len(destTypes)]
		ws := DefaultWorkspace
		if i%6 == 5 {
			ws = SecondWorkspace
		}
		name := fmt.Sprintf("%s-%s", envs[i%len(envs)], typ)
		d := &destination{WorkspaceID: ws, Name: &name, Type: typ, Enabled: i%4 != 3, Config: configFor(typ, i),
			BCost: i%2 == 0, BAlloc: i%5 == 0, BIdentity: i%3 == 0, BReqCx: i%4 == 0, PrivacyMode: i%3 != 1,
			Regions: [][]string{{"global"}, {"europe"}, {"us"}, {"europe", "us"}}[i%4], SamplingRate: []float64{1, 0.5, 0.1, 0.01, 0.25}[i%5],
			Created: base.Add(time.Duration(i) * 37 * time.Hour), stable: true}
		d.Updated = d.Created.Add(time.Duration(i%7) * time.Hour)
		if i%5 == 2 {
			d.APIKeyHashes = []string{fmt.Sprintf("%064x", i*7919), fmt.Sprintf("%064x", i*104729)}
		}
		if i%7 == 1 {
			d.FilterRules = json.RawMessage(`{"enabled":true,"groups":[{"logic":"and","rules":[{"field":"model","operator":"starts_with","value":"openai/"},{"field":"total_cost","operator":"gt","value":0.01}]}]}`)
		}
		if i == 9 {
			d.Name = nil // names can be null
		}
		s.add(d)
	}
	conflict := ConflictDestination
	s.add(&destination{WorkspaceID: DefaultWorkspace, Name: &conflict, Type: "langfuse", Enabled: true, Config: configFor("langfuse", 90),
		PrivacyMode: true, Regions: []string{"global"}, SamplingRate: 1, Created: base, Updated: base, stable: true, conflicts: 1})
	broken := BrokenDestination
	s.add(&destination{WorkspaceID: DefaultWorkspace, Name: &broken, Type: "webhook", Enabled: false, Config: configFor("webhook", 91),
		PrivacyMode: true, Regions: []string{"us"}, SamplingRate: 0.5, Created: base, Updated: base, stable: true, broken: true})
	future := "acme-future"
	s.add(&destination{WorkspaceID: DefaultWorkspace, Name: &future, Type: "acme-traces", Enabled: true,
		Config:  map[string]any{"collectorUrl": "https://ingest.acme.example/v2", "ingestToken": "acme_tok_" + strings.Repeat("k9", 10), "batchSize": 50},
		Regions: []string{"global"}, SamplingRate: 0.5, Created: base, Updated: base, stable: true})
	beta := "beta-tracer"
	s.add(&destination{WorkspaceID: DefaultWorkspace, Name: &beta, Type: "future-tracer", Enabled: true, Config: map[string]any{"endpoint": "https://beta.example"},
		Regions: []string{"global"}, SamplingRate: 1, Created: base, Updated: base, stable: false})
	return s
}

func (s *destStore) add(d *destination) {
	s.idSeq++
	r := seededRand(fmt.Sprintf("dest-%d", s.idSeq))
	d.ID = fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, 0x8000|r.Uint32()&0x3fff, r.Uint64()&0xffffffffffff)
	s.list = append(s.list, d)
	s.byID[d.ID] = d
}

// DestinationID returns the id of a seeded destination by name.
func (g *Gateway) DestinationID(name string) string {
	g.dests.mu.Lock()
	defer g.dests.mu.Unlock()
	for _, d := range g.dests.list {
		if d.Name != nil && *d.Name == name {
			return d.ID
		}
	}
	return ""
}

// DestinationSecret returns a config member as stored (unmasked), for
// tests that check what a PATCH changed.
func (g *Gateway) DestinationSecret(id, member string) any {
	g.dests.mu.Lock()
	defer g.dests.mu.Unlock()
	if d := g.dests.byID[id]; d != nil {
		return d.Config[member]
	}
	return nil
}

// DestinationEnabled reports a destination's stored enabled flag.
func (g *Gateway) DestinationEnabled(id string) bool {
	g.dests.mu.Lock()
	defer g.dests.mu.Unlock()
	if d := g.dests.byID[id]; d != nil {
		return d.Enabled
	}
	return false
}

var secretMember = regexp.MustCompile(`(?i)(key|secret|password|token|dsn)`)

func isSecret(member string) bool {
	return secretMember.MatchString(member) && !strings.EqualFold(member, "publicKey") && !strings.EqualFold(member, "accessKeyId")
}

// mask keeps the first and last characters around an ellipsis.
func mask(v string) string {
	n := len(v)
	switch {
	case n >= 16:
		return v[:6] + "..." + v[n-4:]
	case n >= 6:
		return v[:2] + "..." + v[n-2:]
	}
	return "..."
}

func looksMasked(v string) bool { return strings.Contains(v, "...") || strings.Contains(v, "…") }

func (d *destination) wire() map[string]any {
	cfg := map[string]any{}
	for k, v := range d.Config {
		if s, ok := v.(string); ok && isSecret(k) {
			v = mask(s)
		}
		cfg[k] = v
	}
	var hashes any
	if d.APIKeyHashes != nil {
		hashes = d.APIKeyHashes
	}
	var rules any
	if len(d.FilterRules) > 0 {
		rules = d.FilterRules
	}
	var name any
	if d.Name != nil {
		name = *d.Name
	}
	return map[string]any{
		"id": d.ID, "workspace_id": d.WorkspaceID, "name": name, "type": d.Type, "enabled": d.Enabled, "config": cfg,
		"api_key_hashes": hashes, "broadcast_generation_cost": d.BCost, "broadcast_generation_cost_allocation": d.BAlloc,
		"broadcast_generation_identity": d.BIdentity, "broadcast_generation_request_context": d.BReqCx,
		"filter_rules": rules, "privacy_mode": d.PrivacyMode, "regions": d.Regions, "sampling_rate": d.SamplingRate,
		"created_at": d.Created.UTC().Format(time.RFC3339), "updated_at": d.Updated.UTC().Format(time.RFC3339),
	}
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (g *Gateway) listDestinations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, limit := 0, 20
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			badRequest(w, "offset: must be an integer of at least 0")
			return
		}
		offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			badRequest(w, "limit: must be an integer from 1 to 100")
			return
		}
		limit = n
	}
	ws := DefaultWorkspace
	if v := q.Get("workspace_id"); v != "" {
		if !uuidPattern.MatchString(v) {
			badRequest(w, "workspace_id: must be a UUID")
			return
		}
		ws = v
	}
	if ws == BrokenWorkspace {
		writeError(w, http.StatusInternalServerError, "Internal error while listing destinations")
		return
	}
	s := g.dests
	s.mu.Lock()
	var match []*destination
	for _, d := range s.list {
		if d.WorkspaceID == ws && d.stable && !d.deleted {
			match = append(match, d)
		}
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].Created.Before(match[j].Created) })
	data := []any{}
	for i := offset; i < len(match) && i < offset+limit; i++ {
		data = append(data, match[i].wire())
	}
	total := len(match)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "total_count": total})
}

var patchFields = map[string]bool{"api_key_hashes": true, "broadcast_generation_cost": true, "broadcast_generation_cost_allocation": true,
	"broadcast_generation_identity": true, "broadcast_generation_request_context": true, "config": true, "enabled": true,
	"filter_rules": true, "name": true, "privacy_mode": true, "regions": true, "sampling_rate": true}

var (
	filterFields = map[string]bool{"model": true, "provider": true, "session_id": true, "user_id": true, "api_key_name": true, "finish_reason": true,
		"input": true, "output": true, "total_cost": true, "total_tokens": true, "prompt_tokens": true, "completion_tokens": true}
	filterOps = map[string]bool{"equals": true, "not_equals": true, "contains": true, "not_contains": true, "regex": true, "starts_with": true,
		"ends_with": true, "gt": true, "lt": true, "gte": true, "lte": true, "exists": true, "not_exists": true}
)

func (g *Gateway) patchDestination(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body == nil {
		badRequest(w, "Invalid request parameters: body must be a JSON object")
		return
	}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !patchFields[k] {
			badRequest(w, "Invalid request parameters: unknown field "+k)
			return
		}
	}
	s := g.dests
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.visible(w, id)
	if d == nil {
		return
	}
	if d.broken {
		writeError(w, http.StatusInternalServerError, "Internal error while updating the destination")
		return
	}
	if d.conflicts > 0 {
		d.conflicts--
		writeError(w, http.StatusConflict, "Destination is being modified by another request; retry later")
		return
	}
	next := *d
	next.Config = map[string]any{}
	for k, v := range d.Config {
		next.Config[k] = v
	}
	if msg := applyPatch(&next, body); msg != "" {
		badRequest(w, "Invalid request parameters: "+msg)
		return
	}
	next.Updated = g.now()
	*d = next
	writeJSON(w, http.StatusOK, map[string]any{"data": d.wire()})
}

// applyPatch applies body to d, or returns the message of a 400 naming the
// invalid field.
func applyPatch(d *destination, body map[string]json.RawMessage) string {
	boolField := func(k string, dst *bool) string {
		if v, ok := body[k]; ok {
			if json.Unmarshal(v, dst) != nil || string(v) == "null" {
				return k + " must be a boolean"
			}
		}
		return ""
	}
	for k, dst := range map[string]*bool{"enabled": &d.Enabled, "privacy_mode": &d.PrivacyMode, "broadcast_generation_cost": &d.BCost,
		"broadcast_generation_cost_allocation": &d.BAlloc, "broadcast_generation_identity": &d.BIdentity, "broadcast_generation_request_context": &d.BReqCx} {
		if m := boolField(k, dst); m != "" {
			return m
		}
	}
	if v, ok := body["name"]; ok {
		var n string
		if json.Unmarshal(v, &n) != nil || string(v) == "null" {
			return "name must be a string"
		}
		d.Name = &n
	}
	if v, ok := body["sampling_rate"]; ok {
		var f float64
		if json.Unmarshal(v, &f) != nil || string(v) == "null" || f < 0.0001 || f > 1 {
			return "sampling_rate must be a number from 0.0001 to 1"
		}
		d.SamplingRate = f
	}
	if v, ok := body["regions"]; ok {
		var rs []string
		if json.Unmarshal(v, &rs) != nil || len(rs) == 0 {
			return "regions must hold at least 1 of " + strings.Join(Regions, ", ") + " (eu)"
		}
		out := []string{}
		for _, r := range rs {
			if r == "eu" {
				r = "europe"
			}
			if !slices.Contains(Regions, r) {
				return "regions: " + strconv.Quote(r) + " is not one of " + strings.Join(Regions, ", ") + ", eu"
			}
			dup := false
			for _, o := range out {
				dup = dup || o == r
			}
			if !dup {
				out = append(out, r)
			}
		}
		d.Regions = out
	}
	if v, ok := body["api_key_hashes"]; ok {
		if string(v) == "null" {
			d.APIKeyHashes = nil
		} else {
			var hs []string
			if json.Unmarshal(v, &hs) != nil || len(hs) == 0 {
				return "api_key_hashes must be null or hold at least 1 hash"
			}
			d.APIKeyHashes = hs
		}
	}
	if v, ok := body["filter_rules"]; ok {
		if string(v) == "null" {
			d.FilterRules = nil
		} else if m := validFilterRules(v); m != "" {
			return m
		} else {
			d.FilterRules = append(json.RawMessage(nil), v...)
		}
	}
	if v, ok := body["config"]; ok {
		var cfg map[string]any
		if json.Unmarshal(v, &cfg) != nil || cfg == nil {
			return "config must be an object"
		}
		for k, val := range cfg {
			if s, ok := val.(string); ok && looksMasked(s) {
				continue // masked values sent back are ignored
			}
			if val == nil {
				continue
			}
			d.Config[k] = val
		}
	}
	return ""
}

func validFilterRules(v json.RawMessage) string {
	var fr struct {
		Enabled *bool `json:"enabled"`
		Groups  []struct {
			Logic string `json:"logic"`
			Rules []struct {
				Field    string `json:"field"`
				Operator string `json:"operator"`
				Value    any    `json:"value"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if json.Unmarshal(v, &fr) != nil {
		return "filter_rules must be an object with enabled and groups"
	}
	for i, g := range fr.Groups {
		if g.Logic != "and" && g.Logic != "or" {
			return fmt.Sprintf("filter_rules.groups[%d].logic must be and or or", i)
		}
		for j, rule := range g.Rules {
			if !filterFields[rule.Field] {
				return fmt.Sprintf("filter_rules.groups[%d].rules[%d].field %q is not a known field", i, j, rule.Field)
			}
			if !filterOps[rule.Operator] {
				return fmt.Sprintf("filter_rules.groups[%d].rules[%d].operator %q is not a known operator", i, j, rule.Operator)
			}
			switch rule.Value.(type) {
			case nil, string, float64:
			default:
				return fmt.Sprintf("filter_rules.groups[%d].rules[%d].value must be a string or a number", i, j)
			}
		}
	}
	return ""
}

// typeSpec is the gateway's own reading of a destination type: its
// required and optional config members, and the values some must take.
type typeSpec struct {
	required, optional []string
	values             map[string][]string
}

var typeSpecs = map[string]typeSpec{
	"arize":          {required: []string{"apiKey", "spaceKey", "modelId"}, optional: []string{"baseUrl"}},
	"braintrust":     {required: []string{"apiKey", "projectId"}, optional: []string{"baseUrl"}},
	"clickhouse":     {required: []string{"host", "database", "username", "password"}, optional: []string{"table"}},
	"datadog":        {required: []string{"apiKey", "mlApp"}, optional: []string{"url"}},
	"grafana":        {required: []string{"apiKey", "instanceId"}, optional: []string{"baseUrl"}},
	"langfuse":       {required: []string{"publicKey", "secretKey"}, optional: []string{"baseUrl"}},
	"langsmith":      {required: []string{"apiKey"}, optional: []string{"endpoint", "project", "workspaceId"}},
	"newrelic":       {required: []string{"licenseKey"}, optional: []string{"region"}, values: map[string][]string{"region": {"us", "eu"}}},
	"opik":           {required: []string{"apiKey", "workspace", "projectName"}},
	"otel-collector": {required: []string{"endpoint"}},
	"posthog":        {required: []string{"apiKey"}, optional: []string{"endpoint"}},
	"ramp":           {required: []string{"apiKey"}, optional: []string{"baseUrl"}},
	"s3":             {required: []string{"bucketName", "accessKeyId", "secretAccessKey"}, optional: []string{"pathTemplate", "prefix", "endpoint", "region", "sessionToken"}},
	"sentry":         {required: []string{"otlpEndpoint", "dsn"}},
	"snowflake":      {required: []string{"account", "token"}, optional: []string{"database", "schema", "table", "warehouse"}},
	"weave":          {required: []string{"apiKey", "entity", "project"}, optional: []string{"baseUrl"}},
	"webhook":        {required: []string{"url"}, optional: []string{"method"}, values: map[string][]string{"method": {"POST", "PUT"}}},
}

// maxPerType is how many destinations of one type a workspace may hold.
const maxPerType = 5

var typeName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

// createDestination answers POST /observability/destinations.
func (g *Gateway) createDestination(w http.ResponseWriter, r *http.Request) {
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body == nil {
		badRequest(w, "Invalid request parameters: body must be a JSON object")
		return
	}
	var typ, name, ws string
	for k, dst := range map[string]*string{"type": &typ, "name": &name, "workspace_id": &ws} {
		if v, ok := body[k]; ok && json.Unmarshal(v, dst) != nil {
			badRequest(w, "Invalid request parameters: "+k+" must be a string")
			return
		}
	}
	switch {
	case typ == "":
		badRequest(w, "Invalid request parameters: type is required")
		return
	case !typeName.MatchString(typ):
		badRequest(w, "Invalid request parameters: type "+strconv.Quote(typ)+" is not a destination type")
		return
	case strings.TrimSpace(name) == "":
		badRequest(w, "Invalid request parameters: name is required")
		return
	case body["config"] == nil:
		badRequest(w, "Invalid request parameters: config is required")
		return
	}
	if ws == "" {
		ws = DefaultWorkspace
	} else if !uuidPattern.MatchString(ws) {
		badRequest(w, "Invalid request parameters: workspace_id must be a UUID")
		return
	}
	var cfg map[string]any
	if json.Unmarshal(body["config"], &cfg) != nil || cfg == nil {
		badRequest(w, "Invalid request parameters: config must be an object")
		return
	}
	if spec, known := typeSpecs[typ]; known {
		var missing []string
		for _, m := range spec.required {
			if v, ok := cfg[m].(string); !ok || strings.TrimSpace(v) == "" {
				missing = append(missing, "config."+m)
			}
		}
		if len(missing) > 0 {
			badRequest(w, "Invalid request parameters: "+strings.Join(missing, ", ")+" required for type "+typ)
			return
		}
		for m, allowed := range spec.values {
			if v, ok := cfg[m]; ok && !slices.Contains(allowed, fmt.Sprint(v)) {
				badRequest(w, fmt.Sprintf("Invalid request parameters: config.%s must be one of %s", m, strings.Join(allowed, ", ")))
				return
			}
		}
	}
	for k, v := range cfg {
		if s, ok := v.(string); ok && looksMasked(s) {
			badRequest(w, "Invalid request parameters: config."+k+" looks masked; send the real value")
			return
		}
	}
	d := &destination{WorkspaceID: ws, Name: &name, Type: typ, Config: cfg, Regions: []string{"global"}, SamplingRate: 1, stable: true}
	next := *d
	delete(body, "type")
	delete(body, "workspace_id")
	delete(body, "config")
	for k := range body {
		if !patchFields[k] {
			badRequest(w, "Invalid request parameters: unknown field "+k)
			return
		}
	}
	if msg := applyPatch(&next, body); msg != "" {
		badRequest(w, "Invalid request parameters: "+msg)
		return
	}
	next.Config = cfg
	s := g.dests
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.list {
		if o.WorkspaceID == ws && o.Type == typ && !o.deleted {
			n++
		}
	}
	if n >= maxPerType {
		badRequest(w, fmt.Sprintf("Invalid request parameters: a workspace holds at most %d destinations of type %s", maxPerType, typ))
		return
	}
	now := g.now()
	next.Created, next.Updated = now, now
	s.add(&next)
	writeJSON(w, http.StatusCreated, map[string]any{"data": next.wire()})
}

// visible is the destination id as a client may see it (created, not
// deleted), or nil after answering 404. s.mu is held.
func (s *destStore) visible(w http.ResponseWriter, id string) *destination {
	d := s.byID[id]
	if d == nil || !d.stable || d.deleted {
		writeError(w, http.StatusNotFound, "Destination not found")
		return nil
	}
	return d
}

// withVisible runs do on the destination named in the path, under the
// store's lock, or answers 404.
func (g *Gateway) withVisible(w http.ResponseWriter, r *http.Request, do func(*destination)) {
	s := g.dests
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.visible(w, r.PathValue("id")); d != nil {
		do(d)
	}
}

// getDestination answers GET /observability/destinations/{id}.
func (g *Gateway) getDestination(w http.ResponseWriter, r *http.Request) {
	g.withVisible(w, r, func(d *destination) {
		writeJSON(w, http.StatusOK, map[string]any{"data": d.wire()})
	})
}

// deleteDestination answers DELETE /observability/destinations/{id}: a
// soft delete, after which it answers 404 and leaves the list.
func (g *Gateway) deleteDestination(w http.ResponseWriter, r *http.Request) {
	g.withVisible(w, r, func(d *destination) {
		d.deleted = true
		d.Updated = g.now()
		writeJSON(w, http.StatusOK, map[string]any{"deleted": true})
	})
}

// EditDestination changes a destination as another user would (tests of
// concurrent edits).
func (g *Gateway) EditDestination(id string, edit func(name *string, samplingRate *float64)) {
	s := g.dests
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.byID[id]; d != nil {
		n := ""
		if d.Name != nil {
			n = *d.Name
		}
		edit(&n, &d.SamplingRate)
		d.Name = &n
		d.Updated = g.now().Add(time.Second)
	}
}

// Regions are the data regions the service knows (a destination's
// regions, a key's allowed_data_regions), as it answers them; "eu" is
// accepted on input for "europe". The client's list (api.Regions) must
// agree: TestRegionsAgreeWithTheClient.
var Regions = []string{"global", "europe", "us"}
