package textsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Hostile is every sequence the hostile-server tests inject: titles,
// clipboard, hyperlinks, screen clearing and cursor tricks, 8-bit CSI,
// BEL, and a right-to-left override.
const Hostile = "\x1b]0;pwned-title\x07\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b[2J\x1b[H\x1b[?1049l\x1b[?25l\u009b31m\x07\u202eevil"

// active are byte sequences a terminal acts on; none may survive.
var active = []string{"\x1b", "\x07", "\u009b", "\u202e", "\xc2\x9b"}

func TestClean(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "hello\tworld\nbye", "hello\tworld\nbye"},
		{"unicode kept", "héllo — 世界 🙂", "héllo — 世界 🙂"},
		{"csi colour", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"csi clear screen", "a\x1b[2Jb\x1b[H", "a␛[2Jb␛[H"},
		{"osc title bel", "x\x1b]0;pwned\x07y", "x␛]0;pwned␇y"},
		{"osc title st", "x\x1b]2;pwned\x1b\\y", "x␛]2;pwned␛\\y"},
		{"osc52 clipboard", "a\x1b]52;c;ZXZpbA==\x07b", "a␛]52;c;ZXZpbA==␇b"},
		{"dcs", "a\x1bP1$r0m\x1b\\b", "a␛P1$r0m␛\\b"},
		{"c1 csi", "a\u009b31mb", "a‹U+009B›31mb"},
		{"c1 next line", "a\u0085b", "a‹U+0085›b"},
		{"bell and backspace", "a\x07\x08b", "a␇␈b"},
		{"delete", "a\x7fb", "a␡b"},
		{"carriage return", "line1\r\nline2\rX", "line1\nline2X"},
		{"bidi override", "abc\u202edcba\u202c", "abc‹U+202E›dcba‹U+202C›"},
		{"bidi isolate", "\u2066x\u2069", "‹U+2066›x‹U+2069›"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"nul", "a\x00b", "a␀b"},
	}
	for _, c := range cases {
		if got := Clean(c.in); got != c.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
	out := Clean(Hostile)
	for _, a := range active {
		if strings.Contains(out, a) {
			t.Fatalf("%q survived Clean: %q", a, out)
		}
	}
	// The odd text stays visible.
	if !strings.Contains(out, "␛]0;pwned-title␇") || !strings.Contains(out, "␛[2J") {
		t.Fatalf("hostile text not shown inert: %q", out)
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[1m"); got != "a b c␛[1m" {
		t.Fatalf("Line = %q", got)
	}
	if got := Line("plain"); got != "plain" {
		t.Fatalf("Line = %q", got)
	}
}

func TestWriterMatchesCleanAcrossSplits(t *testing.T) {
	in := "ok é " + Hostile + " 世界\r\n🙂 end\xff"
	want := Clean(in)
	for split := 1; split < 7; split++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		b := []byte(in)
		for i := 0; i < len(b); i += split {
			n, err := w.Write(b[i:min(len(b), i+split)])
			if err != nil || n != min(len(b), i+split)-i {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		w.Flush()
		if out.String() != want {
			t.Fatalf("split %d:\n got %q\nwant %q", split, out.String(), want)
		}
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("a\xe4\xb8")) // an unfinished rune at the end
	w.Flush()
	if out.String() != "a\uFFFD" {
		t.Fatalf("unfinished rune: %q", out.String())
	}
}

func TestFrameKeepsOnlyColour(t *testing.T) {
	colour := "\x1b[38;2;1;2;3mhi\x1b[0m\x1b[1;4m!\x1b[m"
	if got := Frame(colour); got != colour {
		t.Fatalf("colour changed: %q", got)
	}
	got := Frame("a " + colour + Hostile)
	if !strings.HasPrefix(got, "a "+colour) {
		t.Fatalf("prefix lost: %q", got)
	}
	rest := strings.TrimPrefix(got, "a "+colour)
	for _, a := range active {
		if strings.Contains(rest, a) {
			t.Fatalf("%q survived Frame: %q", a, rest)
		}
	}
	if !strings.Contains(rest, "␛[2J") {
		t.Fatalf("not visible: %q", rest)
	}
}

func TestTermFilter(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"text and csi pass", "a\x1b[2J\x1b[?1049hb\x1b[31mc", "a\x1b[2J\x1b[?1049hb\x1b[31mc"},
		{"osc bel dropped", "a\x1b]0;title\x07b", "ab"},
		{"osc st dropped", "a\x1b]52;c;ZXZp\x1b\\b", "ab"},
		{"dcs apc pm sos dropped", "1\x1bPq\x1b\\2\x1b_G\x1b\\3\x1b^x\x1b\\4\x1bXy\x1b\\5", "12345"},
		{"bel dropped", "a\x07b", "ab"},
		{"utf8 c1 dropped", "a\u009b31mb\u0085c", "a31mbc"},
		{"stray 8-bit dropped", "a\x9b31mb", "a31mb"},
		{"unicode kept", "é世🙂", "é世🙂"},
		{"two-byte escapes kept", "\x1b7x\x1b8", "\x1b7x\x1b8"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		f := NewTermFilter(&out)
		f.Write([]byte(c.in))
		if out.String() != c.want {
			t.Errorf("%s: got %q want %q", c.name, out.String(), c.want)
		}
		// one byte at a time gives the same
		out.Reset()
		f = NewTermFilter(&out)
		for i := 0; i < len(c.in); i++ {
			f.Write([]byte{c.in[i]})
		}
		if out.String() != c.want {
			t.Errorf("%s (bytewise): got %q want %q", c.name, out.String(), c.want)
		}
	}
}

func TestJSONInert(t *testing.T) {
	v := map[string]string{"s": Hostile + "é"}
	raw, _ := json.Marshal(v)
	// encoding/json escapes C0 but not C1 nor bidi: put them raw, as a
	// server may.
	raw = bytes.ReplaceAll(raw, []byte(`\u009b`), []byte("\u009b"))
	raw = bytes.ReplaceAll(raw, []byte(`\u202e`), []byte("\u202e"))
	got := JSON(raw)
	for _, a := range active {
		if bytes.Contains(got, []byte(a)) {
			t.Fatalf("%q survived JSON: %q", a, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["s"] != v["s"] {
		t.Fatalf("not the same value: %v %q", err, back["s"])
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, raw); err != nil || !bytes.Equal(buf.Bytes(), got) {
		t.Fatalf("WriteJSON differs: %q", buf.String())
	}
	plain := []byte(`{"a":"b é"}`)
	if g := JSON(plain); &g[0] != &plain[0] {
		t.Fatal("plain JSON was copied")
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]52;c;AA\x07", "\u202e", "a\xff", "\x1bP\x1b\\", "\r\n", Hostile} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid utf8 out of %q", s)
		}
		for i, r := range out {
			// A contextual rune (a mark, a regional indicator) is safe
			// where it stands: on a base, in a pair, or at the start of
			// a block (a fragment of a stream, left to the layout).
			if !Safe(r) && !(contextual(r) && shownAsIs(out, i, r, false)) {
				t.Fatalf("control %U left in %q (from %q)", r, out, s)
			}
		}
		if Clean(out) != out {
			t.Fatalf("not idempotent: %q", s)
		}
		// Frame keeps a frame inert (widths are the views' Clean's): no
		// control but our own SGR's ESC.
		for _, r := range Frame(s) {
			if r != 0x1b && (r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || isC1(r) || isBidi(r)) {
				t.Fatalf("Frame left %U of %q", r, s)
			}
		}
		var buf bytes.Buffer
		NewTermFilter(&buf).Write([]byte(s))
		if bytes.ContainsAny(buf.Bytes(), "\x07") || bytes.Contains(buf.Bytes(), []byte("\x1b]")) || bytes.Contains(buf.Bytes(), []byte("\u009b")) {
			t.Fatalf("TermFilter left an active sequence of %q: %q", s, buf.Bytes())
		}
	})
}
