package ui

// What a batch's results offer beyond the table: the mouse wheel, a
// result's detail pane (raw JSON, reasoning, logprobs), export as JSON
// Lines or CSV, and copy.

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/atomicfile"
	"github.com/gwdash/gwdash/internal/export"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// resultDetail is one result in full (raw JSON, reasoning, logprobs),
// a screen over the batch; esc closes it.
type resultDetail struct {
	c     *common
	keys  DetailKeys
	data  *api.BatchData
	idx   int
	opts  detailOpts
	lines []string
	nav   widgets.ListNav
	w, h  int
}

func newResultDetail(c *common, d *api.BatchData, idx int) *resultDetail {
	return &resultDetail{c: c, keys: DefaultDetailKeys(), data: d, idx: idx}
}

func (d *resultDetail) SetSize(w, h int) {
	d.w, d.h = w, h
	d.nav.SetHeight(max(1, h-2))
	d.render()
}

func (d *resultDetail) render() {
	if d.data == nil || d.idx >= len(d.data.Rows) {
		return
	}
	it, err := d.data.Item(d.idx)
	var text string
	if err != nil {
		text = d.c.styles.Error.Render("this result did not decode: " + textsafe.Line(err.Error()))
	} else {
		text = renderResult(d.c.styles, it, max(20, d.w-1), d.opts)
	}
	d.lines = strings.Split(text, "\n")
	d.nav.SetCount(len(d.lines))
}

func (d *resultDetail) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		d.nav.Wheel(msg)
	case tea.KeyMsg:
		if key.Matches(msg, d.keys.Back) {
			return nil, cancelled
		}
		return d.key(msg), noAction
	}
	return nil, noAction
}

func (d *resultDetail) key(msg tea.KeyMsg) tea.Cmd {
	k := d.keys
	switch {
	case d.nav.Key(msg, k.ListKeys):
	case key.Matches(msg, k.Raw):
		d.opts.raw = !d.opts.raw
		d.render()
	case key.Matches(msg, k.Reasoning):
		if !d.has("reasoning") {
			return say("this result has no reasoning to show")
		}
		d.opts.reasoning = !d.opts.reasoning
		d.render()
	case key.Matches(msg, k.Logprobs):
		if !d.has("logprobs") {
			return say("this result has no logprobs to show")
		}
		d.opts.logprobs = !d.opts.logprobs
		d.render()
	case key.Matches(msg, k.Copy):
		return copyCmd(d.c, string(d.data.ItemBytes(d.idx)), "the result's JSON")
	default:
		return unknownKey(msg)
	}
	return nil
}

// has reports whether the result carries reasoning or logprobs (so that
// R and L can say why they do nothing).
func (d *resultDetail) has(what string) bool {
	it, err := d.data.Item(d.idx)
	if err != nil || it.Response == nil {
		return false
	}
	body, err := api.DecodeBody(it.Response.Body)
	if err != nil || body.Chat == nil {
		return false
	}
	for _, ch := range body.Chat.Choices {
		switch what {
		case "reasoning":
			if ch.Message.Reasoning != nil && *ch.Message.Reasoning != "" {
				return true
			}
		case "logprobs":
			if ch.Logprobs != nil && len(ch.Logprobs.Content) > 0 {
				return true
			}
		}
	}
	return false
}

func (d *resultDetail) View() string {
	s := d.c.styles
	title := s.Title.Render("Result detail") + " " + s.Muted.Render(textsafe.Line(d.data.CustomID(d.idx)))
	if pos := d.nav.Position(); pos != "" {
		title += s.Muted.Render("  lines " + pos)
	}
	a, b := d.nav.Visible()
	return title + "\n" + strings.Join(d.lines[a:b], "\n")
}

func (d *resultDetail) KeyMap() help.KeyMap { return d.keys }
func (d *resultDetail) Help() string        { return "a result in full" }
func (d *resultDetail) Typing() bool        { return false }

// Dialog is false: the detail is a page, q quits from it.
func (d *resultDetail) Dialog() bool { return false }

// startExport asks where to write the shown results; the name's
// extension chooses the format (.csv, else JSON Lines).
func (v *batchView) startExport() tea.Cmd {
	if v.res == nil {
		return say(v.noResultsWhy())
	}
	name := "gwdash-" + safeName(format.Middle(v.id, 64)) + "-" + showNames[v.res.show] + "-" + v.c.now().Format("20060102-150405") + ".jsonl"
	p := newPathPrompt(v.c, "export to (.jsonl or .csv) › ", filepath.Join(v.c.opts.ExportDir, name), "typing where to export", "export cancelled")
	v.subs.push(p)
	return p.focus()
}

// export writes the shown results: as JSON Lines, each as sent, or
// for a .csv name as CSV (the columns of `gwdash batch export`).
func (v *batchView) export(path string) tea.Cmd {
	d := v.shownData()
	idx := append([]int32(nil), v.res.view...)
	// The result is a notice for the shell: it is said even when the
	// batch was closed meanwhile.
	failed := func(err error) tea.Msg {
		return failNotice("export failed: " + textsafe.Line(present.Plain(err)))
	}
	return v.c.track(func() tea.Msg {
		abs, err := filepath.Abs(path)
		if err != nil {
			return failed(err)
		}
		var buf bytes.Buffer
		x, err := export.NewWriter(&buf, export.FormatOf(abs))
		for _, i := range idx {
			if err == nil {
				err = x.Result(d.ItemBytes(int(i)))
			}
		}
		if err == nil {
			err = x.Finish()
		}
		if err == nil {
			err = atomicfile.Write(abs, buf.Bytes(), 0o644)
		}
		if err != nil {
			return failed(err)
		}
		return notice("exported " + format.Plural(len(idx), "result", "results") + " to " + textsafe.Line(abs))
	})
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

func (v *batchView) copySelected() tea.Cmd {
	i := -1
	if v.res != nil {
		i = v.res.selected()
	}
	if i < 0 {
		return say("no result is selected: nothing to copy")
	}
	return copyCmd(v.c, string(v.shownData().ItemBytes(i)), "the result's JSON")
}
