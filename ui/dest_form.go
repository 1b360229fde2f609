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
	"github.com/gwdash/gwdash/internal/textsafe"
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
	form  *form
	rules *rulesEditor
	// rulesValue is the filter rules as edited (nil: none).
	rulesValue *api.FilterRules
	patch      api.DestinationPatch
	create     api.DestinationCreate
	now        *api.Destination // the server's version, on conflict
	discard    *confirmPrompt
	rk         ReviewKeys
	scroll     listNav
	w, h       int
}

const keysAll, keysOnly = "all keys", "only these hashes"

// commonFields are the fields every destination has, after name.
func commonFields(d api.Destination, create bool) []*formField {
	var fs []*formField
	for _, b := range api.DestinationBools {
		if create && b.Create == nil {
			continue
		}
		on := b.Get(&d)
		fs = append(fs, boolField(b.Name, b.Label, b.About, on))
	}
	fs = append(fs, textField("sampling_rate", "sampling rate", "0.0001 to 1 (or 0.01% to 100%)", strconv.FormatFloat(d.SamplingRate, 'f', -1, 64)))
	if !create {
		fs = append(fs, multiField("regions", "regions", "←/→ choose, space toggles; at least one", api.Regions, sortedRegions(d.Regions)))
	}
	mode := keysAll
	if d.APIKeyHashes != nil {
		mode = keysOnly
	}
	fs = append(fs, choiceField("api_key_hashes.mode", "key allowlist", "←/→: all keys, or only the hashes below", []string{keysAll, keysOnly}, mode),
		textField("api_key_hashes", "allowed key hashes", "comma-separated; used with “only these hashes”", strings.Join(d.APIKeyHashes, ", ")),
		&formField{name: "filter_rules", label: "filter rules", hint: "enter edits the groups of rules", kind: fieldAction, summary: orText(rulesToText(d.FilterRules), "none (null)")})
	return fs
}

// configField is the field of one config member: a secret masked while
// typed (the masked value it has stays untouched unless replaced), a
// string, or a JSON value.
func configField(member, label string, value any, secret, required bool) *formField {
	name := "config." + member
	switch v := value.(type) {
	case string:
		if secret || api.IsMasked(v) {
			f := secretField(name, label, "secret: masked while typed (ctrl+r shows it)")
			if v != "" {
				f.input.Placeholder = textsafe.Line(v) + " (unchanged; type to replace)"
				f.hint = "secret: stays untouched unless you type a new value (ctrl+r shows it)"
			}
			f.required = required
			return f
		}
		f := textField(name, label, "", v)
		f.required = required
		return f
	case nil:
		if secret {
			f := secretField(name, label, "secret: masked while typed (ctrl+r shows it)")
			f.required = required
			return f
		}
		f := textField(name, label, "", "")
		f.required = required
		return f
	}
	b, _ := json.Marshal(value)
	f := textField(name, label, "a JSON value", string(b))
	f.required = required
	return f
}

func newEditEditor(c *common, d api.Destination) *destEditor {
	e := &destEditor{c: c, kind: editUpdate, orig: d, rulesValue: d.FilterRules, rk: DefaultReviewKeys()}
	e.spec, e.known = api.TypeSpec(d.Type)
	name := ""
	if d.Name != nil {
		name = *d.Name
	}
	fields := []*formField{textField("name", "name", "any text", name)}
	fields = append(fields, commonFields(d, false)...)
	for _, k := range d.ConfigKeys() {
		fields = append(fields, configField(k, textsafe.Line(k), d.Config[k], e.known && e.spec.IsSecret(k) || !e.known && api.IsSecretMember(k), false))
	}
	e.form = newForm(fields...)
	e.form.readOnly = c.opts.ReadOnly
	return e
}

func newCreateEditor(c *common, typ string) *destEditor {
	e := &destEditor{c: c, kind: editCreate, typ: typ, rk: DefaultReviewKeys()}
	e.spec, e.known = api.TypeSpec(typ)
	blank := api.NewDestinationDefaults()
	fields := []*formField{textField("name", "name", "required", "")}
	fields[0].required = true
	if e.known {
		for _, m := range e.spec.Required {
			fields = append(fields, configField(m, m, nil, e.spec.IsSecret(m), true))
		}
		for _, m := range e.spec.Optional {
			f := configField(m, m, nil, e.spec.IsSecret(m), false)
			if vals := e.spec.Values[m]; len(vals) > 0 {
				f.hint = "one of " + strings.Join(vals, ", ")
			}
			fields = append(fields, f)
		}
		fields = append(fields, textField("config.headers", "headers", "optional JSON object of extra HTTP headers", ""))
	} else {
		fields = append(fields, textField("config", "config (JSON)", "the type's members as a JSON object", "{}"))
	}
	fields = append(fields, commonFields(blank, true)...)
	e.form = newForm(fields...)
	e.form.base = make([]string, len(e.form.fields)) // any value typed is an edit
	return e
}

