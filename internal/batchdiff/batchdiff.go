// Package batchdiff compares two settled batches row by row, matched by
// custom_id: what changed in each row (its outcome, its answer, with a
// text diff), its token and cost deltas, and a summary that counts every
// row of A and of B once. `gwdash batch diff` prints it; the dashboard's
// diff screen (D in the batches home) draws it.
package batchdiff

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// The kinds of change of one row between batch A and batch B.
const (
	Improved  = "improved"  // failed in A, succeeded in B
	Regressed = "regressed" // succeeded in A, failed in B
	Changed   = "changed"   // same outcome, another answer (or error type)
	Same      = "same"
	OnlyInA   = "only_in_a"
	OnlyInB   = "only_in_b"
)

// Kinds lists the kinds of change, in the order a summary names them.
var Kinds = []string{Improved, Regressed, Changed, Same, OnlyInA, OnlyInB}

// Bounds of a row's text diff: the text compared, the lines shown, one
// line's length, and the time the diff may take.
const (
	MaxText     = 64 << 10
	MaxLines    = 40
	MaxLineRune = 300
	Timeout     = 250 * time.Millisecond
)

// Row is one row's comparison; A or B is nil for a row only in the other
// batch. IndexA and IndexB are the row's places in A and B (-1: absent).
type Row struct {
	CustomID       string
	Change         string
	A, B           *api.ResultFacts
	IndexA, IndexB int
	// AnswerChanged: both succeeded with other answers.
	AnswerChanged bool
	// Diff is the answer's text diff (TextDiff), when the answer changed
	// and Options.TextDiff asked for it.
	Diff []string
}

// Summary counts every row of A and of B once: a matched pair in one of
// the first four, a row without a match in OnlyInA or OnlyInB.
type Summary struct {
	Improved  int      `json:"improved"`
	Regressed int      `json:"regressed"`
	Changed   int      `json:"changed"`
	Same      int      `json:"same"`
	OnlyInA   int      `json:"only_in_a"`
	OnlyInB   int      `json:"only_in_b"`
	CostA     *float64 `json:"cost_a"`
	CostB     *float64 `json:"cost_b"`
}

// Differ counts the rows that are not the same.
func (s Summary) Differ() int { return s.Improved + s.Regressed + s.Changed + s.OnlyInA + s.OnlyInB }

// Count is the number of rows of one kind of change.
func (s Summary) Count(kind string) int {
	switch kind {
	case Improved:
		return s.Improved
	case Regressed:
		return s.Regressed
	case Changed:
		return s.Changed
	case Same:
		return s.Same
	case OnlyInA:
		return s.OnlyInA
	case OnlyInB:
		return s.OnlyInB
	}
	return 0
}

// Line is the summary for people: "1 improved · 2 regressed · … · cost A
// $0.10 → B $0.12 (+$0.02)".
func (s Summary) Line() string {
	cost := "cost A " + format.CostPtr(s.CostA) + " → B " + format.CostPtr(s.CostB)
	if s.CostA != nil && s.CostB != nil {
		cost += " (" + format.SignedCost(format.RoundCost(*s.CostB-*s.CostA)) + ")"
	}
	return fmt.Sprintf("%s improved · %s regressed · %s changed · %s same · %s only in A · %s only in B · %s",
		format.Int(s.Improved), format.Int(s.Regressed), format.Int(s.Changed), format.Int(s.Same), format.Int(s.OnlyInA), format.Int(s.OnlyInB), cost)
}

// Options tune Compare.
type Options struct {
	// TextDiff computes each changed answer's text diff (Row.Diff).
	TextDiff bool
	// Same hands the rows that are the same to emit too.
	Same bool
}

// Compare matches the rows of a and b by custom_id (a repeated custom_id
// matches its repeats in order) and hands each row that is not the same
// (every row, with o.Same) to emit, A's rows in A's order, then B's rows
// without a match. Both batches must hold their results.
func Compare(a, b *api.BatchData, o Options, emit func(Row) error) (Summary, error) {
	var s Summary
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
		fa := FactsAt(a, i)
		addCost(&fa, &costA, &hasCostA)
		h, ok := head[fa.CustomID]
		if !ok || h < 0 {
			s.OnlyInA++
			if err := emit(Row{CustomID: fa.CustomID, Change: OnlyInA, A: &fa, IndexA: i, IndexB: -1}); err != nil {
				return s, err
			}
			continue
		}
		head[fa.CustomID] = next[h]
		matched[h] = true
		fb := FactsAt(b, int(h))
		addCost(&fb, &costB, &hasCostB)
		row := Row{CustomID: fa.CustomID, A: &fa, B: &fb, IndexA: i, IndexB: int(h)}
		switch {
		case fa.Failed && !fb.Failed:
			row.Change = Improved
			s.Improved++
		case !fa.Failed && fb.Failed:
			row.Change = Regressed
			s.Regressed++
		case !fa.Failed && fa.Text != fb.Text:
			row.Change = Changed
			row.AnswerChanged = true
			if o.TextDiff {
				row.Diff = TextDiff(fa.Text, fb.Text)
			}
			s.Changed++
		case fa.Failed && fa.ErrorType != fb.ErrorType:
			row.Change = Changed
			s.Changed++
		default:
			s.Same++
			if !o.Same {
				continue
			}
			row.Change = Same
		}
		if err := emit(row); err != nil {
			return s, err
		}
	}
	for j := range b.Rows {
		if matched[j] {
			continue
		}
		fb := FactsAt(b, j)
		addCost(&fb, &costB, &hasCostB)
		s.OnlyInB++
		if err := emit(Row{CustomID: fb.CustomID, Change: OnlyInB, B: &fb, IndexA: -1, IndexB: j}); err != nil {
			return s, err
		}
	}
	s.CostA = BatchCost(a.Batch, costA, hasCostA)
	s.CostB = BatchCost(b.Batch, costB, hasCostB)
	return s, nil
}

