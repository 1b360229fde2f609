package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

const destPageSize = 25

// ---- MSG ----

type destPageMsg struct {
	gen    int
	offset int
	page   *api.DestinationPage
	err    error
}

// destSavedMsg is the answer to a PATCH: from the toggle (rollback on
// failure) or from the form (edits kept on failure).
type destSavedMsg struct {
	id     string
	dest   *api.Destination
	err    error
	toggle bool
	before api.Destination
}

// ---- MODEL ----

type destMode int

const (
	destList destMode = iota
	destConfirm
	destEditing
	destWorkspace
	destFilter
)

type destView struct {
	c    *common
	keys DestKeys
	w, h int
	mode destMode

	gen      int
	rows     []api.Destination
	total    int
	loading  bool
	loaded   bool
	err      error
	cursor   int
	offset   int
	filter   string
	finput   textinput.Model
	wsinput  textinput.Model
	work     string
	confirm  *api.Destination
	form     *destForm
	inflight map[string]bool
}

func newDestView(c *common) *destView {
	fi := newInput("/ ", "name or type contains…", 256, "")
	wi := newInput("workspace › ", "workspace UUID (empty = the key's default)", 64, "")
	return &destView{c: c, keys: DefaultDestKeys(), finput: fi, wsinput: wi, work: c.opts.Workspace, inflight: map[string]bool{}}
}

func (v *destView) Init() tea.Cmd {
	if v.c.opts.View == "destinations" {
		return v.reload()
	}
	return nil
}

func (v *destView) Capturing() bool {
	return v.mode == destWorkspace || v.mode == destFilter || v.mode == destEditing || v.mode == destConfirm
}

func (v *destView) Stop() { v.gen++ }

func (v *destView) Busy() string {
	switch {
	case v.loading:
		return "loading destinations"
	case len(v.inflight) > 0:
		return "saving"
	}
	return ""
}

func (v *destView) needsKey() bool { return v.c.client != nil && !v.c.client.HasManagementKey() }

// reload fetches from the first page again.
func (v *destView) reload() tea.Cmd {
	if v.needsKey() {
		v.loaded = true
		return nil
	}
	v.gen++
	v.rows, v.total, v.err, v.cursor, v.offset = nil, 0, nil, 0, 0
	return v.loadPage(0)
}

func (v *destView) loadPage(offset int) tea.Cmd {
	v.loading = true
	client, ctx, gen, ws := v.c.client, v.c.ctx, v.gen, v.work
	return func() tea.Msg {
		p, err := client.ListDestinations(ctx, api.ListOptions{Offset: offset, Limit: destPageSize, WorkspaceID: ws})
		return destPageMsg{gen: gen, offset: offset, page: p, err: err}
	}
}

// ---- UPDATE ----

func (v *destView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case focusMsg:
		if msg.view == viewDestinations && !v.loaded && !v.loading {
			return v.reload()
		}
	case destPageMsg:
		if msg.gen != v.gen {
			return nil
		}
		v.loading, v.loaded = false, true
		if msg.err != nil {
			v.err = msg.err
			if s := api.StatusOf(msg.err); s == 401 || s == 403 {
				return nil
			}
			return msgCmd(failNotice("destinations: " + describeErr(msg.err)))
		}
		v.err = nil
		seen := map[string]bool{}
		for _, d := range v.rows {
			seen[d.ID] = true
		}
		for _, d := range msg.page.Data {
			if !seen[d.ID] {
				v.rows = append(v.rows, d)
			}
		}
		v.total = msg.page.TotalCount
		return v.maybeMore()
	case destSavedMsg:
		return v.onSaved(msg)
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress && v.mode == destList {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				v.move(-3)
			case tea.MouseButtonWheelDown:
				v.move(3)
				return v.maybeMore()
			}
		}
	case tea.KeyMsg:
		return v.onKey(msg)
	}
	return nil
}

// maybeMore loads the next page when the cursor nears the end.
func (v *destView) maybeMore() tea.Cmd {
	if v.loading || len(v.rows) >= v.total || v.filter != "" {
		return nil
	}
	if v.cursor >= len(v.rows)-5 || len(v.rows) < v.listHeight() {
		return v.loadPage(len(v.rows))
	}
	return nil
}

