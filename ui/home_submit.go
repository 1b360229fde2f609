package ui

// Submitting a batch from the home: a JSON Lines file (a path with
// completion), an endpoint and a model. The file is read and checked
// before anything is sent: the request count and every problem, by line,
// are on screen first.

import (
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// submitCheckedMsg is a file read and checked.
type submitCheckedMsg struct {
	seq  int
	path string
	reqs []api.BatchRequest
	errs []*api.LineError
	err  error
}

// submittedMsg is the POST's answer.
type submittedMsg struct {
	batch *api.Batch
	err   error
}

type submitRow int

const (
	submitPath submitRow = iota
	submitEndpoint
	submitModel
)

type submitDialog struct {
	c    *common
	w, h int
	// sub holds "discard this batch?" (esc on a filled-in form).
	sub      stack
	row      submitRow
	path     widgets.PathInput
	endpoint int
	model    textinput.Model
	keys     SubmitKeys
	seq      int
	checked  *submitCheckedMsg
	checking bool
	sending  bool
	fieldErr map[submitRow]string
	// model0 is the model offered when the dialog opened.
	model0 string
}

func newSubmitDialog(c *common) *submitDialog {
	model := "openai/gpt-4o-mini"
	if ms := c.record.Models(c.base); len(ms) > 0 {
		model = ms[0]
	}
	d := &submitDialog{c: c, keys: DefaultSubmitKeys(), path: widgets.NewPathInput("file › ", ""), model: widgets.NewInput("model › ", "<provider>/<model>", 200, model),
		fieldErr: map[submitRow]string{}, model0: model, seq: c.tagBase()}
	return d
}

func (d *submitDialog) SetSize(w, h int) {
	d.w, d.h = w, h
	d.path.SetWidth(w)
	d.model.Width = max(10, w-12)
}

func (d *submitDialog) Typing() bool {
	if s := d.sub.top(); s != nil {
		return s.Typing()
	}
	return d.row != submitEndpoint
}

func (d *submitDialog) Help() string {
	if s := d.sub.top(); s != nil {
		return s.Help()
	}
	return "submitting a batch"
}

func (d *submitDialog) KeyMap() help.KeyMap {
	if s := d.sub.top(); s != nil {
		return s.KeyMap()
	}
	return d.keys
}

func (d *submitDialog) focus(r submitRow) tea.Cmd {
	d.row = r
	d.path.Input.Blur()
	d.model.Blur()
	switch r {
	case submitPath:
		return d.path.Focus()
	case submitModel:
		return d.model.Focus()
	}
	return nil
}

// check reads and checks the file, off the UI loop.
func (d *submitDialog) check() tea.Cmd {
	path := strings.TrimSpace(widgets.ExpandHome(d.path.Input.Value()))
	if path == "" {
		d.fieldErr[submitPath] = "a JSON Lines file is required"
		return nil
	}
	d.seq++
	d.checking = true
	seq := d.seq
	return func() tea.Msg {
		f, err := os.Open(path)
		if err != nil {
			return submitCheckedMsg{seq: seq, path: path, err: err}
		}
		defer f.Close()
		reqs, errs := api.ReadBatchRequests(f)
		return submitCheckedMsg{seq: seq, path: path, reqs: reqs, errs: errs}
	}
}

// problems checks everything before a POST; every problem is placed.
func (d *submitDialog) problems() bool {
	d.fieldErr = map[submitRow]string{}
	if d.checked == nil || d.checked.path != strings.TrimSpace(widgets.ExpandHome(d.path.Input.Value())) {
		d.fieldErr[submitPath] = "check the file first (enter)"
	} else if d.checked.err != nil || len(d.checked.errs) > 0 {
		d.fieldErr[submitPath] = "the file has problems (below)"
	}
	if err := api.ValidateModel(strings.TrimSpace(d.model.Value())); err != nil {
		d.fieldErr[submitModel] = err.(*api.ValidationError).Rule
	}
	if len(d.fieldErr) == 0 {
		reqs := d.checked.reqs
		if err := api.ValidateBatchSubmission(api.BatchEndpoints[d.endpoint], strings.TrimSpace(d.model.Value()), reqs); err != nil {
			var ve *api.ValidationError
			asErr(err, &ve)
			d.fieldErr[submitModel] = ve.Error()
		}
	}
	return len(d.fieldErr) > 0
}

// submitted is the dialog's value when the server took the batch.
type submitted struct{ batch *api.Batch }

// Update is the dialog's one entry: its keys, its file check, its POST
// and the path completion.
func (d *submitDialog) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if d.sub.open() {
			cmd, a := d.sub.update(msg)
			if ans, ok := a.value.(answer); ok {
				if ans.yes {
					return tea.Batch(cmd, say("nothing submitted")), cancelled
				}
				return tea.Batch(cmd, say("still submitting: ctrl+s submits")), noAction
			}
			return cmd, noAction
		}
		switch {
		case !key.Matches(msg, d.keys.Cancel):
			return d.key(msg), noAction
		case d.sending:
			return say("submitting…: the server's answer closes the dialog"), noAction
		case d.Unsaved() != "":
			// a filled-in form is not thrown away by one key
			d.sub.push(newQuestion(d.c, widgets.NewConfirm("discard this batch? It is not submitted", "discard"), "answering y/N"))
			return nil, noAction
		}
		return say("nothing submitted"), cancelled
	case widgets.PathCompletedMsg:
		d.path.Completed(msg)
	case submitCheckedMsg:
		return d.onChecked(msg), noAction
	case submittedMsg:
		return d.onSubmitted(msg)
	}
	return nil, noAction
}

