// Package textsafe makes untrusted text (anything a server or a model wrote)
// safe to draw on a terminal: every escape sequence, control character and
// bidirectional override is removed, invalid UTF-8 is replaced, and plain
// text, tabs and newlines are kept.
package textsafe

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Clean returns s with terminal control sequences (CSI, OSC, DCS, APC, PM,
// SOS), C0 controls other than tab and newline, C1 controls and bidi
// override characters removed. "\r\n" becomes "\n"; a lone "\r" is dropped
// so that text can never overwrite what is already on a line.
func Clean(s string) string {
	if isPlain(s) {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if keep(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Clean for a value drawn on a single line: newlines and tabs become
// spaces.
func Line(s string) string {
	s = Clean(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}

// isPlain reports whether s is valid UTF-8 made only of printable ASCII,
// tab and newline, or non-control runes outside the bidi ranges: the common
// case, which needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			continue
		}
		if c < 0x80 {
			return false
		}
		// Non-ASCII: check the rune properly.
		for _, r := range s[i:] {
			if r == utf8.RuneError || !keep(r) {
				return false
			}
		}
		return true
	}
	return true
}

func keep(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return true
	case r < 0x20 || r == 0x7f:
		return false
	case r >= 0x80 && r <= 0x9f: // C1 controls
		return false
	case r >= 0x202a && r <= 0x202e: // LRE, RLE, PDF, LRO, RLO
		return false
	case r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return false
	}
	return true
}
