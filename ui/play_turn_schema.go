package ui

// A structured answer (text.format json_object or json_schema). While it
// streams, its JSON is shown indented as it grows: the deltas are fed to
// api.PrettyJSON, so the cost is what arrives (never the whole answer
// again), into a plain doc drawn by the same window as any answer, up to
// maxPretty. Once it ended, api.CheckAnswer's verdict (in a command) is
// shown under it: valid, or every violation with its JSON pointer.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/jsonschema"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/transcript"
)

// maxPretty is the most answer indented; past it the answer is shown as
// it arrived (and still checked, up to jsonschema.MaxAnswerBytes).
const maxPretty = 1 << 20

// What the verdict line says.
type schemaState int

const (
	schemaStreaming schemaState = iota // checked when the answer ends
	schemaChecking                     // the check runs in a command
	schemaChecked                      // chk (or err) holds the verdict
	schemaUnchecked                    // why says why there is none
)

// Whether the answer is indented: decided by its first byte that is not a
// space ({ or [ is JSON; anything else, a fence or prose, is shown as it
// arrived).
type prettyMode int

const (
	prettyUndecided prettyMode = iota
	prettyJSON
	prettyRaw
)

// turnSchema is a structured answer's indented view and its verdict.
type turnSchema struct {
	format *api.TextFormat
	indent api.PrettyJSON
	pretty *transcript.Doc
	mode   prettyMode
	fed    int64 // answer bytes fed to pretty
	over   bool  // past maxPretty: the answer is shown as it arrived

	state schemaState
	why   string
	chk   api.AnswerCheck
	err   error

	// rev changes with anything the lines show; lay is the lines for a
	// width and a rev, so that a frame does not build them again.
	rev int
	lay pieceCache
}

// pieceCache keeps a piece's lines for the width and revision they were
// made for.
type pieceCache struct {
	w, rev int
	ok     bool
	lines  []string
}

// get returns the cached lines, or makes them.
func (c *pieceCache) get(width, rev int, make func() []string) []string {
	if !c.ok || c.w != width || c.rev != rev {
		c.lines, c.w, c.rev, c.ok = make(), width, rev, true
	}
	return c.lines
}

// newTurnSchema is the structured view of a request's format; nil for
// plain text.
func newTurnSchema(f *api.TextFormat, width int) *turnSchema {
	if f == nil || f.Type == "" || f.Type == api.FormatText {
		return nil
	}
	return &turnSchema{format: f, pretty: transcript.New(false, width)}
}

// feed takes the next piece of the answer (already made safe to draw).
func (s *turnSchema) feed(piece string) {
	if s == nil || s.mode == prettyRaw || s.over {
		return
	}
	if s.mode == prettyUndecided {
		if t := strings.TrimLeft(piece, " \t\r\n"); t != "" {
			s.mode = prettyRaw
			if t[0] == '{' || t[0] == '[' {
				s.mode = prettyJSON
			}
			s.rev++
		}
		if s.mode != prettyJSON {
			return
		}
	}
	if s.fed+int64(len(piece)) > maxPretty {
		s.over = true
		s.rev++
		return
	}
	s.fed += int64(len(piece))
	s.pretty.Append(s.indent.Feed(piece))
}

// shown is the doc drawn for the answer: the indented one, unless the
// answer is not JSON or is over the bound.
func (t *turn) shown() *transcript.Doc {
	if s := t.schema; s != nil && s.mode == prettyJSON && !s.over {
		return s.pretty
	}
	return t.answer
}

// end settles the view: an answer that arrived whole (not streamed, or
// only in the final event) is indented now; the verdict waits for check.
func (s *turnSchema) end(t *turn) {
	if s == nil {
		return
	}
	if s.fed == 0 && s.mode == prettyUndecided && t.answer.Size() > 0 && t.answer.Size() <= maxPretty {
		s.feed(t.answer.Text())
	}
	s.pretty.Finish()
	s.state = schemaUnchecked
	switch {
	case t.answer.Size() == 0:
		s.why = "no answer arrived"
	case t.out.State != api.EndCompleted && t.out.State != api.EndIncomplete:
		s.why = "the answer ended before it was whole (what arrived is kept)"
	case t.answer.Size() > jsonschema.MaxAnswerBytes:
		s.why = "the answer is " + api.SizeText(t.answer.Size()) + ", over the " + api.SizeText(jsonschema.MaxAnswerBytes) + " checked"
	default:
		s.state, s.why = schemaChecking, ""
	}
	s.rev++
}

// checked records the verdict of checkAnswerCmd.
func (s *turnSchema) checked(chk api.AnswerCheck, err error) {
	s.state, s.chk, s.err = schemaChecked, chk, err
	s.rev++
}

func (s *turnSchema) resize(width int) {
	if s != nil {
		s.pretty.Resize(width)
	}
}

// lines is the verdict piece (and the note when the answer is shown as
// it arrived), kept for the width until the verdict changes.
func (s *turnSchema) lines(st *Styles, width int) []string {
	return s.lay.get(width, s.rev, func() []string { return s.draw(st, width) })
}

func (s *turnSchema) draw(st *Styles, width int) []string {
	var out []string
	cut := func(style func(...string) string, line string) {
		out = append(out, style(ansi.Truncate(line, max(10, width), "…")))
	}
	what := "the schema " + textsafe.Line(s.format.Name)
	if s.format.Type == api.FormatJSONObject {
		what = "JSON"
	}
	switch {
	case s.over:
		cut(st.Muted.Render, fmt.Sprintf("  ▸ shown as it arrived: over the %s indented while it streams", api.SizeText(maxPretty)))
	case s.mode == prettyRaw:
		cut(st.Muted.Render, "  ▸ shown as it arrived: it does not start as JSON")
	}
	switch s.state {
	case schemaStreaming:
		cut(st.Muted.Render, "  checked against "+what+" when the answer ends")
	case schemaChecking:
		cut(st.Busy.Render, "  checking the answer against "+what+"…")
	case schemaUnchecked:
		cut(st.Muted.Render, "  ▸ not checked against "+what+": "+s.why)
	case schemaChecked:
		c := s.chk
		switch {
		case s.err != nil:
			cut(st.Error.Render, "  ✗ not checked: "+textsafe.Line(describeErr(s.err)))
		case c.Valid && s.format.Type == api.FormatJSONSchema:
			cut(st.Success.Render, "  ✓ valid: the answer matches "+what)
		case c.Valid:
			cut(st.Success.Render, "  ✓ valid JSON")
		case c.NotJSON != "":
			cut(st.Error.Render, "  ✗ invalid: "+textsafe.Line(c.NotJSON))
		default:
			n := len(c.Problems) + c.Omitted
			cut(st.Error.Render, "  ✗ invalid: "+format.Plural(n, "violation", "violations")+" of "+what)
			out = append(out, problemLines(st, c.Problems, c.Omitted, width)...)
		}
	}
	return out
}

// problemLines lists schema violations, each at its JSON pointer.
func problemLines(st *Styles, problems []jsonschema.Problem, omitted, width int) []string {
	var out []string
	for _, p := range problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(root)"
		}
		line := st.Label.Render("    "+textsafe.Line(ptr)) + " " + textsafe.Line(p.Message)
		out = append(out, strings.Split(ansi.Wrap(line, max(10, width), " "), "\n")...)
	}
	if omitted > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("    and %d more", omitted)))
	}
	return out
}
