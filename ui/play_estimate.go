package ui

import "github.com/gwdash/gwdash/api"

// estimate prices the whole request the next send makes, not only the
// prompt: what the settings send as input (the instructions, a schema,
// tools: the table's Input rows), the conversation so far as
// history() sends it, and the prompt. It counts lengths, joining nothing,
// so that the model line can show it on every frame.
func (p *playground) estimate(m *api.Model, prompt string, req api.ResponseRequest) api.Estimate {
	n := p.settings.inputChars() + len(prompt)
	for _, t := range p.turns {
		if t.out.State == api.EndNoAnswer {
			continue
		}
		n += len(t.prompt)
		if t.answer != nil {
			n += int(t.answer.Size())
		}
	}
	return api.EstimateCostChars(m, n, maxOut(req))
}
