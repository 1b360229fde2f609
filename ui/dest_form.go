package ui

// The destination editor: the edit form, the create form, and the toggle,
// which share the way a change is made: build it (every problem placed
// beside its field), review exactly what is sent, read the destination
// again, and if someone else changed it meanwhile, show the three
// versions and ask (dest_review.go). A failed save keeps the edits.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

type editorKind int

const (
	editUpdate editorKind = iota
	editCreate
	editToggle
)

type editorStage int

const (
	stageForm editorStage = iota
	stageReview
	stageChecking
	stageConflict
	stageSending
)

type destEditor struct {
	c     *common
	kind  editorKind
	stage editorStage
	orig  api.Destination // as loaded (edit, toggle)
	typ   string          // the type (create)
	spec  api.DestinationType
	known bool
	form  *widgets.Form
	// rulesValue is the filter rules as edited (nil: none).
	rulesValue *api.FilterRules
	patch      api.DestinationPatch
	create     api.DestinationCreate
	now        *api.Destination // the server's version, on conflict
	// sub holds the editor's own screens: the filter rules editor and
	// the "discard your edits?" question.
	sub    stack
	rk     ReviewKeys
	scroll widgets.ListNav
	w, h   int
}

const keysAll, keysOnly = "all keys", "only these hashes"

// commonFields are the fields every destination has, after name.
func commonFields(d api.Destination, create bool) []*widgets.Field {
	var fs []*widgets.Field
	for _, b := range api.DestinationBools {
		if create && b.Create == nil {
			continue
		}
		on := b.Get(&d)
		fs = append(fs, widgets.BoolField(b.Name, b.Label, b.About, on))
	}
	fs = append(fs, widgets.TextField("sampling_rate", "sampling rate", "0.0001 to 1 (or 0.01% to 100%)", strconv.FormatFloat(d.SamplingRate, 'f', -1, 64)))
	if !create {
		fs = append(fs, widgets.MultiField("regions", "regions", "←/→ choose, space toggles; at least one", api.Regions, sortedRegions(d.Regions)))
	}
	mode := keysAll
	if d.APIKeyHashes != nil {
		mode = keysOnly
	}
	fs = append(fs, widgets.ChoiceField("api_key_hashes.mode", "key allowlist", "←/→: all keys, or only the hashes below", []string{keysAll, keysOnly}, mode),
		widgets.TextField("api_key_hashes", "allowed key hashes", "comma-separated; used with “only these hashes”", strings.Join(d.APIKeyHashes, ", ")),
		&widgets.Field{Name: "filter_rules", Label: "filter rules", Hint: "enter edits the groups of rules", Kind: widgets.KindAction, Summary: orText(rulesToText(d.FilterRules), "none (null)")})
	return fs
}

// configField is the field of one config member: a secret masked while
// typed (the masked value it has stays untouched unless replaced), a
// string, or a JSON value.
func configField(member, label string, value any, secret, required bool) *widgets.Field {
	name := "config." + member
	switch v := value.(type) {
	case string:
		if secret || api.IsMasked(v) {
			f := widgets.SecretField(name, label, "secret: masked while typed (ctrl+r shows it)")
			if v != "" {
				f.Input.Placeholder = textsafe.Line(v) + " (unchanged; type to replace)"
				f.Hint = "secret: stays untouched unless you type a new value (ctrl+r shows it)"
			}
			f.Required = required
			return f
		}
		f := widgets.TextField(name, label, "", v)
		f.Required = required
		return f
	case nil:
		if secret {
			f := widgets.SecretField(name, label, "secret: masked while typed (ctrl+r shows it)")
			f.Required = required
			return f
		}
		f := widgets.TextField(name, label, "", "")
		f.Required = required
		return f
	}
	b, _ := json.Marshal(value)
	f := widgets.TextField(name, label, "a JSON value", string(b))
	f.Required = required
	return f
}

