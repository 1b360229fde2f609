package ui

// Retrying a batch's failed rows from its inspector (R): a small dialog
// of the plan (the error types with their checkboxes, the retryable ones
// chosen; the model; the estimate), y/N (default no), then the child is
// submitted, remembered as a retry of this batch, and opened in its
// place. And the lineage: "retry of" in a child's inspector and the
// home, and the effective results of a parent (E): the latest attempt of
// each custom_id across the retries made here. The plan, its rules and
// words are internal/retry's, shared with `gwdash batch retry`.

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/retry"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// ---- MSG ----

// retryPlannedMsg is a plan made off the UI loop (the first one also
// brings the kept bodies and the catalogue).
type retryPlannedMsg struct {
	to     *retryDialog // the dialog that asked (a closed one's are dropped)
	seq    int
	in     *retry.Input
	cat    *api.Catalogue
	plan   *retry.Plan
	groups []retry.Group
	err    error
}

// retrySubmittedMsg is the child's POST answered.
type retrySubmittedMsg struct {
	to     *retryDialog
	parent string
	rows   int
	batch  *api.Batch
	err    error
}

// effectiveMsg is a parent's effective results, read with its retries.
type effectiveMsg struct {
	gen    int
	data   *api.BatchData
	counts retry.Counts
	err    error
}

// ---- MODEL ----

// retryDialog is the plan on screen, a screen over the batch. It plans
// from the rows it was opened on and, once the server took the child,
// closes with retried.
type retryDialog struct {
	c       *common
	ctx     context.Context
	id      string         // the parent batch
	data    *api.BatchData // the rows it plans from
	own     string         // the batch's own model
	w, h    int
	keys    RetryKeys
	in      *retry.Input
	cat     *api.Catalogue
	plan    *retry.Plan
	groups  []retry.Group
	cursor  int
	model   string
	input   textinput.Model
	editing bool
	// sub holds "drop the typed model?" (esc on a changed model field).
	sub      stack
	seq      int
	planning bool
	sending  bool
	// effective: the plan is of the effective results (E), the rows
	// whose latest attempt failed.
	effective bool
	// problem is why nothing can be sent with the current choice.
	problem string
}

// retried is the dialog's value: the child the server took.
type retried struct {
	parent string
	rows   int
	batch  *api.Batch
}

// effectiveView is what E shows instead of the batch's own results.
type effectiveView struct {
	counts retry.Counts
	own    *results
}

// lineageOf is the child-to-parent links of the record.
func lineageOf(recs []record.Batch) map[string]string {
	m := map[string]string{}
	for _, r := range recs {
		if r.RetryOf != "" {
			m[r.ID] = r.RetryOf
		}
	}
	return m
}

// lineageMark is the home's "…3a6a45 -> " before a retry's id: its
// parent, by the end of its id.
func (c *common) lineageMark(id string) string {
	p := c.retryOf[id]
	if p == "" {
		return ""
	}
	if r := []rune(p); len(r) > 8 {
		p = "…" + string(r[len(r)-6:])
	}
	return textsafe.Line(p) + " -> "
}

// children are the retries of id made here.
func (c *common) children(id string) []string {
	var out []string
	for child, parent := range c.retryOf {
		if parent == id {
			out = append(out, child)
		}
	}
	slices.Sort(out)
	return out
}