func newToggleEditor(c *common, d api.Destination, p api.DestinationPatch) *destEditor {
	return &destEditor{c: c, kind: editToggle, orig: d, patch: p, stage: stageChecking, rk: DefaultReviewKeys()}
}

func (e *destEditor) setSize(w, h int) {
	e.w, e.h = w, h
	if e.form != nil {
		for _, f := range e.form.fields {
			f.input.Width = max(10, w/2)
		}
	}
	e.scroll.setHeight(max(1, h-5))
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

// key handles a key in the editor.
func (e *destEditor) key(v *destView, msg tea.KeyMsg) tea.Cmd {
	switch e.stage {
	case stageReview:
		switch {
		case key.Matches(msg, e.rk.Send):
			if e.kind == editCreate {
				return e.send(v)
			}
			return e.check(v)
		case key.Matches(msg, e.rk.Back):
			e.stage = stageForm
			return nil
		}
		return e.scrollKey(msg)
	case stageConflict:
		switch {
		case key.Matches(msg, e.rk.OnTop):
			return e.send(v)
		case key.Matches(msg, e.rk.Reload):
			if e.now == nil {
				return nil
			}
			v.applySaved(e.now)
			v.apply()
			v.editor = nil
			if e.kind == editUpdate {
				v.editor = newEditEditor(v.c, *e.now)
				v.editor.setSize(v.w, v.h)
				return say("reloaded the server's version: your edits were dropped")
			}
			return say("reloaded the server's version: nothing was sent")
		case key.Matches(msg, e.rk.Back):
			if e.kind == editToggle {
				v.editor = nil
				return say("nothing changed")
			}
			e.stage = stageForm
			return say("back to your edits: nothing was sent")
		}
		return e.scrollKey(msg)
	case stageChecking, stageSending:
		return nil
	}
	if e.discard != nil {
		_, done, yes := e.discard.key(msg)
		if done {
			e.discard = nil
			if yes {
				v.editor = nil
				return say("edits discarded")
			}
		}
		return nil
	}
	if e.rules != nil { // the rules editor takes every key until it closes
		cmd, done := e.rules.key(msg)
		if done {
			e.rulesValue, e.rules = e.rules.rules(), nil
			e.form.field("filter_rules").summary = orText(rulesToText(e.rulesValue), "none (null)")
			e.build()
		}
		return cmd
	}
	k := e.form.keys
	switch {
	case key.Matches(msg, k.Back):
		if e.form.edited() || e.kind == editUpdate && rulesToText(e.rulesValue) != rulesToText(e.orig.FilterRules) {
			e.discard = newConfirm("discard your edits?", "")
			return nil
		}
		v.editor = nil
		return nil
	case key.Matches(msg, k.Save):
		if e.form.readOnly {
			return v.readOnlyWhy()
		}
		if errs := e.build(); len(errs) > 0 {
			return fail("cannot save: " + e.form.errorSummary())
		}
		if e.kind == editUpdate && e.patch.Empty() {
			return say("nothing changed: no field differs from the destination")
		}
		e.stage = stageReview
		e.scroll = listNav{height: max(1, e.h-5)}
		return sayFixed("every field is valid")
	case key.Matches(msg, k.Open) && e.form.current().kind == fieldAction:
		if e.form.readOnly {
			return v.readOnlyWhy()
		}
		e.rules = newRulesEditor(e.rulesValue)
		return nil
	}
	cmd, changed, used := e.form.key(msg)
	if changed {
		e.build()
	}
	if !used {
		if e.form.readOnly {
			return v.readOnlyWhy()
		}
		return unknownKey(msg)
	}
	return cmd
}

func (e *destEditor) scrollKey(msg tea.KeyMsg) tea.Cmd {
	if e.scroll.key(msg, DefaultListKeys()) {
		return nil
	}
	return unknownKey(msg)
}

// check reads the destination again before a change is sent.
func (e *destEditor) check(v *destView) tea.Cmd {
	e.stage = stageChecking
	v.seq++
	client, ctx, id, seq := v.c.client, v.c.ctx, e.orig.ID, v.seq
	return func() tea.Msg {
		d, err := client.GetDestination(ctx, id)
		return destReadMsg{seq: seq, dest: d, err: err}
	}
}

// onRead compares the server's version with the one the change was made
// on: the same, the change is sent; else the three versions are shown.
func (e *destEditor) onRead(v *destView, msg destReadMsg) tea.Cmd {
	if s := api.StatusOf(msg.err); s == 404 || s == 405 {
		// A server need not offer GET of one destination (the contract's
		// four operations are all it must): the change goes on, and says
		// so; a destination that is really gone fails the PATCH itself.
		return tea.Batch(say("the conflict check is not available (the server does not return one destination); sending"), e.send(v))
	}
	if msg.err != nil {
		if e.kind == editToggle {
			v.editor = nil
		} else {
			e.stage = stageForm
		}
		return fail("could not read it again before saving (nothing was sent): " + describeErr(msg.err))
	}
	if len(api.DiffDestinations(&e.orig, msg.dest)) == 0 {
		return e.send(v)
	}
	e.now = msg.dest
	e.stage = stageConflict
	e.scroll = listNav{height: max(1, e.h-5)}
	return fail("it changed on the server since it was loaded: see the three versions")
}

// send sends the change; a toggle flips the row at once (rolled back on
// failure).
func (e *destEditor) send(v *destView) tea.Cmd {
	e.stage = stageSending
	client, ctx := v.c.client, v.c.ctx
	switch e.kind {
	case editCreate:
		c := e.create
		return func() tea.Msg {
			d, err := client.CreateDestination(ctx, c)
			id := ""
			if d != nil {
				id = d.ID
			}
			return destSavedMsg{op: "create", id: id, dest: d, err: err}
		}
	}
	id, p, before := e.orig.ID, e.patch, e.orig
	op := "update"
	v.inflight[id] = true
	if e.kind == editToggle {
		op = "toggle"
		flipped := before
		flipped.Enabled = !before.Enabled
		if e.now != nil {
			flipped = *e.now
			flipped.Enabled = *p.Enabled
		}
		v.applySaved(&flipped)
		v.apply()
		v.editor = nil // the toggle needs no screen while it is sent
	}
	return func() tea.Msg {
		d, err := client.UpdateDestination(ctx, id, p)
		return destSavedMsg{op: op, id: id, dest: d, err: err, before: before}
	}
}

// onSaved ends the editor on success, or keeps the edits on failure.
func (e *destEditor) onSaved(v *destView, msg destSavedMsg) tea.Cmd {
	if msg.err != nil {
		e.stage = stageForm
		if api.StatusOf(msg.err) == 400 {
			var ae *api.APIError
			asErr(msg.err, &ae)
			e.applyServerError(ae.Message)
		}
		return fail("not saved (your edits are kept): " + describeErr(msg.err))
	}
	v.applySaved(msg.dest)
	saved := v.seen(*msg.dest)
	v.apply()
	v.editor = nil
	if msg.op == "create" {
		return tea.Batch(saved, say("created '"+msg.dest.DisplayName()+"' ("+textsafe.Line(msg.dest.Type)+"); the list is refreshed"))
	}
	return tea.Batch(saved, say("saved '"+msg.dest.DisplayName()+"'"))
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
	if e.rules != nil {
		return e.title(s) + "\n" + e.rules.view(s, w, h-1)
	}
	lines := []string{e.title(s)}
	if e.discard != nil {
		lines = append(lines, e.discard.view(s))
	} else if e.form.readOnly {
		lines = append(lines, s.Warning.Render("read-only: changes are disabled · esc closes"))
	} else {
		lines = append(lines, s.Muted.Render(e.changeLine()))
	}
	lines = append(lines, e.form.view(s, w, h-2))
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
	case e.discard != nil:
		return e.discard.KeyMap()
	case e.rules != nil:
		return e.rules.keys
	}
	fk := e.form.keys
	e.c.hideWrites(&fk.Toggle, &fk.Left, &fk.Right, &fk.Save, &fk.Open)
	return fk
}

