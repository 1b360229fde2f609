package ui

// What a batch's results offer beyond the table: the mouse wheel, a
// result's detail pane (raw JSON, reasoning, logprobs), export as JSON
// Lines or CSV, and copy.

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/atomicfile"
	"github.com/gwdash/gwdash/internal/export"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

func (v *batchView) onMouse(msg tea.MouseMsg) tea.Cmd {
	switch {
	case v.mode == batchDetail:
		v.detail.nav.wheel(msg)
	case v.res != nil:
		v.res.nav.wheel(msg)
	}
	return nil
}

func (v *batchView) openDetail(i int) {
	v.mode = batchDetail
	v.detail = detailPane{idx: i}
	v.renderDetail()
}

func (v *batchView) renderDetail() {
	d := v.shownData()
	if d == nil || v.detail.idx >= len(d.Rows) {
		return
	}
	it, err := d.Item(v.detail.idx)
	var text string
	if err != nil {
		text = v.c.styles.Error.Render("this result did not decode: " + textsafe.Line(err.Error()))
	} else {
		text = renderResult(v.c.styles, it, max(20, v.w-1), v.detail.opts)
	}
	v.detail.lines = strings.Split(text, "\n")
	v.detail.nav.setCount(len(v.detail.lines))
}

func (v *batchView) onDetailKey(msg tea.KeyMsg) tea.Cmd {
	k := v.dk
	d := &v.detail
	switch {
	case key.Matches(msg, k.Back):
		v.mode = batchMain
	case d.nav.key(msg, k.ListKeys):
	case key.Matches(msg, k.Raw):
		d.opts.raw = !d.opts.raw
		v.renderDetail()
	case key.Matches(msg, k.Reasoning):
		if !v.detailHas("reasoning") {
			return say("this result has no reasoning to show")
		}
		d.opts.reasoning = !d.opts.reasoning
		v.renderDetail()
	case key.Matches(msg, k.Logprobs):
		if !v.detailHas("logprobs") {
			return say("this result has no logprobs to show")
		}
		d.opts.logprobs = !d.opts.logprobs
		v.renderDetail()
	case key.Matches(msg, k.Copy):
		return v.copySelected()
	default:
		return unknownKey(msg)
	}
	return nil
}

// detailHas reports whether the open result carries reasoning or
// logprobs (so that R and L can say why they do nothing).
func (v *batchView) detailHas(what string) bool {
	it, err := v.shownData().Item(v.detail.idx)
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

// startExport asks where to write the shown results; the name's
// extension chooses the format (.csv, else JSON Lines).
func (v *batchView) startExport() tea.Cmd {
	if v.res == nil {
		return say(v.noResultsWhy())
	}
	name := "gwdash-" + safeName(format.Middle(v.id, 64)) + "-" + showNames[v.res.show] + "-" + v.c.now().Format("20060102-150405") + ".jsonl"
	v.export = newPathInput("export to (.jsonl or .csv) › ", filepath.Join(v.c.opts.ExportDir, name))
	v.mode = batchExporting
	return v.export.focus()
}

// exportTo writes the shown results: as JSON Lines, each as sent, or
// for a .csv name as CSV (the columns of `gwdash batch export`).
func (v *batchView) exportTo(path string) tea.Cmd {
	d := v.shownData()
	idx := append([]int32(nil), v.res.view...)
	return v.c.track(func() tea.Msg {
		abs, err := filepath.Abs(path)
		if err != nil {
			return exportedMsg{err: err}
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
			return exportedMsg{err: err}
		}
		return exportedMsg{path: abs, n: len(idx)}
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
	if v.mode == batchDetail {
		i = v.detail.idx
	}
	if i < 0 {
		return say("no result is selected: nothing to copy")
	}
	return copyCmd(v.c, string(v.shownData().ItemBytes(i)), "the result's JSON")
}
