package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/spf13/cobra"
)

func (a *app) demoCommand() *cobra.Command {
	var serve bool
	var listen string
	o := gateway.Options{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the dashboard on an embedded gateway with realistic data (no account needed)",
		Long: `Start the embedded gateway on loopback and open the dashboard on it. With
--serve, start only the gateway and print its base URL, keys and seeded
batches, for curl or for another gwdash (runs until interrupted).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.ErrorRate < 0 || o.ErrorRate > 1 || o.DropRate < 0 || o.DropRate > 1 {
				return inputErrorf("--error-rate and --drop-rate must be between 0 and 1")
			}
			if o.TokensPerSecond < 0 || o.LargeBatchSize < 0 || o.TinyBatchSize < 0 || o.KeyLimit < 0 || o.KeyUsage < 0 {
				return inputErrorf("--token-rate, --large-batch-size, --tiny-batch-size, --key-limit and --key-usage must not be negative")
			}
			o.RecordBytes = -1 // no test reads the demo's requests: their bodies are not kept
			srv, err := gateway.Start(listen, o)
			if err != nil {
				return fmt.Errorf("starting the embedded gateway: %w", err)
			}
			defer srv.Close()
			if serve {
				a.printServe(srv)
				<-c.Context().Done()
				fmt.Fprintln(a.errw, "gwdash: demo gateway stopped")
				return nil
			}
			client, err := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey, ManagementKey: gateway.DemoManagementKey, UserAgent: "gwdash/" + Version()})
			if err != nil {
				return err
			}
			cfg := &config.Resolved{Profile: "demo", Settings: config.Settings{BaseURL: srv.URL, PollInterval: 2 * time.Second, ReadOnly: a.flags.ReadOnly, Theme: "auto", Log: true}}
			return a.dashboardDemo(c.Context(), cfg, client, srv)
		},
	}
	f := c.Flags()
	f.BoolVar(&serve, "serve", false, "start only the gateway and print how to reach it")
	f.StringVar(&listen, "listen", "", "address to listen on (default 127.0.0.1:0, a free port)")
	f.Float64Var(&o.TokensPerSecond, "token-rate", 80, "streamed tokens per second (0: as fast as possible)")
	f.DurationVar(&o.ThinkTime, "think-time", 600*time.Millisecond, "wait before the first token, with keep-alive comments")
	f.IntVar(&o.LargeBatchSize, "large-batch-size", 10000, "results in the large seeded batch")
	f.IntVar(&o.TinyBatchSize, "tiny-batch-size", 0, "also seed a batch of this many tiny results (\"tiny\"; benchmarks)")
	f.DurationVar(&o.BatchDuration, "batch-duration", 60*time.Second, "time a running or submitted batch takes to complete")
	f.DurationVar(&o.SubmitVisibleAfter, "submit-visible-after", 2*time.Second, "a submitted batch answers 404 for this long, as the real service may")
	f.DurationVar(&o.Latency, "latency", 0, "added latency on every answer")
	f.Float64Var(&o.ErrorRate, "error-rate", 0, "share of requests answered with a 5xx (0 to 1)")
	f.Float64Var(&o.DropRate, "drop-rate", 0, "share of streams cut mid-way (0 to 1)")
	f.BoolVar(&o.NoBatchList, "no-batch-list", false, "answer 404 on GET /batches, as a server without listing (the batches home falls back)")
	f.Float64Var(&o.KeyLimit, "key-limit", 10, "the demo API key's spending limit in dollars (0: none); past it answers are refused with 402")
	f.Float64Var(&o.KeyUsage, "key-usage", 0, "what the demo API key has spent already, in dollars")
	f.DurationVar(&o.GenerationDelay, "generation-delay", 1500*time.Millisecond, "a generation's record answers 404 for this long after the answer, as the real service may")
	f.BoolVar(&a.flags.ReadOnly, "read-only", false, "disable every change to destinations")
	f.StringVar(&a.view, "view", "batches", "view to open: "+strings.Join(views, ", "))
	f.StringVar(&a.batchID, "batch", "", "batch to open: an id, or a seeded batch by name (running, chat, large, payment, ...); default: the batches home")
	f.StringVar(&a.model, "model", "", "model for the playground")
	return c
}

func (a *app) printServe(srv *gateway.Server) {
	w := a.out
	fmt.Fprintf(w, "gwdash demo gateway listening\n\n")
	t := newTable(w)
	t.row("base URL", srv.URL)
	t.row("API key", gateway.DemoAPIKey)
	t.row("management key", gateway.DemoManagementKey)
	t.row("workspaces", gateway.DefaultWorkspace+" (default), "+gateway.SecondWorkspace)
	t.flush()
	fmt.Fprintf(w, "\nseeded batches:\n")
	t = newTable(w)
	for _, s := range srv.Seeds() {
		t.row("  "+s.ID, s.About)
	}
	t.flush()
	fmt.Fprintf(w, "\nscripted models: %s\n", strings.Join([]string{gateway.ModelFailMidstream, gateway.ModelDrop, gateway.ModelRateLimited,
		gateway.ModelErrorEvent, gateway.ModelRefusal, gateway.ModelEscapes, gateway.ModelFirehose, gateway.ModelBulk,
		gateway.ModelJSONBroken, gateway.ModelTools}, ", "))
	fmt.Fprintf(w, "\ntry:\n  curl -s -H 'Authorization: Bearer %s' %s/batches/%s | jq .status\n", gateway.DemoAPIKey, srv.URL, srv.SeedID(gateway.SeedChat))
	fmt.Fprintf(w, "  GWDASH_BASE_URL=%s GWDASH_API_KEY=%s GWDASH_MANAGEMENT_KEY=%s gwdash\n", srv.URL, gateway.DemoAPIKey, gateway.DemoManagementKey)
	fmt.Fprintln(w, "\npress ctrl+c to stop")
}
