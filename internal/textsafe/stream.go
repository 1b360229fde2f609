package textsafe

import (
	"bytes"
	"encoding/binary"
	"io"
	"unicode/utf8"
	"unsafe"
)

// Writer makes everything written through it inert (the rule of Clean)
// before passing it on. It is the boundary of the headless commands'
// human output: whatever a command prints on stdout or stderr goes
// through one. A rune split across two writes is held until it is whole.
// Writer is not safe for concurrent use.
type Writer struct {
	w       io.Writer
	partial []byte
	buf     bytes.Buffer
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer. It reports len(p) on success even though
// what it writes on may be longer.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(w.partial) > 0 {
		p = append(w.partial, p...)
		w.partial = nil
	}
	if plainBytes(p) {
		_, err := w.w.Write(p)
		return n, err
	}
	w.buf.Reset()
	for i := 0; i < len(p); {
		c := p[i]
		if c >= 0x20 && c < 0x7f {
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			w.buf.Write(p[i:j])
			i = j
			continue
		}
		if c >= 0x80 && !utf8.FullRune(p[i:]) {
			w.partial = append([]byte(nil), p[i:]...)
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			w.buf.WriteRune(utf8.RuneError)
			i++
			continue
		}
		writeInert(&w.buf, r, false)
		i += size
	}
	_, err := w.w.Write(w.buf.Bytes())
	return n, err
}

// WriteString implements io.StringWriter: text that needs no change goes
// on without a copy (a streamed answer is written delta by delta).
func (w *Writer) WriteString(s string) (int, error) {
	if len(w.partial) == 0 && plainBytes(unsafe.Slice(unsafe.StringData(s), len(s))) {
		if sw, ok := w.w.(io.StringWriter); ok {
			_, err := sw.WriteString(s)
			return len(s), err
		}
	}
	return w.Write([]byte(s))
}

// Flush writes what is held of an unfinished rune, as U+FFFD.
func (w *Writer) Flush() error {
	if len(w.partial) == 0 {
		return nil
	}
	w.partial = nil
	_, err := io.WriteString(w.w, "\uFFFD")
	return err
}

// plainBytes reports whether p is valid UTF-8 of safe runes. Printable
// ASCII, the bulk of any answer, is checked eight bytes at a time.
func plainBytes(p []byte) bool {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if !printableWord(binary.LittleEndian.Uint64(p[i:])) {
			break
		}
	}
	for ; i < len(p); i++ {
		c := p[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			continue
		}
		if c < 0x80 {
			return false
		}
		for len(p[i:]) > 0 {
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError || !Safe(r) {
				return false
			}
			i += size
		}
		return true
	}
	return true
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// printableWord reports whether all eight bytes of w are printable ASCII
// (0x20 to 0x7e). A false answer may be wrong (the caller then checks
// byte by byte); a true one never is.
func printableWord(w uint64) bool {
	if w&highs != 0 { // a byte from 0x80 up
		return false
	}
	below := (w - 0x20*ones) &^ w & highs // a byte under 0x20
	del := (w + 0x01*ones) & highs        // a byte of 0x7f (no byte is over it here)
	return below|del == 0
}
