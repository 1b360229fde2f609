package textsafe

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// Every string of a JSON text is re-encoded: raw and escaped controls
// alike leave as escapes, invalid UTF-8 as U+FFFD, and a CR between
// members is dropped; the values stay what the server sent.
func TestJSONReencodesEveryString(t *testing.T) {
	raw := []byte("{\"a\":1,\r\"x\\u001b]0;t\\u0007\":\"ok\\rstatus: completed\\u001b[2J\\u009b31m\u009b\u009d\x7f\x9b\u202e\",\"n\":[\"\\ud83d\\ude00\",\"\\ud800\"]}\n")
	got := JSON(raw)
	for i := 0; i < len(got); {
		r, size := utf8.DecodeRune(got[i:])
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e || r == utf8.RuneError && size == 1 {
			t.Fatalf("raw %U at %d in %q", r, i, got)
		}
		i += size
	}
	for _, want := range []string{`\r`, `\u001B`, `\u009B`, `\u009D`, `\u007F`, `\u202E`, "\uFFFD", "😀"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("%q missing from %q", want, got)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("not JSON: %v: %q", err, got)
	}
	if v := back["x\x1b]0;t\a"]; v != "ok\rstatus: completed\x1b[2J\u009b31m\u009b\u009d\x7f\uFFFD\u202e" {
		t.Fatalf("value changed: %q", v)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, raw); err != nil || !bytes.Equal(buf.Bytes(), got) {
		t.Fatalf("WriteJSON differs: %q", buf.String())
	}
	if s := AppendJSONString(nil, "a\rb\u009bc\x7f\xff"); string(s) != `"a\rb\u009Bc\u007F`+"\uFFFD\"" {
		t.Fatalf("AppendJSONString: %q", s)
	}
}

// printableWord agrees with a byte-by-byte check on every word that
// matters: each byte value in each position, among printable neighbours.
func TestPrintableWord(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			w := uint64(0)
			for i := 7; i >= 0; i-- {
				w = w<<8 | uint64(b[i])
			}
			want := c >= 0x20 && c < 0x7f
			if got := printableWord(w); got && !want {
				t.Fatalf("byte %#x at %d passed", c, pos)
			}
			if got := printableWord(w); !got && want {
				t.Fatalf("printable byte %#x at %d refused", c, pos)
			}
		}
	}
}

// Each two-character escape of JSON is read as its rune and written back
// as the same escape ("\/" is read as "/", written as "/" when the text
// is re-encoded at all: plain text is returned as it is); every other
// ASCII rune is written as itself or as \u00XX, never as a short escape.
func TestJSONShortEscapesBothWays(t *testing.T) {
	short := map[string]string{`\"`: `"`, `\\`: `\`, `\n`: "\n", `\r`: "\r", `\t`: "\t", `\b`: "\b", `\f`: "\f"}
	for esc, r := range short {
		var back string
		if err := json.Unmarshal(JSON([]byte(`"`+esc+`"`)), &back); err != nil || back != r {
			t.Errorf("%s read as %q (%v)", esc, back, err)
		}
		if got := string(AppendJSONStringBody(nil, r)); got != esc {
			t.Errorf("%q written as %s, want %s", r, got, esc)
		}
	}
	if got := string(AppendJSON(nil, []byte(`"a\/b"`))); got != `"a/b"` {
		t.Errorf(`\/ re-encoded as %s`, got)
	}
	for c := rune(0); c < utf8.RuneSelf; c++ {
		got := string(AppendJSONStringBody(nil, string(c)))
		if _, isShort := short[got]; isShort {
			continue
		}
		if got != string(c) && (len(got) != 6 || got[:4] != `\u00`) {
			t.Errorf("%q written as %s", c, got)
		}
	}
}
