package cmd

import (
	"errors"
	"io"
	"text/tabwriter"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// table aligns two or more columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) *table { return &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)} }

func (t *table) row(cells ...string) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(t.tw, "\t")
		}
		io.WriteString(t.tw, c)
	}
	io.WriteString(t.tw, "\n")
}

func (t *table) flush() { t.tw.Flush() }
