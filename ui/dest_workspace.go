package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// knownWorkspaces are the workspaces this session has seen: the one in the
// configuration, and every workspace_id of a listed destination, with how
// many destinations were seen in each. `w` offers them, so that nobody has
// to type a UUID they have already seen. Bounded: ids are checked UUIDs
// and at most maxKnownWorkspaces are kept.
type knownWorkspaces struct {
	count  map[string]int
	config string
	// seen are the destinations counted (a list read again, or w pressed
	// again, counts each once); bounded like a list walk.
	seen map[string]bool
}

const maxKnownWorkspaces = 64

func (k *knownWorkspaces) add(config string, ds []api.Destination) {
	if k.count == nil {
		k.count, k.seen = map[string]int{}, map[string]bool{}
	}
	if config = strings.ToLower(config); api.IsUUID(config) {
		k.config = config
		if _, ok := k.count[config]; !ok && len(k.count) < maxKnownWorkspaces {
			k.count[config] = 0
		}
	}
	for _, d := range ds {
		id := strings.ToLower(d.WorkspaceID)
		if !api.IsUUID(id) || k.seen[d.ID] || len(k.seen) >= api.MaxListRows {
			continue
		}
		if _, ok := k.count[id]; ok || len(k.count) < maxKnownWorkspaces {
			k.seen[d.ID] = true
			k.count[id]++
		}
	}
}

// list is "" (the key's default workspace) and then the known ones, in a
// stable order: the configured one first, then by id.
func (k *knownWorkspaces) list() []string {
	out := []string{""}
	if k.config != "" {
		out = append(out, k.config)
	}
	var rest []string
	for id := range k.count {
		if id != k.config {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// label says what a known workspace is.
func (k *knownWorkspaces) label(id string) string {
	switch {
	case id == "":
		return "the key's default workspace"
	case id == k.config && k.count[id] == 0:
		return "from the config"
	case id == k.config:
		return "from the config · " + format.Plural(k.count[id], "destination", "destinations") + " seen"
	}
	return format.Plural(k.count[id], "destination", "destinations") + " seen"
}

// pickKnown puts the next (or previous) known workspace into the input.
func (w *workspacePrompt) pickKnown(next bool) {
	l := w.known.list()
	if len(l) == 0 {
		return
	}
	cur := strings.ToLower(strings.TrimSpace(w.input.Value()))
	i := -1
	for j, id := range l {
		if id == cur {
			i = j
		}
	}
	switch {
	case i < 0 && next:
		i = 0
	case i < 0:
		i = len(l) - 1
	case next:
		i = (i + 1) % len(l)
	default:
		i = (i + len(l) - 1) % len(l)
	}
	w.input.SetValue(l[i])
	w.input.CursorEnd()
}

// knownLine follows the workspace input: what the value in it is, and how
// many known workspaces tab offers.
func (w *workspacePrompt) knownLine() string {
	s := w.c.styles
	l := w.known.list()
	cur := strings.ToLower(strings.TrimSpace(w.input.Value()))
	what := ""
	for _, id := range l {
		if id == cur {
			what = w.known.label(id) + " · "
		}
	}
	return s.Muted.Render(textsafe.Line(what) + "tab picks one of " + format.Plural(len(l), "known workspace", "known workspaces"))
}

// workspacePrompt is the workspace input (w) on the list's filter line:
// a UUID typed or picked among the known ones; it closes with
// workspaceChosen or cancelled.
type workspacePrompt struct {
	c     *common
	input textinput.Model
	known *knownWorkspaces
	keys  WorkspaceKeys
	w     int
}

// workspaceChosen is the prompt's value ("" the key's default).
type workspaceChosen string

func newWorkspacePrompt(c *common, current string, known *knownWorkspaces) *workspacePrompt {
	w := &workspacePrompt{c: c, known: known, keys: DefaultWorkspaceKeys(),
		input: widgets.NewInput("workspace › ", "workspace UUID (empty = the key's default)", 64, current)}
	return w
}

func (w *workspacePrompt) Update(msg tea.Msg) (tea.Cmd, action) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, noAction
	}
	switch ik := w.keys; {
	case key.Matches(km, ik.Next, ik.Prev):
		w.pickKnown(key.Matches(km, ik.Next))
		return nil, noAction
	case key.Matches(km, ik.Accept):
		ws := strings.TrimSpace(w.input.Value())
		if ws != "" && !api.IsUUID(ws) {
			return fail("workspace_id must be a UUID"), noAction
		}
		w.input.Blur()
		return nil, done(workspaceChosen(ws))
	case key.Matches(km, ik.Cancel):
		w.input.Blur()
		return say("workspace unchanged"), cancelled
	}
	var cmd tea.Cmd
	w.input, cmd = w.input.Update(km)
	return cmd, noAction
}

func (w *workspacePrompt) View() string {
	return ansi.Truncate(w.input.View()+"  "+w.knownLine(), max(1, w.w), "…")
}
func (w *workspacePrompt) SetSize(width, _ int) { w.w = width }
func (w *workspacePrompt) KeyMap() help.KeyMap  { return w.keys }
func (w *workspacePrompt) Help() string         { return "typing a workspace" }
func (w *workspacePrompt) Typing() bool         { return true }
func (w *workspacePrompt) Inline() bool         { return true }