func newEditEditor(c *common, d api.Destination) *destEditor {
	e := &destEditor{c: c, kind: editUpdate, orig: d, rulesValue: d.FilterRules, rk: DefaultReviewKeys()}
	e.spec, e.known = api.TypeSpec(d.Type)
	name := ""
	if d.Name != nil {
		name = *d.Name
	}
	fields := []*widgets.Field{widgets.TextField("name", "name", "any text", name)}
	fields = append(fields, commonFields(d, false)...)
	for _, k := range d.ConfigKeys() {
		fields = append(fields, configField(k, textsafe.Line(k), d.Config[k], e.known && e.spec.IsSecret(k) || !e.known && api.IsSecretMember(k), false))
	}
	e.form = widgets.NewForm(fields...)
	e.form.ReadOnly = c.opts.ReadOnly
	return e
}

func newCreateEditor(c *common, typ string) *destEditor {
	e := &destEditor{c: c, kind: editCreate, typ: typ, rk: DefaultReviewKeys()}
	e.spec, e.known = api.TypeSpec(typ)
	blank := api.NewDestinationDefaults()
	fields := []*widgets.Field{widgets.TextField("name", "name", "required", "")}
	fields[0].Required = true
	if e.known {
		for _, m := range e.spec.Required {
			fields = append(fields, configField(m, m, nil, e.spec.IsSecret(m), true))
		}
		for _, m := range e.spec.Optional {
			f := configField(m, m, nil, e.spec.IsSecret(m), false)
			if vals := e.spec.Values[m]; len(vals) > 0 {
				f.Hint = "one of " + strings.Join(vals, ", ")
			}
			fields = append(fields, f)
		}
		fields = append(fields, widgets.TextField("config.headers", "headers", "optional JSON object of extra HTTP headers", ""))
	} else {
		fields = append(fields, widgets.TextField("config", "config (JSON)", "the type's members as a JSON object", "{}"))
	}
	fields = append(fields, commonFields(blank, true)...)
	e.form = widgets.NewForm(fields...)
	e.form.Base = make([]string, len(e.form.Fields)) // any value typed is an edit
	return e
}

func newToggleEditor(c *common, d api.Destination, p api.DestinationPatch) *destEditor {
	return &destEditor{c: c, kind: editToggle, orig: d, patch: p, stage: stageChecking, rk: DefaultReviewKeys()}
}

func (e *destEditor) setSize(w, h int) {
	e.w, e.h = w, h
	if e.form != nil {
		for _, f := range e.form.Fields {
			f.Input.Width = max(10, w/2)
		}
	}
	e.scroll.SetHeight(max(1, h-5))
	e.sub.SetSize(w, h-1) // below the title
}

func sortedRegions(rs []string) []string {
	n := api.NormalizeRegions(rs)
	var out []string
	for _, r := range api.Regions {
		for _, x := range n {
			if x == r {
				out = append(out, r)
			}
		}
	}
	return out
}

// rulesToText renders filter rules on one line, as the form and the diff
// show them: "and: model starts_with openai/, total_cost gt 0.01; or: …";
// a disabled set starts with "off:". Equal rules render equally, so it also
// tells whether the rules changed.
func rulesToText(fr *api.FilterRules) string {
	if fr == nil {
		return ""
	}
	var groups []string
	for _, g := range fr.Groups {
		var rules []string
		for _, r := range g.Rules {
			s := r.Field + " " + r.Operator
			if r.Value != nil {
				s += " " + fmt.Sprint(r.Value)
			}
			rules = append(rules, s)
		}
		groups = append(groups, g.Logic+": "+strings.Join(rules, ", "))
	}
	s := strings.Join(groups, "; ")
	if !fr.Enabled {
		s = "off: " + s
	}
	return s
}

// What an editor asks of its view (as action values).
type (
	// destSending: a change to id is on its way; flipped is a toggle's
	// row as it will be (shown at once, rolled back on failure).
	destSending struct {
		id      string
		flipped *api.Destination
	}
	// destSaved: the server took the change.
	destSaved struct{ dest *api.Destination }
	// destReload: the server's version replaces the one edited; reopen
	// starts a new edit of it.
	destReload struct {
		now    *api.Destination
		reopen bool
	}
)

