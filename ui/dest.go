package ui

// The destinations list: paged with the client's Pager (which says when
// the list changed while loading), filtered, toggled after a y/N, deleted
// after the name is typed, and the way into the edit and create forms
// (dest_form.go) and their review (dest_review.go).

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

const destPageSize = 25

// ---- MSG ----

type destPageMsg struct {
	gen  int
	page *api.DestinationPage
	err  error
}

// destSavedMsg is the answer to a PATCH, a POST or a DELETE.
type destSavedMsg struct {
	op     string // "toggle", "update", "create", "delete"
	id     string
	dest   *api.Destination
	err    error
	before api.Destination
}

// destReadMsg is a destination read again before a change.
type destReadMsg struct {
	from *destEditor // the editor that asked
	dest *api.Destination
	err  error
}

// ---- MODEL ----

type destView struct {
	c    *common
	keys DestKeys
	w, h int

	gen      int
	rows     []api.Destination
	pager    *api.Pager
	total    int
	loading  bool
	loaded   bool
	err      error
	updated  time.Time
	nav      widgets.ListNav
	view     []int
	tbl      widgets.Table
	filter   widgets.FilterLine
	work     string
	known    knownWorkspaces // offered by w: seen in lists, and the config's
	inflight map[string]bool

	// stack holds the open screens: the type picker, an editor, a y/N
	// or typed question.
	stack stack
}

func newDestView(c *common) *destView {
	v := &destView{c: c, keys: DefaultDestKeys(), work: c.opts.Workspace, inflight: map[string]bool{},
		filter: widgets.NewFilterLine("name or type contains… (enter on one match opens it)"),
		tbl: widgets.NewTable(
			widgets.Column{Title: "NAME", Keep: 7, Min: 14}, // names share prefixes (prod-…): the name gives late
			widgets.Column{Title: "TYPE", Keep: 8, Max: 16},
			widgets.Column{Title: "ENABLED", Keep: 9, Max: 8},
			widgets.Column{Title: "SAMPLING", Keep: 6, Max: 9, Right: true},
			widgets.Column{Title: "REGIONS", Keep: 5, Max: 22},
			widgets.Column{Title: "PRIVACY", Keep: 3, Max: 7},
			widgets.Column{Title: "KEYS", Keep: 4, Max: 9},
			widgets.Column{Title: "UPDATED", Keep: 1, Max: 10, Right: true},
		)}
	v.filter.Keys.Keep = v.keys.FilterKeep
	return v
}

func (v *destView) Init() tea.Cmd { return nil }

func (v *destView) needsKey() bool { return v.c.client != nil && !v.c.client.HasManagementKey() }

// reload fetches from the first page again.
func (v *destView) reload() tea.Cmd {
	if v.needsKey() {
		v.loaded = true
		return nil
	}
	v.gen++
	v.rows, v.total, v.err = nil, 0, nil
	v.pager = newPager(v.c.opts)
	v.nav = widgets.ListNav{Height: v.nav.Height}
	v.apply()
	return v.loadPage()
}

func (v *destView) loadPage() tea.Cmd {
	v.loading = true
	client, ctx, gen, ws, offset := v.c.client, v.c.ctx, v.gen, v.work, v.pager.Offset()
	return func() tea.Msg {
		p, err := client.ListDestinations(ctx, api.ListOptions{Offset: offset, Limit: destPageSize, WorkspaceID: ws})
		return destPageMsg{gen: gen, page: p, err: err}
	}
}

// ---- UPDATE ----

func (v *destView) Update(msg tea.Msg) tea.Cmd {
	cmd := v.update(msg)
	v.layout()
	return cmd
}

func (v *destView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case focusMsg:
		if msg.view == viewDestinations && !v.loaded && !v.loading {
			return v.reload()
		}
	case destPageMsg:
		if msg.gen != v.gen {
			return nil
		}
		return v.onPage(msg)
	case destSavedMsg:
		return v.onSaved(msg)
	case destReadMsg:
		if v.stack.top() == screen(msg.from) {
			return v.act(v.stack.update(msg))
		}
	case tea.MouseMsg:
		switch {
		case v.stack.open():
			return v.act(v.stack.update(msg))
		case v.nav.Wheel(msg):
			return v.maybeMore()
		}
	case tea.KeyMsg:
		return v.onKey(msg)
	}
	return nil
}

func (v *destView) onPage(msg destPageMsg) tea.Cmd {
	v.loading, v.loaded = false, true
	if msg.err != nil {
		v.err = msg.err
		if s := api.StatusOf(msg.err); s == 401 || s == 403 {
			return nil
		}
		return failAbout(aboutDestList, "destinations: "+describeErr(msg.err))
	}
	v.err = nil
	cleared := errorEnded(aboutDestList)
	v.updated = v.c.now()
	fresh := v.pager.Destinations(msg.page)
	v.rows = append(v.rows, fresh...)
	v.known.add(v.c.opts.Workspace, fresh)
	v.total = msg.page.TotalCount
	v.apply()
	cmds := []tea.Cmd{cleared, v.seen(fresh...)}
	if v.pager.Changed != nil && !v.pager.More() {
		cmds = append(cmds, fail("the list changed while loading; press r to reload"))
	}
	return tea.Batch(append(cmds, v.maybeMore())...)
}

