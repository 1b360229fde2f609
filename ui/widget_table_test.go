package ui

import (
	"strings"
	"testing"
)

// Columns are declared by name with their sizing rule: cells are laid
// out by name whatever the order of the declarations, and a column is
// addressed by name (its room, its cell), not by its position.
func TestTableColumnsAreAddressedByName(t *testing.T) {
	values := map[string]string{"status": "done", "id": "batch-1", "bar": "####"}
	cell := func(name string) string { return values[name] }
	a := newTable(column{name: "status", title: "STATUS"}, column{name: "id", title: "ID"}, column{name: "bar", title: "BAR", optional: true})
	b := newTable(column{name: "bar", title: "BAR", optional: true}, column{name: "id", title: "ID"}, column{name: "status", title: "STATUS"})
	for _, tb := range []*table{&a, &b} {
		cells := tb.cells(cell)
		tb.measure(cells...)
		tb.layout(80)
		if got := cells[tb.col("id")]; got != "batch-1" {
			t.Fatalf("id cell %q", got)
		}
		tb.set(cells, "status", "DONE")
		line := tb.row(cells, false)
		if !strings.Contains(line, "DONE") || !strings.Contains(line, "batch-1") || tb.widthOf("bar") != 4 {
			t.Fatalf("line %q, bar width %d", line, tb.widthOf("bar"))
		}
		// short of room the optional column goes, and says so by name
		tb.layout(18)
		if tb.widthOf("bar") != 0 || tb.widthOf("status") == 0 {
			t.Fatalf("at 18 cells: bar %d status %d", tb.widthOf("bar"), tb.widthOf("status"))
		}
	}
	// a column without a name is addressed by its title
	c := newTable(column{title: "MODEL"})
	if c.col("MODEL") != 0 || c.col("nope") != -1 {
		t.Fatal("title lookup")
	}
}