// Update is the editor's one entry: keys, the wheel, and the answers to
// the reads and saves it sent.
func (e *destEditor) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return e.key(msg)
	case tea.MouseMsg:
		if e.form != nil {
			e.form.Move(0)
		}
	case destReadMsg:
		if msg.from == e {
			return e.onRead(msg)
		}
	case destSavedMsg:
		if e.owns(msg) {
			return e.onSaved(msg)
		}
	}
	return nil, noAction
}

// owns reports whether a save's answer is this editor's.
func (e *destEditor) owns(msg destSavedMsg) bool {
	if e.kind == editCreate {
		return msg.op == "create"
	}
	return msg.id == e.orig.ID && msg.op != "delete"
}

func (e *destEditor) readOnlyWhy() tea.Cmd { return e.c.refuseWrite(present.WriteDestUpdate) }

// key handles a key in the editor.
func (e *destEditor) key(msg tea.KeyMsg) (tea.Cmd, action) {
	switch e.stage {
	case stageReview:
		switch {
		case key.Matches(msg, e.rk.Send):
			if e.kind == editCreate {
				return e.send()
			}
			return e.check(), noAction
		case key.Matches(msg, e.rk.Back):
			e.stage = stageForm
			return nil, noAction
		}
		return e.scrollKey(msg), noAction
	case stageConflict:
		switch {
		case key.Matches(msg, e.rk.OnTop):
			return e.send()
		case key.Matches(msg, e.rk.Reload):
			if e.now == nil {
				return nil, noAction
			}
			if e.kind == editUpdate {
				return say("reloaded the server's version: your edits were dropped"), done(destReload{now: e.now, reopen: true})
			}
			return say("reloaded the server's version: nothing was sent"), done(destReload{now: e.now})
		case key.Matches(msg, e.rk.Back):
			if e.kind == editToggle {
				return say("nothing changed"), cancelled
			}
			e.stage = stageForm
			return say("back to your edits: nothing was sent"), noAction
		}
		return e.scrollKey(msg), noAction
	case stageChecking, stageSending:
		return nil, noAction
	}
	if e.sub.open() { // the rules editor or the question takes every key
		cmd, a := e.sub.update(msg)
		switch val := a.value.(type) {
		case answer: // discard your edits?
			if val.yes {
				return say("edits discarded"), cancelled
			}
		case rulesEdited:
			e.rulesValue = val.rules
			e.form.Field("filter_rules").Summary = orText(rulesToText(e.rulesValue), "none (null)")
			e.build()
		}
		return cmd, noAction
	}
	k := e.form.Keys
	switch {
	case key.Matches(msg, k.Back):
		if e.edited() {
			e.sub.push(newQuestion(e.c, widgets.NewConfirm("discard your edits?", ""), "answering y/N"))
			return nil, noAction
		}
		return nil, cancelled
	case key.Matches(msg, k.Save):
		if e.form.ReadOnly {
			return e.readOnlyWhy(), noAction
		}
		if errs := e.build(); len(errs) > 0 {
			return fail("cannot save: " + e.form.ErrorSummary()), noAction
		}
		if e.kind == editUpdate && e.patch.Empty() {
			return say("nothing changed: no field differs from the destination"), noAction
		}
		e.stage = stageReview
		e.scroll = widgets.ListNav{Height: max(1, e.h-5)}
		return sayFixed("every field is valid"), noAction
	case key.Matches(msg, k.Open) && e.form.Current().Kind == widgets.KindAction:
		if e.form.ReadOnly {
			return e.readOnlyWhy(), noAction
		}
		e.sub.push(newRulesEditor(e.c, e.rulesValue))
		return nil, noAction
	}
	cmd, changed, used := e.form.Key(msg)
	if changed {
		e.build()
	}
	if !used {
		if e.form.ReadOnly {
			return e.readOnlyWhy(), noAction
		}
		return unknownKey(msg), noAction
	}
	return cmd, noAction
}