func (v *destView) visible() []int {
	out := make([]int, 0, len(v.rows))
	term := strings.ToLower(v.filter)
	for i, d := range v.rows {
		if term == "" || strings.Contains(strings.ToLower(d.DisplayName()), term) || strings.Contains(strings.ToLower(d.Type), term) {
			out = append(out, i)
		}
	}
	return out
}

func (v *destView) selected() (int, bool) {
	vis := v.visible()
	if v.cursor < 0 || v.cursor >= len(vis) {
		return 0, false
	}
	return vis[v.cursor], true
}

func (v *destView) move(d int) {
	n := len(v.visible())
	v.cursor = max(0, min(n-1, v.cursor+d))
	h := v.listHeight()
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+h {
		v.offset = v.cursor - h + 1
	}
}

func (v *destView) listHeight() int { return max(1, v.h-4) }

func (v *destView) onKey(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	switch v.mode {
	case destWorkspace:
		switch msg.Type {
		case tea.KeyEnter:
			ws := strings.TrimSpace(v.wsinput.Value())
			if ws != "" && !api.IsUUID(ws) {
				return msgCmd(failNotice("workspace_id must be a UUID"))
			}
			v.work, v.mode = ws, destList
			v.wsinput.Blur()
			return v.reload()
		case tea.KeyEsc:
			v.mode = destList
			v.wsinput.Blur()
			return nil
		}
		var cmd tea.Cmd
		v.wsinput, cmd = v.wsinput.Update(msg)
		return cmd
	case destFilter:
		switch msg.Type {
		case tea.KeyEnter, tea.KeyEsc:
			if msg.Type == tea.KeyEsc {
				v.finput.SetValue("")
				v.filter = ""
			}
			v.mode = destList
			v.finput.Blur()
			v.cursor, v.offset = 0, 0
			return v.maybeMore()
		}
		var cmd tea.Cmd
		v.finput, cmd = v.finput.Update(msg)
		v.filter = v.finput.Value()
		v.cursor, v.offset = 0, 0
		return cmd
	case destConfirm:
		switch {
		case key.Matches(msg, k.Confirm):
			d := *v.confirm
			v.mode, v.confirm = destList, nil
			return v.toggle(d)
		case key.Matches(msg, k.Cancel), msg.Type == tea.KeyEnter:
			v.mode, v.confirm = destList, nil
			return msgCmd(notice("nothing changed"))
		}
		return nil // any other key keeps the question open
	case destEditing:
		return v.onFormKey(msg)
	}
	switch {
	case key.Matches(msg, k.Up):
		v.move(-1)
	case key.Matches(msg, k.Down):
		v.move(1)
		return v.maybeMore()
	case msg.Type == tea.KeyPgDown:
		v.move(v.listHeight())
		return v.maybeMore()
	case msg.Type == tea.KeyPgUp:
		v.move(-v.listHeight())
	case key.Matches(msg, k.Top):
		v.move(-len(v.rows))
	case key.Matches(msg, k.Bottom):
		v.move(len(v.rows))
		return v.maybeMore()
	case key.Matches(msg, k.Refresh):
		return v.reload()
	case key.Matches(msg, k.Workspace):
		v.mode = destWorkspace
		v.wsinput.SetValue(v.work)
		return v.wsinput.Focus()
	case key.Matches(msg, k.Filter):
		v.mode = destFilter
		return v.finput.Focus()
	case key.Matches(msg, k.Toggle):
		i, ok := v.selected()
		if !ok {
			return nil
		}
		if v.c.opts.ReadOnly {
			return msgCmd(failNotice("read-only: changes are disabled (--read-only)"))
		}
		if v.inflight[v.rows[i].ID] {
			return msgCmd(failNotice("a change to this destination is still being saved"))
		}
		d := v.rows[i]
		v.confirm, v.mode = &d, destConfirm
	case key.Matches(msg, k.Edit):
		i, ok := v.selected()
		if !ok {
			return nil
		}
		v.form, v.mode = newDestForm(v.rows[i]), destEditing
	}
	return nil
}

// toggle flips enabled at once on screen and sends the PATCH; a failure
// rolls the row back.
func (v *destView) toggle(d api.Destination) tea.Cmd {
	next := !d.Enabled
	for i := range v.rows {
		if v.rows[i].ID == d.ID {
			v.rows[i].Enabled = next
			v.rows[i].Raw = nil
		}
	}
	v.inflight[d.ID] = true
	client, ctx := v.c.client, v.c.ctx
	return func() tea.Msg {
		out, err := client.UpdateDestination(ctx, d.ID, api.DestinationPatch{Enabled: &next})
		return destSavedMsg{id: d.ID, dest: out, err: err, toggle: true, before: d}
	}
}

