package ui

// A logged request sent again: reopened in the playground with its model,
// settings and history, ready to edit and send (r), or with the compare
// picker open to re-race it (c); or copied as a curl command (y).

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// replayMsg asks the shell to reopen a logged request in the playground.
type replayMsg struct {
	req     api.ResponseRequest
	entry   reqlog.Entry
	compare bool
}

// loadReplay puts a logged request in the playground: its model, its
// settings, its history as finished turns, and its prompt in the prompt
// box (focused, nothing sent). compare opens the picker to re-race it.
func (p *playground) loadReplay(msg replayMsg) tea.Cmd {
	if p.running() {
		return say("an answer is still streaming: esc stops it, then r again")
	}
	req := msg.req
	p.newChat()
	p.replayOf = msg.entry.ID // the next send replays it (the log links the two)
	p.model = req.Model
	p.loadSettings(req)
	now := p.c.now()
	var msgs []api.InputMessage
	if req.Input.Messages != nil {
		msgs = req.Input.Messages
	} else {
		msgs = []api.InputMessage{{Role: "user", Content: req.Input.Text}}
	}
	prompt := ""
	if n := len(msgs); n > 0 && msgs[n-1].Role == "user" {
		prompt, msgs = msgs[n-1].Content, msgs[:n-1]
	}
	for i := 0; i < len(msgs); i++ {
		if msgs[i].Role != "user" {
			continue
		}
		t := newTurn(msgs[i].Content, req.Model, p.contentWidth(), now)
		o := api.Outcome{State: api.EndCompleted, Model: req.Model, Started: now, Ended: now}
		if i+1 < len(msgs) && msgs[i+1].Role == "assistant" {
			o.FinalText = msgs[i+1].Content
			i++
		}
		t.end(o)
		p.turns = append(p.turns, t)
	}
	p.savedTurns = len(p.turns)
	p.prompt.SetValue(prompt)
	what := fmt.Sprintf("request %d reopened", msg.entry.ID)
	if msg.compare {
		return tea.Batch(say(what+": pick the models to race it against, then enter"), p.openPicker(true))
	}
	p.setMode(playTyping)
	return tea.Batch(say(what+": edit and send with enter"), p.prompt.Focus())
}

// loadSettings fills the settings form from a request (what the form
// holds; the rest of the request is not carried over).
func (p *playground) loadSettings(req api.ResponseRequest) {
	f := newSettingsForm()
	f.load(req)
	p.settings = f
}

// curlCommand is a logged request as a curl command: the key is the
// environment variable, never its value.
func curlCommand(base string, e reqlog.Entry) (string, error) {
	req, err := reqlog.ReplayRequest(e)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("the logged request cannot be written as JSON")
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	m["stream"] = json.RawMessage(strconv.FormatBool(e.Streamed))
	m["store"] = json.RawMessage("false")
	body, _ := json.Marshal(m)
	if base == "" {
		base = "https://$GWDASH_HOST/api/v1"
	}
	flags := "-sS"
	if e.Streamed {
		flags += " -N"
	}
	return fmt.Sprintf("curl %s %s \\\n  -H \"Authorization: Bearer $GWDASH_API_KEY\" \\\n  -H 'Content-Type: application/json' \\\n  -d %s",
		flags, shellQuote(strings.TrimRight(base, "/")+"/responses"), shellQuote(string(body))), nil
}

// shellQuote quotes for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
