package ui

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/export"
	"github.com/gwdash/gwdash/internal/gateway"
)

// e offers CSV too: a path ending in .csv writes the shown results as
// CSV, with the columns of `gwdash batch export`.
func TestExportShownResultsAsCSV(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	u := start(t, Options{Client: c, BatchID: srv.SeedID(gateway.SeedChat), ExportDir: dir}, 140, 45)
	u.screen("Results 1-", "of 40")
	u.runes("f")
	u.runes("f") // all -> succeeded -> failed
	u.screen("show failed", "(filtered from 40)")
	u.runes("e")
	u.screen("export to (.jsonl or .csv)")
	u.key(tea.KeyCtrlU) // clear the proposed name
	path := filepath.Join(dir, "failed.csv")
	u.runes(path)
	u.key(tea.KeyEnter)
	u.until("exported", func(m Model) bool { return strings.Contains(m.notice, "exported") })
	fm := u.quit()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := batchOf(fm).meta.RequestCounts.Failed
	if len(recs) != want+1 || strings.Join(recs[0], ",") != strings.Join(export.Columns, ",") {
		t.Fatalf("%d records (want a header and %d rows): %q", len(recs), want, recs)
	}
	for _, r := range recs[1:] {
		if r[1] != "failed" || r[6] == "" {
			t.Fatalf("a row that did not fail, or without its error type: %q", r)
		}
	}
}
