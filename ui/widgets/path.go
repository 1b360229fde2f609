package widgets

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/styles"
)

// PathInput asks for a file path: tab completes it from the file system
// (in a command, off the UI loop), enter accepts, esc cancels. Export,
// save and submit use it, so the path is always the user's to choose and
// the notice names where the file went.
type PathInput struct {
	Input textinput.Model
	Keys  PathKeys
	// Candidates are the names the last completion matched.
	Candidates []string
	// Seq tells this input's completions from older ones.
	Seq int
}

// PathCompletedMsg is a completion's result, for the input whose seq it
// carries.
type PathCompletedMsg struct {
	seq        int
	value      string
	candidates []string
}

// NewPathInput is a path input holding value.
func NewPathInput(prompt, value string) PathInput {
	return PathInput{Input: NewInput(prompt, "a file path", 4096, value), Keys: DefaultPathKeys()}
}

// Focus focuses the input, the cursor at the end.
func (p *PathInput) Focus() tea.Cmd { p.Input.CursorEnd(); return p.Input.Focus() }

// SetWidth sizes the input to w cells with its prompt.
func (p *PathInput) SetWidth(w int) { p.Input.Width = max(10, w-len(p.Input.Prompt)-2) }

// Key handles a key: done reports that the input closed, with the path
// accepted ("" when cancelled).
func (p *PathInput) Key(msg tea.KeyMsg) (cmd tea.Cmd, done bool, path string) {
	switch {
	case key.Matches(msg, p.Keys.Accept):
		v := strings.TrimSpace(p.Input.Value())
		if v == "" {
			return nil, false, ""
		}
		p.Input.Blur()
		return nil, true, ExpandHome(v)
	case key.Matches(msg, p.Keys.Cancel):
		p.Input.Blur()
		return nil, true, ""
	case key.Matches(msg, p.Keys.Complete):
		p.Seq++
		return CompletePath(p.Seq, p.Input.Value()), false, ""
	}
	p.Candidates = nil
	p.Input, cmd = p.Input.Update(msg)
	return cmd, false, ""
}

// Completed applies a completion.
func (p *PathInput) Completed(msg PathCompletedMsg) {
	if msg.seq != p.Seq {
		return
	}
	p.Input.SetValue(msg.value)
	p.Input.CursorEnd()
	p.Candidates = msg.candidates
}

// View draws the input and, below it, the names a completion matched.
func (p *PathInput) View(s styles.Styles) string {
	out := p.Input.View()
	if len(p.Candidates) > 1 {
		shown := p.Candidates
		more := ""
		if len(shown) > 8 {
			shown, more = shown[:8], " …"
		}
		out += "\n" + s.Muted.Render("  "+textsafe.Line(strings.Join(shown, "  "))+more)
	}
	return out
}

// ExpandHome expands a leading "~/" to the home directory.
func ExpandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// maxCandidates bounds the names a completion keeps (a few are drawn).
const maxCandidates = 64

// CompletePath completes the last element of a path from its directory.
// The typed text is split as typed ("~/" stays "~/"); only the directory
// read is expanded. A directory of any size is read in batches and at
// most maxCandidates names are kept.
func CompletePath(seq int, value string) tea.Cmd {
	return func() tea.Msg {
		dir, base := filepath.Split(value)
		lookIn := ExpandHome(dir)
		if lookIn == "" {
			lookIn = "."
		}
		names := matchingNames(lookIn, base)
		if len(names) == 0 {
			return PathCompletedMsg{seq: seq, value: value}
		}
		common := names[0]
		for _, n := range names[1:] {
			for !strings.HasPrefix(n, common) {
				common = common[:len(common)-1]
			}
		}
		return PathCompletedMsg{seq: seq, value: dir + common, candidates: names}
	}
}

// matchingNames are the entries of dir that start with base (hidden ones
// only when base asks for them), directories with a separator, sorted;
// at most maxCandidates.
func matchingNames(dir, base string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	var names []string
	for len(names) < maxCandidates {
		entries, err := f.ReadDir(256)
		for _, e := range entries {
			if len(names) < maxCandidates && strings.HasPrefix(e.Name(), base) && (base != "" || !strings.HasPrefix(e.Name(), ".")) {
				n := e.Name()
				if e.IsDir() {
					n += string(filepath.Separator)
				}
				names = append(names, n)
			}
		}
		if err != nil {
			break // io.EOF: all read
		}
	}
	sort.Strings(names)
	return names
}