func (d *submitDialog) key(msg tea.KeyMsg) tea.Cmd {
	k := d.keys
	if d.sending {
		return nil
	}
	switch {
	case key.Matches(msg, k.Send):
		return d.send()
	case key.Matches(msg, k.Up):
		return d.focus((d.row + 2) % 3)
	case key.Matches(msg, k.Down):
		return d.focus((d.row + 1) % 3)
	}
	switch d.row {
	case submitPath:
		if key.Matches(msg, k.Check) {
			check := d.check()
			if check == nil { // refused at once: the focus stays on the path
				return nil
			}
			return tea.Batch(check, d.focus(submitEndpoint))
		}
		if key.Matches(msg, k.Complete) {
			if strings.TrimSpace(d.path.Input.Value()) != "" && len(d.path.Candidates) == 1 {
				return tea.Batch(d.check(), d.focus(submitEndpoint))
			}
			d.path.Seq++
			return widgets.CompletePath(d.path.Seq, d.path.Input.Value())
		}
		cmd, _, _ := d.path.Key(msg)
		delete(d.fieldErr, submitPath)
		return cmd
	case submitEndpoint:
		switch {
		case key.Matches(msg, k.Right):
			d.endpoint = (d.endpoint + 1) % len(api.BatchEndpoints)
		case key.Matches(msg, k.Left):
			d.endpoint = (d.endpoint + len(api.BatchEndpoints) - 1) % len(api.BatchEndpoints)
		case key.Matches(msg, k.Check), key.Matches(msg, k.Complete):
			return d.focus(submitModel)
		}
		return nil
	}
	if key.Matches(msg, k.Check) { // enter on the last field submits
		return d.send()
	}
	var cmd tea.Cmd
	d.model, cmd = d.model.Update(msg)
	delete(d.fieldErr, submitModel)
	return cmd
}

// send checks everything, then POSTs the batch.
func (d *submitDialog) send() tea.Cmd {
	if d.problems() {
		// the focus goes to the first field that is wrong
		for _, r := range []submitRow{submitPath, submitEndpoint, submitModel} {
			if d.fieldErr[r] != "" {
				return tea.Batch(d.focus(r), fail("not submitted: fix what is marked"))
			}
		}
	}
	d.sending = true
	client, ctx := d.c.client, d.c.ctx
	endpoint, model, reqs := api.BatchEndpoints[d.endpoint], strings.TrimSpace(d.model.Value()), d.checked.reqs
	return func() tea.Msg {
		b, err := client.SubmitBatch(ctx, endpoint, model, reqs)
		return submittedMsg{batch: b, err: err}
	}
}

func (d *submitDialog) onChecked(msg submitCheckedMsg) tea.Cmd {
	if msg.seq != d.seq {
		return nil
	}
	d.checking = false
	d.checked = &msg
	delete(d.fieldErr, submitPath)
	if msg.err != nil || len(msg.errs) > 0 {
		d.fieldErr[submitPath] = "the file has problems (below)"
		return d.focus(submitPath) // back to the field that is wrong
	}
	return nil
}

