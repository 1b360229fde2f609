package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/sergi/go-diff/diffmatchpatch"
	"github.com/spf13/cobra"
)

// The kinds of change of one row between batch A and batch B.
const (
	changeImproved  = "improved"  // failed in A, succeeded in B
	changeRegressed = "regressed" // succeeded in A, failed in B
	changeChanged   = "changed"   // same outcome, another answer (or error type)
	changeSame      = "same"
	changeOnlyInA   = "only_in_a"
	changeOnlyInB   = "only_in_b"
)

// Bounds of a row's text diff: the text compared, the lines shown, one
// line's length, and the time the diff may take.
const (
	diffMaxText     = 64 << 10
	diffMaxLines    = 40
	diffMaxLineRune = 300
	diffTimeout     = 250 * time.Millisecond
)

func (a *app) batchDiff() *cobra.Command {
	var asJSON bool
	var failOn string
	c := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two settled batches row by row, matched by custom_id",
		Long: `Compare two settled batches row by row, matching rows by custom_id. Each row
that differs is listed: improved (failed in A, succeeded in B), regressed
(the reverse), changed (the same outcome with another answer, with a text
diff, or another error type), only in A, only in B; with its token and
cost changes. A summary counts every row of A and of B once. --json prints
one JSON object: a, b, rows (the rows that differ) and summary.
--fail-on regressed exits 1 when a row regressed; --fail-on changed when
any row is not the same.`,
		Args: exactArgs(2, "two batch ids, A and B"),
		RunE: func(c *cobra.Command, args []string) error {
			if failOn != "" && failOn != "regressed" && failOn != "changed" {
				return inputErrorf("--fail-on %q: must be regressed or changed", failOn)
			}
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			da, err := a.settledData(c.Context(), client, args[0])
			if err != nil {
				return err
			}
			db, err := a.settledData(c.Context(), client, args[1])
			if err != nil {
				return err
			}
			w := bufio.NewWriterSize(a.io.Out, 64<<10)
			var sum diffSummary
			if asJSON {
				sum, err = writeDiffJSON(w, da, db)
			} else {
				tw := textsafe.NewWriter(w)
				sum, err = writeDiffText(tw, da, db)
				tw.Flush()
			}
			if err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
			return sum.failure(failOn)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object: a, b, rows that differ, summary")
	c.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a row regressed (regressed) or when any row is not the same (changed)")
	return c
}

// settledData fetches a batch with its results; a batch without results
// yet is an error that says its status.
func (a *app) settledData(ctx context.Context, client *api.Client, id string) (*api.BatchData, error) {
	d, err := client.GetBatchData(ctx, id)
	if err != nil {
		return nil, client.Explain404(ctx, err)
	}
	a.remember(client, d.Batch)
	if d.Rows == nil {
		return nil, &exitError{code: ExitFailure, msg: fmt.Sprintf("%s is %s: results come when it reaches a terminal status", oneLine(id), present.Status(d.Batch.Status))}
	}
	return d, nil
}

// diffRow is one row's comparison; A or B is nil for a row only in the
// other batch.
type diffRow struct {
	CustomID string
	Change   string
	A, B     *api.ResultFacts
	// Diff is the answer's text diff, when the answer changed.
	Diff []string
}

// diffSummary counts every row of A and of B once: a matched pair in one
// of the first four, a row without a match in OnlyInA or OnlyInB.
type diffSummary struct {
	Improved  int      `json:"improved"`
	Regressed int      `json:"regressed"`
	Changed   int      `json:"changed"`
	Same      int      `json:"same"`
	OnlyInA   int      `json:"only_in_a"`
	OnlyInB   int      `json:"only_in_b"`
	CostA     *float64 `json:"cost_a"`
	CostB     *float64 `json:"cost_b"`
}

// failure is the --fail-on outcome: nil, or exit 1 naming why.
func (s diffSummary) failure(failOn string) error {
	switch failOn {
	case "regressed":
		if s.Regressed > 0 {
			return &exitError{code: ExitFailure, msg: format.Plural(s.Regressed, "row", "rows") + " regressed (--fail-on regressed)"}
		}
	case "changed":
		if n := s.Improved + s.Regressed + s.Changed + s.OnlyInA + s.OnlyInB; n > 0 {
			return &exitError{code: ExitFailure, msg: format.Plural(n, "row differs", "rows differ") + " (--fail-on changed)"}
		}
	}
	return nil
}

// compareBatches matches the rows of a and b by custom_id (a repeated
// custom_id matches its repeats in order) and hands each row that is not
// the same to emit, A's rows in A's order, then B's rows without a match.
func compareBatches(a, b *api.BatchData, emit func(diffRow) error) (diffSummary, error) {
	var s diffSummary
	// head[id] is B's first unmatched row of that custom_id (-1: none
	// left); next links B's rows of one custom_id.
	head := make(map[string]int32, len(b.Rows))
	next := make([]int32, len(b.Rows))
	for j := len(b.Rows) - 1; j >= 0; j-- {
		id := b.CustomID(j)
		next[j] = -1
		if h, ok := head[id]; ok {
			next[j] = h
		}
		head[id] = int32(j)
	}
	matched := make([]bool, len(b.Rows))
	var costA, costB float64
	var hasCostA, hasCostB bool
	addCost := func(f *api.ResultFacts, sum *float64, has *bool) {
		if f.Cost != nil {
			*sum += *f.Cost
			*has = true
		}
	}
	for i := range a.Rows {
		fa := factsAt(a, i)
		addCost(&fa, &costA, &hasCostA)
		h, ok := head[fa.CustomID]
		if !ok || h < 0 {
			s.OnlyInA++
			if err := emit(diffRow{CustomID: fa.CustomID, Change: changeOnlyInA, A: &fa}); err != nil {
				return s, err
			}
			continue
		}
		head[fa.CustomID] = next[h]
		matched[h] = true
		fb := factsAt(b, int(h))
		addCost(&fb, &costB, &hasCostB)
		row := diffRow{CustomID: fa.CustomID, A: &fa, B: &fb}
		switch {
		case fa.Failed && !fb.Failed:
			row.Change = changeImproved
			s.Improved++
		case !fa.Failed && fb.Failed:
			row.Change = changeRegressed
			s.Regressed++
		case !fa.Failed && fa.Text != fb.Text:
			row.Change = changeChanged
			row.Diff = textDiff(fa.Text, fb.Text)
			s.Changed++
		case fa.Failed && fa.ErrorType != fb.ErrorType:
			row.Change = changeChanged
			s.Changed++
		default:
			s.Same++
			continue
		}
		if err := emit(row); err != nil {
			return s, err
		}
	}
	for j := range b.Rows {
		if matched[j] {
			continue
		}
		fb := factsAt(b, j)
		addCost(&fb, &costB, &hasCostB)
		s.OnlyInB++
		if err := emit(diffRow{CustomID: fb.CustomID, Change: changeOnlyInB, B: &fb}); err != nil {
			return s, err
		}
	}
	s.CostA = batchCost(a.Batch, costA, hasCostA)
	s.CostB = batchCost(b.Batch, costB, hasCostB)
	return s, nil
}

// factsAt reads row i's facts; a result that does not decode counts as
// failed, and says so.
func factsAt(d *api.BatchData, i int) api.ResultFacts {
	f, err := api.FactsOf(d.ItemBytes(i))
	if err != nil {
		return api.ResultFacts{CustomID: d.CustomID(i), Failed: true, ErrorMessage: "the result did not decode"}
	}
	return f
}

// batchCost is what a batch cost: its usage's cost when it says, else the
// sum of its rows' costs, else unknown (nil).
func batchCost(b *api.Batch, rows float64, hasRows bool) *float64 {
	if b != nil && b.Usage != nil && b.Usage.Cost != nil {
		c := *b.Usage.Cost
		return &c
	}
	if hasRows {
		c := format.RoundCost(rows)
		return &c
	}
	return nil
}

// textDiff is a line diff of two answers: "- " lines of A, "+ " lines of
// B, a few unchanged lines around them and "  … N unchanged lines" for
// the rest; bounded in the text compared, the time taken and the lines
// returned.
func textDiff(a, b string) []string {
	var note []string
	if len(a) > diffMaxText || len(b) > diffMaxText {
		note = []string{fmt.Sprintf("  (the first %s of each answer compared)", format.Plural(diffMaxText>>10, "KiB", "KiB"))}
		a, b = cutBytes(a, diffMaxText), cutBytes(b, diffMaxText)
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var out []string
	more := 0
	add := func(s string) {
		if len(out) < diffMaxLines {
			out = append(out, cutRunes(s, diffMaxLineRune))
		} else {
			more++
		}
	}
	for k, d := range diffs {
		ls := strings.Split(strings.TrimSuffix(d.Text, "\n"), "\n")
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			for _, l := range ls {
				add("- " + l)
			}
		case diffmatchpatch.DiffInsert:
			for _, l := range ls {
				add("+ " + l)
			}
		default:
			// one line of context next to each change
			before, after := k > 0, k < len(diffs)-1
			if !before && !after {
				continue
			}
			if len(ls) <= 2 {
				for _, l := range ls {
					add("  " + l)
				}
				continue
			}
			skipped := len(ls)
			if before {
				add("  " + ls[0])
				skipped--
			}
			if after {
				skipped--
			}
			add("  … " + format.Plural(skipped, "unchanged line", "unchanged lines"))
			if after {
				add("  " + ls[len(ls)-1])
			}
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("  … %s more", format.Plural(more, "line", "lines")))
	}
	return append(note, out...)
}

func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s[len(s)-min(len(s), 3):]) {
		s = s[:len(s)-1]
	}
	return s
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// sideWords is one side of a row in words: "succeeded", "failed
// (timeout)", or "absent".
func sideWords(f *api.ResultFacts) string {
	switch {
	case f == nil:
		return "absent"
	case f.Failed && f.ErrorType != "":
		return api.ResultFailed + " (" + f.ErrorType + ")"
	}
	return f.Outcome()
}

