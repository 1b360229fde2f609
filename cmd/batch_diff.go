package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/batchdiff"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
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
			var sum batchdiff.Summary
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
			return diffFailure(sum, failOn)
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

// Bounds of a row's text diff, batchdiff's (the tests read them here).
const (
	diffMaxLines    = batchdiff.MaxLines
	diffMaxLineRune = batchdiff.MaxLineRune
)

// diffFailure is the --fail-on outcome: nil, or exit 1 naming why.
func diffFailure(s batchdiff.Summary, failOn string) error {
	switch failOn {
	case "regressed":
		if s.Regressed > 0 {
			return &exitError{code: ExitFailure, msg: format.Plural(s.Regressed, "row", "rows") + " regressed (--fail-on regressed)"}
		}
	case "changed":
		if n := s.Differ(); n > 0 {
			return &exitError{code: ExitFailure, msg: format.Plural(n, "row differs", "rows differ") + " (--fail-on changed)"}
		}
	}
	return nil
}

// textDiff is batchdiff's line diff of two answers.
func textDiff(a, b string) []string { return batchdiff.TextDiff(a, b) }

// writeDiffText writes the rows that differ and the summary for people;
// w is the sanitizing writer.
func writeDiffText(w io.Writer, a, b *api.BatchData) (batchdiff.Summary, error) {
	head := func(label string, d *api.BatchData) {
		fmt.Fprintf(w, "%s  %s  %s · %s\n", label, oneLine(d.Batch.ID), oneLine(present.Status(d.Batch.Status)), format.Plural(len(d.Rows), "row", "rows"))
	}
	head("A", a)
	head("B", b)
	s, err := batchdiff.Compare(a, b, batchdiff.Options{TextDiff: true}, func(r batchdiff.Row) error {
		parts := []string{batchdiff.SideWords(r.A) + " → " + batchdiff.SideWords(r.B)}
		if r.Diff != nil {
			parts[0] = "answer changed"
		}
		if t := batchdiff.TokensDelta(r.A, r.B); t != "" {
			parts = append(parts, "tokens "+t)
		}
		if c := batchdiff.CostDelta(r.A, r.B); c != "" {
			parts = append(parts, "cost "+c)
		}
		if _, err := fmt.Fprintf(w, "%s  %s  %s\n", textsafe.Line(r.CustomID), batchdiff.Words(r.Change), textsafe.Line(strings.Join(parts, " · "))); err != nil {
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
	_, err = fmt.Fprintln(w, s.Line())
	return s, err
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
func writeDiffJSON(w io.Writer, a, b *api.BatchData) (batchdiff.Summary, error) {
	side := func(d *api.BatchData) map[string]any {
		return map[string]any{"id": d.Batch.ID, "status": d.Batch.Status, "rows": len(d.Rows)}
	}
	write := func(raw []byte) error { return textsafe.WriteJSON(w, raw) }
	if err := write([]byte(`{"a":` + string(encodeJSON(side(a))) + `,"b":` + string(encodeJSON(side(b))) + `,"rows":[`)); err != nil {
		return batchdiff.Summary{}, err
	}
	first := true
	s, err := batchdiff.Compare(a, b, batchdiff.Options{TextDiff: true}, func(r batchdiff.Row) error {
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
