package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gwdash/gwdash/internal/atomicfile"
)

// Model is one entry of the models catalogue (GET /models). Members may
// be null or missing; unknown ones are kept in Raw.
type Model struct {
	ID            string  `json:"id"`
	CanonicalSlug string  `json:"canonical_slug"`
	Name          string  `json:"name"`
	Created       int64   `json:"created"`
	Description   *string `json:"description"`
	ContextLength *int64  `json:"context_length"`
	Architecture  *struct {
		Modality         string   `json:"modality"`
		InputModalities  []string `json:"input_modalities"`
		OutputModalities []string `json:"output_modalities"`
		Tokenizer        string   `json:"tokenizer"`
	} `json:"architecture"`
	Pricing     map[string]string `json:"pricing"`
	TopProvider *struct {
		ContextLength       *int64 `json:"context_length"`
		MaxCompletionTokens *int64 `json:"max_completion_tokens"`
		IsModerated         bool   `json:"is_moderated"`
	} `json:"top_provider"`
	PerRequestLimits    json.RawMessage `json:"per_request_limits"`
	SupportedParameters []string        `json:"supported_parameters"`
	ExpirationDate      *string         `json:"expiration_date"`
	KnowledgeCutoff     *string         `json:"knowledge_cutoff"`
}

// Price is a per-token price read from the catalogue's decimal string.
type Price struct {
	// PerMillion is dollars per million tokens.
	PerMillion float64
	// Known is false when the catalogue has no usable price.
	Known bool
	// Routed is true for a negative price: the price is that of the model
	// a router picks.
	Routed bool
}

// PriceOf reads one pricing member ("prompt", "completion", ...). The
// decimal string is read exactly ("0.0000004" is 0.4 per million, not
// 0.39999999999999997); anything but a plain decimal (a hex float, an
// exponent past ±30, more than 64 characters) is no usable price.
func (m *Model) PriceOf(kind string) Price {
	s, ok := m.Pricing[kind]
	if !ok {
		return Price{}
	}
	r, ok := ParseDecimal(s)
	if !ok {
		return Price{}
	}
	if r.Sign() < 0 {
		return Price{Known: true, Routed: true}
	}
	f, _ := new(big.Rat).Mul(r, big.NewRat(1_000_000, 1)).Float64()
	return Price{PerMillion: f, Known: true}
}