// maybeMore loads the next page when the cursor nears the end.
func (v *destView) maybeMore() tea.Cmd {
	if v.loading || v.pager == nil || !v.pager.More() {
		return nil
	}
	// A filter searches every destination the server has: the rest is
	// read (within the pager's bounds) while one is set.
	if v.filter.Query() != "" || v.nav.Cursor >= len(v.view)-5 || len(v.view) < v.nav.Height {
		return v.loadPage()
	}
	return nil
}

func (v *destView) apply() {
	var selID string
	if d := v.selected(); d != nil {
		selID = d.ID
	}
	v.view = v.view[:0]
	q := v.filter.Query()
	v.tbl.ResetContent()
	for i := range v.rows {
		d := &v.rows[i]
		if q != "" && !widgets.ContainsFold(d.DisplayName(), q) && !widgets.ContainsFold(d.Type, q) {
			continue
		}
		v.view = append(v.view, i)
		v.tbl.Measure(v.cells(d)...)
	}
	v.nav.SetCount(len(v.view))
	for k, i := range v.view {
		if v.rows[i].ID == selID {
			v.nav.Cursor = k
		}
	}
	v.nav.Clamp()
}

func (v *destView) selected() *api.Destination {
	if v.nav.Cursor < 0 || v.nav.Cursor >= len(v.view) || v.view[v.nav.Cursor] >= len(v.rows) {
		return nil // none, or the rows changed under a view not yet applied
	}
	return &v.rows[v.view[v.nav.Cursor]]
}

func (v *destView) onKey(msg tea.KeyMsg) tea.Cmd {
	if v.stack.open() {
		return v.act(v.stack.update(msg))
	}
	switch {
	case v.filter.Typing:
		if key.Matches(msg, v.filter.Keys.Keep) {
			return v.filterEnter()
		}
		cmd, _, changed := v.filter.Key(msg)
		if changed {
			v.apply()
		}
		return tea.Batch(cmd, v.maybeMore())
	}
	if v.needsKey() || api.StatusOf(v.err) == 401 || api.StatusOf(v.err) == 403 {
		return say("destinations need a management key (see the screen)")
	}
	k := v.keys
	switch {
	case v.nav.Key(msg, k.ListKeys):
		return v.maybeMore()
	case key.Matches(msg, k.Refresh):
		return v.reload()
	case key.Matches(msg, k.Workspace):
		v.known.add(v.c.opts.Workspace, v.rows)
		w := newWorkspacePrompt(v.c, v.work, &v.known)
		v.stack.push(w)
		return w.input.Focus()
	case key.Matches(msg, k.Filter):
		return v.filter.Start()
	case key.Matches(msg, k.Back):
		if v.filter.Active() {
			v.filter.Clear()
			v.apply()
			return say("filter cleared")
		}
		return say("esc: nothing to go back to here (q quits)")
	case key.Matches(msg, k.New):
		if v.c.opts.ReadOnly {
			return v.c.refuseWrite(present.WriteDestCreate)
		}
		v.stack.push(newTypePicker(v.c))
		return nil
	}
	d := v.selected()
	if d == nil {
		if key.Matches(msg, k.Toggle, k.Edit, k.Delete) {
			return say("no destination is selected")
		}
		return unknownKey(msg)
	}
	switch {
	case key.Matches(msg, k.Toggle):
		if v.c.opts.ReadOnly {
			return v.c.refuseWrite(present.WriteDestToggle)
		}
		if v.inflight[d.ID] {
			return say("a change to this destination is still being saved")
		}
		verb := "disable"
		if !d.Enabled {
			verb = "enable"
		}
		v.stack.push(newQuestion(v.c, widgets.NewConfirm(verb+" '"+d.DisplayName()+"'?", d.ID), "answering y/N"))
	case key.Matches(msg, k.Edit):
		v.stack.push(newEditEditor(v.c, *d))
	case key.Matches(msg, k.Delete):
		if v.c.opts.ReadOnly {
			return v.c.refuseWrite(present.WriteDestDelete)
		}
		word := confirmWord(d)
		how := "Type its name to confirm:"
		if strings.Contains(word, "‹U+") {
			how = "Type its name as shown, each ‹U+…› as <U+…>, to confirm:"
		}
		q := newQuestion(v.c, widgets.NewTypedConfirm("delete '"+textsafe.Visible(d.DisplayName())+"'? It stops receiving generations. "+how, word, d.ID), "typing the name to delete")
		v.stack.push(q)
		return q.focus()
	default:
		return unknownKey(msg)
	}
	return nil
}

// confirmWord is what deleting asks to type: the name, or the id of an
// unnamed destination.
func confirmWord(d *api.Destination) string {
	if d.Name != nil && strings.TrimSpace(*d.Name) != "" {
		return textsafe.Visible(*d.Name)
	}
	return d.ID
}

