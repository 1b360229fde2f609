package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/notify"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// execTimeout bounds a --exec command.
const execTimeout = 10 * time.Minute

// settledHook builds what `batch watch --notify --exec CMD` does once the
// batch reaches a terminal status: a terminal notification (on stderr,
// when it is a terminal) and CMD run directly, never through a shell,
// with the batch in GWDASH_BATCH_* variables. CMD is split into words
// and found before anything is sent, so a typo is refused at once (exit
// 2). nil when neither is asked for.
func (a *app) settledHook(cfg *config.Resolved, client *api.Client, notifyEnd bool, execLine string) (func(*api.Batch), error) {
	var argv []string
	if execLine != "" {
		words, err := shlex.Split(execLine)
		if err != nil || len(words) == 0 {
			return nil, inputErrorf("--exec %q: not a command line (words, with quotes and backslashes as a shell reads them)", execLine)
		}
		path, err := exec.LookPath(words[0])
		if err != nil {
			return nil, inputErrorf("--exec: %q is not a program found on PATH", words[0])
		}
		argv = append([]string{path}, words[1:]...)
	}
	var n *notify.Notifier
	if notifyEnd {
		switch {
		case cfg.Notify == notify.Off:
			fmt.Fprintln(a.errw, "gwdash: --notify: the notify setting is off, so no notification is sent")
		case !a.io.ErrTTY:
			fmt.Fprintln(a.errw, "gwdash: --notify: stderr is not a terminal, so no notification is sent")
		default:
			n = notify.New(a.io.Err, cfg.Notify, a.env)
		}
	}
	if n != nil && cfg.CreditWarn > 0 {
		a.onPoll = a.creditCheck(client, &notify.CreditWatch{Threshold: cfg.CreditWarn}, n, time.Now)
	}
	if n == nil && argv == nil {
		return nil, nil
	}
	return func(b *api.Batch) {
		if n != nil {
			if err := n.Notify(notify.Title, present.BatchEnded(b)); err != nil {
				fmt.Fprintln(a.errw, "gwdash: --notify: "+describe(err))
			}
		}
		if argv != nil {
			a.runExec(argv, b)
		}
	}, nil
}

// creditEvery is how often `batch watch --notify` reads the key's credit
// (GET /key) for credit_warn: at the first poll, then at most this often.
const creditEvery = 5 * time.Minute

// creditCheck is credit_warn while a batch is watched: the key's credit
// is read at the first poll and then at most every creditEvery; when
// what remains falls under credit_warn it is said on stderr and through
// the notifier, once (again only after it went back above). A failed
// read is passed over: the next one may answer.
func (a *app) creditCheck(client *api.Client, cw *notify.CreditWatch, n *notify.Notifier, now func() time.Time) func(context.Context) {
	var last time.Time
	return func(ctx context.Context) {
		t := now()
		if !last.IsZero() && t.Sub(last) < creditEvery {
			return
		}
		last = t
		k, _, err := client.Key(ctx)
		if err != nil {
			return
		}
		if text := cw.Observe(k); text != "" {
			if a.io.ErrTTY {
				io.WriteString(a.io.Err, "\r\x1b[2K") // over the progress line, which comes back
			}
			fmt.Fprintln(a.errw, "gwdash: warning: "+text)
			if err := n.Notify(notify.Title, text); err != nil {
				fmt.Fprintln(a.errw, "gwdash: --notify: "+describe(err))
			}
		}
	}
}

// dashNotifier is the dashboard's notifier: on stderr when it is a
// terminal (the dashboard draws on stdout; a sequence is written whole,
// as OSC 52 copies are), nil when the notify setting is off or stderr is
// not a terminal (then a watched batch's end is said in the status bar
// only).
func (a *app) dashNotifier(cfg *config.Resolved) *notify.Notifier {
	if cfg.Notify == notify.Off || !a.io.ErrTTY {
		return nil
	}
	return notify.New(a.io.Err, cfg.Notify, a.env)
}

// runExec runs a --exec command for a batch that ended. Its output goes
// to stderr (stdout may be the batch's JSON); a failure is reported
// there and does not change the exit code, which says how the batch
// ended. The keys are not passed on.
func (a *app) runExec(argv []string, b *api.Batch) {
	ctx, cancel := context.WithTimeout(a.ctx, execTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(withoutKeys(os.Environ()), batchEnv(b)...)
	cmd.Stdout, cmd.Stderr = a.io.Err, a.io.Err
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() == context.DeadlineExceeded:
		fmt.Fprintf(a.errw, "gwdash: --exec %s: stopped after %s\n", textsafe.Line(argv[0]), format.Duration(execTimeout))
	case errors.As(err, &ee):
		fmt.Fprintf(a.errw, "gwdash: --exec %s: exit status %d\n", textsafe.Line(argv[0]), ee.ExitCode())
	default:
		fmt.Fprintf(a.errw, "gwdash: --exec %s: %s\n", textsafe.Line(argv[0]), describe(err))
	}
}

// batchEnv is the batch as environment variables for --exec: values made
// inert (a server's words), counts as integers, the cost as sent.
func batchEnv(b *api.Batch) []string {
	rc := b.RequestCounts
	cost := ""
	if b.Usage != nil && b.Usage.Cost != nil {
		cost = strconv.FormatFloat(*b.Usage.Cost, 'f', -1, 64)
	}
	return []string{
		"GWDASH_BATCH_ID=" + textsafe.Line(b.ID),
		"GWDASH_BATCH_STATUS=" + textsafe.Line(string(b.Status)),
		"GWDASH_BATCH_TOTAL=" + strconv.Itoa(rc.Total),
		"GWDASH_BATCH_COMPLETED=" + strconv.Itoa(rc.Completed),
		"GWDASH_BATCH_FAILED=" + strconv.Itoa(rc.Failed),
		"GWDASH_BATCH_COST=" + cost,
		"GWDASH_BATCH_MESSAGE=" + textsafe.Line(present.BatchEnded(b)),
	}
}

// withoutKeys drops the key variables from an environment.
func withoutKeys(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "GWDASH_API_KEY" || name == "GWDASH_MANAGEMENT_KEY" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