// lineageLine is the inspector's "retry of …" / "retried by …" line
// (with its leading newline), "" for a batch without lineage.
func (v *batchView) lineageLine() string {
	var parts []string
	if p := v.c.retryOf[v.id]; p != "" {
		parts = append(parts, "retry of "+textsafe.Line(p))
	}
	if ch := v.c.children(v.id); len(ch) > 0 {
		s := "retried by " + textsafe.Line(ch[len(ch)-1])
		if len(ch) > 1 {
			s += " and " + format.Plural(len(ch)-1, "other", "others")
		}
		parts = append(parts, s+" · E effective results")
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n" + v.c.styles.Muted.Render(ansi.Truncate(strings.Join(parts, " · "), max(1, v.w), "…"))
}

// ---- UPDATE ----

// startRetry opens the dialog and plans the default retry: the kept
// bodies and the catalogue are read off the UI loop.
func (v *batchView) startRetry() tea.Cmd {
	if cmd := v.c.refuseWrite(present.WriteBatchRetry); cmd != nil {
		return cmd
	}
	if v.data == nil || v.meta == nil || !v.meta.Status.Terminal() {
		if v.data == nil && v.loading {
			return say("the results are still loading")
		}
		if v.meta != nil && !v.meta.Status.Terminal() {
			return say("only a settled batch can be retried: this one is " + statusWord(v.meta.Status))
		}
		return say(v.noResultsWhy())
	}
	// In the effective results, the rows whose latest attempt failed.
	r := &retryDialog{c: v.c, ctx: v.ctx, id: v.id, data: v.shownData(), keys: DefaultRetryKeys(), planning: true, seq: 1,
		model: v.data.Batch.Model, own: v.data.Batch.Model, effective: v.effective != nil}
	v.subs.push(r)
	d, rec, client, ctx, id := r.data, v.c.opts.Requests, v.c.client, v.ctx, v.id
	return func() tea.Msg {
		msg := retryPlannedMsg{to: r, seq: 1}
		msg.in = keptInput(ctx, rec, id)
		msg.cat, _ = client.Models(ctx, false)
		msg.plan, msg.groups, msg.err = planRetry(d, msg.in, msg.cat, nil, "")
		return msg
	}
}

// keptInput is what the request log kept of a batch (nil: nothing).
func keptInput(ctx context.Context, rec *reqlog.Recorder, id string) *retry.Input {
	if rec == nil {
		return nil
	}
	rec.Flush() // a batch submitted a moment ago is written first
	db, _, err := reqlog.OpenExisting(rec.Path())
	if err != nil {
		return nil
	}
	defer db.Close()
	k, err := db.KeptBatch(ctx, id)
	if err != nil {
		return nil
	}
	return retry.FromKept(k)
}

// planRetry builds a plan of the types chosen (nil: the default) and
// prices it; groups are every failure type, as chosen.
func planRetry(d *api.BatchData, in *retry.Input, cat *api.Catalogue, types []string, model string) (*retry.Plan, []retry.Group, error) {
	p, err := retry.Build(d, in, retry.Options{Types: types, Model: model})
	if err != nil {
		_, groups := retry.FailedTypes(d)
		for i := range groups {
			groups[i].Chosen = len(types) == 0 && groups[i].Retryable || slices.Contains(types, groups[i].Type)
		}
		return nil, groups, err
	}
	var m *api.Model
	if cat != nil {
		m = cat.Find(p.Model)
	}
	p.Price(m)
	return p, p.Groups, nil
}

// replan plans the dialog's choice again, off the UI loop.
func (r *retryDialog) replan() tea.Cmd {
	var types []string
	for _, g := range r.groups {
		if g.Chosen {
			types = append(types, g.Type)
		}
	}
	r.seq++ // a plan still being made for an earlier choice is dropped
	if len(types) == 0 {
		r.plan, r.problem, r.planning = nil, "nothing is chosen: space chooses an error type to retry", false
		return nil
	}
	r.planning = true
	d, in, cat, model, seq := r.data, r.in, r.cat, r.model, r.seq
	return func() tea.Msg {
		msg := retryPlannedMsg{to: r, seq: seq, in: in, cat: cat}
		msg.plan, msg.groups, msg.err = planRetry(d, in, cat, types, model)
		return msg
	}
}

// retryWhy words a plan's refusal for the dashboard (no flag can be
// passed here: the command line is named for a file of bodies).
func retryWhy(err error, id string) string {
	var ni *retry.NoInputError
	if errors.As(err, &ni) {
		what := "the requests of this batch were not kept on this machine (it was not submitted from gwdash here, or the request log was off or pruned)"
		if ni.Of > 0 {
			what = format.Int(ni.Missing) + " of the " + format.Plural(ni.Of, "row", "rows") + " to retry have no kept request"
		}
		return what + ": from a shell, gwdash batch retry " + textsafe.Line(id) + " --input FILE with the original JSON Lines"
	}
	return textsafe.Line(present.Plain(err))
}

// Update is the dialog's one entry: its keys, its plans and its POST.
func (r *retryDialog) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if r.sub.open() {
			cmd, a := r.sub.update(msg)
			if ans, ok := a.value.(answer); ok {
				if !ans.yes {
					return tea.Batch(cmd, say("still typing the model: enter uses it")), noAction
				}
				r.stopEditing()
				return tea.Batch(cmd, say("model unchanged: "+textsafe.Line(r.model))), noAction
			}
			return cmd, noAction
		}
		return r.key(msg)
	case retryPlannedMsg:
		return r.onPlanned(msg)
	case retrySubmittedMsg:
		if msg.to != r {
			return nil, noAction
		}
		r.sending = false
		if msg.err != nil {
			return fail("the retry was not submitted: " + describeErr(msg.err)), noAction
		}
		return nil, done(retried{parent: msg.parent, rows: msg.rows, batch: msg.batch})
	}
	return nil, noAction
}