func (e *destEditor) scrollKey(msg tea.KeyMsg) tea.Cmd {
	if e.scroll.Key(msg, widgets.DefaultListKeys()) {
		return nil
	}
	return unknownKey(msg)
}

// check reads the destination again before a change is sent.
func (e *destEditor) check() tea.Cmd {
	e.stage = stageChecking
	client, ctx, id := e.c.client, e.c.ctx, e.orig.ID
	return func() tea.Msg {
		d, err := client.GetDestination(ctx, id)
		return destReadMsg{from: e, dest: d, err: err}
	}
}

// onRead compares the server's version with the one the change was made
// on: the same, the change is sent; else the three versions are shown.
func (e *destEditor) onRead(msg destReadMsg) (tea.Cmd, action) {
	if s := api.StatusOf(msg.err); s == 404 || s == 405 {
		// A server need not offer GET of one destination (the contract's
		// four operations are all it must): the change goes on, and says
		// so; a destination that is really gone fails the PATCH itself.
		cmd, act := e.send()
		return tea.Batch(say("the conflict check is not available (the server does not return one destination); sending"), cmd), act
	}
	if msg.err != nil {
		act := noAction
		if e.kind == editToggle {
			act = cancelled
		} else {
			e.stage = stageForm
		}
		return fail("could not read it again before saving (nothing was sent): " + describeErr(msg.err)), act
	}
	if len(api.DiffDestinations(&e.orig, msg.dest)) == 0 {
		return e.send()
	}
	e.now = msg.dest
	e.stage = stageConflict
	e.scroll = widgets.ListNav{Height: max(1, e.h-5)}
	return fail("it changed on the server since it was loaded: see the three versions"), noAction
}

// send sends the change; a toggle closes at once (its row shows the new
// state until the answer, rolled back on failure).
func (e *destEditor) send() (tea.Cmd, action) {
	e.stage = stageSending
	client, ctx := e.c.client, e.c.ctx
	if e.kind == editCreate {
		c := e.create
		return func() tea.Msg {
			d, err := client.CreateDestination(ctx, c)
			id := ""
			if d != nil {
				id = d.ID
			}
			return destSavedMsg{op: "create", id: id, dest: d, err: err}
		}, noAction
	}
	id, p, before := e.orig.ID, e.patch, e.orig
	cmd := func(op string) tea.Cmd {
		return func() tea.Msg {
			d, err := client.UpdateDestination(ctx, id, p)
			return destSavedMsg{op: op, id: id, dest: d, err: err, before: before}
		}
	}
	if e.kind != editToggle {
		return cmd("update"), event(destSending{id: id})
	}
	flipped := before
	flipped.Enabled = !before.Enabled
	if e.now != nil {
		flipped = *e.now
		flipped.Enabled = *p.Enabled
	}
	return cmd("toggle"), done(destSending{id: id, flipped: &flipped})
}

// onSaved ends the editor on success, or keeps the edits on failure.
func (e *destEditor) onSaved(msg destSavedMsg) (tea.Cmd, action) {
	if msg.err != nil {
		e.stage = stageForm
		if api.StatusOf(msg.err) == 400 {
			var ae *api.APIError
			asErr(msg.err, &ae)
			e.applyServerError(ae.Message)
		}
		return fail("not saved (your edits are kept): " + describeErr(msg.err)), noAction
	}
	if msg.op == "create" {
		return say("created '" + msg.dest.DisplayName() + "' (" + textsafe.Line(msg.dest.Type) + "); the list is refreshed"), done(destSaved{dest: msg.dest})
	}
	return say("saved '" + msg.dest.DisplayName() + "'"), done(destSaved{dest: msg.dest})
}

// ---- VIEW ----

