// Package textsafe is gwdash's one boundary for untrusted text: anything a
// server or a model wrote passes through it before it reaches a terminal,
// a log or a file meant for people.
//
// Text is made inert but stays visible: an escape becomes "␛", other C0
// controls their Unicode control pictures (BEL "␇"), DEL "␡", C1 controls
// and bidirectional overrides a short marker ("‹U+009B›"), so a user can
// see that a server sent something odd while the terminal acts on none of
// it. Tabs and newlines are kept; carriage returns are dropped (so "\r\n"
// becomes "\n" and text can never overwrite a line); invalid UTF-8 becomes
// U+FFFD.
//
// The package offers the same rule in the shapes the program needs:
// Clean and Line for strings, Writer for a stream of command output,
// Frame for a dashboard frame (which may carry only colour sequences of
// its own), TermFilter as the last filter on the dashboard's output, and
// JSON for the JSON text of --json (every string re-encoded, json.go).
package textsafe

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s in inert, visible form (see the package comment).
func Clean(s string) string { return clean(s, false) }

// Line is Clean for a value drawn on a single line: newlines and tabs
// become spaces.
func Line(s string) string { return clean(s, true) }

// clean is Clean, or Line with oneLine set; plain text comes back as is.
func clean(s string, oneLine bool) string {
	if oneLine && isPlainLine(s) || !oneLine && isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	appendInert(&b, s, oneLine, false)
	return b.String()
}

// appendInert writes the inert form of s: Clean's (Line's with oneLine),
// or with frame set Frame's, which keeps SGR sequences as they are and
// writes every other rune by writeInert alone (no marker for a rune that
// is only invisible).
func appendInert(b *strings.Builder, s string, oneLine, frame bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if frame && c == 0x1b {
			if n := sgrLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		if c >= 0x20 && c < 0x7f {
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		if frame {
			writeInert(b, r, oneLine)
		} else {
			writeShown(b, s, i, r, oneLine)
		}
		i += size
	}
}

// runeWriter is what writeInert writes to.
type runeWriter interface {
	WriteRune(r rune) (int, error)
	WriteString(s string) (int, error)
}

// writeInert writes one rune in inert form.
func writeInert(b runeWriter, r rune, oneLine bool) {
	switch {
	case r == '\n' || r == '\t':
		if oneLine {
			b.WriteRune(' ')
		} else {
			b.WriteRune(r)
		}
	case r == '\r':
		// dropped: "\r\n" is "\n", and a lone CR must not rewrite a line
	case r < 0x20:
		b.WriteRune(0x2400 + r) // ␀ … ␟, ESC is ␛
	case r == 0x7f:
		b.WriteRune('␡')
	case isC1(r) || isBidi(r):
		b.WriteString(marker(r))
	default:
		b.WriteRune(r)
	}
}

func isC1(r rune) bool   { return r >= 0x80 && r <= 0x9f }
func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

const hexDigits = "0123456789ABCDEF"

// marker is the visible form of a C1 control or a bidi override.
func marker(r rune) string {
	return "‹U+" + string([]byte{hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf]}) + "›"
}

// Safe reports whether r may reach a terminal as it is.
func Safe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return true
	case r < 0x20 || r == 0x7f || isC1(r) || isBidi(r) || hidden(r) || contextual(r):
		return false
	}
	return true
}

// isPlain reports whether s needs no change: valid UTF-8 of safe runes.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			continue
		}
		if c < 0x80 {
			return false
		}
		for _, r := range s[i:] {
			if r == utf8.RuneError || !Safe(r) {
				return false
			}
		}
		return true
	}
	return true
}

func isPlainLine(s string) bool {
	return isPlain(s) && strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\t') < 0
}
