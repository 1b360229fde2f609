package notify

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSequences(t *testing.T) {
	for _, tc := range []struct {
		mode       Mode
		tmux       bool
		title, msg string
		want       string
	}{
		{OSC9, false, "gwdash", "batch-1 completed · 3 failed · $0.42", "\x1b]9;gwdash: batch-1 completed · 3 failed · $0.42\a"},
		{OSC9, false, "", "3 failed", "\x1b]9; 3 failed\a"},
		{OSC777, false, "gw;dash", "batch-1 completed", "\x1b]777;notify;gw,dash;batch-1 completed\a"},
		{Bell, true, "gwdash", "x", "\a"},
		{Off, false, "gwdash", "x", ""},
		{OSC9, true, "gwdash", "done", "\x1bPtmux;\x1b\x1b]9;gwdash: done\a\x1b\\"},
		{OSC777, true, "gwdash", "done", "\x1bPtmux;\x1b\x1b]777;notify;gwdash;done\a\x1b\\"},
	} {
		if got := string(Sequence(tc.mode, tc.title, tc.msg, tc.tmux)); got != tc.want {
			t.Errorf("%s tmux=%v: %q, want %q", tc.mode, tc.tmux, got, tc.want)
		}
	}
}

// A server's text cannot end the sequence or start another: every
// control is made visible and the text stays on one line.
func TestHostileTextIsInert(t *testing.T) {
	evil := "batch-x\a\x1b]52;c;cHduZWQ=\x1b\\\x9b2J\u202e\nsecond"
	for _, m := range []Mode{OSC9, OSC777} {
		for _, tmux := range []bool{false, true} {
			seq := string(Sequence(m, evil, evil, tmux))
			inner := seq
			if tmux {
				inner = strings.TrimSuffix(strings.TrimPrefix(inner, "\x1bPtmux;"), "\x1b\\")
				inner = strings.ReplaceAll(inner, "\x1b\x1b", "\x1b")
			}
			// one ESC to open, one BEL to close, nothing else
			if strings.Count(inner, "\x1b") != 1 || strings.Count(inner, "\a") != 1 || !strings.HasSuffix(inner, "\a") ||
				strings.ContainsAny(inner, "\n\u009b\u202e") || !strings.Contains(inner, "␛]52") {
				t.Fatalf("%s tmux=%v: %q", m, tmux, seq)
			}
		}
	}
}

func TestResolveAndNotifier(t *testing.T) {
	for env, want := range map[string]Mode{
		"TERM_PROGRAM=iTerm.app": OSC9, "LC_TERMINAL=iTerm2": OSC9, "TERM=xterm-kitty": OSC9, "WT_SESSION=1": OSC9,
		"TERM_PROGRAM=WezTerm": OSC9, "VTE_VERSION=7600": OSC777, "TERM=rxvt-unicode-256color": OSC777, "TERM=xterm-256color": Bell, "": Bell,
	} {
		k, v, _ := strings.Cut(env, "=")
		if got := Resolve(Auto, envOf(map[string]string{k: v})); got != want {
			t.Errorf("%s: %s, want %s", env, got, want)
		}
	}
	if Resolve(Off, envOf(map[string]string{"TERM_PROGRAM": "iTerm.app"})) != Off {
		t.Error("an explicit mode must stay")
	}
	var buf bytes.Buffer
	n := New(&buf, Auto, envOf(map[string]string{"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-1/default,1,0"}))
	if err := n.Notify("gwdash", "done"); err != nil || buf.String() != "\x1bPtmux;\x1b\x1b]9;gwdash: done\a\x1b\\" || n.Mode() != OSC9 {
		t.Fatalf("%v %q %s", err, buf.String(), n.Mode())
	}
	for _, s := range []string{"", "auto", "osc9", "osc777", "bell", "off"} {
		if _, err := ParseMode(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := ParseMode("loud"); err == nil || !strings.Contains(err.Error(), "auto, osc9, osc777, bell, off") {
		t.Errorf("loud: %v", err)
	}
}

// credit_warn warns once when the remaining limit falls under the
// threshold, and again only after it went back above it; a key without a
// limit, or no threshold, never warns.
func TestCreditWatchOnce(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cw := &CreditWatch{Threshold: 5}
	var got []string
	for _, k := range []*api.KeyInfo{
		{Limit: f(10), LimitRemaining: f(6)}, {Limit: f(10), LimitRemaining: f(4)}, {Limit: f(10), LimitRemaining: f(3)},
		{Limit: f(20), LimitRemaining: f(15)}, {Limit: f(20), LimitRemaining: f(2)}, nil, {Limit: nil, Usage: 100},
		{Limit: f(10), Usage: 9.5}, // no limit_remaining: the limit less the usage
	} {
		got = append(got, cw.Observe(k))
	}
	want := []string{"", "credit low: $4.00 left on this key (under credit_warn $5.00)", "", "", "credit low: $2.00 left on this key (under credit_warn $5.00)", "", "", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%q", got)
	}
	if (&CreditWatch{}).Observe(&api.KeyInfo{Limit: f(10), LimitRemaining: f(0)}) != "" {
		t.Fatal("no threshold must never warn")
	}
	if r, ok := Remaining(&api.KeyInfo{Limit: f(10), Usage: 9.5}); !ok || r != 0.5 {
		t.Fatalf("remaining %v %v", r, ok)
	}
	for _, v := range []float64{-1, 1e7} {
		if err := CheckCreditWarn(v); err == nil || !strings.Contains(err.Error(), "credit_warn must be a dollar amount") {
			t.Errorf("%v: %v", v, err)
		}
	}
	if CheckCreditWarn(0) != nil || CheckCreditWarn(5) != nil {
		t.Fatal("0 (off) and 5 are fine")
	}
}