func (r *retryDialog) onPlanned(msg retryPlannedMsg) (tea.Cmd, action) {
	if msg.to != r || msg.seq != r.seq {
		return nil, noAction
	}
	r.planning = false
	r.in, r.cat, r.groups, r.plan, r.problem = msg.in, msg.cat, msg.groups, msg.plan, ""
	r.cursor = min(r.cursor, max(0, len(r.groups)-1))
	var nc *retry.NothingChosenError
	switch {
	case msg.err == nil:
	case errors.As(msg.err, &nc):
		r.problem = "no failure is of a retryable type: space chooses the types to retry"
	case r.seq > 1: // a choice that cannot be sent: the dialog stays
		r.problem = retryWhy(msg.err, r.id)
	default:
		return fail("cannot retry: " + retryWhy(msg.err, r.id)), cancelled
	}
	return nil, noAction
}

// onRetried remembers the child the dialog submitted and opens it in
// the parent's place.
func (v *batchView) onRetried(val retried) tea.Cmd {
	now := v.c.now()
	rb := record.FromAPI(val.batch, now)
	rb.SubmittedAt, rb.RetryOf = &now, val.parent
	saved := v.c.remember(func(st *record.Store, base string) { st.Remember(base, rb) })
	v.c.submitted[val.batch.ID] = now
	v.c.retryOf[val.batch.ID] = val.parent
	open := v.become(val.batch)
	return tea.Batch(saved, open, say("submitted "+textsafe.Line(val.batch.ID)+": a retry of "+format.Plural(val.rows, "failed row", "failed rows")+
		" of "+textsafe.Line(val.parent)+"; watching it"))
}

func (v *batchView) onEffective(msg effectiveMsg) tea.Cmd {
	switch {
	case msg.gen != v.gen:
		return nil
	case msg.err != nil:
		return fail("effective results: " + describeErr(msg.err))
	}
	if v.effective == nil {
		v.effective = &effectiveView{own: v.res}
	}
	v.effective.counts = msg.counts
	v.res = newResults(msg.data)
	return say("effective results: " + msg.counts.Summary() + " · E shows this batch's own")
}

// become turns the inspector into another batch's (the child just
// submitted): what the home holds is this view, so the child opens in
// the parent's place, and esc goes back to all batches.
func (v *batchView) become(b *api.Batch) tea.Cmd {
	v.stop()
	w, h := v.w, v.h
	*v = *newBatchView(v.c, b.ID, b, nil) // its own tags: the parent's answers are dropped
	v.SetSize(w, h)
	return v.start()
}

// key is a key while the dialog is open.
func (r *retryDialog) key(msg tea.KeyMsg) (tea.Cmd, action) {
	k := r.keys
	if r.sending {
		return nil, noAction
	}
	if !r.editing && key.Matches(msg, k.No) {
		return say("nothing submitted"), cancelled
	}
	return r.onKey(msg), noAction
}

