package cmd

import (
	"context"
	"errors"
	"fmt"
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

// notifyTitle is the title of gwdash's notifications.
const notifyTitle = "gwdash"

// settledHook builds what `batch watch --notify --exec CMD` does once the
// batch reaches a terminal status: a terminal notification (on stderr,
// when it is a terminal) and CMD run directly, never through a shell,
// with the batch in GWDASH_BATCH_* variables. CMD is split into words
// and found before anything is sent, so a typo is refused at once (exit
// 2). nil when neither is asked for.
func (a *app) settledHook(cfg *config.Resolved, notifyEnd bool, execLine string) (func(*api.Batch), error) {
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
	if n == nil && argv == nil {
		return nil, nil
	}
	return func(b *api.Batch) {
		if n != nil {
			if err := n.Notify(notifyTitle, present.BatchEnded(b)); err != nil {
				fmt.Fprintln(a.errw, "gwdash: --notify: "+describe(err))
			}
		}
		if argv != nil {
			a.runExec(argv, b)
		}
	}, nil
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
