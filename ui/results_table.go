package ui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// resultRow is what the table shows of one result, computed once when the
// results arrive (in the fetch command, not in Update).
type resultRow struct {
	idx       int // index into Batch.Results
	customID  string
	outcome   string
	failed    bool
	errorType string
	model     string
	tokens    int
	finish    string
}

// buildRows summarises every result; it runs inside a tea.Cmd.
func buildRows(b *api.Batch) []resultRow {
	rows := make([]resultRow, len(b.Results))
	for i := range b.Results {
		it := &b.Results[i]
		r := resultRow{idx: i, customID: textsafe.Line(it.CustomID), failed: it.Failed(), errorType: textsafe.Line(it.ErrorTypeName())}
		switch {
		case it.Error != nil:
			r.outcome = r.errorType
			if r.outcome == "" {
				r.outcome = "error"
			}
		case it.Response != nil:
			r.outcome = strconv.Itoa(it.Response.StatusCode)
			s := api.Summarize(it.Response.Body)
			r.model, r.tokens, r.finish = textsafe.Line(s.Model), s.Tokens, textsafe.Line(s.FinishReason)
		}
		rows[i] = r
	}
	return rows
}

// Filters of the table.
const (
	showAll = iota
	showOK
	showFailed
)

var filterNames = []string{"all", "succeeded", "failed"}

// Sort orders.
const (
	sortIndex = iota
	sortCustomID
	sortTokens
)

var sortNames = []string{"as sent", "custom_id", "tokens"}

// resultsTable draws only the rows that are visible: no per-frame work
// grows with the number of rows.
type resultsTable struct {
	rows    []resultRow
	view    []int // indices into rows, filtered and sorted
	cursor  int   // position in view
	offset  int
	height  int
	width   int
	filter  int
	errType string
	search  string
	sortBy  int
}

func (t *resultsTable) setRows(rows []resultRow) {
	t.rows = rows
	t.apply()
}

// apply recomputes the view after a filter, search or sort change.
func (t *resultsTable) apply() {
	var sel int = -1
	if t.cursor < len(t.view) {
		sel = t.view[t.cursor]
	}
	t.view = t.view[:0]
	term := strings.ToLower(t.search)
	for i := range t.rows {
		r := &t.rows[i]
		switch {
		case t.filter == showOK && r.failed, t.filter == showFailed && !r.failed:
			continue
		case t.errType != "" && r.errorType != t.errType:
			continue
		case term != "" && !strings.Contains(strings.ToLower(r.customID), term):
			continue
		}
		t.view = append(t.view, i)
	}
	switch t.sortBy {
	case sortCustomID:
		sort.SliceStable(t.view, func(a, b int) bool { return t.rows[t.view[a]].customID < t.rows[t.view[b]].customID })
	case sortTokens:
		sort.SliceStable(t.view, func(a, b int) bool { return t.rows[t.view[a]].tokens > t.rows[t.view[b]].tokens })
	}
	t.cursor = 0
	for i, v := range t.view {
		if v == sel {
			t.cursor = i
			break
		}
	}
	t.clamp()
}

func (t *resultsTable) move(d int) {
	t.cursor += d
	t.clamp()
}

func (t *resultsTable) clamp() {
	if t.cursor >= len(t.view) {
		t.cursor = len(t.view) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	body := max(1, t.height-1)
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+body {
		t.offset = t.cursor - body + 1
	}
	if t.offset > max(0, len(t.view)-body) {
		t.offset = max(0, len(t.view)-body)
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

// selected returns the row under the cursor.
func (t *resultsTable) selected() (resultRow, bool) {
	if t.cursor < 0 || t.cursor >= len(t.view) {
		return resultRow{}, false
	}
	return t.rows[t.view[t.cursor]], true
}

func (t *resultsTable) setSize(w, h int) {
	t.width, t.height = w, h
	t.clamp()
}

// render draws the header and the visible rows.
func (t *resultsTable) render(s Styles) string {
	w := t.width
	outcomeW, tokW, finishW := 22, 8, 16
	modelW := 22
	if w < 90 {
		modelW, finishW = 0, 12
	}
	if w < 60 {
		finishW = 0
		outcomeW = 14
	}
	idW := w - outcomeW - tokW - modelW - finishW - 2
	if idW < 8 {
		idW = 8
	}
	cell := func(s string, n int, right bool) string {
		if n <= 0 {
			return ""
		}
		s = ansi.Truncate(s, n-1, "…")
		pad := n - lipgloss.Width(s)
		if pad < 0 {
			pad = 0
		}
		if right {
			return strings.Repeat(" ", pad-1) + s + " "
		}
		return s + strings.Repeat(" ", pad)
	}
	line := func(id, outcome, model, tokens, finish string) string {
		return cell(id, idW, false) + cell(outcome, outcomeW, false) + cell(model, modelW, false) + cell(tokens, tokW, true) + cell(finish, finishW, false)
	}
	var b strings.Builder
	b.WriteString(s.TableHead.Render(line("  CUSTOM_ID", "OUTCOME", "MODEL", "TOKENS", "FINISH")))
	if len(t.view) == 0 {
		b.WriteString("\n" + s.Muted.Render("  no results match"))
		return b.String()
	}
	end := min(len(t.view), t.offset+max(1, t.height-1))
	for i := t.offset; i < end; i++ {
		r := &t.rows[t.view[i]]
		tok := ""
		if r.tokens > 0 {
			tok = format.Int(r.tokens)
		}
		marker := "  "
		if i == t.cursor {
			marker = "▸ "
		}
		text := line(marker+r.customID, r.outcome, r.model, tok, r.finish)
		b.WriteByte('\n')
		switch {
		case i == t.cursor:
			b.WriteString(s.Selected.Render(text))
		case r.failed:
			b.WriteString(s.Error.Render(text))
		default:
			b.WriteString(text)
		}
	}
	return b.String()
}

// position is "row 12 of 340 (filtered from 10,000)".
func (t *resultsTable) position() string {
	if len(t.view) == 0 {
		return fmt.Sprintf("0 of %s", format.Int(len(t.rows)))
	}
	s := fmt.Sprintf("%s of %s", format.Int(t.cursor+1), format.Int(len(t.view)))
	if len(t.view) != len(t.rows) {
		s += " (filtered from " + format.Int(len(t.rows)) + ")"
	}
	return s
}
