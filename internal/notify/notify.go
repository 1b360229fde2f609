// Package notify tells the user, through their terminal, that something
// they were waiting for has happened (a batch ended): a desktop
// notification by OSC 9 or OSC 777, or the bell. Inside tmux the escape
// is wrapped for its passthrough (tmux 3.3+ needs `set -g
// allow-passthrough on`). The text is made inert first (textsafe), so a
// server's words can never end the sequence early or start another.
//
// The headless `batch watch --notify` writes through it; the dashboard
// can too.
package notify

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// Title is the title of gwdash's notifications.
const Title = "gwdash"

// Mode is how a notification is sent.
type Mode string

// The modes of the `notify` setting.
const (
	Auto   Mode = "auto"   // OSC 9 or OSC 777 where the terminal is known to show it, else the bell
	OSC9   Mode = "osc9"   // ESC ] 9 ; text BEL: iTerm2, kitty, WezTerm, Ghostty, Windows Terminal
	OSC777 Mode = "osc777" // ESC ] 777 ; notify ; title ; text BEL: VTE terminals, urxvt, foot
	Bell   Mode = "bell"   // BEL: every terminal (a sound, a flash or an urgent hint)
	Off    Mode = "off"
)

// Modes lists the modes, for the setting's check and its message.
var Modes = []Mode{Auto, OSC9, OSC777, Bell, Off}

// ParseMode reads a setting's value ("" is Auto).
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return Auto, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("notify must be %s", strings.Join(names, ", "))
}

// Resolve turns Auto into the mode the terminal is known to show, read
// from its environment (env reads a variable); other modes are kept.
func Resolve(m Mode, env func(string) string) Mode {
	if m != Auto {
		return m
	}
	prog := strings.ToLower(env("TERM_PROGRAM"))
	lcTerm := strings.ToLower(env("LC_TERMINAL")) // kept by ssh and tmux
	term := strings.ToLower(env("TERM"))
	switch {
	case prog == "iterm.app" || lcTerm == "iterm2" || prog == "wezterm" || prog == "ghostty" ||
		strings.Contains(term, "kitty") || env("KITTY_WINDOW_ID") != "" || env("WT_SESSION") != "":
		return OSC9
	case env("VTE_VERSION") != "" || strings.HasPrefix(term, "rxvt") || strings.HasPrefix(term, "foot"):
		return OSC777
	}
	return Bell
}

// Sequence is what to write for a notification: title and body made
// inert and kept on one line; wrapped for tmux's passthrough when inTmux
// (the bell needs no wrapping: tmux passes it on itself). Off writes
// nothing.
func Sequence(m Mode, title, body string, inTmux bool) []byte {
	title, body = textsafe.Line(title), textsafe.Line(body)
	var seq string
	switch m {
	case OSC9:
		text := body
		if title != "" {
			text = title + ": " + body
		}
		// "9;4;…" and the like are other commands to some terminals: a
		// text that starts with a digit gets a space first.
		if text != "" && text[0] >= '0' && text[0] <= '9' {
			text = " " + text
		}
		seq = "\x1b]9;" + text + "\a"
	case OSC777:
		// ';' separates the fields: the title cannot carry one.
		seq = "\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + body + "\a"
	case Bell:
		return []byte{'\a'}
	default:
		return nil
	}
	if inTmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return []byte(seq)
}

// Notifier sends notifications to a terminal; it is safe for concurrent
// use (one sequence is written whole before the next).
type Notifier struct {
	mu     sync.Mutex
	w      io.Writer
	mode   Mode
	inTmux bool
}

// New returns a Notifier writing to w, the terminal, in mode (Auto is
// resolved from env; TMUX in env means inside tmux).
func New(w io.Writer, mode Mode, env func(string) string) *Notifier {
	return &Notifier{w: w, mode: Resolve(mode, env), inTmux: env("TMUX") != ""}
}

// Mode is the mode the notifier sends with (Auto resolved).
func (n *Notifier) Mode() Mode { return n.mode }

// Notify sends one notification.
func (n *Notifier) Notify(title, body string) error {
	seq := Sequence(n.mode, title, body, n.inTmux)
	if len(seq) == 0 {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	_, err := n.w.Write(seq)
	return err
}

// CreditWarnLimit is the largest credit_warn a user may set, in dollars.
const CreditWarnLimit = 1e6

// CheckCreditWarn checks a credit_warn value: 0 is off, otherwise a
// dollar amount above 0 and at most CreditWarnLimit.
func CheckCreditWarn(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > CreditWarnLimit {
		return fmt.Errorf("credit_warn must be a dollar amount from 0 (off) to %s, like 5.00", format.Cost(CreditWarnLimit))
	}
	return nil
}

// Remaining is what a key has left of its limit: limit_remaining when
// the server says it, else the limit less the usage; false for a key
// without a limit.
func Remaining(k *api.KeyInfo) (float64, bool) {
	switch {
	case k == nil:
		return 0, false
	case k.LimitRemaining != nil:
		return max(0, *k.LimitRemaining), true
	case k.Limit != nil && *k.Limit < format.Huge:
		return max(0, *k.Limit-k.Usage), true
	}
	return 0, false
}

// CreditWatch warns when a key's remaining limit falls under a threshold:
// once, and again only after it went back above it (a top-up). The zero
// Threshold never warns.
type CreditWatch struct {
	Threshold float64
	under     bool
}

// Observe takes a reading of GET /key and returns the warning to send, or
// "" when there is none to send now.
func (c *CreditWatch) Observe(k *api.KeyInfo) string {
	left, ok := Remaining(k)
	if c == nil || c.Threshold <= 0 || !ok {
		return ""
	}
	if left >= c.Threshold {
		c.under = false
		return ""
	}
	if c.under {
		return ""
	}
	c.under = true
	return "credit low: " + format.Cost(left) + " left on this key (under credit_warn " + format.Cost(c.Threshold) + ")"
}