func tokensOf(f *api.ResultFacts) (int, bool) {
	if f == nil || f.PromptTokens == nil && f.CompletionTokens == nil {
		return 0, false
	}
	n := 0
	if f.PromptTokens != nil {
		n += *f.PromptTokens
	}
	if f.CompletionTokens != nil {
		n += *f.CompletionTokens
	}
	return n, true
}

// writeDiffText writes the rows that differ and the summary for people;
// w is the sanitizing writer.
func writeDiffText(w io.Writer, a, b *api.BatchData) (diffSummary, error) {
	head := func(label string, d *api.BatchData) {
		fmt.Fprintf(w, "%s  %s  %s · %s\n", label, oneLine(d.Batch.ID), oneLine(present.Status(d.Batch.Status)), format.Plural(len(d.Rows), "row", "rows"))
	}
	head("A", a)
	head("B", b)
	s, err := compareBatches(a, b, func(r diffRow) error {
		parts := []string{sideWords(r.A) + " → " + sideWords(r.B)}
		if r.Diff != nil {
			parts[0] = "answer changed"
		}
		ta, okA := tokensOf(r.A)
		tb, okB := tokensOf(r.B)
		switch {
		case okA && okB:
			parts = append(parts, "tokens "+format.Int(ta)+" → "+format.Int(tb)+" ("+format.SignedInt(tb-ta)+")")
		case okA:
			parts = append(parts, "tokens "+format.Int(ta)+" → —")
		case okB:
			parts = append(parts, "tokens — → "+format.Int(tb))
		}
		ca, cb := costOf(r.A), costOf(r.B)
		switch {
		case ca != nil && cb != nil:
			parts = append(parts, "cost "+format.Cost(*ca)+" → "+format.Cost(*cb)+" ("+format.SignedCost(format.RoundCost(*cb-*ca))+")")
		case ca != nil || cb != nil:
			parts = append(parts, "cost "+format.CostPtr(ca)+" → "+format.CostPtr(cb))
		}
		if _, err := fmt.Fprintf(w, "%s  %s  %s\n", textsafe.Line(r.CustomID), changeWords(r.Change), textsafe.Line(strings.Join(parts, " · "))); err != nil {
			return err
		}
		for _, l := range r.Diff {
			if _, err := fmt.Fprintf(w, "    %s\n", textsafe.Line(l)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	cost := "cost A " + format.CostPtr(s.CostA) + " → B " + format.CostPtr(s.CostB)
	if s.CostA != nil && s.CostB != nil {
		cost += " (" + format.SignedCost(format.RoundCost(*s.CostB-*s.CostA)) + ")"
	}
	_, err = fmt.Fprintf(w, "%s improved · %s regressed · %s changed · %s same · %s only in A · %s only in B · %s\n",
		format.Int(s.Improved), format.Int(s.Regressed), format.Int(s.Changed), format.Int(s.Same), format.Int(s.OnlyInA), format.Int(s.OnlyInB), cost)
	return s, err
}

// changeWords is a change as people read it: "only in A".
func changeWords(c string) string {
	switch c {
	case changeOnlyInA:
		return "only in A"
	case changeOnlyInB:
		return "only in B"
	}
	return c
}

func costOf(f *api.ResultFacts) *float64 {
	if f == nil {
		return nil
	}
	return f.Cost
}

// diffSideJSON is one side of a row in --json.
type diffSideJSON struct {
	Status           string   `json:"status"`
	ErrorType        string   `json:"error_type,omitempty"`
	ErrorMessage     string   `json:"error_message,omitempty"`
	PromptTokens     *int     `json:"prompt_tokens"`
	CompletionTokens *int     `json:"completion_tokens"`
	Cost             *float64 `json:"cost"`
}

func sideJSON(f *api.ResultFacts) *diffSideJSON {
	if f == nil {
		return nil
	}
	return &diffSideJSON{Status: f.Outcome(), ErrorType: f.ErrorType, ErrorMessage: f.ErrorMessage,
		PromptTokens: f.PromptTokens, CompletionTokens: f.CompletionTokens, Cost: f.Cost}
}

// diffRowJSON is one row in --json: deltas only when both sides have the
// figure.
type diffRowJSON struct {
	CustomID              string        `json:"custom_id"`
	Change                string        `json:"change"`
	A                     *diffSideJSON `json:"a"`
	B                     *diffSideJSON `json:"b"`
	AnswerChanged         bool          `json:"answer_changed"`
	Diff                  []string      `json:"diff,omitempty"`
	PromptTokensDelta     *int          `json:"prompt_tokens_delta,omitempty"`
	CompletionTokensDelta *int          `json:"completion_tokens_delta,omitempty"`
	CostDelta             *float64      `json:"cost_delta,omitempty"`
}

// writeDiffJSON writes one JSON object, a row at a time: {"a", "b",
// "rows", "summary"}.
func writeDiffJSON(w io.Writer, a, b *api.BatchData) (diffSummary, error) {
	side := func(d *api.BatchData) map[string]any {
		return map[string]any{"id": d.Batch.ID, "status": d.Batch.Status, "rows": len(d.Rows)}
	}
	write := func(raw []byte) error { return textsafe.WriteJSON(w, raw) }
	if err := write([]byte(`{"a":` + string(encodeJSON(side(a))) + `,"b":` + string(encodeJSON(side(b))) + `,"rows":[`)); err != nil {
		return diffSummary{}, err
	}
	first := true
	s, err := compareBatches(a, b, func(r diffRow) error {
		j := diffRowJSON{CustomID: r.CustomID, Change: r.Change, A: sideJSON(r.A), B: sideJSON(r.B), AnswerChanged: r.Diff != nil, Diff: r.Diff}
		if r.A != nil && r.B != nil {
			delta := func(x, y *int) *int {
				if x == nil || y == nil {
					return nil
				}
				d := *y - *x
				return &d
			}
			j.PromptTokensDelta = delta(r.A.PromptTokens, r.B.PromptTokens)
			j.CompletionTokensDelta = delta(r.A.CompletionTokens, r.B.CompletionTokens)
			if r.A.Cost != nil && r.B.Cost != nil {
				d := format.RoundCost(*r.B.Cost - *r.A.Cost)
				j.CostDelta = &d
			}
		}
		sep := ","
		if first {
			sep, first = "", false
		}
		return write(append([]byte(sep), encodeJSON(j)...))
	})
	if err != nil {
		return s, err
	}
	return s, write([]byte(`],"summary":` + string(encodeJSON(s)) + "}\n"))
}
