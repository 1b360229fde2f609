package gateway

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

var words = strings.Fields(`the a gateway routes each request to an upstream provider and returns
tokens as they arrive latency depends on the model the region and the load while cost follows
input and output tokens batches run asynchronously within a completion window results stay for
thirty days observability destinations receive generation metadata sampling keeps volume low
privacy mode forwards only metadata caching lowers input cost streaming shows progress early
reasoning models think before they answer tools extend what a model can do retries must be
safe a second generation is a second charge`)

var topics = []string{"Routing", "Latency", "Batches", "Streaming", "Caching", "Observability", "Costs", "Reasoning"}

// seededRand derives a deterministic generator from a string.
func seededRand(s string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(s))
	v := h.Sum64()
	return rand.New(rand.NewPCG(v, v>>7^0xda942042e4dd58b5))
}

// genTokens makes n tokens of markdown, deterministic from seed. Each
// token carries its leading space or newline, so joining them gives the
// text.
func genTokens(seed string, n int) []string {
	r := seededRand(seed)
	toks := make([]string, 0, n)
	add := func(s string) {
		if len(toks) < n {
			toks = append(toks, s)
		}
	}
	add("## ")
	add(topics[r.IntN(len(topics))])
	add("\n\n")
	for len(toks) < n {
		switch r.IntN(6) {
		case 0: // a list
			for i := 0; i < 3 && len(toks) < n; i++ {
				add("- ")
				for j := 0; j < 4+r.IntN(5); j++ {
					add(sep(j) + words[r.IntN(len(words))])
				}
				add("\n")
			}
			add("\n")
		case 1: // a code block
			add("```go\n")
			add("resp, err := client.Stream(ctx, req)\n")
			add("```\n\n")
		default: // a paragraph
			for j := 0; j < 12+r.IntN(20) && len(toks) < n; j++ {
				w := words[r.IntN(len(words))]
				if j == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				add(sep(j) + w)
			}
			add(".\n\n")
		}
	}
	return toks
}

func sep(j int) string {
	if j == 0 {
		return ""
	}
	return " "
}

// countTokens estimates the tokens of an input text (about 4 characters a
// token, at least 1).
func countTokens(s string) int {
	n := len(s) / 4
	if n < 1 {
		n = 1
	}
	return n
}

// costOf prices a generation from the catalogue (a router is priced as
// the model it routes to, gpt-4o-mini here).
func costOf(model string, in, out int) (total, inCost, outCost float64) {
	pin, pout := priceOf(model)
	if pin < 0 || pout < 0 {
		pin, pout = priceOf("openai/gpt-4o-mini")
	}
	inCost = float64(in) * pin / 1e6
	outCost = float64(out) * pout / 1e6
	return inCost + outCost, inCost, outCost
}