func (v *destView) onFormKey(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	f := v.form
	if f.sending {
		return nil
	}
	if f.review {
		switch {
		case key.Matches(msg, k.Confirm):
			f.sending = true
			v.inflight[f.orig.ID] = true
			client, ctx, id, p := v.c.client, v.c.ctx, f.orig.ID, f.patch
			return func() tea.Msg {
				out, err := client.UpdateDestination(ctx, id, p)
				return destSavedMsg{id: id, dest: out, err: err}
			}
		case key.Matches(msg, k.Cancel):
			f.review = false
		}
		return nil
	}
	if f.editor != nil { // the rules editor takes every key until it closes
		cmd, _ := f.key(msg)
		return cmd
	}
	switch {
	case msg.Type == tea.KeyEsc:
		v.mode, v.form = destList, nil
		return nil
	case key.Matches(msg, k.Save):
		if v.c.opts.ReadOnly {
			return msgCmd(failNotice("read-only: changes are disabled (--read-only)"))
		}
		p, err := f.build()
		if err != nil {
			return msgCmd(failNotice("cannot save: " + err.Error()))
		}
		if p.Empty() {
			return msgCmd(notice("nothing changed"))
		}
		f.patch, f.review = p, true
		return nil
	case msg.Type == tea.KeyTab || msg.Type == tea.KeyDown:
		f.move(1)
		return nil
	case msg.Type == tea.KeyShiftTab || msg.Type == tea.KeyUp:
		f.move(-1)
		return nil
	}
	if v.c.opts.ReadOnly {
		return nil
	}
	cmd, _ := f.key(msg)
	return cmd
}

func (v *destView) onSaved(msg destSavedMsg) tea.Cmd {
	delete(v.inflight, msg.id)
	if msg.err != nil {
		text := describeErr(msg.err)
		if msg.toggle {
			for i := range v.rows {
				if v.rows[i].ID == msg.id {
					v.rows[i] = msg.before
				}
			}
			return msgCmd(failNotice("not saved, rolled back: " + text))
		}
		if f := v.form; f != nil && f.orig.ID == msg.id {
			f.sending, f.review = false, false
			if api.StatusOf(msg.err) == 400 {
				var ae *api.APIError
				errors.As(msg.err, &ae)
				f.applyServerError(ae.Message)
			}
		}
		return msgCmd(failNotice("not saved (your edits are kept): " + text))
	}
	for i := range v.rows {
		if v.rows[i].ID == msg.id {
			v.rows[i] = *msg.dest
		}
	}
	if f := v.form; f != nil && f.orig.ID == msg.id && !msg.toggle {
		v.form, v.mode = nil, destList
	}
	state := "enabled"
	if !msg.dest.Enabled {
		state = "disabled"
	}
	if msg.toggle {
		return msgCmd(notice(fmt.Sprintf("%s is now %s", msg.dest.DisplayName(), state)))
	}
	return msgCmd(notice("saved " + msg.dest.DisplayName()))
}

// ---- VIEW ----

func (v *destView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.move(0)
}

func (v *destView) View() string {
	s := v.c.styles
	if v.needsKey() || api.StatusOf(v.err) == 401 || api.StatusOf(v.err) == 403 {
		return v.keyScreen()
	}
	if v.mode == destEditing && v.form != nil {
		return v.form.view(s, v.w, v.h, v.c.opts.ReadOnly)
	}
	var b strings.Builder
	ws := "default workspace"
	if v.work != "" {
		ws = "workspace " + v.work
	}
	head := s.Title.Render("Destinations") + s.Muted.Render(fmt.Sprintf("  %s · %d of %d loaded", ws, len(v.rows), v.total))
	if v.c.opts.ReadOnly {
		head += "  " + s.Warning.Render("read-only")
	}
	b.WriteString(ansi.Truncate(head, v.w, "…") + "\n")
	switch v.mode {
	case destWorkspace:
		b.WriteString(v.wsinput.View() + "\n")
	case destFilter:
		b.WriteString(v.finput.View() + "\n")
	case destConfirm:
		verb := "disable"
		if !v.confirm.Enabled {
			verb = "enable"
		}
		b.WriteString(s.Warning.Render(fmt.Sprintf("%s '%s'? y/N", verb, textsafe.Line(v.confirm.DisplayName()))) + "\n")
	default:
		if v.filter != "" {
			b.WriteString(s.Muted.Render("filter: "+textsafe.Line(v.filter)+" (/ to change, esc in the filter clears)") + "\n")
		} else {
			b.WriteString("\n")
		}
	}
	if v.err != nil && len(v.rows) == 0 {
		b.WriteString(s.Error.Render(wrap(describeErr(v.err), max(20, v.w))) + "\n" + s.Muted.Render("r to retry"))
		return b.String()
	}
	if !v.loaded {
		b.WriteString(s.Muted.Render("loading…"))
		return b.String()
	}
	b.WriteString(v.table())
	return b.String()
}

