// Package export writes a batch's results for other tools, one result at
// a time (so that an export is streamed in flat memory): JSON Lines, each
// result as sent, or CSV with one row per result. The headless command
// and the dashboard's export both write through it.
package export

import (
	"encoding/csv"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// The formats.
const (
	JSONL = "jsonl"
	CSV   = "csv"
)

// Formats lists the formats, for flags and messages.
var Formats = []string{JSONL, CSV}

// Columns are the CSV columns, in order.
var Columns = []string{"custom_id", "status", "model", "prompt_tokens", "completion_tokens", "cost", "error_type", "error_message", "text"}

// FormatOf is the format a file name asks for: CSV for ".csv", else
// JSON Lines.
func FormatOf(path string) string {
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return CSV
	}
	return JSONL
}

// Writer writes results in one format. It is not safe for concurrent use.
type Writer struct {
	format string
	w      io.Writer
	csv    *csv.Writer
	header bool
	row    []string
	// N is how many results were written.
	N int
}

// NewWriter returns a Writer of format (JSONL or CSV) to w.
func NewWriter(w io.Writer, format string) (*Writer, error) {
	x := &Writer{format: format, w: w}
	switch format {
	case JSONL:
	case CSV:
		// RFC 4180: fields quoted where needed, CRLF line ends.
		x.csv = csv.NewWriter(w)
		x.csv.UseCRLF = true
		x.row = make([]string, len(Columns))
	default:
		return nil, errors.New("format must be " + strings.Join(Formats, " or "))
	}
	return x, nil
}

// Result writes one result item, as the server sent it. JSON Lines keep
// it whole (controls escaped inside strings, the same value); a CSV row
// takes its facts, text made inert (textsafe) and numbers as sent.
func (x *Writer) Result(item []byte) error {
	x.N++
	if x.csv == nil {
		if err := textsafe.WriteJSON(x.w, item); err != nil {
			return err
		}
		_, err := io.WriteString(x.w, "\n")
		return err
	}
	if err := x.writeHeader(); err != nil {
		return err
	}
	f, err := api.FactsOf(item)
	if err != nil {
		f = api.ResultFacts{Failed: true, ErrorMessage: "the result did not decode"}
	}
	r := x.row
	r[0] = cell(f.CustomID)
	r[1] = f.Outcome()
	r[2] = cell(f.Model)
	r[3] = intCell(f.PromptTokens)
	r[4] = intCell(f.CompletionTokens)
	r[5] = ""
	if f.Cost != nil {
		r[5] = strconv.FormatFloat(*f.Cost, 'f', -1, 64)
	}
	r[6] = cell(f.ErrorType)
	r[7] = cell(f.ErrorMessage)
	r[8] = cell(f.Text)
	return x.csv.Write(r)
}

func (x *Writer) writeHeader() error {
	if x.header {
		return nil
	}
	x.header = true
	return x.csv.Write(Columns)
}

// Finish writes what is held (a CSV of no result still gets its header)
// and reports a write error.
func (x *Writer) Finish() error {
	if x.csv == nil {
		return nil
	}
	if err := x.writeHeader(); err != nil {
		return err
	}
	x.csv.Flush()
	return x.csv.Error()
}

func intCell(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

// cell is a text cell: inert (textsafe.Clean: no terminal controls, no
// bidi overrides), and kept from reading as a spreadsheet formula: a
// cell that starts with "=", "+", "@", a tab, or "-" not followed by a space
// (a markdown list item stays as it is) gets a leading "'".
func cell(s string) string {
	s = textsafe.Clean(s)
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '@', '\t':
		return "'" + s
	case '-':
		if len(s) > 1 && s[1] != ' ' {
			return "'" + s
		}
	}
	return s
}
