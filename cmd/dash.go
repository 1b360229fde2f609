package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/ui"
	"github.com/muesli/termenv"
)

var views = []string{"batches", "playground", "destinations"}

func (a *app) uiOptions(cfg *config.Resolved, client *api.Client) (ui.Options, error) {
	if !contains(views, a.view) {
		return ui.Options{}, inputErrorf("--view %q: one of %s", a.view, strings.Join(views, ", "))
	}
	if a.model != "" {
		if err := api.ValidateModel(a.model); err != nil {
			return ui.Options{}, err
		}
	}
	state, _ := config.StateDir(a.env)
	ws := a.flags.Workspace
	if ws == "" {
		ws = cfg.WorkspaceID
	}
	if ws != "" && !api.IsUUID(ws) {
		return ui.Options{}, inputErrorf("workspace %q must be a UUID", ws)
	}
	// Colours: NO_COLOR turns them off; the theme setting can pin the
	// background instead of asking the terminal.
	if a.env("NO_COLOR") != "" {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	dark := lipgloss.HasDarkBackground()
	switch cfg.Theme {
	case "dark":
		dark = true
		lipgloss.SetHasDarkBackground(true)
	case "light":
		dark = false
		lipgloss.SetHasDarkBackground(false)
	}
	return ui.Options{Client: client, Profile: cfg.Profile, View: a.view, BatchID: a.batchID, Model: a.model,
		ReadOnly: cfg.ReadOnly, Workspace: ws, Poll: api.PollOptions{Interval: cfg.PollInterval}, StateDir: state, DarkBackground: dark}, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// dashboard opens the Bubble Tea dashboard.
func (a *app) dashboard(ctx context.Context, cfg *config.Resolved, client *api.Client, _ bool) error {
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
	if opts.BatchID == "" {
		opts.BatchID = srv.SeedID(gateway.SeedRunning)
	}
	for _, s := range srv.Seeds() {
		opts.SuggestedBatches = append(opts.SuggestedBatches, ui.Suggestion{ID: s.ID, About: s.About})
	}
	opts.SuggestedModels = gateway.DemoModels
	opts.StateDir = "" // the demo's ids change every run: remember nothing
	return a.runUI(ctx, opts)
}

func (a *app) runUI(ctx context.Context, opts ui.Options) error {
	if !a.io.OutTTY || !a.io.InTTY {
		return inputErrorf("the dashboard needs a terminal; for scripts use the headless commands (gwdash --help)")
	}
	out, ok := a.io.Out.(*os.File)
	if !ok {
		return fmt.Errorf("the dashboard needs a terminal")
	}
	return ui.Run(ctx, opts, a.io.In, out)
}