func (r *retryDialog) onKey(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	if r.editing {
		ik := widgets.DefaultInputKeys("use this model")
		switch {
		case key.Matches(msg, ik.Cancel):
			if strings.TrimSpace(r.input.Value()) != r.model {
				r.sub.push(newQuestion(r.c, widgets.NewConfirm("drop the typed model?", "drop model"), "answering y/N"))
				return nil
			}
			r.stopEditing()
			return nil
		case key.Matches(msg, ik.Accept):
			m := strings.TrimSpace(r.input.Value())
			if err := api.ValidateModel(m); err != nil {
				return fail("model: " + describeErr(err))
			}
			r.stopEditing()
			r.model = m
			return r.replan()
		}
		var cmd tea.Cmd
		r.input, cmd = r.input.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, k.Up):
		r.cursor = max(0, r.cursor-1)
	case key.Matches(msg, k.Down):
		r.cursor = min(max(0, len(r.groups)-1), r.cursor+1)
	case key.Matches(msg, k.Toggle):
		if r.cursor >= len(r.groups) {
			return nil
		}
		r.groups[r.cursor].Chosen = !r.groups[r.cursor].Chosen
		return r.replan()
	case key.Matches(msg, k.Model):
		r.input = widgets.NewInput("model › ", "<provider>/<model>", 200, r.model)
		r.input.Width = max(10, r.w-12)
		r.editing = true
		return r.input.Focus()
	case key.Matches(msg, k.Yes):
		switch {
		case r.planning:
			return say("the plan is being made: y once it is shown")
		case r.plan == nil:
			return say("nothing to submit: " + r.problem)
		}
		r.sending = true
		p, client, ctx, parent := r.plan, r.c.client, r.ctx, r.id
		return func() tea.Msg {
			b, err := client.SubmitBatch(ctx, p.Endpoint, p.Model, p.Requests)
			return retrySubmittedMsg{to: r, parent: parent, rows: p.Chosen(), batch: b, err: err}
		}
	default:
		return unknownKey(msg)
	}
	return nil
}

// toggleEffective shows the effective results (read with the retries
// made here), or the batch's own again.
func (v *batchView) toggleEffective() tea.Cmd {
	if v.effective != nil {
		v.res = v.effective.own
		v.effective = nil
		return say("this batch's own results")
	}
	switch {
	case v.res == nil && v.loading:
		return say("the results are still loading")
	case v.res == nil:
		return say(v.noResultsWhy())
	}
	if len(v.c.children(v.id)) == 0 {
		return say("no retry of this batch was made from this machine: R retries its failed rows")
	}
	// The lineage known here (the record's, and this session's retries).
	links := make([]record.Batch, 0, len(v.c.retryOf))
	for child, parent := range v.c.retryOf {
		links = append(links, record.Batch{ID: child, RetryOf: parent})
	}
	d, client, ctx, gen, id := v.data, v.c.client, v.ctx, v.gen, v.id
	return func() tea.Msg {
		var later []*api.BatchData
		for _, r := range retry.Descendants(links, id) {
			cd, err := client.GetBatchData(ctx, r.ID)
			if err != nil {
				return effectiveMsg{gen: gen, err: err}
			}
			later = append(later, cd)
		}
		ed, counts, err := retry.Effective(d, later)
		return effectiveMsg{gen: gen, data: ed, counts: counts, err: err}
	}
}

// resultsTitle names the table: the batch's own results or the
// effective ones.
func (v *batchView) resultsTitle() string {
	if v.effective != nil {
		return "Effective results"
	}
	return "Results"
}

// resultsNote is the results bar's note: the failures, or the effective
// counts.
func (v *batchView) resultsNote() string {
	if v.effective != nil {
		return v.effective.counts.Summary()
	}
	return v.failureSummary()
}

// shownData is the data of the results shown (the effective ones, or the
// batch's own).
func (v *batchView) shownData() *api.BatchData {
	if v.res != nil {
		return v.res.data
	}
	return v.data
}

// ---- VIEW ----

