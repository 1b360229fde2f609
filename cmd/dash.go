package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/ui"
	"github.com/muesli/termenv"
)

var views = []string{"batches", "playground", "destinations", "logs"}

func (a *app) uiOptions(cfg *config.Resolved, client *api.Client) (ui.Options, error) {
	if !slices.Contains(views, a.view) {
		return ui.Options{}, inputErrorf("--view %q: one of %s", a.view, strings.Join(views, ", "))
	}
	if a.model != "" {
		if err := api.ValidateModel(a.model); err != nil {
			return ui.Options{}, err
		}
	}
	state, _ := config.StateDir(a.env)
	cache, _ := config.CacheDir(a.env)
	ws := a.flags.Workspace
	if ws == "" {
		ws = cfg.WorkspaceID
	}
	if ws != "" && !api.IsUUID(ws) {
		return ui.Options{}, inputErrorf("workspace %q must be a UUID", ws)
	}
	// Colours: NO_COLOR turns them off; the theme setting can pin the
	// background instead of asking the terminal. The renderer is the
	// dashboard's own, so nothing global changes.
	r := lipgloss.NewRenderer(a.io.Out)
	if a.env("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	switch cfg.Theme {
	case "dark":
		r.SetHasDarkBackground(true)
	case "light":
		r.SetHasDarkBackground(false)
	default: // auto: ask the terminal once, before the program owns the input
		r.SetHasDarkBackground(r.HasDarkBackground())
	}
	return ui.Options{Client: ui.FromAPI(client, cache), Profile: cfg.Profile, View: a.view, BatchID: a.batchID, Model: a.model,
		ReadOnly: cfg.ReadOnly, Workspace: ws, Poll: api.PollOptions{Interval: cfg.PollInterval}, Record: record.Open(state), Renderer: r,
		Requests: a.reqlog, AnswerCap: cfg.AnswerCap, Notifier: a.dashNotifier(cfg), CreditWarn: cfg.CreditWarn}, nil
}

// dashboard opens the Bubble Tea dashboard.
func (a *app) dashboard(ctx context.Context, cfg *config.Resolved, client *api.Client) error {
	opts, err := a.uiOptions(cfg, client)
	if err != nil {
		return err
	}
	return a.runUI(ctx, opts)
}

// dashboardDemo opens the dashboard on the embedded gateway.
func (a *app) dashboardDemo(ctx context.Context, cfg *config.Resolved, client *api.Client, srv *gateway.Server) error {
	opts, err := a.uiOptions(cfg, client)
	if err != nil {
		return err
	}
	opts.Demo = true
	opts.SuggestedModels = gateway.DemoModels
	if id := srv.SeedID(opts.BatchID); id != "" {
		opts.BatchID = id // a seed by name: the demo's ids change every run
	}
	// The demo's ids change every run: its record lives and dies with it.
	dir, err := os.MkdirTemp("", "gwdash-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts.Record = record.Open(dir)
	opts.Client = ui.FromAPI(client, "")
	if cfg.Log && !a.flags.NoLog {
		// The demo's requests are not the user's: their log dies with it.
		a.reqlog = reqlog.Start(reqlog.Options{Path: reqlog.Path(dir), Profile: "demo", Host: hostOf(cfg.BaseURL)})
		defer a.closeRequestLog()
		opts.Requests = a.reqlog
	}
	return a.runUI(ctx, opts)
}

func (a *app) runUI(ctx context.Context, opts ui.Options) error {
	if !a.io.OutTTY || !a.io.InTTY {
		return inputErrorf("the dashboard needs a terminal; for scripts use the headless commands (gwdash --help)")
	}
	a.onScreen.Store(true)
	opts.Waits = a.waits // each wait of an operation: a countdown in the status bar
	out, ok := a.io.Out.(*os.File)
	if !ok {
		return fmt.Errorf("the dashboard needs a terminal")
	}
	// One signal owner: the run's context ends on a signal (see Execute),
	// which stops the dashboard and restores the terminal.
	logger, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	opts.Log = logger
	return a.crashReport(ui.Run(ctx, opts, a.io.In, out))
}

// openLog opens the --log file (mode 0600), or discards logging.
func (a *app) openLog() (*slog.Logger, func(), error) {
	if a.logPath == "" {
		return nil, func() {}, nil
	}
	f, err := os.OpenFile(a.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, inputErrorf("--log: %s", present.Plain(err))
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})), func() { f.Close() }, nil
}

// crashReport turns a dashboard crash into a short report: what happened,
// and where the full log is (or how to get one).
func (a *app) crashReport(err error) error {
	var ce *ui.CrashError
	if !errors.As(err, &ce) {
		return err
	}
	msg := ce.Error() + "; the terminal was restored. "
	if a.logPath != "" {
		msg += "The full report is in " + a.logPath + "."
	} else {
		msg += "Run again with --log FILE to keep a full report."
	}
	return &exitError{code: ExitFailure, msg: msg}
}