func (e *destEditor) help() string {
	switch e.stage {
	case stageReview:
		return "reviewing what is sent"
	case stageConflict:
		return "someone else changed it"
	}
	if e.rules != nil {
		return "editing filter rules"
	}
	if e.kind == editCreate {
		return "creating a destination"
	}
	return "editing a destination"
}

func (e *destEditor) typing() bool {
	switch {
	case e.stage != stageForm || e.discard != nil:
		return false
	case e.rules != nil:
		return e.rules.typing()
	}
	return e.form.typing()
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

// Dialog reports an editor, the type picker or a question open: q is
// then the view's key, never the shell's quit.
func (v *destView) Dialog() bool {
	return v.editor != nil || v.types != nil || v.confirm != nil || v.editWS || v.filter.typing
}

// Unsaved says what quitting would lose: edits not saved yet.
func (v *destView) Unsaved() string {
	if v.editor == nil {
		return ""
	}
	return v.editor.unsaved()
}

// unsaved names edits the editor holds that the server has not got.
func (e *destEditor) unsaved() string {
	if e.kind == editToggle || e.form == nil {
		return ""
	}
	edited := e.form.edited() || e.kind == editUpdate && rulesToText(e.rulesValue) != rulesToText(e.orig.FilterRules)
	switch {
	case !edited:
		return ""
	case e.kind == editCreate:
		return "a new " + textsafe.Line(e.typ) + " destination not created"
	}
	return "edits to '" + textsafe.Line(e.orig.DisplayName()) + "' not saved"
}
