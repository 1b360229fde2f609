package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
)

// encodeJSON marshals v without HTML escaping, so that raw members the
// server sent are printed byte for byte.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

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

// noteWait tells the user, on stderr, of a wait before a retry: why, how
// long, until when, which attempt follows, and how much of the
// operation's wait budget is left before gwdash gives up (the words:
// present.WaitLine). While the dashboard owns the terminal the wait goes
// to its status bar instead, as a countdown (ui.Waits).
func (a *app) noteWait(n api.WaitNotice) {
	if a.onScreen.Load() {
		a.waits.Note(n)
		return
	}
	if n.Done {
		return
	}
	fmt.Fprintln(a.errw, "gwdash: "+present.WaitLine(n, time.Now()))
}
