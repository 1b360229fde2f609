package textsafe

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// pieces are what the random strings are made of: the runes terminals
// disagree on, and the ordinary ones around them.
var pieces = []string{
	"a", "Z", " ", "-", "\t", "\n", "\x1b", "\u0085", "\u202e", "\xff", "é", "ß", "中", "文", "ｱ", "😀", "👍", "👨", "❤", "✔", "☺", "1",
	"\u00ad", "\ufe0f", "\ufe0e", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\U000e0041", "\U000e007f", "\U000e0001", "\U000e0100",
	"\u0301", "\u0308", "\u20e3", "\u0903", "\u093f", "\u034f", "\U0001f3fd", "\U0001f1eb", "\U0001f1f7", "\u1100", "\u1161", "\u11a8",
	"\u3164", "\u115f", "\u2028", "\u0600", "\u0378", "\U0010fffd", "\ue000", "가", "\u0e33", "\u180e", "\u061c", "\u17b4",
}

// randomText is a random mix of pieces and of any code point at all.
type randomText string

func (randomText) Generate(r *rand.Rand, size int) reflect.Value {
	var b strings.Builder
	for n := r.Intn(size + 1); n > 0; n-- {
		if r.Intn(5) == 0 {
			b.WriteRune(rune(r.Intn(utf8.MaxRune + 1)))
			continue
		}
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return reflect.ValueOf(randomText(b.String()))
}

// cells is the width a terminal that measures code points (wcwidth)
// gives s; ansi.StringWidth is the width our layout gives it (grapheme
// clusters).
func cells(s string) int {
	n := 0
	for _, r := range s {
		n += runewidth.RuneWidth(r)
	}
	return n
}

// The display boundary makes every width agree: whatever the server sent,
// a value drawn on one line holds no rune terminals disagree on, the
// layout's width equals a terminal's, and a row cut to a width never
// exceeds it on either.
func TestLineWidthAgreesWithATerminal(t *testing.T) {
	check := func(in randomText) bool {
		out := Line(string(in))
		if Line(out) != out {
			t.Logf("not settled: %q -> %q -> %q", in, out, Line(out))
			return false
		}
		for i, r := range out {
			if !shownAsIs(out, i, r, true) {
				t.Logf("%q keeps %U at %d", in, r, i)
				return false
			}
		}
		if ansi.StringWidth(out) != cells(out) {
			t.Logf("%q -> %q: layout %d cells, terminal %d", in, out, ansi.StringWidth(out), cells(out))
			return false
		}
		for _, w := range []int{1, 2, 3, 5, 8, 13, 21} {
			row := ansi.Truncate(out, w, "…")
			if ansi.StringWidth(row) > w || cells(row) > w {
				t.Logf("%q cut to %d: %q is %d/%d cells", in, w, row, ansi.StringWidth(row), cells(row))
				return false
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 1000, Rand: rand.New(rand.NewSource(1))}); err != nil {
		t.Fatal(err)
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 500}); err != nil {
		t.Fatal(err)
	}
}

// Names that a terminal draws alike are shown apart: every invisible or
// width-changing rune is a marker; visible text stays as it is.
func TestInvisibleRunesAreShown(t *testing.T) {
	for in, want := range map[string]string{
		"pro\u200bd":           "pro‹U+200B›d",
		"prod\u00ad":           "prod‹U+00AD›",
		"prod\ufe0f":           "prod‹U+FE0F›",
		"prod\U000e0041":       "prod‹U+E0041›",
		"\u0301prod":           "‹U+0301›prod",
		"pro\u2060d":           "pro‹U+2060›d",
		"\ufeffprod":           "‹U+FEFF›prod",
		"a\n\u0301":            "a ‹U+0301›",
		"\U0001f1eb":           "‹U+1F1EB›",
		"\U0001f1eb\U0001f1f7": "\U0001f1eb\U0001f1f7",
		"👍\U0001f3fd":          "👍‹U+1F3FD›",
		"café":                 "café",
		"cafe\u0301":           "cafe\u0301",
		"कि":                   "क‹U+093F›",
		"中文 😀":                 "中文 😀",
		"\u202eevil":           "‹U+202E›evil",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
	// A streamed block may end or start in the middle of a cluster: its
	// edges are left to the layout that joins the pieces.
	if got := Clean("\u0301 and \U0001f1eb"); got != "\u0301 and \U0001f1eb" {
		t.Errorf("block edges: %q", got)
	}
	if got := Clean("x\n\u0301"); got != "x\n‹U+0301›" {
		t.Errorf("a mark after a line break: %q", got)
	}
	if Marker(0x41) != "‹U+0041›" || Marker(0x10fffd) != "‹U+10FFFD›" {
		t.Error(Marker(0x41), Marker(0x10fffd))
	}
}
