package export

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCellsAndFormats(t *testing.T) {
	for in, want := range map[string]string{
		"=1+2": "'=1+2", "+1": "'+1", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "-2+3": "'-2+3",
		"- item": "- item", "-": "-", "plain": "plain", "": "", "a\x1bb": "a␛b",
	} {
		if got := cell(in); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
	for path, want := range map[string]string{"a.csv": CSV, "A.CSV": CSV, "a.jsonl": JSONL, "a": JSONL, "csv": JSONL} {
		if got := FormatOf(path); got != want {
			t.Errorf("FormatOf(%q) = %s", path, got)
		}
	}
	if _, err := NewWriter(&bytes.Buffer{}, "xlsx"); err == nil {
		t.Error("an unknown format was taken")
	}
	// No result: a CSV is its header; JSON Lines nothing.
	var buf bytes.Buffer
	x, _ := NewWriter(&buf, CSV)
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 1 || len(recs[0]) != len(Columns) {
		t.Fatalf("%v %q", err, recs)
	}
	buf.Reset()
	x, _ = NewWriter(&buf, JSONL)
	if x.Finish() != nil || buf.Len() != 0 {
		t.Fatalf("jsonl of nothing: %q", buf.String())
	}
}