// plainDecimal is a decimal number as the catalogue writes one, with an
// optional small exponent.
var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]{1,2})?$`)

// ParseDecimal reads a decimal string exactly (surrounding spaces
// allowed). It refuses what is not a plain decimal: hex floats, NaN,
// infinities, fractions, exponents past two digits, and strings over 64
// characters (so that no server string sizes a big number).
func ParseDecimal(s string) (*big.Rat, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 64 || !plainDecimal.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// Free reports whether input and output cost nothing (or the id is a
// :free variant).
func (m *Model) Free() bool {
	if strings.HasSuffix(m.ID, ":free") {
		return true
	}
	in, out := m.PriceOf("prompt"), m.PriceOf("completion")
	return in.Known && out.Known && !in.Routed && in.PerMillion == 0 && out.PerMillion == 0
}

// Router reports whether the model's prices depend on the model a router
// picks.
func (m *Model) Router() bool {
	return m.PriceOf("prompt").Routed || m.PriceOf("completion").Routed
}

// Context is the context length, 0 when unknown.
func (m *Model) Context() int64 {
	if m.ContextLength != nil {
		return *m.ContextLength
	}
	if m.TopProvider != nil && m.TopProvider.ContextLength != nil {
		return *m.TopProvider.ContextLength
	}
	return 0
}

// MaxOutput is the most output tokens the top provider allows, 0 unknown.
func (m *Model) MaxOutput() int64 {
	if m.TopProvider != nil && m.TopProvider.MaxCompletionTokens != nil {
		return *m.TopProvider.MaxCompletionTokens
	}
	return 0
}

// Modalities is "text+image->text", or "".
func (m *Model) Modalities() string {
	if m.Architecture == nil {
		return ""
	}
	if m.Architecture.Modality != "" {
		return m.Architecture.Modality
	}
	return strings.Join(m.Architecture.InputModalities, "+") + "->" + strings.Join(m.Architecture.OutputModalities, "+")
}

// Supports reports whether the model lists a parameter. A model without a
// list supports everything as far as gwdash can tell.
func (m *Model) Supports(param string) bool {
	return m.SupportedParameters == nil || slices.Contains(m.SupportedParameters, param)
}

// Catalogue is the models catalogue.
type Catalogue struct {
	Data []Model `json:"data"`
	// Fetched is when it was read from the server.
	Fetched time.Time `json:"fetched"`
	// Total is the server's total_count (0 when not sent).
	Total int `json:"total,omitempty"`
	// Truncated is set when the server listed more than
	// MaxCatalogueModels models: Data holds the first ones.
	Truncated bool `json:"truncated,omitempty"`
}

// The catalogue's bounds: the real one lists a few hundred models in
// about a megabyte. A larger answer is refused (bytes) or cut (models),
// so that no server can make gwdash hold gigabytes for its model list.
const (
	MaxCatalogueModels = 5000
	MaxCatalogueBytes  = 16 << 20
)

// Find returns the model with the id, or nil.
func (c *Catalogue) Find(id string) *Model {
	if c == nil {
		return nil
	}
	for i := range c.Data {
		if c.Data[i].ID == id {
			return &c.Data[i]
		}
	}
	return nil
}

// Models fetches the catalogue (no key is needed), at most
// MaxCatalogueBytes of it, keeping the first MaxCatalogueModels models. A
// server without one gives a *NotOfferedError.
func (c *Client) Models(ctx context.Context) (*Catalogue, error) {
	var cat Catalogue
	_, err := c.callWith(ctx, request{method: http.MethodGet, path: "/models", noAuth: true, limit: MaxCatalogueBytes, resource: "models"},
		func(raw []byte) error { return decodeCatalogue(raw, &cat) })
	if err != nil {
		return nil, optional("GET /models", err)
	}
	cat.Fetched = time.Now()
	return &cat, nil
}

// decodeCatalogue reads {"data":[Model...],"total_count":N,...} one model
// at a time, keeping at most MaxCatalogueModels (the rest are skipped
// unread, and Truncated says so). Each model is decoded as every answer
// is; members other than data and total_count are ignored.
func decodeCatalogue(raw []byte, cat *Catalogue) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), lenient)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return errors.New("the catalogue is not a JSON object")
	}
	seen := false
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch name.String() {
		case "data":
			if dec.PeekKind() != '[' {
				return errors.New("data is not an array")
			}
			seen = true
			cat.Data = cat.Data[:0]
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != ']' {
				if len(cat.Data) >= MaxCatalogueModels {
					cat.Truncated = true
					if err := dec.SkipValue(); err != nil {
						return err
					}
					continue
				}
				v, err := dec.ReadValue()
				if err != nil {
					return err
				}
				var m Model
				if err := decode(v, &m); err != nil {
					return fmt.Errorf("model %d: %w", len(cat.Data)+1, err)
				}
				cat.Data = append(cat.Data, m)
			}
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		case "total_count":
			var n float64
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if decode(v, &n) == nil && n >= 0 && n <= 1e9 && n == float64(int(n)) {
				cat.Total = int(n)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return errors.New("data after the catalogue object")
	}
	if !seen {
		return errors.New("no data array")
	}
	return nil
}

// CatalogueMaxAge is how long a cached catalogue is used.
const CatalogueMaxAge = time.Hour

// CachedModels returns the catalogue from the cache file when it is
// younger than CatalogueMaxAge (and refresh is false), else from the
// server, writing the cache (mode 0600). The cache is a convenience: a
// failure to read or write it is not an error, and a cache file past the
// catalogue's bounds is not read. path "" disables it.
func (c *Client) CachedModels(ctx context.Context, path string, refresh bool) (*Catalogue, error) {
	if path != "" && !refresh {
		if cat := readCachedCatalogue(path); cat != nil {
			return cat, nil
		}
	}
	cat, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if b, err := json.Marshal(cat); err == nil && os.MkdirAll(filepath.Dir(path), 0o700) == nil {
			atomicfile.Write(path, b, 0o600)
		}
	}
	return cat, nil
}

// readCachedCatalogue reads a fresh cache file within the bounds, or nil.
func readCachedCatalogue(path string) *Catalogue {
	// The cache holds what was decoded: a little more than the answer. It
	// is opened without following a link, like every state file.
	b, err := atomicfile.ReadFile(path, 2*MaxCatalogueBytes)
	if err != nil {
		return nil
	}
	var cat Catalogue
	if json.Unmarshal(b, &cat) != nil || cat.Data == nil || len(cat.Data) > MaxCatalogueModels {
		return nil
	}
	if age := time.Since(cat.Fetched); age < 0 || age >= CatalogueMaxAge {
		return nil
	}
	return &cat
}

// CataloguePath is the cache file of a base URL's catalogue in dir.
func CataloguePath(dir, baseURL string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "models-"+safeFileName(baseURL)+".json")
}

func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// Search returns the models whose id or name contains every word of q
// (case-insensitive), in catalogue order.
func (c *Catalogue) Search(q string) []Model {
	words := strings.Fields(strings.ToLower(q))
	var out []Model
	for _, m := range c.Data {
		hay := strings.ToLower(m.ID + " " + m.Name)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(hay, w)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// Estimate is a cost estimate before sending, labelled as one.
type Estimate struct {
	InputTokens int
	// Input is the estimated input cost; MaxOutput the most the output
	// can cost at max_output_tokens (or the model's cap); either is
	// unknown (Known false) without a price.
	Input, MaxOutput float64
	InputKnown       bool
	MaxOutputKnown   bool
	MaxOutputTokens  int64
	Routed           bool
}

// EstimateTokens estimates the tokens of a text: about four characters a
// token, at least one.
func EstimateTokens(text string) int { return max(1, (len(text)+3)/4) }

// EstimateCost prices input text on a model, and the most its output can
// cost at maxOutput tokens (0: the model's own cap).
func EstimateCost(m *Model, input string, maxOutput int) Estimate {
	return EstimateCostChars(m, len(input), maxOutput)
}

// EstimateCostChars is EstimateCost for an input of n bytes (the whole
// request: instructions and every message), counted without joining it.
func EstimateCostChars(m *Model, n int, maxOutput int) Estimate {
	e := Estimate{InputTokens: max(1, (n+3)/4)}
	if m == nil {
		return e
	}
	in, out := m.PriceOf("prompt"), m.PriceOf("completion")
	e.Routed = in.Routed || out.Routed
	if in.Known && !in.Routed {
		e.Input, e.InputKnown = float64(e.InputTokens)*in.PerMillion/1e6, true
	}
	e.MaxOutputTokens = int64(maxOutput)
	if e.MaxOutputTokens <= 0 {
		e.MaxOutputTokens = m.MaxOutput()
	}
	if out.Known && !out.Routed && e.MaxOutputTokens > 0 {
		e.MaxOutput, e.MaxOutputKnown = float64(e.MaxOutputTokens)*out.PerMillion/1e6, true
	}
	return e
}
