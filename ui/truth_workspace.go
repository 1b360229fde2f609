package ui

import (
	"sort"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// knownWorkspaces are the workspaces this session has seen: the one in the
// configuration, and every workspace_id of a listed destination, with how
// many destinations were seen in each. `w` offers them, so that nobody has
// to type a UUID they have already seen. Bounded: ids are checked UUIDs
// and at most maxKnownWorkspaces are kept.
type knownWorkspaces struct {
	count  map[string]int
	config string
}

const maxKnownWorkspaces = 64

func (k *knownWorkspaces) add(config string, ds []api.Destination) {
	if k.count == nil {
		k.count = map[string]int{}
	}
	if config = strings.ToLower(config); api.IsUUID(config) {
		k.config = config
		if _, ok := k.count[config]; !ok && len(k.count) < maxKnownWorkspaces {
			k.count[config] = 0
		}
	}
	for _, d := range ds {
		id := strings.ToLower(d.WorkspaceID)
		if !api.IsUUID(id) {
			continue
		}
		if _, ok := k.count[id]; ok || len(k.count) < maxKnownWorkspaces {
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
func (v *destView) pickKnown(next bool) {
	l := v.known.list()
	cur := strings.ToLower(strings.TrimSpace(v.ws.Value()))
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
	v.ws.SetValue(l[i])
	v.ws.CursorEnd()
}

// knownLine follows the workspace input: what the value in it is, and how
// many known workspaces tab offers.
func (v *destView) knownLine() string {
	s := v.c.styles
	l := v.known.list()
	cur := strings.ToLower(strings.TrimSpace(v.ws.Value()))
	what := ""
	for _, id := range l {
		if id == cur {
			what = v.known.label(id) + " · "
		}
	}
	return s.Muted.Render(textsafe.Line(what) + "tab picks one of " + format.Plural(len(l), "known workspace", "known workspaces"))
}
