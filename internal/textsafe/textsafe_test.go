package textsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "hello\tworld\nbye", "hello\tworld\nbye"},
		{"unicode kept", "héllo — 世界 🙂", "héllo — 世界 🙂"},
		{"csi colour", "\x1b[31mred\x1b[0m", "red"},
		{"csi clear screen", "a\x1b[2Jb\x1b[H", "ab"},
		{"osc title bel", "x\x1b]0;pwned\x07y", "xy"},
		{"osc title st", "x\x1b]2;pwned\x1b\\y", "xy"},
		{"osc52 clipboard", "a\x1b]52;c;ZXZpbA==\x07b", "ab"},
		{"osc8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"dcs", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"c1 csi", "a\u009b31mb", "a"},
		{"c1 control dropped", "a\u0085b", "ab"},
		{"bell and backspace", "a\x07\x08b", "ab"},
		{"carriage return", "line1\r\nline2\rX", "line1\nline2X"},
		{"bidi override", "abc\u202edcba\u202c", "abcdcba"},
		{"bidi isolate", "\u2066x\u2069", "x"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"lone esc", "a\x1bb", "a"},
	}
	for _, c := range cases {
		got := Clean(c.in)
		if c.name == "c1 csi" || c.name == "lone esc" {
			// What follows an introducer may be swallowed as its parameters;
			// the guarantee is that nothing is left that a terminal acts on.
			if strings.ContainsAny(got, "\x1b\u009b") || !strings.HasPrefix(got, c.want) {
				t.Errorf("%s: Clean(%q) = %q", c.name, c.in, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[1m"); got != "a b c" {
		t.Fatalf("Line = %q", got)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]52;c;AA\x07", "\u202e", "a\xff", "\x1bP\x1b\\", "\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid utf8 out of %q", s)
		}
		for _, r := range out {
			if !keep(r) {
				t.Fatalf("control %U left in %q (from %q)", r, out, s)
			}
		}
		if Clean(out) != out {
			t.Fatalf("not idempotent: %q", s)
		}
	})
}
