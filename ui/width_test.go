package ui

import (
	"context"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
	"github.com/mattn/go-runewidth"
)

// termCells is the width a terminal that counts code points (wcwidth)
// gives s; ansi.StringWidth is the layout's (grapheme clusters).
func termCells(s string) int {
	n := 0
	for _, r := range ansi.Strip(s) {
		n += runewidth.RuneWidth(r)
	}
	return n
}

// oddText is a random name: the runes terminals disagree on, ordinary
// ones and any code point at all.
type oddText string

var oddPieces = []string{"a", " ", "é", "中", "😀", "❤", "\u00ad", "\ufe0f", "\u200b", "\u200d", "\u2060", "\ufeff", "\U000e0041",
	"\u0301", "\u093f", "\U0001f3fd", "\U0001f1eb", "\u1161", "\u0e33", "\uff9e", "\x1b[2J", "\u202e", "\t", "\n"}

func (oddText) Generate(r *rand.Rand, size int) reflect.Value {
	var b strings.Builder
	for n := r.Intn(size + 1); n > 0; n-- {
		if r.Intn(4) == 0 {
			b.WriteRune(rune(r.Intn(utf8.MaxRune + 1)))
		} else {
			b.WriteString(oddPieces[r.Intn(len(oddPieces))])
		}
	}
	return reflect.ValueOf(oddText(b.String()))
}

// A table row of any names, cut to any width, never exceeds the width on
// the layout's count nor on a terminal's.
func TestTableRowsNeverExceedTheWidth(t *testing.T) {
	s := NewStyles(DefaultTheme(), plainRenderer())
	check := func(a, b, c oddText, w8 uint8) bool {
		w := int(w8)%120 + 20 // below 20 columns the shell draws no view
		tbl := widgets.NewTable(widgets.Column{Title: "NAME", Keep: 2, Min: 8}, widgets.Column{Title: "TYPE", Keep: 8, Max: 16}, widgets.Column{Title: "REGIONS", Keep: 5, Max: 22})
		cells := []string{textsafe.Line(string(a)), textsafe.Line(string(b)), textsafe.Line(string(c))}
		tbl.Measure(cells...)
		tbl.Layout(w)
		for _, row := range []string{tbl.Row(cells, false), tbl.Row(cells, true), tbl.Header(s)} {
			if ansi.StringWidth(row) > w || termCells(row) > w {
				t.Logf("%q %q %q at %d: %q is %d/%d cells", a, b, c, w, row, ansi.StringWidth(row), termCells(row))
				return false
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 800, Rand: rand.New(rand.NewSource(7))}); err != nil {
		t.Fatal(err)
	}
}

// Destination names that differ only by invisible runes are shown apart
// (each rune as a marker), and every line of the list fits the width on
// a terminal too.
func TestLookAlikeNamesAreShownApart(t *testing.T) {
	l := &hostile.Lists{Scenario: hostile.LookAlikes}
	_, c := startGW(t, gateway.Options{Wrap: l.Wrap})
	for _, w := range []int{100, 40} {
		u := start(t, Options{Client: c, View: "destinations"}, w, 30)
		view := u.until("8 destinations", func(m Model) bool { return len(destOf(m).rows) == len(hostile.LookAlikeNames) })
		if w == 100 {
			view = u.screen("pro‹U+200B›d", "prod‹U+00AD›", "prod‹U+FE0F›", "prod‹U+E0041›", "pro‹U+2060›d", "‹U+FEFF›prod", "‹U+0301›prod")
		}
		for _, l := range strings.Split(view, "\n") {
			if ansi.StringWidth(l) > w || termCells(l) > w {
				t.Fatalf("a line wider than %d on a terminal (%d/%d): %q", w, ansi.StringWidth(l), termCells(l), l)
			}
		}
		u.quit()
	}
}

// Deleting a destination asks for its name as shown: the name it looks
// like does not confirm, the shown one (a marker typed in ASCII) does.
func TestTypedConfirmComparesWhatWasShown(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	ac, err := api.New(api.Options{BaseURL: srv.URL, ManagementKey: gateway.DemoManagementKey})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"prod", "pro\u200bd"} {
		if _, err := ac.CreateDestination(context.Background(), api.DestinationCreate{Type: "webhook", Name: name, Config: map[string]any{"url": "https://h.example/x"}}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
	}
	u := start(t, Options{Client: c, View: "destinations"}, 120, 40)
	u.screen("pro‹U+200B›d")
	deletes := func() int { return len(srv.RequestsTo("DELETE", "/api/v1/observability/destinations/")) }
	u.selectDest("pro\u200bd")
	u.runes("D")
	u.screen("Type its name as shown")
	u.runes("prod")
	u.key(tea.KeyEnter)
	u.screen("not deleted")
	if deletes() != 0 {
		t.Fatal("the look-alike name confirmed a delete")
	}
	u.selectDest("pro\u200bd")
	u.runes("D")
	u.screen("Type its name as shown")
	u.runes("pro<U+200B>d")
	u.key(tea.KeyEnter)
	u.until("the delete sent", func(Model) bool { return deletes() == 1 })
	u.until("the row gone", func(m Model) bool {
		for _, d := range destOf(m).rows {
			if d.DisplayName() == "pro\u200bd" {
				return false
			}
		}
		return true
	})
	u.quit()
}
