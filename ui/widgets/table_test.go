package widgets

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
	a := NewTable(Column{Name: "status", Title: "STATUS"}, Column{Name: "id", Title: "ID"}, Column{Name: "bar", Title: "BAR", Optional: true})
	b := NewTable(Column{Name: "bar", Title: "BAR", Optional: true}, Column{Name: "id", Title: "ID"}, Column{Name: "status", Title: "STATUS"})
	for _, tb := range []*Table{&a, &b} {
		cells := tb.Cells(cell)
		tb.Measure(cells...)
		tb.Layout(80)
		if got := cells[tb.Col("id")]; got != "batch-1" {
			t.Fatalf("id cell %q", got)
		}
		tb.Set(cells, "status", "DONE")
		line := tb.Row(cells, false)
		if !strings.Contains(line, "DONE") || !strings.Contains(line, "batch-1") || tb.WidthOf("bar") != 4 {
			t.Fatalf("line %q, bar width %d", line, tb.WidthOf("bar"))
		}
		// short of room the optional column goes, and says so by name
		tb.Layout(18)
		if tb.WidthOf("bar") != 0 || tb.WidthOf("status") == 0 {
			t.Fatalf("at 18 cells: bar %d status %d", tb.WidthOf("bar"), tb.WidthOf("status"))
		}
	}
	// a column without a name is addressed by its title
	c := NewTable(Column{Title: "MODEL"})
	if c.Col("MODEL") != 0 || c.Col("nope") != -1 {
		t.Fatal("title lookup")
	}
}
