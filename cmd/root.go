// Package cmd holds gwdash's commands: it parses flags, resolves the
// configuration, builds the API client and hands it to the dashboard or to
// a headless command.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // any failure after a request was sent, or of the program
	ExitInput   = 2 // input refused before any request was sent
)

// IO is where a command reads and writes.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// InTTY and ErrTTY tell whether stdin and stderr are terminals.
	InTTY, ErrTTY, OutTTY bool
}

// SignalError is the cause of a run's context ending on a signal.
type SignalError struct{ Signal syscall.Signal }

func (e *SignalError) Error() string { return "stopped by " + signalName(e.Signal) }

// ExitCode is 128 plus the signal's number: 130 for SIGINT, 143 SIGTERM,
// 129 SIGHUP, 131 SIGQUIT.
func (e *SignalError) ExitCode() int { return 128 + int(e.Signal) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// handledSignals are the signals gwdash owns: one handler for all, here.
// The dashboard runs without Bubble Tea's own handler, so no two handlers
// race for a signal.
var handledSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Execute runs the command line and exits with its code. It is the one
// owner of signals: the first one ends the run's context (a command
// flushes what arrived and stops, the dashboard restores the terminal),
// and the process exits with 128 plus its number; a second one exits at
// once.
func Execute() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, handledSignals...)
	go func() {
		s := (<-sigs).(syscall.Signal)
		cancel(&SignalError{Signal: s})
		s = (<-sigs).(syscall.Signal)
		os.Exit(128 + int(s))
	}()
	code := Run(ctx, os.Args[1:], IO{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  isatty.IsTerminal(os.Stdin.Fd()),
		ErrTTY: isatty.IsTerminal(os.Stderr.Fd()),
		OutTTY: isatty.IsTerminal(os.Stdout.Fd()),
	}, os.Getenv)
	os.Exit(code)
}

// inputError is input refused before any request was sent (exit 2).
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func inputErrorf(format string, a ...any) error { return &inputError{msg: fmt.Sprintf(format, a...)} }

// exitError carries an exit code for an outcome already reported.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// app is the state one run of the command line shares.
type app struct {
	io IO
	// out and errw are the boundary of human output: everything printed
	// for people passes through them and reaches the terminal inert.
	// JSON goes to io.Out through json (escaped, the same value).
	out, errw *textsafe.Writer
	env       config.Env
	flags     config.Flags
	ctx       context.Context
	// onSettled, when set, is told of a watched batch that reached a
	// terminal status (batch watch --notify, --exec).
	onSettled func(*api.Batch)
	// onPoll, when set, is called after each poll of a watched batch
	// (batch watch --notify: credit_warn).
	onPoll func(context.Context)
	// dashboard options
	view, batchID, model string
	logPath              string
	// onScreen is set while the dashboard owns the terminal: nothing is
	// printed on stderr then (noteWait hands each wait to waits, the
	// dashboard's status bar).
	onScreen atomic.Bool
	waits    *ui.Waits
	// reqlog records the requests of this run (nil: not logged); see
	// logs_record.go.
	reqlog *reqlog.Recorder
	// logMeta links this run's requests (a replay names its row).
	logMeta reqlog.Meta
}

func newApp(ctx context.Context, stdio IO, env config.Env) *app {
	return &app{io: stdio, env: env, ctx: ctx, out: textsafe.NewWriter(stdio.Out), errw: textsafe.NewWriter(stdio.Err), waits: ui.NewWaits()}
}

// Run runs the command line in-process and returns the exit code. It keeps
// no global state, so tests run it many times in one binary.
func Run(ctx context.Context, args []string, stdio IO, env config.Env) int {
	if env == nil {
		env = os.Getenv
	}
	a := newApp(ctx, stdio, env)
	defer a.out.Flush()
	defer a.errw.Flush()
	defer a.closeRequestLog()
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(a.out)
	root.SetErr(a.errw)
	err := root.ExecuteContext(ctx)
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		// What arrived is printed; say why it stopped, and exit as a
		// signalled process would.
		fmt.Fprintln(a.errw, "gwdash: "+se.Error())
		return se.ExitCode()
	}
	if err == nil {
		return ExitOK
	}
	return a.report(err)
}

