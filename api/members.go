package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// One JSON policy for every answer: encoding/json matches member names
// without regard to case (with Unicode folding: "ſtatus" fills Status) and
// lets the last duplicate win, go-json-experiment/json matches them
// exactly; decoding the same bytes both ways gave two statuses. So before
// any answer is decoded (a JSON body, each event of a stream, an error
// envelope), checkMembers refuses an object that holds two members whose
// names are equal under Unicode case folding ("status" twice, "Status" and
// "status", "ſtatus" and "status"): no decoder then has a choice to make,
// and `batch list`, `batch get` and the dashboard read every answer the
// same way. A lone case variant ("Status") is read as its member by every
// decoder (both match case-insensitively).

// DuplicateMemberError is an answer refused for holding one member twice.
type DuplicateMemberError struct {
	// First and Second are the two names as sent (Second may equal First).
	First, Second string
}

func (e *DuplicateMemberError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("the answer has the member %q twice in one object; refused, as it could be read two ways", e.First)
	}
	return fmt.Sprintf("the answer has the member %q twice in one object (also as %q, the same name to a JSON decoder that ignores case); refused, as it could be read two ways", e.First, e.Second)
}

// memberFrame is one open object or array while checking. The names of
// the open objects share one slice: an object's are names[start:].
type memberFrame struct {
	object   bool
	wantName bool
	start    int
	set      map[string]string // fold key -> name as sent, for large objects
}

type memberName struct{ key, sent string }

// maxLinearNames is where an object's names move from a slice to a map.
const maxLinearNames = 16

// checkMembers reports the first object of the JSON text b that holds two
// members with the same name under case folding. b is not otherwise
// validated (the decoder does that). It allocates nothing for the common
// answer (small objects, names in ASCII lower case) and skips string
// values at the speed of bytes.IndexByte: it runs on every event of a
// stream.
func checkMembers(b []byte) error {
	var stackArr [16]memberFrame
	var namesArr [64]memberName
	stack, names := stackArr[:0], namesArr[:0]
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			stack = append(stack, memberFrame{object: true, wantName: true, start: len(names)})
		case '[':
			stack = append(stack, memberFrame{start: len(names)})
		case '}', ']':
			if n := len(stack); n > 0 {
				names = names[:stack[n-1].start]
				stack = stack[:n-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantName = true
			}
		case '"':
			n := len(stack)
			if n == 0 || !stack[n-1].object || !stack[n-1].wantName {
				i = skipString(b, i+1)
				continue
			}
			start := i + 1
			escaped, ascii := false, true
			j := start
			for ; j < len(b); j++ {
				c := b[j]
				if c == '\\' {
					escaped = true
					j++
					continue
				}
				if c == '"' {
					break
				}
				if c >= utf8.RuneSelf {
					ascii = false
				}
			}
			end := min(j, len(b))
			i = end
			f := &stack[n-1]
			f.wantName = false
			raw := b[start:end]
			sent := unsafe.String(unsafe.SliceData(raw), len(raw))
			if escaped {
				var s string
				if json.Unmarshal(b[start-1:min(end+1, len(b))], &s) == nil {
					sent = s
				}
			}
			key := foldName(sent, ascii && !escaped)
			var err error
			if names, err = f.add(names, key, sent); err != nil {
				return err
			}
		}
	}
	return nil
}

// skipString returns the index of the quote that ends the string whose
// content starts at i (or len(b)).
func skipString(b []byte, i int) int {
	for i < len(b) {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b)
		}
		q := i + k
		bs := 0
		for p := q - 1; p >= i && b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return q
		}
		i = q + 1
	}
	return len(b)
}

func (f *memberFrame) add(names []memberName, key, sent string) ([]memberName, error) {
	if f.set != nil {
		if prev, ok := f.set[key]; ok {
			return names, &DuplicateMemberError{First: strings.Clone(prev), Second: strings.Clone(sent)}
		}
		f.set[key] = sent
		return names, nil
	}
	for _, m := range names[f.start:] {
		if m.key == key {
			return names, &DuplicateMemberError{First: strings.Clone(m.sent), Second: strings.Clone(sent)}
		}
	}
	names = append(names, memberName{key, sent})
	if len(names)-f.start > maxLinearNames {
		f.set = make(map[string]string, 2*maxLinearNames)
		for _, m := range names[f.start:] {
			f.set[m.key] = m.sent
		}
		names = names[:f.start]
	}
	return names, nil
}

// foldName is a name's key under Unicode simple case folding: each rune
// replaced by one member of its folding orbit, the ASCII lower-case letter
// when the orbit has one ("ſ", "s" and "S" share the key "s"; "K", "k"
// and the Kelvin sign "k"), else the smallest rune.
func foldName(s string, ascii bool) string {
	if ascii {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 'A' && c <= 'Z' {
				return foldSlow(s)
			}
		}
		return s
	}
	return foldSlow(s)
}

func foldSlow(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return unicode.ToLower(r)
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			return unicode.ToLower(f)
		}
		m = min(m, f)
	}
	return m
}
