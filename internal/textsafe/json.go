package textsafe

import (
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON re-encodes JSON text for printing, the boundary of every `--json`
// output: every string in it (member names and values, known members and
// unknown ones alike) is decoded and written again with every C0 control
// (CR included), DEL, C1 control, bidi control and line separator as an
// escape (`\r`, `\u001b`, `\u007f`, `\u009b`, `\u202e`), and invalid UTF-8
// as U+FFFD. Outside strings only JSON's own bytes stay: spaces, newlines
// and tabs between tokens are kept, a CR or any other byte that JSON does
// not allow there is dropped. The values are the ones the server sent; a
// terminal receives none of their controls raw.
//
// Text that needs no change (valid UTF-8 without a control other than
// newline and tab) is returned as it is, without a copy.
func JSON(b []byte) []byte {
	if plainJSON(b) {
		return b
	}
	return AppendJSON(make([]byte, 0, len(b)+64), b)
}

// WriteJSON writes JSON(b) to w.
func WriteJSON(w io.Writer, b []byte) error {
	_, err := w.Write(JSON(b))
	return err
}

// AppendJSON appends the re-encoded form of the JSON text b (see JSON) to
// out.
func AppendJSON(out, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			var n int
			out, n = appendJSONStringToken(out, b[i:])
			i += n
			continue
		case c == ' ' || c == '\n' || c == '\t':
		case c < 0x20 || c >= 0x7f:
			// not JSON outside a string (a CR is, as white space, but a
			// terminal would act on it): dropped
			i++
			continue
		}
		out = append(out, c)
		i++
	}
	return out
}

// AppendJSONString appends s as a JSON string, quoted, with the escapes of
// JSON.
func AppendJSONString(out []byte, s string) []byte {
	out = append(out, '"')
	out = AppendJSONStringBody(out, s)
	return append(out, '"')
}

// AppendJSONStringBody appends the inside of a JSON string holding s (no
// quotes), with the escapes of JSON: for output written piece by piece.
func AppendJSONStringBody(out []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			out = appendJSONRune(out, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		out = appendJSONRune(out, r) // an invalid byte is RuneError, U+FFFD
		i += size
	}
	return out
}

// appendJSONStringToken decodes the JSON string token at the start of b
// (b[0] is the quote) and appends it re-encoded. It returns the bytes
// consumed; an unterminated string ends at the end of b and is closed.
func appendJSONStringToken(out, b []byte) ([]byte, int) {
	out = append(out, '"')
	i := 1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return append(out, '"'), i + 1
		case c == '\\':
			r, n := readEscape(b[i:])
			out = appendJSONRune(out, r)
			i += n
		case c < utf8.RuneSelf:
			out = appendJSONRune(out, rune(c))
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = appendJSONRune(out, r)
			i += size
		}
	}
	return append(out, '"'), i
}

// readEscape reads the escape at the start of b (b[0] is the backslash):
// the rune it stands for and its length. A \u escape of a surrogate pair
// is one rune; a lone surrogate or a broken escape is U+FFFD.
func readEscape(b []byte) (rune, int) {
	if len(b) < 2 {
		return utf8.RuneError, len(b)
	}
	if c := b[1]; c < utf8.RuneSelf && unescapes[c] != 0 {
		return rune(unescapes[c]), 2
	}
	if b[1] == 'u' {
		r, ok := hex4(b[2:])
		if !ok {
			return utf8.RuneError, 2
		}
		if utf16.IsSurrogate(r) {
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
				if r2, ok := hex4(b[8:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return d, 12
					}
				}
			}
			return utf8.RuneError, 6
		}
		return r, 6
	}
	return utf8.RuneError, 2
}

// JSON's two-character escapes: a backslash and escapeLetters[k] stand
// for escapeRunes[k]. The last, "\/", is read but never written.
const (
	escapeLetters = `"\nrtbf/`
	escapeRunes   = "\"\\\n\r\t\b\f/"
)

// escapes[r] is the letter that escapes the ASCII rune r (0: none);
// unescapes[c] the rune the letter c stands for after a backslash.
var escapes, unescapes = func() (esc, unesc [utf8.RuneSelf]byte) {
	for k := range len(escapeLetters) {
		if escapeRunes[k] != '/' {
			esc[escapeRunes[k]] = escapeLetters[k]
		}
		unesc[escapeLetters[k]] = escapeRunes[k]
	}
	return esc, unesc
}()

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// appendJSONRune appends r as it goes inside a JSON string.
func appendJSONRune(out []byte, r rune) []byte {
	if r < utf8.RuneSelf && escapes[r] != 0 {
		return append(out, '\\', escapes[r])
	}
	if r < 0x20 || r == 0x7f || isC1(r) || isBidi(r) || r == 0x2028 || r == 0x2029 {
		return appendEscape(out, r)
	}
	return utf8.AppendRune(out, r)
}

func appendEscape(out []byte, r rune) []byte {
	return append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// plainJSON reports whether b needs no change: valid UTF-8 without a
// control other than newline and tab, without C1, bidi controls or line
// separators.
func plainJSON(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return false
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 || isC1(r) || isBidi(r) || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += size
	}
	return true
}