// act is where the view does what its screens ask, in one place.
func (v *destView) act(cmd tea.Cmd, a action) tea.Cmd {
	switch val := a.value.(type) {
	case workspaceChosen:
		v.work = string(val)
		return tea.Batch(cmd, v.reload())
	case typeChosen:
		v.stack.push(newCreateEditor(v.c, string(val)))
	case answer:
		return tea.Batch(cmd, v.answered(val))
	case destSending:
		v.inflight[val.id] = true
		if val.flipped != nil {
			v.applySaved(val.flipped)
			v.apply()
		}
	case destSaved:
		v.applySaved(val.dest)
		v.apply()
		return tea.Batch(cmd, v.seen(*val.dest))
	case destReload:
		v.applySaved(val.now)
		v.apply()
		if val.reopen {
			v.stack.push(newEditEditor(v.c, *val.now))
		}
	}
	return cmd
}

// answered acts on a toggle's y/N or a delete's typed name.
func (v *destView) answered(a answer) tea.Cmd {
	var d *api.Destination
	for i := range v.rows {
		if v.rows[i].ID == a.tag {
			d = &v.rows[i]
		}
	}
	if d == nil {
		return nil
	}
	if a.typed { // delete
		if !a.yes {
			return say("not deleted")
		}
		v.inflight[d.ID] = true
		client, ctx, id, before := v.c.client, v.c.ctx, d.ID, *d
		return func() tea.Msg {
			return destSavedMsg{op: "delete", id: id, err: client.DeleteDestination(ctx, id), before: before}
		}
	}
	if !a.yes {
		return say("nothing changed")
	}
	// A toggle is a change like any other: read again first.
	next := !d.Enabled
	e := newToggleEditor(v.c, *d, api.DestinationPatch{Enabled: &next})
	v.stack.push(e)
	return e.check()
}

// applySaved puts a saved destination into the list.
func (v *destView) applySaved(d *api.Destination) {
	for i := range v.rows {
		if v.rows[i].ID == d.ID {
			v.rows[i] = *d
			return
		}
	}
	v.rows = append([]api.Destination{*d}, v.rows...)
	v.total++
}

func (v *destView) onSaved(msg destSavedMsg) tea.Cmd {
	delete(v.inflight, msg.id)
	if e, ok := v.stack.top().(*destEditor); ok && e.owns(msg) {
		return v.act(v.stack.update(msg))
	}
	if msg.err != nil {
		if msg.op == "toggle" {
			v.applySaved(&msg.before)
			v.apply()
			return fail("not saved, rolled back: " + describeErr(msg.err))
		}
		return fail(msg.op + " failed: " + describeErr(msg.err))
	}
	switch msg.op {
	case "toggle":
		v.applySaved(msg.dest)
		v.apply()
		state := "enabled"
		if !msg.dest.Enabled {
			state = "disabled"
		}
		return tea.Batch(v.seen(*msg.dest), say(msg.dest.DisplayName()+" is now "+state))
	case "delete":
		for i := range v.rows {
			if v.rows[i].ID == msg.id {
				v.rows = append(v.rows[:i], v.rows[i+1:]...)
				v.total--
				break
			}
		}
		v.apply()
		id := msg.id
		forget := v.c.remember(func(st *record.Store, base string) { st.ForgetDestination(base, id) })
		return tea.Batch(forget, say("deleted '"+msg.before.DisplayName()+"'; the list is refreshed"))
	}
	return nil
}

// seen records destinations as this machine last saw them (what a later
// `dest update` compares against), off the UI loop.
func (v *destView) seen(ds ...api.Destination) tea.Cmd {
	return v.c.remember(func(st *record.Store, base string) { st.SeeDestinations(base, ds...) })
}

// ---- HELP ----

func (v *destView) KeyMap() help.KeyMap {
	if s := v.stack.top(); s != nil {
		return s.KeyMap()
	}
	if v.filter.Typing {
		return v.filter.Keys
	}
	k := v.keys
	if v.c.opts.ReadOnly {
		k = k.readOnly()
	}
	v.c.hideWrites(&k.Toggle, &k.New, &k.Delete)
	return k
}

func (v *destView) Help() string {
	if s := v.stack.top(); s != nil {
		return s.Help()
	}
	if v.filter.Typing {
		return "filtering destinations"
	}
	return "destinations"
}

func (v *destView) Typing() bool {
	if s := v.stack.top(); s != nil {
		return s.Typing()
	}
	return v.filter.Typing
}

func (v *destView) Busy() string {
	switch {
	case v.loading:
		return "loading destinations"
	case len(v.inflight) > 0:
		return "saving"
	}
	return v.stack.busy()
}

func (v *destView) Updated() time.Time { return v.updated }

func (v *destView) Stop() { v.gen++ }

// editor is the open destination editor, if any (for tests and help).
func (v *destView) editor() *destEditor { e, _ := find[*destEditor](&v.stack); return e }

// types is the open type picker, if any.
func (v *destView) types() *typePicker { t, _ := find[*typePicker](&v.stack); return t }
