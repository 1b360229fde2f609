package retry

import (
	"encoding/json"
	"math"
	"math/big"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// Estimate is what a retry may cost at catalogue prices, labelled as an
// estimate: input tokens from the bodies' length (about four characters
// a token), output tokens at the parent's average per succeeded row (or,
// without one, at most the bodies' max tokens or the model's cap).
type Estimate struct {
	Known        bool    `json:"known"`
	Cost         float64 `json:"cost"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	// AtMost: the output is priced at its cap, not at an average.
	AtMost bool `json:"at_most"`
	// Why says why the cost is unknown.
	Why string `json:"why,omitempty"`
}

// String is "about $0.0123 (≈1,234 input and ≈5,678 output tokens)".
func (e Estimate) String() string {
	tokens := "≈" + format.Int(int(min(e.InputTokens, math.MaxInt32))) + " input and ≈" + format.Int(int(min(e.OutputTokens, math.MaxInt32))) + " output tokens"
	if e.AtMost {
		tokens = "≈" + format.Int(int(min(e.InputTokens, math.MaxInt32))) + " input and at most " + format.Int(int(min(e.OutputTokens, math.MaxInt32))) + " output tokens"
	}
	if !e.Known {
		return "unknown: " + e.Why + " (" + tokens + ")"
	}
	word := "about "
	if e.AtMost {
		word = "at most "
	}
	return word + format.Cost(e.Cost) + " (" + tokens + ")"
}

// maxTokenMembers are the body members that cap a request's output.
var maxTokenMembers = []string{"max_completion_tokens", "max_tokens", "max_output_tokens"}

// Price estimates the plan's cost on a model of the catalogue (nil: the
// model is not in it). Prices are read as exact decimals and multiplied
// as such; only the total becomes a float.
func (p *Plan) Price(m *api.Model) {
	e := Estimate{}
	for _, r := range p.Requests {
		e.InputTokens += int64(max(1, (len(r.Body)+3)/4))
	}
	if p.completionAvg > 0 {
		e.OutputTokens = int64(math.Ceil(p.completionAvg * float64(len(p.Requests))))
	} else {
		e.AtMost = true
		var capModel int64
		if m != nil {
			capModel = m.MaxOutput()
		}
		for _, r := range p.Requests {
			n := bodyMaxTokens(r.Body)
			if n <= 0 {
				n = capModel
			}
			e.OutputTokens += n
		}
	}
	switch {
	case m == nil:
		e.Why = "the model is not in the catalogue"
	default:
		in, okIn := price(m, "prompt")
		out, okOut := price(m, "completion")
		switch {
		case !okIn || !okOut:
			e.Why = "the catalogue has no price for the model"
		case in.Sign() < 0 || out.Sign() < 0:
			e.Why = "the price is that of the model a router picks"
		default:
			total := new(big.Rat).Mul(in, new(big.Rat).SetInt64(e.InputTokens))
			total.Add(total, new(big.Rat).Mul(out, new(big.Rat).SetInt64(e.OutputTokens)))
			e.Cost, _ = total.Float64()
			e.Known = true
		}
	}
	p.Estimate = e
}

func price(m *api.Model, kind string) (*big.Rat, bool) {
	s, ok := m.Pricing[kind]
	if !ok {
		return nil, false
	}
	return api.ParseDecimal(s)
}

// bodyMaxTokens is the output cap a body asks for (0: none).
func bodyMaxTokens(body json.RawMessage) int64 {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return 0
	}
	for _, k := range maxTokenMembers {
		var n int64
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &n) == nil && n > 0 {
			return min(n, 1<<40)
		}
	}
	return 0
}
