package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// spoolHarness serves answers that never end; the spools go to a folder
// of the test's (TMPDIR), which is checked for files left behind.
func spoolHarness(t *testing.T, e *hostile.EndlessAnswer) (*harness, string) {
	h := newHarness(t, gateway.Options{Wrap: e.Wrap})
	dir := t.TempDir()
	h.env["TMPDIR"] = dir
	return h, dir
}

func noSpoolLeft(t *testing.T, dir string) {
	t.Helper()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("spool files left behind: %v", left)
	}
}

// A multi-model respond keeps at most answer_cap_mb of each answer: an
// answer that never ends stops there, "truncated at" the cap, what
// arrived is printed, and no spool file outlives the run (none is even
// visible while it runs).
func TestRespondCompareCapsEachSpool(t *testing.T) {
	var seen sync.Map // entries of the spool folder seen while streaming
	e := &hostile.EndlessAnswer{}
	h, dir := spoolHarness(t, e)
	e.Sent = func(int64) {
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			seen.Store(left[0].Name(), true)
		}
	}
	r := h.run("", "respond", "hi", "--model", "demo/a", "--model", "demo/b", "--answer-cap-mb", "1")
	r.must(t, ExitFailure, []string{"── demo/a ── truncated at 1 MiB; what arrived is kept", "── demo/b ── truncated at 1 MiB", "endless answer endless"},
		[]string{"demo/a: truncated at 1 MiB", "demo/b: truncated at 1 MiB"})
	if n := strings.Count(r.out, "endless answer "); n < 2*(1<<20)/15-4 || len(r.out) > 2*(1<<20)+1000 {
		t.Fatalf("%d bytes printed, %d phrases: each answer must be kept up to its cap and no further", len(r.out), n)
	}
	// The stream stopped at the cap: the server was not read to its guard.
	if sent := e.Bytes(); sent > 64<<20 {
		t.Fatalf("the server sent %d bytes: the streams were not stopped at the cap", sent)
	}
	noSpoolLeft(t, dir)
	seen.Range(func(k, _ any) bool { t.Fatalf("a spool file was visible while streaming: %v", k); return false })

	// --json says the same state; --no-stream keeps the cap too.
	r = h.run("", "respond", "hi", "--model", "demo/a", "--model", "demo/b", "--answer-cap-mb", "1", "--json")
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var v struct{ Status, Text, Error string }
		if err := json.Unmarshal([]byte(line), &v); err != nil || v.Status != "truncated" || len(v.Text) > 1<<20 || len(v.Text) < 1<<20-16 || !strings.Contains(v.Error, "truncated at 1 MiB") {
			t.Fatalf("json line: %v %q %d %q", err, v.Status, len(v.Text), v.Error)
		}
	}
	noSpoolLeft(t, dir)
}

// The default cap is the one of config (64 MiB), and the setting is
// refused outside its range before any request.
func TestAnswerCapSetting(t *testing.T) {
	if config.DefaultAnswerCap != 64<<20 {
		t.Fatalf("default answer cap %d", config.DefaultAnswerCap)
	}
	e := &hostile.EndlessAnswer{}
	h, _ := spoolHarness(t, e)
	h.run("", "respond", "hi", "--model", "demo/a", "--model", "demo/b", "--answer-cap-mb", "-1").must(t, ExitInput, nil, []string{"answer_cap_mb -1", "must be 1 to"})
	h.run("", "config", "show").must(t, 0, []string{"answer_cap_mb   64 "}, nil)
	h.run("", "config", "set", "answer_cap_mb", "2").must(t, 0, nil, nil)
	h.run("", "config", "show").must(t, 0, []string{"answer_cap_mb   2 "}, nil)
	h.run("", "respond", "hi", "--model", "demo/a", "--model", "demo/b").must(t, ExitFailure, []string{"── demo/b ── truncated at 2 MiB"}, nil)
	h.run("", "config", "set", "answer_cap_mb", "lots").must(t, ExitInput, nil, []string{"answer_cap_mb must be a whole number of MiB"})
}

// ctrl+c (the run's context ended by a signal) in the middle of a
// comparison: what arrived is printed, the exit is 130 and no spool file
// is left.
func TestRespondCompareSignalLeavesNoSpool(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	e := &hostile.EndlessAnswer{Sent: func(total int64) {
		if total > 4<<20 {
			cancel(&SignalError{Signal: syscall.SIGINT})
		}
	}}
	h, dir := spoolHarness(t, e)
	var out, errb bytes.Buffer
	code := Run(ctx, []string{"respond", "hi", "--model", "demo/a", "--model", "demo/b"}, IO{In: strings.NewReader(""), Out: &out, Err: &errb},
		func(k string) string { return h.env[k] })
	if code != 130 || !strings.Contains(out.String(), "── demo/a ── ") || !strings.Contains(out.String(), "── demo/b ── ") || !strings.Contains(errb.String(), "stopped by SIGINT") {
		t.Fatalf("exit %d\nstdout %d bytes: %.200s\nstderr: %s", code, out.Len(), out.String(), errb.String())
	}
	noSpoolLeft(t, dir)
}
