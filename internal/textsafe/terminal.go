package textsafe

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Frame makes a dashboard frame inert except for colour: a select graphic
// rendition sequence (ESC [ digits and ; or : m), which the dashboard's
// own styles write, is kept; every other escape, control, C1 control and
// bidi override takes its visible inert form. Whatever a view forgot to
// clean cannot clear the screen, move the cursor or open a hyperlink.
func Frame(s string) string {
	if framePlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	appendInert(&b, s, false, true)
	return b.String()
}

// sgrLen is the length of the SGR sequence at the start of s, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// framePlain reports whether s holds only safe runes and SGR sequences.
func framePlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f || c == '\n' || c == '\t':
		case c == 0x1b:
			n := sgrLen(s[i:])
			if n == 0 {
				return false
			}
			i += n - 1
		case c < 0x80:
			return false
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || !Safe(r) {
				return false
			}
			i += size - 1
		}
	}
	return true
}

// TermFilter is the last filter on the dashboard's output: it passes text,
// CSI sequences and two-byte escapes (what the program itself writes to
// draw), and drops what a terminal would act on beyond drawing: OSC, DCS,
// APC, PM and SOS strings (titles, clipboard writes, hyperlinks, queries),
// BEL, and C1 controls, including a stray 8-bit one. It holds no data
// between writes beyond its parser state.
type TermFilter struct {
	w     io.Writer
	state filterState
	need  int // continuation bytes still expected of a UTF-8 rune
	lead  byte
	out   []byte
}

type filterState int

const (
	ground filterState = iota
	afterEsc
	inCSI
	inString
	stringEsc
)

// NewTermFilter returns a TermFilter writing to w.
func NewTermFilter(w io.Writer) *TermFilter { return &TermFilter{w: w} }

// Write implements io.Writer; it always reports len(p) consumed.
func (f *TermFilter) Write(p []byte) (int, error) {
	f.out = f.out[:0]
	for _, c := range p {
		f.step(c)
	}
	if len(f.out) == 0 {
		return len(p), nil
	}
	_, err := f.w.Write(f.out)
	return len(p), err
}

func (f *TermFilter) step(c byte) {
	switch f.state {
	case afterEsc:
		switch c {
		case '[':
			f.out = append(f.out, 0x1b, c)
			f.state = inCSI
		case ']', 'P', '_', '^', 'X':
			f.state = inString
		case 0x1b:
			// ESC ESC: drop the first, stay after an escape
		default:
			if c < 0x20 || c >= 0x80 {
				f.state = ground
				f.step(c)
				return
			}
			f.out = append(f.out, 0x1b, c)
			f.state = ground
		}
		return
	case inCSI:
		if c == 0x1b {
			f.state = afterEsc
			return
		}
		if c < 0x20 || c >= 0x80 {
			f.state = ground // a broken sequence: what follows is text
			f.step(c)
			return
		}
		f.out = append(f.out, c)
		if c >= 0x40 && c <= 0x7e {
			f.state = ground
		}
		return
	case inString:
		switch {
		case c == 0x07:
			f.state = ground
		case c == 0x1b:
			f.state = stringEsc
		}
		return // everything in a string is dropped (a UTF-8 ST ends it below)
	case stringEsc:
		if c == '\\' {
			f.state = ground
		} else if c != 0x1b {
			f.state = inString
		}
		return
	}
	// ground
	if f.need > 0 {
		if c >= 0x80 && c <= 0xbf {
			f.need--
			if f.lead == 0xc2 && c <= 0x9f {
				// U+0080…U+009F: a C1 control in UTF-8; drop it.
				f.need = 0
				return
			}
			if f.lead != 0 {
				f.out = append(f.out, f.lead)
				f.lead = 0
			}
			f.out = append(f.out, c)
			return
		}
		// a rune cut short: drop what was held and read c afresh
		f.need, f.lead = 0, 0
	}
	switch {
	case c == 0x1b:
		f.state = afterEsc
	case c == 0x07:
		// BEL: dropped
	case c < 0x80:
		f.out = append(f.out, c)
	case c >= 0xc2 && c <= 0xdf:
		f.need, f.lead = 1, c
		if c != 0xc2 {
			f.out = append(f.out, c)
			f.lead = 0
		}
	case c >= 0xe0 && c <= 0xef:
		f.need, f.lead = 2, 0
		f.out = append(f.out, c)
	case c >= 0xf0 && c <= 0xf4:
		f.need, f.lead = 3, 0
		f.out = append(f.out, c)
	default:
		// a stray continuation byte or an invalid lead (0x80-0xc1,
		// 0xf5-0xff): an 8-bit C1 to some terminals; dropped.
	}
}
