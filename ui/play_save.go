package ui

// Saving the conversation, or the comparison, as one JSON file (never a
// key: the client's keys are not reachable from here), to a path the user
// confirms; the notice names the absolute path.

import (
	"encoding/json"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/atomicfile"
)

type savedMsg struct {
	what  string
	path  string
	turns int   // the conversation's turns saved
	first *turn // the first compared answer saved (a comparison)
	err   error
}

// savedTurn is one answer as saved.
type savedTurn struct {
	Prompt          string             `json:"prompt"`
	Model           string             `json:"model"`
	Status          string             `json:"status"`
	Message         string             `json:"message,omitempty"`
	Answer          string             `json:"answer"`
	Reasoning       string             `json:"reasoning,omitempty"`
	Refusal         string             `json:"refusal,omitempty"`
	Usage           *api.ResponseUsage `json:"usage,omitempty"`
	Cost            *float64           `json:"cost,omitempty"`
	TTFTMS          *int64             `json:"ttft_ms,omitempty"`
	TokensPerSecond *float64           `json:"tokens_per_second,omitempty"`
	GenerationID    string             `json:"generation_id,omitempty"`
	Generation      *api.Generation    `json:"generation,omitempty"`
}

func saveTurn(t *turn) savedTurn {
	o := t.out
	st := savedTurn{Prompt: t.prompt, Model: t.model, Status: string(o.State), Answer: t.answer.Text(), Reasoning: t.reasoning.Text(),
		Refusal: t.refusal.Text(), Usage: o.Usage(), Cost: o.Cost(), GenerationID: o.GenerationID, Generation: t.gen}
	if !o.OK() {
		st.Message = o.Message()
	}
	if ttft := o.TTFT(); ttft > 0 && o.Streamed {
		ms := ttft.Milliseconds()
		st.TTFTMS = &ms
	}
	if tps, ok := o.TokensPerSecond(); ok {
		st.TokensPerSecond = &tps
	}
	return st
}

func (p *playground) startSave() tea.Cmd {
	what := "conversation"
	if p.cmp != nil {
		what = "comparison"
	}
	if len(p.turns) == 0 && (p.cmp == nil || p.cmp.panes[0].turn == nil) {
		return say("nothing to save yet")
	}
	if p.running() {
		// a save now would count the answer still arriving as kept
		return say("an answer is still streaming: w saves once it ends (esc stops it)")
	}
	name := "gwdash-" + what + "-" + p.c.now().Format("20060102-150405") + ".json"
	sp := newPathPrompt(p.c, "save to › ", filepath.Join(p.c.opts.ExportDir, name), "typing where to save", "nothing saved")
	p.stack.push(sp)
	return sp.focus()
}

// saveTo writes the file (mode 0600) in a command.
func (p *playground) saveTo(path string) tea.Cmd {
	out := struct {
		SavedAt  time.Time         `json:"saved_at"`
		Gateway  string            `json:"gateway"`
		Settings map[string]string `json:"settings"`
		Prompt   string            `json:"prompt,omitempty"`
		Turns    []savedTurn       `json:"turns,omitempty"`
		Models   []savedTurn       `json:"models,omitempty"`
	}{SavedAt: p.c.now().UTC(), Settings: settingsMap(p.settings)}
	if p.c.client != nil {
		out.Gateway = p.c.client.Host()
	}
	what := "conversation"
	var first *turn
	if p.cmp != nil {
		what = "comparison"
		first = p.cmp.panes[0].turn
		out.Prompt = p.cmp.prompt
		for _, pn := range p.cmp.panes {
			if pn.turn != nil {
				out.Models = append(out.Models, saveTurn(pn.turn))
			}
		}
	} else {
		for _, t := range p.turns {
			out.Turns = append(out.Turns, saveTurn(t))
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fail("save failed: " + err.Error())
	}
	return func() tea.Msg {
		abs, err := filepath.Abs(path)
		if err == nil {
			err = atomicfile.Write(abs, data, 0o600)
		}
		return savedMsg{what: what, path: abs, turns: len(out.Turns), first: first, err: err}
	}
}