func (v *destView) table() string {
	s := v.c.styles
	compact := v.w < 100
	cols := []struct {
		title string
		w     int
	}{{"NAME", 22}, {"TYPE", 14}, {"ENABLED", 8}, {"SAMPLING", 9}, {"REGIONS", 15}, {"PRIVACY", 8}, {"KEYS", 9}, {"UPDATED", 10}}
	if compact {
		cols = cols[:4]
		cols[0].w = max(10, v.w-14-8-9-2)
	}
	cell := func(text string, w int) string {
		text = ansi.Truncate(text, w-1, "…")
		return text + strings.Repeat(" ", max(0, w-lipgloss.Width(text)))
	}
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(s.TableHead.Render(cell(c.title, c.w)))
	}
	vis := v.visible()
	now := v.c.now()
	end := min(len(vis), v.offset+v.listHeight())
	for i := v.offset; i < end; i++ {
		d := v.rows[vis[i]]
		keys := "all keys"
		if d.APIKeyHashes != nil {
			keys = fmt.Sprintf("%d keys", len(d.APIKeyHashes))
		}
		upd := textsafe.Line(d.UpdatedAt)
		if t, err := time.Parse(time.RFC3339, d.UpdatedAt); err == nil {
			upd = format.Age(t, now)
		}
		en := "off"
		if d.Enabled {
			en = "on"
		}
		if v.inflight[d.ID] {
			en += "…"
		}
		vals := []string{textsafe.Line(d.DisplayName()), textsafe.Line(d.Type), en, format.Percent(d.SamplingRate),
			textsafe.Line(strings.Join(d.Regions, ",")), map[bool]string{true: "on", false: "off"}[d.PrivacyMode], keys, upd}
		var line strings.Builder
		for j, c := range cols {
			line.WriteString(cell(vals[j], c.w))
		}
		text := line.String()
		b.WriteByte('\n')
		switch {
		case i == v.cursor:
			b.WriteString(s.Selected.Render(text))
		case !d.Enabled:
			b.WriteString(s.Muted.Render(text))
		default:
			b.WriteString(text)
		}
	}
	if len(vis) == 0 {
		b.WriteString("\n" + s.Muted.Render("no destinations"))
	}
	return b.String()
}

func (v *destView) keyScreen() string {
	s := v.c.styles
	msg := []string{
		s.Title.Render("Destinations need a management key"),
		"",
		"Observability destinations are managed with a management key, not an API key.",
		"Set one of:",
		"  GWDASH_MANAGEMENT_KEY=…            (environment)",
		"  --management-key …                 (flag)",
		"  management_key_cmd = \"pass show …\" (config file, per profile)",
	}
	if v.err != nil {
		msg = append(msg, "", s.Muted.Render("the gateway said: "+describeErr(v.err)))
	}
	return wrap(strings.Join(msg, "\n"), max(20, v.w))
}

// ---- HELP ----

func (v *destView) ShortHelp() []key.Binding {
	k := v.keys
	switch v.mode {
	case destConfirm:
		return []key.Binding{k.Confirm, k.Cancel}
	case destEditing:
		return []key.Binding{k.Save, k.NextField, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))}
	}
	return []key.Binding{k.Toggle, k.Edit, k.Filter, k.Workspace}
}

func (v *destView) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom, k.Refresh, k.Filter, k.Workspace}, {k.Toggle, k.Confirm, k.Cancel, k.Edit}, {k.Save, k.NextField, k.PrevField}}
}