func (e *destEditor) title(s Styles) string {
	switch e.kind {
	case editCreate:
		return s.Title.Render("New "+textsafe.Line(e.typ)+" destination") + s.Muted.Render("  * marks required members")
	}
	return s.Title.Render("Edit "+textsafe.Line(e.orig.DisplayName())) + s.Muted.Render("  "+textsafe.Line(e.orig.Type)+" · "+textsafe.Line(e.orig.ID))
}

func (e *destEditor) view(s Styles, w, h int) string {
	switch e.stage {
	case stageReview:
		return e.reviewView(s, w, h)
	case stageConflict:
		return e.conflictView(s, w, h)
	case stageChecking:
		return e.title(s) + "\n\n" + s.Busy.Render("reading it again, to be sure nobody changed it meanwhile…")
	case stageSending:
		return e.title(s) + "\n\n" + s.Busy.Render("sending…")
	}
	if full, ok := e.sub.full(); ok {
		return e.title(s) + "\n" + full
	}
	lines := []string{e.title(s)}
	if q, ok := e.sub.inline(); ok {
		lines = append(lines, q)
	} else if e.form.ReadOnly {
		lines = append(lines, s.Warning.Render("read-only: changes are disabled · esc closes"))
	} else {
		lines = append(lines, s.Muted.Render(e.changeLine()))
	}
	lines = append(lines, e.form.View(s, w, h-2))
	return strings.Join(lines, "\n")
}

// KeyMap is the editor's keys in its stage.
func (e *destEditor) KeyMap() help.KeyMap {
	k := e.rk
	switch {
	case e.stage == stageReview:
		return keyMap{short: []key.Binding{k.Send, k.Back}, full: [][]key.Binding{{k.Send, k.Back}}}
	case e.stage == stageConflict:
		return keyMap{short: []key.Binding{k.OnTop, k.Reload, k.Back}, full: [][]key.Binding{{k.OnTop, k.Reload, k.Back}}}
	case e.stage != stageForm:
		return keyMap{}
	case e.sub.open():
		return e.sub.top().KeyMap()
	}
	fk := e.form.Keys
	e.c.hideWrites(&fk.Toggle, &fk.Left, &fk.Right, &fk.Save, &fk.Open)
	return fk
}

func (e *destEditor) View() string     { return e.view(e.c.styles, e.w, e.h) }
func (e *destEditor) SetSize(w, h int) { e.setSize(w, h) }

// Busy says what the editor waits for.
func (e *destEditor) Busy() string {
	if e.stage == stageChecking {
		return "reading it again"
	}
	return ""
}

func (e *destEditor) Help() string {
	switch e.stage {
	case stageReview:
		return "reviewing what is sent"
	case stageConflict:
		return "someone else changed it"
	}
	if r, ok := e.sub.top().(*rulesEditor); ok {
		return r.Help()
	}
	if e.kind == editCreate {
		return "creating a destination"
	}
	return "editing a destination"
}

func (e *destEditor) Typing() bool {
	switch {
	case e.stage != stageForm:
		return false
	case e.sub.open():
		return e.sub.top().Typing()
	}
	return e.form.Typing()
}

// sortedKeys is a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---- WORK KEPT NOWHERE ----

// Dialog reports a screen or an input open: q is then the view's key,
// never the shell's quit.
func (v *destView) Dialog() bool { return v.stack.open() || v.filter.Typing }

// Unsaved says what quitting would lose: edits not saved yet.
func (v *destView) Unsaved() string { return v.stack.unsaved() }

// edited reports fields or filter rules changed from what was loaded (a
// new destination: from nothing).
func (e *destEditor) edited() bool {
	return e.form.Edited() || rulesToText(e.rulesValue) != rulesToText(e.orig.FilterRules)
}

// Unsaved names edits the editor holds that the server has not got.
func (e *destEditor) Unsaved() string {
	if e.kind == editToggle || e.form == nil {
		return ""
	}
	switch {
	case !e.edited():
		return ""
	case e.kind == editCreate:
		return "a new " + textsafe.Line(e.typ) + " destination not created"
	}
	return "edits to '" + textsafe.Line(e.orig.DisplayName()) + "' not saved"
}
