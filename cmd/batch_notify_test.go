package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
)

// runTTY is run with stderr a terminal (where a notification goes).
func (h *harness) runTTY(args ...string) result {
	h.t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := Run(ctx, args, IO{In: strings.NewReader(""), Out: &out, Err: &errb, ErrTTY: true}, func(k string) string { return h.env[k] })
	return result{code: code, out: out.String(), err: errb.String()}
}

// --notify sends the notification the setting and the terminal call for,
// once the batch has ended: OSC 9 where the terminal shows it, wrapped
// for tmux inside tmux, OSC 777, the bell; nothing when off, or when
// stderr is not a terminal (and it says so).
func TestWatchNotify(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	chat := h.srv.SeedID(gateway.SeedChat)
	var failed struct {
		Counts struct{ Failed int } `json:"request_counts"`
	}
	decodeJSONOut(t, h.run("", "batch", "get", chat, "--json"), &failed)
	text := fmt.Sprintf("gwdash: %s completed · %d failed · $", chat, failed.Counts.Failed)

	h.env["TERM_PROGRAM"] = "iTerm.app"
	r := h.runTTY("batch", "watch", chat, "--notify", "--json")
	r.must(t, 0, []string{`"status":"completed"`}, []string{"\x1b]9;" + text})
	if strings.Contains(r.out, "\x1b") {
		t.Fatal("the notification went to stdout, with the JSON")
	}
	seq := r.err[strings.Index(r.err, "\x1b]9;"):]
	if end := strings.IndexByte(seq, '\a'); end < 0 || strings.ContainsAny(seq[1:end], "\x1b\n") {
		t.Fatalf("not one OSC 9: %q", seq)
	}

	h.env["TMUX"] = "/tmp/tmux-0/default,1,0"
	h.runTTY("batch", "watch", chat, "--notify").must(t, 0, nil, []string{"\x1bPtmux;\x1b\x1b]9;" + text})
	delete(h.env, "TMUX")
	delete(h.env, "TERM_PROGRAM")

	h.run("", "config", "set", "notify", "osc777").must(t, 0, nil, nil)
	h.runTTY("batch", "watch", chat, "--notify").must(t, 0, nil, []string{"\x1b]777;notify;gwdash;" + chat + " completed"})
	h.run("", "config", "set", "notify", "bell").must(t, 0, nil, nil)
	if r := h.runTTY("batch", "watch", chat, "--notify"); r.code != 0 || !strings.Contains(r.err, "\a") || strings.Contains(r.err, "\x1b]") {
		t.Fatalf("bell: %d %q", r.code, r.err)
	}
	h.run("", "config", "set", "notify", "off").must(t, 0, nil, nil)
	if r := h.runTTY("batch", "watch", chat, "--notify"); r.code != 0 || strings.Contains(r.err, "\a") || strings.Contains(r.err, "\x1b]") || !strings.Contains(r.err, "notify setting is off") {
		t.Fatalf("off: %d %q", r.code, r.err)
	}
	h.run("", "config", "set", "notify", "loud").must(t, 2, nil, []string{"auto, osc9, osc777, bell, off"})
	h.run("", "config", "set", "notify", "auto").must(t, 0, nil, nil)
	if r := h.run("", "batch", "watch", chat, "--notify"); r.code != 0 || strings.ContainsAny(r.err, "\a\x1b") || !strings.Contains(r.err, "stderr is not a terminal") {
		t.Fatalf("no terminal: %d %q", r.code, r.err)
	}
	// A batch that does not end (the watch times out): no notification.
	h.env["TERM_PROGRAM"] = "iTerm.app"
	r = h.runTTY("batch", "watch", h.srv.SeedID(gateway.SeedValidating), "--notify", "--interval", "10ms", "--timeout", "50ms")
	if r.code != 1 || strings.Contains(r.err, "\x1b]9") {
		t.Fatalf("a watch that timed out notified: %d %q", r.code, r.err)
	}
}

// decodeJSONOut decodes a command's stdout.
func decodeJSONOut(t *testing.T, r result, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.out), v); err != nil {
		t.Fatalf("%v: %s", err, r.out)
	}
}

