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
	"syscall"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // any failure after a request was sent, or of the program
	ExitInput   = 2 // input refused before any request was sent
)

// Version is set at build time with -ldflags "-X github.com/gwdash/gwdash/cmd.Version=...".
var Version = "dev"

// IO is where a command reads and writes.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// InTTY and ErrTTY tell whether stdin and stderr are terminals.
	InTTY, ErrTTY, OutTTY bool
}

// Execute runs the command line and exits with its code.
func Execute() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], IO{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  isatty.IsTerminal(os.Stdin.Fd()),
		ErrTTY: isatty.IsTerminal(os.Stderr.Fd()),
		OutTTY: isatty.IsTerminal(os.Stdout.Fd()),
	}, os.Getenv)
	stop()
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
	io    IO
	env   config.Env
	flags config.Flags
	ctx   context.Context
	// dashboard options
	view, batchID, model string
	logPath              string
}

// Run runs the command line in-process and returns the exit code. It keeps
// no global state, so tests run it many times in one binary.
func Run(ctx context.Context, args []string, stdio IO, env config.Env) int {
	if env == nil {
		env = os.Getenv
	}
	a := &app{io: stdio, env: env, ctx: ctx}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	return a.report(err)
}

// report prints err as one line and returns its exit code.
func (a *app) report(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(a.io.Err, "gwdash: "+ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(a.io.Err, "gwdash: "+describe(err))
	return exitCode(err)
}

func exitCode(err error) int {
	var ie *inputError
	var ce *config.ConfigError
	if errors.As(err, &ie) || errors.As(err, &ce) || api.IsValidation(err) {
		return ExitInput
	}
	return ExitFailure
}

// describe renders an error as one safe line: the HTTP status, the
// server's code and message, and what to do where that is known.
func describe(err error) string {
	var ae *api.APIError
	if errors.As(err, &ae) {
		s := textsafe.Line(ae.Error())
		if h := ae.Hint(); h != "" {
			s += " — " + h
		}
		return s
	}
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return textsafe.Line(err.Error())
}

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
	pf.StringVar(&a.logPath, "log", "", "write a debug log (never keys) to this file")
	f := root.Flags()
	f.StringVar(&a.view, "view", "batches", "view to open: batches, playground or destinations")
	f.StringVar(&a.batchID, "batch", "", "batch id to open in the batch view")
	f.StringVar(&a.model, "model", "", "model for the playground (<provider>/<model>)")
	f.BoolVar(&a.flags.ReadOnly, "read-only", false, "disable every change to destinations")
	f.StringVar(&a.flags.Workspace, "workspace", "", "workspace id for destinations (env GWDASH_WORKSPACE)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &inputError{msg: err.Error() + " (see --help)"} })
	root.AddCommand(a.batchCommand(), a.respondCommand(), a.destCommand(), a.demoCommand(), a.configCommand(), a.versionCommand())
	root.SetHelpCommand(&cobra.Command{Hidden: true})
	return root
}

// client resolves the configuration and builds the API client. needKey
// says which key the command must have ("api", "management" or "").
func (a *app) client(requireAPIKey bool) (*config.Resolved, *api.Client, error) {
	cfg, err := config.Load(config.Inputs{Flags: a.flags, Env: a.env})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(a.io.Err, "gwdash: warning: "+w)
	}
	if cfg.BaseURL == "" {
		return nil, nil, inputErrorf("no gateway configured: set --base-url, GWDASH_BASE_URL or base_url in %s (or try \"gwdash demo\")", cfg.Path)
	}
	if requireAPIKey && cfg.APIKey == "" {
		return nil, nil, inputErrorf("no API key: set GWDASH_API_KEY, --api-key, or api_key / api_key_cmd in %s", cfg.Path)
	}
	c, err := api.New(api.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, ManagementKey: cfg.ManagementKey, UserAgent: "gwdash/" + Version})
	if err != nil {
		return nil, nil, err
	}
	return cfg, c, nil
}

// managementClient is client for destination commands: it needs one key.
func (a *app) managementClient() (*config.Resolved, *api.Client, error) {
	cfg, c, err := a.client(false)
	if err != nil {
		return nil, nil, err
	}
	if cfg.ManagementKey == "" && cfg.APIKey == "" {
		return nil, nil, inputErrorf("destinations need a management key: set GWDASH_MANAGEMENT_KEY, --management-key, or management_key in %s", cfg.Path)
	}
	return cfg, c, nil
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(a.io.Out, "gwdash "+Version)
			return nil
		},
	}
}
