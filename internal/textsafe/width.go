package textsafe

// Width: every rune that leaves the boundary takes the same number of
// cells in our layout (which measures grapheme clusters) and on a
// terminal (which measures code points, and differs from terminal to
// terminal on the runes below). A rune whose width is not agreed is shown
// as a visible marker ("‹U+200B›") instead:
//
//   - runes drawn as nothing: format characters (soft hyphen U+00AD,
//     zero-width space, joiners, word joiner, byte order mark, tag
//     characters U+E0000…), variation selectors (VS16 U+FE0F makes a
//     1-cell symbol a 2-cell emoji on some terminals), other default
//     ignorables and the Hangul fillers, line and paragraph separators,
//     conjoining Hangul vowels and finals, and unassigned code points;
//   - emoji skin-tone modifiers (one emoji or two, by terminal);
//   - combining marks on nothing (at the start of a text, after a line
//     break, a control or another marker);
//   - a regional indicator without its pair (a flag is two);
//   - in a value on one line, a spacing rune that joins a neighbour's
//     cluster (Devanagari vowel signs U+093F…, Thai AM U+0E33, halfwidth
//     katakana sound marks, Prepend letters): one cell on a terminal that
//     counts code points and none in the layout, so a row would outgrow
//     its width.
//
// A value drawn on one line (Line: a name, an id, a cell) is whole, so a
// mark at its start has nothing under it. A block (Clean) may be one
// piece of a streamed answer, continued by the next: what stands at its
// very start or end is judged when the pieces are joined, by the layout
// that measures them together.
//
// So two names that differ only by an invisible character look
// different, and a row measured to fit the width fits on every terminal.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// hidden reports whether r is drawn as nothing, or with a width
// terminals do not agree on, wherever it stands.
func hidden(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r == 0xad:
		return true
	case r < 0x300, commonWide(r):
		return false
	case r >= 0x1100 && r <= 0x11ff, r >= 0xa960 && r <= 0xa97f, r >= 0xd7b0 && r <= 0xd7ff: // conjoining Hangul jamo
		return true
	case r >= 0x1f3fb && r <= 0x1f3ff: // emoji modifiers
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) ||
		!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs, unicode.Co)
}

// contextual reports whether r's width depends on its neighbours: a
// combining mark (none on a base of its own) and a regional indicator
// (two make a flag).
func contextual(r rune) bool {
	return r >= 0x300 && !commonWide(r) && (isRegional(r) || joining(r) || prepending(r) || unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc))
}

// joining reports whether r is a spacing rune that joins the cluster
// before it: spacing combining marks (Devanagari vowel signs), Thai and
// Lao AM, the halfwidth katakana sound marks.
func joining(r rune) bool {
	switch r {
	case 0x0e33, 0x0eb3, 0xff9e, 0xff9f:
		return true
	}
	return r >= 0x900 && unicode.Is(unicode.Mc, r)
}

// prepending reports whether r is a letter that joins the cluster after
// it (Grapheme_Cluster_Break=Prepend, other than format characters).
func prepending(r rune) bool {
	switch {
	case r == 0x0d4e, r == 0x111c2, r == 0x111c3, r == 0x1193f, r == 0x11941, r == 0x11a3a, r >= 0x11a84 && r <= 0x11a89, r == 0x11d46, r == 0x11f02:
		return true
	}
	return false
}

// commonWide reports whether r is in the blocks most East Asian text is
// made of (CJK ideographs, Hangul syllables, kana), all of agreed width:
// the fast answer for most runes of such text.
func commonWide(r rune) bool {
	return r >= 0x4e00 && r <= 0x9fff || r >= 0xac00 && r <= 0xd7a3 || r >= 0x3041 && r <= 0x3096 || r >= 0x30a1 && r <= 0x30fa
}

func isRegional(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

func isMark(r rune) bool {
	return r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) && !hidden(r)
}

// maxStack is how many combining marks one base carries before the next
// is shown as a marker (a pile of thousands costs a terminal dearly and
// says nothing).
const maxStack = 16

// shownAsIs reports whether the rune r at s[i:] may be written as it is,
// given what stands before and after it in s; whole says s is a whole
// value (its start and end have nothing beyond them).
func shownAsIs(s string, i int, r rune, whole bool) bool {
	switch {
	case hidden(r):
		return false
	case whole && (joining(r) || prepending(r)):
		// One cell to a terminal that counts code points, none to the
		// layout (it joins a neighbour's cluster): exact in a value on
		// one line, left to the layout in a block.
		return false
	case isMark(r):
		return onBase(s, i, whole)
	case isRegional(r):
		return paired(s, i, whole)
	}
	return true
}

// onBase reports whether the mark at s[i:] sits on a visible base (after
// at most maxStack marks).
func onBase(s string, i int, whole bool) bool {
	for n := 0; n < maxStack; n++ {
		if i == 0 {
			return !whole
		}
		p, size := utf8.DecodeLastRuneInString(s[:i])
		switch {
		case p == utf8.RuneError && size <= 1, p < 0x20, p == 0x7f, isC1(p), isBidi(p), hidden(p), isRegional(p) && !paired(s, i-size, whole):
			return false
		case !isMark(p):
			return true
		}
		i -= size
	}
	return false
}

// paired reports whether the regional indicator at s[i:] is one of a
// pair (counted from the start of its run, at most 64 back).
func paired(s string, i int, whole bool) bool {
	before, j := 0, i
	for ; j > 0 && before <= 64; before++ {
		p, size := utf8.DecodeLastRuneInString(s[:j])
		if !isRegional(p) {
			break
		}
		j -= size
	}
	switch {
	case before > 64:
		return false
	case before%2 == 1:
		return true // the second of a pair
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	if i+size == len(s) {
		return !whole
	}
	next, _ := utf8.DecodeRuneInString(s[i+size:])
	return isRegional(next) || j == 0 && !whole
}

// writeShown writes the rune r at s[i:] as it is shown: a marker when its
// width is not agreed (see the top of this file), else its inert form.
func writeShown(b runeWriter, s string, i int, r rune, oneLine bool) {
	if !shownAsIs(s, i, r, oneLine) {
		b.WriteString(Marker(r))
		return
	}
	writeInert(b, r, oneLine)
}

// Marker is the visible form of a rune that must not reach a terminal as
// it is: "‹U+" and its code point in hex (four digits at least) and "›".
func Marker(r rune) string {
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	b := make([]byte, 0, 8+digits)
	b = append(b, "‹U+"...)
	for k := digits - 1; k >= 0; k-- {
		b = append(b, hexDigits[r>>(4*k)&0xf])
	}
	return string(append(b, "›"...))
}

// Visible is a name as a person should see it before typing it back:
// clean, on one line, with every invisible or width-changing rune shown
// as a marker. A typed-name confirmation compares what was typed with
// this, not with the bytes the server sent.
func Visible(s string) string { return Line(s) }

// SameShown reports whether what a person typed names the value shown
// (Visible): typed text is shown the same way first (a pasted invisible
// rune counts as its marker), and a marker may be typed in ASCII,
// "<U+200B>" for "‹U+200B›".
func SameShown(typed, shown string) bool {
	return asciiMarkers(Visible(typed)) == asciiMarkers(shown)
}

func asciiMarkers(s string) string {
	return strings.NewReplacer("‹U+", "<U+", "›", ">").Replace(s)
}
