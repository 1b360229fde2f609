package ui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// pathInput asks for a file path: tab completes it from the file system
// (in a command, off the UI loop), enter accepts, esc cancels. Export,
// save and submit use it, so the path is always the user's to choose and
// the notice names where the file went.
type pathInput struct {
	input      textinput.Model
	keys       PathKeys
	candidates []string
	seq        int
}

// pathCompletedMsg is a completion's result, for the input whose seq it
// carries.
type pathCompletedMsg struct {
	seq        int
	value      string
	candidates []string
}

func newPathInput(prompt, value string) pathInput {
	return pathInput{input: newInput(prompt, "a file path", 4096, value), keys: DefaultPathKeys()}
}

func (p *pathInput) focus() tea.Cmd { p.input.CursorEnd(); return p.input.Focus() }

func (p *pathInput) setWidth(w int) { p.input.Width = max(10, w-len(p.input.Prompt)-2) }

// key handles a key: done reports that the input closed, with the path
// accepted ("" when cancelled).
func (p *pathInput) key(msg tea.KeyMsg) (cmd tea.Cmd, done bool, path string) {
	switch {
	case key.Matches(msg, p.keys.Accept):
		v := strings.TrimSpace(p.input.Value())
		if v == "" {
			return nil, false, ""
		}
		p.input.Blur()
		return nil, true, expandHome(v)
	case key.Matches(msg, p.keys.Cancel):
		p.input.Blur()
		return nil, true, ""
	case key.Matches(msg, p.keys.Complete):
		p.seq++
		return completePath(p.seq, p.input.Value()), false, ""
	}
	p.candidates = nil
	p.input, cmd = p.input.Update(msg)
	return cmd, false, ""
}

// completed applies a completion.
func (p *pathInput) completed(msg pathCompletedMsg) {
	if msg.seq != p.seq {
		return
	}
	p.input.SetValue(msg.value)
	p.input.CursorEnd()
	p.candidates = msg.candidates
}

func (p *pathInput) view(s Styles) string {
	out := p.input.View()
	if len(p.candidates) > 1 {
		shown := p.candidates
		more := ""
		if len(shown) > 8 {
			shown, more = shown[:8], " …"
		}
		out += "\n" + s.Muted.Render("  "+textsafe.Line(strings.Join(shown, "  "))+more)
	}
	return out
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// completePath completes the last element of a path from its directory.
func completePath(seq int, value string) tea.Cmd {
	return func() tea.Msg {
		expanded := expandHome(value)
		dir, base := filepath.Split(expanded)
		lookIn := dir
		if lookIn == "" {
			lookIn = "."
		}
		entries, err := os.ReadDir(lookIn)
		if err != nil {
			return pathCompletedMsg{seq: seq, value: value}
		}
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), base) && (base != "" || !strings.HasPrefix(e.Name(), ".")) {
				n := e.Name()
				if e.IsDir() {
					n += string(filepath.Separator)
				}
				names = append(names, n)
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return pathCompletedMsg{seq: seq, value: value}
		}
		common := names[0]
		for _, n := range names[1:] {
			for !strings.HasPrefix(n, common) {
				common = common[:len(common)-1]
			}
		}
		prefix := value[:len(value)-len(base)]
		if strings.HasPrefix(value, "~/") && !strings.HasPrefix(prefix, "~/") {
			prefix = value[:len(value)-len(base)]
		}
		return pathCompletedMsg{seq: seq, value: prefix + common, candidates: names}
	}
}