// FactsAt reads row i's facts; a result that does not decode counts as
// failed, and says so.
func FactsAt(d *api.BatchData, i int) api.ResultFacts {
	f, err := api.FactsOf(d.ItemBytes(i))
	if err != nil {
		return api.ResultFacts{CustomID: d.CustomID(i), Failed: true, ErrorMessage: "the result did not decode"}
	}
	return f
}

// BatchCost is what a batch cost: its usage's cost when it says, else the
// sum of its rows' costs, else unknown (nil).
func BatchCost(b *api.Batch, rows float64, hasRows bool) *float64 {
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

// TextDiff is a line diff of two answers: "- " lines of A, "+ " lines of
// B, a few unchanged lines around them and "  … N unchanged lines" for
// the rest; bounded in the text compared, the time taken and the lines
// returned.
func TextDiff(a, b string) []string {
	var note []string
	if len(a) > MaxText || len(b) > MaxText {
		note = []string{fmt.Sprintf("  (the first %s of each answer compared)", format.Plural(MaxText>>10, "KiB", "KiB"))}
		a, b = format.CutBytes(a, MaxText), format.CutBytes(b, MaxText)
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = Timeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var out []string
	more := 0
	add := func(s string) {
		if len(out) < MaxLines {
			out = append(out, CutRunes(s, MaxLineRune))
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

// Op is what a Segment is: in both answers, only in A, or only in B.
type Op int

// The ops of a Segment.
const (
	Equal Op = iota
	Deleted
	Inserted
)

// Segment is a piece of a word-level diff of two answers.
type Segment struct {
	Op   Op
	Text string
}

// Segments is a diff of two answers in pieces, for drawing them side by
// side (A: Equal and Deleted, B: Equal and Inserted), cleaned up for
// people to read; bounded like TextDiff (cut reports that the answers
// were cut to MaxText first).
func Segments(a, b string) (segs []Segment, cut bool) {
	if len(a) > MaxText || len(b) > MaxText {
		a, b, cut = format.CutBytes(a, MaxText), format.CutBytes(b, MaxText), true
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = Timeout
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(a, b, false))
	segs = make([]Segment, 0, len(diffs))
	for _, d := range diffs {
		op := Equal
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = Deleted
		case diffmatchpatch.DiffInsert:
			op = Inserted
		}
		segs = append(segs, Segment{Op: op, Text: d.Text})
	}
	return segs, cut
}

// CutRunes cuts s to n runes and an ellipsis.
func CutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// SideWords is one side of a row in words: "succeeded", "failed
// (timeout)", or "absent".
func SideWords(f *api.ResultFacts) string {
	switch {
	case f == nil:
		return "absent"
	case f.Failed && f.ErrorType != "":
		return api.ResultFailed + " (" + f.ErrorType + ")"
	}
	return f.Outcome()
}

// Tokens is a side's prompt and completion tokens together; false when
// the side says neither.
func Tokens(f *api.ResultFacts) (int, bool) {
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

// Cost is a side's cost (nil: absent or unknown).
func Cost(f *api.ResultFacts) *float64 {
	if f == nil {
		return nil
	}
	return f.Cost
}

// Words is a change as people read it: "only in A".
func Words(c string) string {
	switch c {
	case OnlyInA:
		return "only in A"
	case OnlyInB:
		return "only in B"
	}
	return c
}

// TokensDelta is "1,200 → 1,350 (+150)", "1,200 → —" or "" when neither
// side says.
func TokensDelta(a, b *api.ResultFacts) string {
	ta, okA := Tokens(a)
	tb, okB := Tokens(b)
	switch {
	case okA && okB:
		return format.Int(ta) + " → " + format.Int(tb) + " (" + format.SignedInt(tb-ta) + ")"
	case okA:
		return format.Int(ta) + " → —"
	case okB:
		return "— → " + format.Int(tb)
	}
	return ""
}

// CostDelta is "$0.01 → $0.02 (+$0.01)", "$0.01 → —" or "" when neither
// side says.
func CostDelta(a, b *api.ResultFacts) string {
	ca, cb := Cost(a), Cost(b)
	switch {
	case ca != nil && cb != nil:
		return format.Cost(*ca) + " → " + format.Cost(*cb) + " (" + format.SignedCost(format.RoundCost(*cb-*ca)) + ")"
	case ca != nil || cb != nil:
		return format.CostPtr(ca) + " → " + format.CostPtr(cb)
	}
	return ""
}