func (r *retryDialog) SetSize(w, h int) { r.w, r.h = w, h }

func (r *retryDialog) View() string {
	s := r.c.styles
	fit := func(line string) string { return ansi.Truncate(line, max(1, r.w), "…") }
	title := "Retry failed rows of " + textsafe.Line(r.id)
	if r.effective {
		title = "Retry the rows that still fail (effective results) of " + textsafe.Line(r.id)
	}
	lines := []string{s.Title.Render(fit(title)),
		s.Muted.Render(fit("the rows chosen go to a new batch, custom_ids unchanged")), ""}
	room := max(1, r.h-10)
	nameW, countW := 0, 0
	for _, g := range r.groups {
		nameW = min(40, max(nameW, ansi.StringWidth(textsafe.Line(g.Type)))) // a long name is cut by the width
		countW = max(countW, len(format.Int(g.Rows)))
	}
	for i, g := range r.groups {
		if i >= room {
			lines = append(lines, s.Muted.Render("  … and "+format.Plural(len(r.groups)-i, "other type", "other types")))
			break
		}
		box := "[ ]"
		if g.Chosen {
			box = "[x]"
		}
		note := "not retried by default"
		if g.Retryable {
			note = "retryable"
		}
		name, count := textsafe.Line(g.Type), format.Int(g.Rows)
		line := box + " " + name + strings.Repeat(" ", max(0, nameW-ansi.StringWidth(name))) + "  " +
			strings.Repeat(" ", max(0, countW-len(count))) + count + "  " + note
		if i == r.cursor && !r.editing {
			lines = append(lines, s.Focused.Render(fit("▸ "+line)))
		} else {
			lines = append(lines, fit("  "+line))
		}
	}
	lines = append(lines, "")
	if r.editing {
		lines = append(lines, r.input.View())
		if q, asking := r.sub.inline(); asking {
			lines = append(lines, fit(q))
		}
	} else {
		which := " (the batch's)"
		if r.model != r.own {
			which = " (not the batch's " + textsafe.Line(r.own) + ")"
		}
		lines = append(lines, fit(s.Label.Render("model     ")+textsafe.Line(r.model)+which))
	}
	switch {
	case r.planning:
		lines = append(lines, s.Busy.Render("making the plan…"))
	case r.plan != nil:
		p := r.plan
		lines = append(lines, fit(s.Label.Render("requests  ")+format.Plural(p.Chosen(), "row", "rows")+", bodies from "+textsafe.Line(p.Source)),
			fit(s.Label.Render("estimate  ")+textsafe.Line(p.Estimate.String())), "")
		if r.sending {
			lines = append(lines, s.Busy.Render("submitting…"))
		} else {
			lines = append(lines, s.Warning.Render(fit("submit "+format.Plural(p.Chosen(), "row", "rows")+" as a new batch? y/N")))
		}
	default:
		lines = append(lines, "", s.Warning.Render(wrap(r.problem, max(20, r.w))))
	}
	return strings.Join(lines, "\n")
}

// stopEditing leaves the model field.
func (r *retryDialog) stopEditing() {
	r.editing = false
	r.input.Blur()
}

// Busy says what the dialog waits for (the status bar shows it).
func (r *retryDialog) Busy() string {
	switch {
	case r.planning:
		return "making the retry plan"
	case r.sending:
		return "submitting the retry"
	}
	return ""
}

func (r *retryDialog) Help() string {
	if s := r.sub.top(); s != nil {
		return s.Help()
	}
	return "retrying failed rows"
}

func (r *retryDialog) Typing() bool {
	if s := r.sub.top(); s != nil {
		return s.Typing()
	}
	return r.editing
}

// KeyMap is the dialog's keys (the model field's while typing it, the
// question's while it asks).
func (r *retryDialog) KeyMap() help.KeyMap {
	if s := r.sub.top(); s != nil {
		return s.KeyMap()
	}
	if r.editing {
		ik := widgets.DefaultInputKeys("use this model")
		return keyMap{short: ik.ShortHelp(), full: ik.FullHelp()}
	}
	return r.keys
}