// onSubmitted is the POST's answer: a refusal stays on the dialog with
// the field the server named; a batch taken closes it.
func (d *submitDialog) onSubmitted(msg submittedMsg) (tea.Cmd, action) {
	d.sending = false
	if msg.err != nil {
		// the focus goes to the field the server refused: the model
		// when its message names it, else the file
		row := submitPath
		var ae *api.APIError
		if asErr(msg.err, &ae) && strings.Contains(strings.ToLower(ae.Message), "model") {
			row = submitModel
		}
		d.fieldErr[row] = "refused by the server (see the status line)"
		return tea.Batch(d.focus(row), fail("not submitted: "+describeErr(msg.err))), noAction
	}
	return nil, done(submitted{batch: msg.batch})
}

// onSubmitted remembers a batch the dialog submitted and opens it.
func (v *batchesView) onSubmitted(b *api.Batch) tea.Cmd {
	now := v.c.now()
	rb := record.FromAPI(b, now)
	rb.SubmittedAt = &now
	model := b.Model
	saved := v.c.remember(func(st *record.Store, base string) {
		st.Remember(base, rb)
		st.UseModel(base, model)
	})
	v.c.submitted[b.ID] = now
	r := &homeRow{b: *b}
	v.rows = append(v.rows, r)
	v.byID[b.ID] = r
	v.apply()
	return tea.Batch(saved, say("submitted "+textsafe.Line(b.ID)+": watching it"), v.openBatch(b.ID, b))
}

func (d *submitDialog) View() string {
	s := d.c.styles
	lines := []string{s.Title.Render("Submit a batch"), s.Muted.Render("a JSON Lines file of {\"custom_id\": …, \"body\": {…}}; it is checked before anything is sent"), ""}
	mark := func(r submitRow, label string) string {
		if d.row == r {
			return s.Focused.Render("▸ " + label)
		}
		return s.Label.Render("  " + label)
	}
	errOf := func(r submitRow) string {
		if e := d.fieldErr[r]; e != "" {
			return "   " + s.FieldErr.Render("✗ "+textsafe.Line(e))
		}
		return ""
	}
	// An error goes on its field's label line: the value lines are as
	// wide as the screen.
	lines = append(lines, mark(submitPath, "file")+errOf(submitPath), "  "+d.path.View(s))
	lines = append(lines, mark(submitEndpoint, "endpoint"), "  "+s.Value.Render("‹ "+api.BatchEndpoints[d.endpoint]+" ›")+s.Muted.Render("  ←/→ choose"))
	lines = append(lines, mark(submitModel, "model")+errOf(submitModel), "  "+d.model.View(), "")
	switch c := d.checked; {
	case d.checking:
		lines = append(lines, s.Busy.Render("reading the file…"))
	case c == nil:
		lines = append(lines, s.Muted.Render("enter on the file reads and checks it"))
	case c.err != nil:
		lines = append(lines, s.Error.Render("cannot read the file: "+textsafe.Line(present.Plain(c.err))))
	case len(c.errs) > 0:
		lines = append(lines, s.Error.Render(format.Plural(len(c.errs), "problem", "problems")+" in "+textsafe.Line(c.path)+" (nothing is sent until they are fixed):"))
		room := max(1, d.h-len(lines)-2)
		for i, e := range c.errs {
			if i >= room {
				lines = append(lines, s.Muted.Render("  … and "+format.Int(len(c.errs)-i)+" more"))
				break
			}
			lines = append(lines, s.FieldErr.Render("  "+textsafe.Line(e.Error())))
		}
	default:
		lines = append(lines, s.Success.Render("✓ "+format.Plural(len(c.reqs), "request", "requests")+" ready")+s.Muted.Render(" · ctrl+s submits"))
	}
	if q, asking := d.sub.inline(); asking {
		lines = append(lines, q)
	}
	if d.sending {
		lines = append(lines, s.Busy.Render("submitting…"))
	}
	return strings.Join(lines, "\n")
}

// ---- WORK KEPT NOWHERE ----

// Unsaved says what closing would lose: a submit form filled in.
func (d *submitDialog) Unsaved() string {
	if !d.sending && (strings.TrimSpace(d.path.Input.Value()) != "" || d.model.Value() != d.model0 || d.endpoint != 0) {
		return "a batch not submitted yet"
	}
	return ""
}
