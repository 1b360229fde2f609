package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/retry"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
)

func (a *app) batchCommand() *cobra.Command {
	c := &cobra.Command{Use: "batch", Short: "List, inspect, watch, submit, retry, delete, compare and export batches", Args: cobra.NoArgs,
		RunE: needsCommand("list, get, watch, results, submit, retry, delete, diff or export")}
	c.AddCommand(a.batchList(), a.batchGet(), a.batchWatch(), a.batchResults(), a.batchSubmit(), a.batchDelete())
	c.AddCommand(a.batchDiff(), a.batchExport(), a.batchRetry())
	return c
}

func (a *app) batchGet() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "get ID",
		Short: "Show a batch: status, counts, times, usage, failures",
		Args:  exactArgs(1, "a batch id"),
		RunE: func(c *cobra.Command, args []string) error {
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			if asJSON { // print as sent; the results need not be decoded
				raw, err := client.GetBatchBody(c.Context(), args[0])
				if err != nil {
					return a.batchError(client.Explain404(c.Context(), err), true)
				}
				return a.json(withRetryOf(raw, a.retryOf(client, args[0])))
			}
			d, err := client.GetBatchData(c.Context(), args[0])
			if err != nil {
				return a.batchError(client.Explain404(c.Context(), err), false)
			}
			a.remember(client, d.Batch)
			printBatch(a.out, d.Batch, errorCounts(d), nil, time.Now())
			if parent := a.retryOf(client, args[0]); parent != "" {
				fmt.Fprintln(a.out, "retry of   "+oneLine(parent))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the batch exactly as the server sent it (with retry_of for a retry made here)")
	return c
}

// batchError prints a 402's metadata before the error, so that nothing
// the server sent is lost.
func (a *app) batchError(err error, asJSON bool) error {
	var ae *api.APIError
	if errors.As(err, &ae) && ae.Batch != nil {
		if asJSON {
			a.json(ae.Body)
		} else {
			printBatch(a.out, ae.Batch, nil, nil, time.Now())
		}
	}
	return err
}

func (a *app) batchWatch() *cobra.Command {
	var asJSON, notifyEnd bool
	var execLine string
	var interval, timeout time.Duration
	c := &cobra.Command{
		Use:   "watch ID",
		Short: "Poll a batch until it ends; exit 0 if it completed, 1 otherwise",
		Args:  exactArgs(1, "a batch id"),
		RunE: func(c *cobra.Command, args []string) error {
			if interval < 0 || timeout < 0 {
				return inputErrorf("--interval and --timeout must not be negative")
			}
			cfg, client, err := a.client(true)
			if err != nil {
				return err
			}
			if interval == 0 {
				interval = cfg.PollInterval
			}
			// A 404 is retried briefly only for a batch submitted from
			// here a moment ago; a mistyped id is not found at once.
			var grace time.Duration
			if a.store().SubmittedWithin(gatewayKey(client), args[0], api.RecentSubmission, time.Now()) {
				grace = api.SubmitGrace
			}
			if a.onSettled, err = a.settledHook(cfg, client, notifyEnd, execLine); err != nil {
				return err
			}
			return a.watch(c.Context(), client, args[0], interval, timeout, grace, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the final batch exactly as the server sent it")
	c.Flags().DurationVar(&interval, "interval", 0, "base poll interval (default: the config's poll_interval, 5s)")
	c.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (default: no limit)")
	c.Flags().BoolVar(&notifyEnd, "notify", false, "when the batch ends, send a terminal notification (the notify setting: auto, osc9, osc777, bell, off)")
	c.Flags().StringVar(&execLine, "exec", "", "when the batch ends, run CMD (split into words, no shell) with GWDASH_BATCH_* in its environment")
	return c
}

// watch polls a batch until it ends. grace is how long a 404 is retried:
// only for a batch just submitted from here.
func (a *app) watch(ctx context.Context, client *api.Client, id string, interval, timeout, grace time.Duration, asJSON bool) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	p := &progress{raw: a.io.Err, w: a.errw, tty: a.io.ErrTTY}
	report := p.report
	if a.onPoll != nil {
		report = func(u api.PollUpdate) { p.report(u); a.onPoll(ctx) }
	}
	b, err := client.WatchBatch(ctx, id, api.PollOptions{Interval: interval, NotFoundGrace: grace}, report)
	p.done()
	a.remember(client, b)
	if err != nil {
		err = client.Explain404(context.WithoutCancel(ctx), err)
		// The last state seen is printed either way: a timeout, an
		// interruption or an error does not swallow it.
		if b != nil && asJSON {
			a.json(encodeJSON(b))
		} else if b != nil {
			printBatch(a.out, b, countsOf(b), nil, time.Now())
		}
		if ctx.Err() == context.DeadlineExceeded {
			return &exitError{code: ExitFailure, msg: fmt.Sprintf("timed out after %s; the batch is still %s", timeout, statusOf(b))}
		}
		return err
	}
	if asJSON {
		a.json(encodeJSON(b))
	} else {
		printBatch(a.out, b, countsOf(b), nil, time.Now())
	}
	if a.onSettled != nil {
		a.onSettled(b)
	}
	if b.Status != api.BatchCompleted {
		return &exitError{code: ExitFailure, msg: "batch ended " + present.Status(b.Status)}
	}
	return nil
}

func statusOf(b *api.Batch) string {
	if b == nil {
		return "unknown"
	}
	return present.Status(b.Status)
}

// progress reports polls on stderr: one rewritten line on a terminal,
// plain lines otherwise. The line's text goes through the sanitizing
// writer w; only the line's own rewrite goes to raw.
type progress struct {
	raw  io.Writer
	w    io.Writer
	tty  bool
	last string
	open bool
}

func (p *progress) report(u api.PollUpdate) {
	var line string
	switch {
	case u.Err != nil && u.Decision.Capped:
		return // the caller stops and says what was asked
	case u.Err != nil && u.Decision.Transient:
		line = fmt.Sprintf("%s; retrying in %s", describe(u.Err), api.HumanDuration(u.Decision.Delay))
	case u.Err != nil:
		return // reported by the caller
	case u.Batch != nil:
		rc := u.Batch.RequestCounts
		line = fmt.Sprintf("%s %s/%s done (%s failed)", present.Status(u.Batch.Status), format.Int(rc.Done()), format.Int(rc.Total), format.Int(rc.Failed))
		if u.Decision.Inconsistent != "" {
			line += " (inconsistent counts from server: " + u.Decision.Inconsistent + ")"
		}
		if !u.Decision.Done {
			line += fmt.Sprintf("; next poll in %s", api.HumanDuration(u.Decision.Delay))
		}
	}
	if p.tty {
		io.WriteString(p.raw, "\r\x1b[2K")
		io.WriteString(p.w, oneLine(line))
		p.open = true
		return
	}
	if line != p.last {
		fmt.Fprintln(p.w, line)
		p.last = line
	}
}

func (p *progress) done() {
	if p.tty && p.open {
		fmt.Fprintln(p.w)
	}
}

func (a *app) batchList() *cobra.Command {
	var status string
	var limit int
	var all, asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List your batches, newest first (merged with those remembered on this machine)",
		Long: `List your batches, newest first: id, status, model, endpoint, done/failed/total,
created and cost. With --all every page is read and the batches remembered
on this machine that the server did not list are added. A server that does
not list batches gets the remembered ones, and says so. --json prints one
JSON object per line.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o := api.BatchListOptions{Limit: limit, Status: api.BatchStatus(status)}
			if c.Flags().Changed("limit") && limit == 0 {
				return inputErrorf("--limit 0: must be 1 to 100")
			}
			if err := o.Validate(); err != nil {
				return err
			}
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			var list []api.Batch
			var walkErr error
			if all {
				for b, err := range client.AllBatches(c.Context(), o) {
					if err != nil {
						walkErr = err
						break
					}
					list = append(list, b)
				}
			} else {
				page, err := client.ListBatches(c.Context(), o)
				if err != nil {
					walkErr = err
				} else {
					list = page.Data
				}
			}
			local := a.store().Batches(gatewayKey(client))
			notOffered := api.IsNotOffered(walkErr)
			switch {
			case notOffered:
				fmt.Fprintln(a.errw, "gwdash: this server does not list batches; these are the batches remembered on this machine")
				walkErr = nil
			case walkErr != nil && len(list) == 0:
				return walkErr
			}
			fromRecord := map[string]bool{}
			if all || notOffered {
				if o.Status != "" {
					var keep []record.Batch
					for _, r := range local {
						if r.Status == o.Status {
							keep = append(keep, r)
						}
					}
					local = keep
				}
				list, fromRecord = record.Merge(list, local)
			}
			var seen []*api.Batch
			for i := range list {
				if !fromRecord[list[i].ID] {
					seen = append(seen, &list[i])
				}
			}
			a.remember(client, seen...)
			if asJSON {
				lineage := map[string]string{}
				for _, r := range a.store().Batches(gatewayKey(client)) {
					if r.RetryOf != "" {
						lineage[r.ID] = r.RetryOf
					}
				}
				for i := range list {
					b := list[i]
					if fromRecord[b.ID] {
						m := map[string]any{"id": b.ID, "object": "batch", "status": b.Status, "model": b.Model, "endpoint": b.Endpoint,
							"created_at": b.CreatedAt, "request_counts": b.RequestCounts, "gwdash_source": "remembered on this machine"}
						if p := lineage[b.ID]; p != "" {
							m["retry_of"] = p
						}
						a.json(encodeJSON(m))
						continue
					}
					a.json(withRetryOf(encodeJSON(b), lineage[b.ID]))
				}
			} else {
				printBatchList(a.out, list, fromRecord, time.Now())
			}
			return walkErr
		},
	}
	f := c.Flags()
	f.StringVar(&status, "status", "", "only batches in this status (validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled)")
	f.IntVar(&limit, "limit", 0, "batches per page, 1 to 100 (default: the server's, 20)")
	f.BoolVar(&all, "all", false, "read every page, and add the batches remembered here")
	f.BoolVar(&asJSON, "json", false, "one JSON object per line, as the server sent it (with retry_of for a retry made here)")
	return c
}

// printBatchList writes the list as a table sized to its content.
func printBatchList(w io.Writer, list []api.Batch, fromRecord map[string]bool, now time.Time) {
	t := newTable(w)
	t.row("ID", "STATUS", "MODEL", "ENDPOINT", "OK/FAIL/ALL", "CREATED", "COST")
	for _, b := range list {
		id := oneLine(b.ID)
		if fromRecord[b.ID] {
			id += " (remembered)"
		}
		t.row(id, oneLine(present.Status(b.Status)), oneLine(b.Model), oneLine(b.Endpoint),
			present.ShortCounts(b.RequestCounts), format.Age(b.CreatedTime(), now), present.BatchCost(&b))
	}
	t.flush()
	fmt.Fprintln(w, format.Plural(len(list), "batch", "batches"))
}

func (a *app) batchDelete() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a settled batch (completed, failed, expired or cancelled)",
		Long: `Delete a settled batch and its results. It asks first on a terminal; with
stdin not a terminal it refuses unless --yes. A batch still in flight cannot
be deleted: the server answers 409, which is reported, not retried.`,
		Args: exactArgs(1, "a batch id"),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, client, err := a.client(true)
			if err != nil {
				return err
			}
			if err := refuseWrite(cfg, present.WriteBatchDelete); err != nil {
				return err
			}
			if !yes {
				if err := a.confirm("delete batch "+args[0]+" and its results?", "--yes"); err != nil {
					return err
				}
			}
			if err := client.DeleteBatch(c.Context(), args[0]); err != nil {
				return client.Explain404(c.Context(), err)
			}
			a.store().Forget(gatewayKey(client), args[0])
			fmt.Fprintln(a.out, "deleted "+args[0])
			return nil
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "do not ask")
	return c
}

func (a *app) batchResults() *cobra.Command {
	var failed, effective bool
	var errorType string
	c := &cobra.Command{
		Use:   "results ID",
		Short: "Write a finished batch's results as JSON Lines, one result per line as sent",
		Long: `Write a finished batch's results as JSON Lines, one result per line as sent.
--effective takes, for each custom_id, its latest attempt across the
retries made from this machine (batch retry), and says on stderr how many
rows succeeded and failed in the end (they add up to the batch's rows).`,
		Args: exactArgs(1, "a batch id"),
		RunE: func(c *cobra.Command, args []string) error {
			if errorType != "" && !api.ErrorType(errorType).Known() {
				return inputErrorf("--error-type %q is not a canonical error type (e.g. rate_limit_exceeded, timeout)", errorType)
			}
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			var d *api.BatchData
			if effective {
				var counts retry.Counts
				if d, counts, err = a.effectiveData(c.Context(), client, args[0]); err != nil {
					return err
				}
				fmt.Fprintln(a.errw, "effective results of "+args[0]+": "+counts.Summary())
			} else if d, err = client.GetBatchData(c.Context(), args[0]); err != nil {
				return client.Explain404(c.Context(), err)
			} else {
				a.remember(client, d.Batch)
			}
			if d.Rows == nil {
				return &exitError{code: ExitFailure, msg: fmt.Sprintf("batch is %s: results come when it reaches a terminal status", present.Status(d.Batch.Status))}
			}
			w := bufio.NewWriterSize(a.io.Out, 256<<10)
			keep := func(r api.ResultRow) bool {
				return (!failed && errorType == "" || r.Failed) && (errorType == "" || d.Word(r.ErrType) == errorType)
			}
			if err := d.WriteItems(w, keep, textsafe.WriteJSON); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	c.Flags().BoolVar(&failed, "failed", false, "only failed results")
	c.Flags().StringVar(&errorType, "error-type", "", "only failed results of this canonical error type")
	c.Flags().BoolVar(&effective, "effective", false, "the latest attempt of each custom_id across the retries made here")
	return c
}

func (a *app) batchSubmit() *cobra.Command {
	var model, endpoint string
	var watch, asJSON bool
	c := &cobra.Command{
		Use:   "submit FILE",
		Short: `Submit a JSON Lines file of {"custom_id":..., "body":{...}} requests ("-" reads stdin)`,
		Args:  exactArgs(1, "a JSON Lines file or -"),
		RunE: func(c *cobra.Command, args []string) error {
			if model == "" || endpoint == "" {
				return inputErrorf("--model and --endpoint are required")
			}
			reqs, err := a.readRequests(args[0])
			if err != nil {
				return err
			}
			if err := api.ValidateBatchSubmission(endpoint, model, reqs); err != nil {
				return err
			}
			cfg, client, err := a.client(true)
			if err != nil {
				return err
			}
			if err := refuseWrite(cfg, present.WriteBatchSubmit); err != nil {
				return err
			}
			b, err := client.SubmitBatch(c.Context(), endpoint, model, reqs)
			a.reqlog.Batch(endpoint, model, reqs, b, err)
			if err != nil {
				return err
			}
			now := time.Now()
			rb := record.FromAPI(b, now)
			rb.SubmittedAt = &now
			a.store().Remember(gatewayKey(client), rb)
			if watch {
				fmt.Fprintf(a.errw, "submitted %s; watching\n", b.ID)
				return a.watch(c.Context(), client, b.ID, cfg.PollInterval, 0, api.SubmitGrace, asJSON)
			}
			if asJSON {
				return a.json(encodeJSON(b))
			}
			fmt.Fprintf(a.out, "%s\t%s\t%s\n", b.ID, present.Status(b.Status), format.Plural(b.RequestCounts.Total, "request", "requests"))
			return nil
		},
	}
	c.Flags().StringVar(&model, "model", "", "batch model, <provider>/<model>")
	c.Flags().StringVar(&endpoint, "endpoint", "", "one of "+strings.Join(api.BatchEndpoints, ", "))
	c.Flags().BoolVar(&watch, "watch", false, "watch the batch after submitting")
	c.Flags().BoolVar(&asJSON, "json", false, "print the batch exactly as the server sent it")
	return c
}

// readRequests reads JSON Lines, refusing the file with every problem
// named by its line number.
func (a *app) readRequests(name string) ([]api.BatchRequest, error) {
	var r io.Reader = a.io.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, inputErrorf("cannot read the requests: %s", present.Plain(err))
		}
		defer f.Close()
		r = f
	}
	reqs, errs := api.ReadBatchRequests(r)
	if len(errs) > 0 {
		parts := make([]string, len(errs))
		for i, e := range errs {
			parts[i] = e.Error()
		}
		if len(errs) == 1 && errs[0].Line == 0 {
			return nil, inputErrorf("%s holds no requests", name)
		}
		return nil, inputErrorf("%s: %s", name, strings.Join(parts, "; "))
	}
	return reqs, nil
}

// errorCounts is the failures per error type of a batch with results,
// nil without.
func errorCounts(d *api.BatchData) map[string]int {
	if d.Rows == nil {
		return nil
	}
	return d.ErrorTypeCounts()
}

func countsOf(b *api.Batch) map[string]int {
	if b.Results == nil {
		return nil
	}
	return b.ErrorTypeCounts()
}

// printBatch writes the readable summary of a batch; counts are its
// failures per error type (nil without results), prev the previous
// snapshot of the same batch when there is one. w is a sanitizing writer.
func printBatch(w io.Writer, b *api.Batch, counts map[string]int, prev *api.RequestCounts, now time.Time) {
	tw := newTable(w)
	rc := b.RequestCounts
	tw.row("batch", oneLine(b.ID)+"  "+oneLine(present.Status(b.Status)))
	tw.row("endpoint", oneLine(b.Endpoint))
	tw.row("model", oneLine(b.Model))
	tw.row("window", oneLine(b.CompletionWindow))
	tw.row("created", format.LocalTime(b.CreatedTime())+" ("+format.Age(b.CreatedTime(), now)+")")
	if fin := b.FinalizedTime(); !fin.IsZero() {
		tw.row("finalized", format.LocalTime(fin)+" ("+format.Age(fin, now)+")")
	} else {
		tw.row("finalized", "—")
	}
	requests := present.Counts(rc, b.Status)
	if p := rc.Problems(prev); p != "" {
		requests += " (inconsistent counts from server: " + p + ")"
	}
	tw.row("requests", requests)
	if u := b.Usage; u != nil {
		line := fmt.Sprintf("prompt %s · completion %s · total %s · cost %s", format.Int(u.PromptTokens), format.Int(u.CompletionTokens), format.Int(u.TotalTokens), format.CostPtr(u.Cost))
		if u.IsBYOK != nil && *u.IsBYOK {
			line += " · BYOK"
		}
		tw.row("usage", line)
	} else {
		tw.row("usage", "—")
	}
	if counts != nil {
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
		})
		parts := make([]string, len(keys))
		for i, k := range keys {
			name := k
			if name == "" {
				name = "(no error type)"
			}
			parts[i] = fmt.Sprintf("%s %s", oneLine(name), format.Int(counts[k]))
		}
		switch {
		case len(parts) == 0 && b.Status == api.BatchFailed:
			// The counts say failed, the results hold nothing: say why.
			parts = []string{"no per-request results exist: the batch failed as a whole (see error)"}
		case len(parts) == 0:
			parts = []string{"none"}
		}
		tw.row("failures", strings.Join(parts, " · "))
	}
	if b.Error != nil && b.Error.Message != "" {
		tw.row("error", oneLine(b.Error.Message))
	}
	tw.flush()
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return inputErrorf("%s needs %s (see --help)", c.CommandPath(), what)
		}
		return nil
	}
}

// needsCommand is the RunE of a command that only holds others: run
// alone, it names them ("batch needs a command: list, get, ...").
func needsCommand(which string) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, _ []string) error {
		return inputErrorf("%s needs a command: %s", c.Name(), which)
	}
}