// --exec runs the command directly, never through a shell: its words are
// split as a shell would, nothing is expanded, the batch comes in
// GWDASH_BATCH_* variables, the keys do not; a typo or an unknown program
// is refused before any request; a failing command is reported and the
// exit code still says how the batch ended.
func TestWatchExec(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	h := newHarness(t, gateway.Options{})
	t.Setenv("GWDASH_API_KEY", "sk-must-not-reach-the-command")
	chat := h.srv.SeedID(gateway.SeedChat)
	r := h.run("", "batch", "watch", chat, "--exec", env, "--json")
	r.must(t, 0, []string{`"status":"completed"`}, []string{"GWDASH_BATCH_ID=" + chat, "GWDASH_BATCH_STATUS=completed", "GWDASH_BATCH_TOTAL=40",
		"GWDASH_BATCH_COMPLETED=", "GWDASH_BATCH_FAILED=", "GWDASH_BATCH_COST=0.", "GWDASH_BATCH_MESSAGE=" + chat + " completed · "})
	if strings.Contains(r.err, "sk-must-not") || strings.Contains(r.out, "GWDASH_BATCH") {
		t.Fatalf("a key reached the command, or its output reached stdout:\n%s", r.err)
	}
	// Words split as a shell would; no expansion, no shell at all.
	dir := t.TempDir()
	marker := filepath.Join(dir, "expanded")
	line := fmt.Sprintf(`printf '%%s|%%s\n' 'two words' "$GWDASH_BATCH_ID$(touch %s)"`, marker)
	h.run("", "batch", "watch", chat, "--exec", line).must(t, 0, nil, []string{"two words|$GWDASH_BATCH_ID$(touch " + marker + ")"})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command line went through a shell")
	}
	// Refused before any request.
	before := len(h.srv.Requests())
	h.run("", "batch", "watch", chat, "--exec", "no-such-program-gwdash-test").must(t, 2, nil, []string{"--exec", "not a program found on PATH"})
	h.run("", "batch", "watch", chat, "--exec", `printf 'unclosed`).must(t, 2, nil, []string{"--exec", "not a command line"})
	if n := len(h.srv.Requests()) - before; n != 0 {
		t.Fatalf("refused --exec sent %d requests", n)
	}
	// A failing command: reported; the exit code is the batch's.
	h.run("", "batch", "watch", chat, "--exec", "false").must(t, 0, nil, []string{"--exec", "exit status 1"})
	h.run("", "batch", "watch", h.srv.SeedID(gateway.SeedCancelled), "--exec", env).must(t, 1, nil, []string{"GWDASH_BATCH_STATUS=cancelled", "batch ended cancelled"})
}

// credit_warn: `batch watch --notify` reads the key's credit and, when
// what remains is under the threshold, warns once on stderr and through
// the same channel; a bad value is refused naming the setting; without
// the setting nothing is said.
func TestWatchNotifyCreditWarn(t *testing.T) {
	h := newHarness(t, gateway.Options{KeyLimit: 10, KeyUsage: 7})
	chat := h.srv.SeedID(gateway.SeedChat)
	h.env["TERM_PROGRAM"] = "iTerm.app"
	if r := h.runTTY("batch", "watch", chat, "--notify"); r.code != 0 || strings.Contains(r.err, "credit low") {
		t.Fatalf("without credit_warn: %d %q", r.code, r.err)
	}
	h.run("", "config", "set", "--", "credit_warn", "-1").must(t, 2, nil, []string{"credit_warn must be a dollar amount from 0 (off)"})
	h.run("", "config", "set", "credit_warn", "five").must(t, 2, nil, []string{"credit_warn must be a dollar amount"})
	h.run("", "config", "set", "credit_warn", "5.00").must(t, 0, nil, nil)
	h.run("", "config", "show").must(t, 0, []string{"credit_warn", "$5.00"}, nil)
	r := h.runTTY("batch", "watch", chat, "--notify")
	r.must(t, 0, nil, []string{"gwdash: warning: credit low: $3.00 left on this key (under credit_warn $5.00)"})
	if n := strings.Count(r.err, "\x1b]9;gwdash: credit low: $3.00 left"); n != 1 {
		t.Fatalf("%d credit notifications, want 1: %q", n, r.err)
	}
	// Above the threshold: nothing.
	h.run("", "config", "set", "credit_warn", "2").must(t, 0, nil, nil)
	if r := h.runTTY("batch", "watch", chat, "--notify"); r.code != 0 || strings.Contains(r.err, "credit low") {
		t.Fatalf("above the threshold: %d %q", r.code, r.err)
	}
}