// json writes JSON bytes as sent (every control escaped, which keeps the
// value) and ends the line.
// printRecord prints one record: what the server sent with --json,
// otherwise its label/value rows, each value on one line.
func (a *app) printRecord(asJSON bool, raw []byte, rows [][2]string) error {
	if asJSON {
		return a.json(raw)
	}
	t := newTable(a.out)
	for _, row := range rows {
		t.row(row[0], oneLine(row[1]))
	}
	t.flush()
	return nil
}

func (a *app) json(raw []byte) error {
	if err := textsafe.WriteJSON(a.io.Out, raw); err != nil {
		return err
	}
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		_, err := io.WriteString(a.io.Out, "\n")
		return err
	}
	return nil
}

// report prints err as one line and returns its exit code.
func (a *app) report(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(a.errw, "gwdash: "+ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(a.errw, "gwdash: "+describe(err))
	return exitCode(err)
}

func exitCode(err error) int {
	var ie *inputError
	var ce *config.ConfigError
	var mk *api.MissingKeyError
	if errors.As(err, &ie) || errors.As(err, &ce) || errors.As(err, &mk) || api.IsValidation(err) {
		return ExitInput
	}
	return ExitFailure
}

// describe renders an error as one line: the HTTP status, the server's
// code and message, and what to do where that is known and not said
// already. The line is printed through the sanitizing writer.
func describe(err error) string {
	var ae *api.APIError
	var wt *api.WaitTooLongError
	if errors.As(err, &ae) && !errors.As(err, &wt) {
		s := ae.Error()
		if h := ae.Hint(); h != "" {
			s += " — " + h
		}
		return oneLine(s)
	}
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return oneLine(present.Plain(err))
}

// oneLine keeps an error on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "gwdash",
		Short: "A terminal dashboard for a Model Inference Gateway",
		Long: `gwdash watches batches, streams prompts in a playground and edits
observability destinations of a Model Inference Gateway.

Run it without a command to open the dashboard; "gwdash demo" opens it on an
embedded gateway with realistic data and no account.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, client, err := a.client(false)
			if err != nil {
				return err
			}
			return a.dashboard(c.Context(), cfg, client)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.BaseURL, "base-url", "", "gateway base URL ending in /api/v1 (env GWDASH_BASE_URL)")
	pf.StringVar(&a.flags.APIKey, "api-key", "", "API key (env GWDASH_API_KEY; prefer the environment or api_key_cmd)")
	pf.StringVar(&a.flags.ManagementKey, "management-key", "", "management key for destinations (env GWDASH_MANAGEMENT_KEY)")
	pf.StringVar(&a.flags.Profile, "profile", "", "config profile (env GWDASH_PROFILE)")
	pf.StringVar(&a.flags.ConfigPath, "config", "", "config file (env GWDASH_CONFIG)")
	pf.BoolVar(&a.flags.Insecure, "insecure", false, "allow a plain-http base URL to a non-loopback host")
	pf.BoolVar(&a.flags.ReadOnly, "read-only", false, "refuse every change (batch submit and delete, destination create, update, toggle and delete), as read_only = true")
	pf.StringVar(&a.logPath, "log", "", "write a debug log (never keys) to this file")
	pf.BoolVar(&a.flags.NoLog, "no-log", false, "keep this run's requests out of the request log (gwdash logs)")
	f := root.Flags()
	f.StringVar(&a.view, "view", "batches", "view to open: batches, playground, destinations or logs")
	f.StringVar(&a.batchID, "batch", "", "batch id to open in the batch view")
	f.StringVar(&a.model, "model", "", "model for the playground (<provider>/<model>)")
	f.StringVar(&a.flags.Workspace, "workspace", "", "workspace id for destinations (env GWDASH_WORKSPACE)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &inputError{msg: flagProblem(err) + " (see --help)"} })
	root.AddCommand(a.batchCommand(), a.respondCommand(), a.destCommand(), a.modelsCommand(), a.keyCommand(), a.creditsCommand(), a.generationCommand(),
		a.demoCommand(), a.configCommand(), a.versionCommand(), a.logsCommand(), a.spendCommand())
	pf.Int64Var(&a.flags.MaxBodyMB, "max-body-mb", 0, "largest answer gwdash reads, in MiB (default 512; a 100k-result batch is ~110)")
	pf.Int64Var(&a.flags.AnswerCapMB, "answer-cap-mb", 0, "answer text kept per model, in MiB (default 64): past it that answer stops, truncated")
	root.SetHelpCommand(&cobra.Command{Hidden: true})
	// The completion scripts are written where output goes: set before the
	// completion command is made (it keeps the writer it sees then).
	root.SetOut(a.out)
	root.SetErr(a.errw)
	completionShells(root)
	return root
}

// completionShells makes "completion" without a shell it knows (tcsh, a
// typo, nothing) exit 2 naming the shells, instead of printing its help
// and exiting 0.
func completionShells(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		list := strings.Join(shells, ", ")
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return inputErrorf("completion needs a shell: one of %s", list)
			}
			return inputErrorf("completion %q: not a shell gwdash completes; use one of %s", args[0], list)
		}
	}
}

// client resolves the configuration and builds the API client. needKey
// says which key the command must have ("api", "management" or "").
func (a *app) client(requireAPIKey bool) (*config.Resolved, *api.Client, error) {
	cfg, err := config.Load(config.Inputs{Flags: a.flags, Env: a.env})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(a.errw, "gwdash: warning: "+w)
	}
	if cfg.BaseURL == "" {
		return nil, nil, inputErrorf("no gateway configured: set --base-url, GWDASH_BASE_URL or base_url in %s (or try \"gwdash demo\")", cfg.Path)
	}
	if requireAPIKey && cfg.APIKey == "" {
		return nil, nil, inputErrorf("no API key: set GWDASH_API_KEY, --api-key, or api_key / api_key_cmd in %s", cfg.Path)
	}
	c, err := api.New(api.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, ManagementKey: cfg.ManagementKey, UserAgent: "gwdash/" + Version(),
		MaxBodyBytes: cfg.MaxBodyMB << 20, OnWait: a.noteWait})
	if err != nil {
		return nil, nil, err
	}
	a.startRequestLog(cfg)
	return cfg, c, nil
}

// refuseWrite refuses the change what, before anything is sent, when the
// session is read-only (--read-only or read_only = true): the rule and
// its words are present.RefuseWrite, shared with the dashboard.
func refuseWrite(cfg *config.Resolved, what string) error {
	if err := present.RefuseWrite(cfg.ReadOnly, what); err != nil {
		return &inputError{msg: err.Error()}
	}
	return nil
}

// managementClient is client for destination commands: without a
// management key they are refused before any request (the API key is
// never sent to a destination endpoint).
func (a *app) managementClient() (*config.Resolved, *api.Client, error) {
	cfg, c, err := a.client(false)
	if err != nil {
		return nil, nil, err
	}
	if cfg.ManagementKey == "" {
		return nil, nil, inputErrorf("destinations need a management key (the API key is never sent there): set GWDASH_MANAGEMENT_KEY, --management-key, or management_key / management_key_cmd in %s", cfg.Path)
	}
	return cfg, c, nil
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the revision it was built from",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(a.out, "gwdash "+VersionLine())
			return nil
		},
	}
}

// flagProblem words a refused flag value without the parser's own text
// ("strconv.ParseInt: parsing ..."): the flag, the value and the rule.
func flagProblem(err error) string {
	msg := err.Error()
	var bad interface {
		GetValue() string
		Unwrap() error
	}
	if errors.As(err, &bad) && bad.Unwrap() != nil {
		cause := bad.Unwrap()
		return strings.Replace(msg, ": "+cause.Error(), ": "+present.Plain(cause), 1)
	}
	return msg
}
