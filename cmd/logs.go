package cmd

// gwdash logs: the local request log, listed, searched, shown, sent again,
// exported and pruned; gwdash spend: its cost per day, model or provider.

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/spf13/cobra"
)

// logFilter is the filter flags every listing takes.
type logFilter struct {
	search, model, provider, state, kind, since, until string
	minCost, maxCost                                   float64
	limit                                              int
}

func (lf *logFilter) flags(c *cobra.Command, withLimit bool) {
	f := c.Flags()
	f.StringVar(&lf.search, "search", "", "words to find in the input or the answer (each a prefix, all must match)")
	f.StringVar(&lf.model, "model", "", "model asked or served (part of its name)")
	f.StringVar(&lf.provider, "provider", "", "provider (part of its name)")
	f.StringVar(&lf.state, "state", "", "end state: completed, incomplete, failed, stopped, interrupted, no answer, submitted...")
	f.StringVar(&lf.kind, "kind", "", "response or batch")
	f.StringVar(&lf.since, "since", "", "from this time: 7d, 24h, 2026-11-01 or an RFC 3339 time")
	f.StringVar(&lf.until, "until", "", "before this time (same forms as --since)")
	f.Float64Var(&lf.minCost, "min-cost", 0, "cost at least this (USD)")
	f.Float64Var(&lf.maxCost, "max-cost", 0, "cost at most this (USD)")
	if withLimit {
		f.IntVar(&lf.limit, "limit", reqlog.DefaultLimit, fmt.Sprintf("rows to print, 1 to %d", reqlog.MaxLimit))
	}
}

// filter checks the flags and makes the filter; every refusal names the
// flag.
func (lf *logFilter) filter(c *cobra.Command, now time.Time) (reqlog.Filter, error) {
	if lf.state != "" && !slices.Contains(reqlog.States, lf.state) {
		return reqlog.Filter{}, inputErrorf("--state %q: one of %s", lf.state, strings.Join(reqlog.States, ", "))
	}
	f := reqlog.Filter{Search: lf.search, Model: lf.model, Provider: lf.provider, State: lf.state, Kind: lf.kind, Limit: lf.limit}
	var err error
	if f.Since, err = parseWhen(lf.since, now); err != nil {
		return f, inputErrorf("--since %q: %v", lf.since, err)
	}
	if f.Until, err = parseWhen(lf.until, now); err != nil {
		return f, inputErrorf("--until %q: %v", lf.until, err)
	}
	if lf.kind != "" && lf.kind != reqlog.KindResponse && lf.kind != reqlog.KindBatch {
		return f, inputErrorf("--kind %q: response or batch", lf.kind)
	}
	if c.Flags().Changed("limit") && (lf.limit < 1 || lf.limit > reqlog.MaxLimit) {
		return f, inputErrorf("--limit %d: 1 to %d", lf.limit, reqlog.MaxLimit)
	}
	for _, cf := range []struct {
		name string
		v    float64
		dst  **float64
	}{{"min-cost", lf.minCost, &f.MinCost}, {"max-cost", lf.maxCost, &f.MaxCost}} {
		if !c.Flags().Changed(cf.name) {
			continue
		}
		if cf.v < 0 {
			return f, inputErrorf("--%s %v: must be 0 or more", cf.name, cf.v)
		}
		v := cf.v
		*cf.dst = &v
	}
	if err := f.Check(); err != nil {
		return f, inputErrorf("%v", err)
	}
	return f, nil
}

// parseWhen reads 7d, 24h, 90m (that long before now), a date (UTC
// midnight) or an RFC 3339 time; "" is no bound.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 36500 {
			return time.Time{}, fmt.Errorf("a day count is 0d to 36500d")
		}
		return now.Add(-time.Duration(days) * 24 * time.Hour), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("a duration must not be negative")
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("not a time: use 7d, 24h, 2026-11-01 or 2026-11-01T09:00:00Z")
}

// openFiltered reads the filter flags, then opens the log (refused flags
// open nothing).
func (a *app) openFiltered(c *cobra.Command, lf *logFilter) (*reqlog.DB, reqlog.Filter, error) {
	f, err := lf.filter(c, time.Now())
	if err != nil {
		return nil, f, err
	}
	db, err := a.openRequestLog()
	return db, f, err
}

// openRequestLog opens the request log for reading; a damaged one moved aside
// is said.
func (a *app) openRequestLog() (*reqlog.DB, error) {
	path, err := a.requestLogPath()
	if err != nil {
		return nil, fmt.Errorf("no state directory for the request log")
	}
	db, notice, err := reqlog.OpenExisting(path)
	if notice != "" {
		fmt.Fprintln(a.errw, "gwdash: warning: "+notice)
	}
	var none *reqlog.ErrNoLog
	if errors.As(err, &none) {
		return nil, &exitError{code: ExitFailure, msg: none.Error()}
	}
	return db, err
}

func (a *app) logsCommand() *cobra.Command {
	var lf logFilter
	var asJSON bool
	c := &cobra.Command{
		Use:   "logs",
		Short: "List and search the local log of requests gwdash sent (newest first)",
		Long: `Every request gwdash sends to /responses (playground, compare, respond)
and every batch it submits is kept in a local SQLite file in the state
directory ("gwdash logs path"), mode 0600, keys never. "log = false" in a
profile (gwdash config set log false) or --no-log turns it off. Rows older
than 90 days, and the oldest past 512 MiB, are pruned.

Without a command, lists the rows the filters select; --json prints one
object per line (id, time, kind, model, model_served, provider,
input_tokens, output_tokens, cost, ttft_ms, tokens_per_second, state,
error, input: its first 400 characters).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			db, f, err := a.openFiltered(c, &lf)
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := db.List(c.Context(), f)
			if err != nil {
				return logError(err)
			}
			if asJSON {
				for _, e := range rows {
					a.json(encodeJSON(listJSON(e)))
				}
				return nil
			}
			if len(rows) == 0 {
				fmt.Fprintln(a.errw, "no logged request matches")
				return nil
			}
			t := newTable(a.out)
			t.row("ID", "TIME", "MODEL", "PROVIDER", "TOKENS", "COST", "TTFT", "STATE", "INPUT")
			for _, e := range rows {
				t.row(strconv.FormatInt(e.ID, 10), format.LocalTime(e.Time)[:16], oneLine(e.Model), orDash(oneLine(e.Provider)), present.LogTokens(&e),
					format.CostPtr(e.Cost), present.LogTTFT(e.TTFTMillis), oneLine(e.State), firstLine(e.Input, 60))
			}
			t.flush()
			return nil
		},
	}
	lf.flags(c, true)
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per row per line")
	c.AddCommand(a.logsShow(), a.logsReplay(), a.logsPath(), a.logsPrune(), a.logsExport())
	return c
}

// logError words a failure of the log for a command.
func logError(err error) error {
	var p *reqlog.Problem
	if err == nil || errors.As(err, &p) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("reading the request log: %v", err)
}

// firstLine is the first line of s, cut to n characters.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return oneLine(s)
}

// listJSON is a row as logs --json prints it.
func listJSON(e reqlog.Entry) map[string]any {
	return map[string]any{"id": e.ID, "time": e.Time.UTC().Format(time.RFC3339Nano), "kind": e.Kind, "model": e.Model,
		"model_served": e.ModelServed, "provider": e.Provider, "input_tokens": e.InputTokens, "output_tokens": e.OutputTokens,
		"cost": e.Cost, "ttft_ms": e.TTFTMillis, "tokens_per_second": e.TokensPerSecond, "state": e.State, "error": e.Error,
		"input": e.Input, "profile": e.Profile, "host": e.Host}
}

// showJSON is a whole row as logs show --json prints it.
func showJSON(e reqlog.Entry) map[string]any {
	m := listJSON(e)
	for k, v := range map[string]any{"answer": e.Answer, "answer_truncated": e.AnswerTruncated, "instructions": e.Instructions,
		"replay_of": e.ReplayOf, "compare_group": e.CompareGroup, "conversation_id": e.ConversationID, "batch_id": e.BatchID,
		"batch_requests": e.BatchRequests, "generation_id": e.GenerationID, "generation": e.GenerationJSON(), "request": e.RequestJSON(),
		"reasoning_tokens": e.ReasoningTokens, "cached_tokens": e.CachedTokens, "duration_ms": e.DurationMillis,
		"latency_ms": e.LatencyMillis, "streamed": e.Streamed} {
		m[k] = v
	}
	return m
}

// rowID reads a row id argument.
func rowID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, inputErrorf("%q is not a row id: gwdash logs lists them (the ID column)", s)
	}
	return id, nil
}

// loggedRow reads one row of the request log; a row that is not there is
// refused as input.
func (a *app) loggedRow(ctx context.Context, id int64) (reqlog.Entry, error) {
	db, err := a.openRequestLog()
	if err != nil {
		return reqlog.Entry{}, err
	}
	defer db.Close()
	e, err := db.Get(ctx, id)
	var nf *reqlog.ErrNotFound
	if errors.As(err, &nf) {
		return e, inputErrorf("%v", nf)
	}
	return e, logError(err)
}

func (a *app) logsShow() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Print one logged request whole: input, answer, usage, generation record, the request as JSON",
		Args:  exactArgs(1, "a row id"),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := rowID(args[0])
			if err != nil {
				return err
			}
			e, err := a.loggedRow(c.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				return a.json(encodeJSON(showJSON(e)))
			}
			a.printEntry(e)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the row as one JSON object")
	return c
}

// printEntry prints a row for people.
func (a *app) printEntry(e reqlog.Entry) {
	t := newTable(a.out)
	for _, r := range present.LogEntryRows(&e) {
		t.row(r[0], oneLine(r[1]))
	}
	t.flush()
	section := func(title, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		fmt.Fprintln(a.out, "\n── "+title+" ──")
		io.WriteString(a.out, body)
		if !strings.HasSuffix(body, "\n") {
			fmt.Fprintln(a.out)
		}
	}
	section("instructions", e.Instructions)
	section("input", e.Input)
	answer := e.Answer
	if e.AnswerTruncated {
		answer += "\n(the answer was longer: the log keeps its first 2 MiB)"
	}
	section("answer", answer)
	if g := e.GenerationJSON(); string(g) != "null" {
		section("generation record", string(g))
	}
	section("request", string(e.RequestJSON()))
}

func (a *app) logsReplay() *cobra.Command {
	var models []string
	var noStream, asJSON bool
	c := &cobra.Command{
		Use:   "replay ID",
		Short: "Send a logged request again (streams like respond); 2 to 4 --model re-race it",
		Long: `Send a logged request again, with the same input (and history) and
settings, and stream the answer like "gwdash respond". --model sends it to
another model; 2 to 4 --model send it to all at once, as "respond" does.
The new rows are logged, linked to the one they replay.`,
		Args: exactArgs(1, "a row id"),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := rowID(args[0])
			if err != nil {
				return err
			}
			if len(models) > maxCompare {
				return inputErrorf("--model given %d times: re-race 2 to %d models", len(models), maxCompare)
			}
			e, err := a.loggedRow(c.Context(), id)
			if err != nil {
				return err
			}
			req, err := reqlog.ReplayRequest(e)
			if err != nil {
				return inputErrorf("row %d: %v", id, err)
			}
			for _, m := range models {
				if err := api.ValidateModel(m); err != nil {
					return err
				}
			}
			if len(models) == 1 {
				req.Model = models[0]
			}
			if err := req.Validate(); err != nil {
				return err
			}
			cfg, client, err := a.client(true)
			if err != nil {
				return err
			}
			a.logMeta = reqlog.Meta{ReplayOf: id}
			return a.send(c, client, req, models, asJSON, noStream || !e.Streamed, cfg.AnswerCap)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&models, "model", nil, "send to this model instead (2 to 4 of them re-race)")
	sendFlags(c, &noStream, &asJSON)
	return c
}

func (a *app) logsPath() *cobra.Command {
	return &cobra.Command{
		Use: "path", Short: "Print the request log's path", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			path, err := a.requestLogPath()
			if err != nil {
				return fmt.Errorf("no state directory for the request log")
			}
			fmt.Fprintln(a.out, path)
			return nil
		},
	}
}

func (a *app) logsPrune() *cobra.Command {
	var olderThan string
	var maxMB int64
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove rows older than --older-than and the oldest past --max-mb (the profile's log_keep_days and log_max_mb: 90d and 512 unless set)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			now := time.Now()
			// Unless a flag says otherwise, the profile's retention.
			if cfg, err := config.Load(config.Inputs{Flags: a.flags, Env: a.env}); err == nil {
				age, size := logRetention(cfg)
				if !c.Flags().Changed("older-than") {
					olderThan = fmt.Sprintf("%dd", int64(age/(24*time.Hour)))
				}
				if !c.Flags().Changed("max-mb") {
					maxMB = size >> 20
				}
			}
			cut, err := parseWhen(olderThan, now)
			if err != nil || olderThan == "" {
				return inputErrorf("--older-than %q: a time like 90d, 720h or 2026-11-01", olderThan)
			}
			if maxMB < 1 || maxMB > 1<<20 {
				return inputErrorf("--max-mb %d: 1 to %d", maxMB, 1<<20)
			}
			db, err := a.openRequestLog()
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := db.Prune(c.Context(), now, max(now.Sub(cut), 1), maxMB<<20)
			if err != nil {
				return logError(err)
			}
			st, err := db.Stats(c.Context())
			if err != nil {
				return logError(err)
			}
			fmt.Fprintf(a.out, "removed %s (%d by age, %d by size); %s left, %s of text\n", format.Plural(int(res.ByAge+res.BySize), "row", "rows"),
				res.ByAge, res.BySize, format.Plural(st.Rows, "row", "rows"), mib(st.TextBytes))
			return nil
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "90d", "remove rows older than this (90d, 720h or a date)")
	c.Flags().Int64Var(&maxMB, "max-mb", reqlog.DefaultMaxBytes>>20, "then remove the oldest rows until the text kept is at most this many MiB")
	return c
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// exportColumns are the CSV columns, in order.
var exportColumns = []string{"id", "time", "kind", "profile", "host", "model", "model_served", "provider", "state", "error",
	"input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens", "cost", "ttft_ms", "tokens_per_second", "duration_ms",
	"generation_id", "latency_ms", "compare_group", "conversation_id", "replay_of", "batch_id", "batch_requests", "instructions", "input", "answer"}

func (a *app) logsExport() *cobra.Command {
	var lf logFilter
	var form string
	c := &cobra.Command{
		Use:   "export",
		Short: "Write the rows the filters select to stdout as CSV or JSON Lines (one row in memory at a time)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if form != "csv" && form != "jsonl" {
				return inputErrorf("--format %q: csv or jsonl", form)
			}
			db, f, err := a.openFiltered(c, &lf)
			if err != nil {
				return err
			}
			defer db.Close()
			if form == "jsonl" {
				return logError(db.Each(c.Context(), f, func(e reqlog.Entry) error { return a.json(encodeJSON(showJSON(e))) }))
			}
			w := csv.NewWriter(a.out)
			w.Write(exportColumns)
			err = db.Each(c.Context(), f, func(e reqlog.Entry) error {
				w.Write(csvRow(e))
				return w.Error()
			})
			w.Flush()
			if err == nil {
				err = w.Error()
			}
			return logError(err)
		},
	}
	lf.flags(c, false)
	c.Flags().StringVar(&form, "format", "csv", "csv or jsonl")
	return c
}

// csvRow is a row's cells in exportColumns' order.
func csvRow(e reqlog.Entry) []string {
	i := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	fl := func(p *float64) string {
		if p == nil {
			return ""
		}
		return format.Decimal(*p)
	}
	return []string{strconv.FormatInt(e.ID, 10), e.Time.UTC().Format(time.RFC3339Nano), e.Kind, e.Profile, e.Host, e.Model, e.ModelServed,
		e.Provider, e.State, e.Error, i(e.InputTokens), i(e.OutputTokens), i(e.ReasoningTokens), i(e.CachedTokens), fl(e.Cost),
		i(e.TTFTMillis), fl(e.TokensPerSecond), i(e.DurationMillis), e.GenerationID, i(e.LatencyMillis), e.CompareGroup,
		i(e.ConversationID), i(e.ReplayOf), e.BatchID, i(e.BatchRequests), e.Instructions, e.Input, e.Answer}
}

func (a *app) spendCommand() *cobra.Command {
	var since, by string
	var asJSON, asCSV bool
	c := &cobra.Command{
		Use:   "spend",
		Short: "Print the cost of logged requests per UTC day (or per model or provider)",
		Long: `Print what requests cost, per UTC day (--by day), or summed per model or
provider over the range. With a management key the completed UTC days of
the last 30 come from the service's GET /activity (every request of the
account, not only gwdash's), and today and older days from the local log;
without one, everything comes from the local log, and stderr says so.
--json prints one object per line: date (YYYY-MM-DD, UTC; empty with --by
model or provider), model, provider, cost (USD), requests, source ("local"
or "activity").`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if by != "day" && by != "model" && by != "provider" {
				return inputErrorf("--by %q: day, model or provider", by)
			}
			if asJSON && asCSV {
				return inputErrorf("--json and --csv: pick one")
			}
			from, err := parseWhen(since, time.Now())
			if err != nil || since == "" {
				return inputErrorf("--since %q: a time like 30d or 2026-11-01", since)
			}
			db, err := a.openRequestLog()
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := db.Spend(c.Context(), from)
			if err != nil {
				return logError(err)
			}
			rows, note := a.withActivity(c.Context(), rows, from, time.Now())
			groups := reqlog.GroupSpend(rows, by)
			switch {
			case asJSON:
				for _, g := range groups {
					a.json(encodeJSON(map[string]any{"date": g.Date, "model": g.Model, "provider": g.Provider, "cost": g.Cost,
						"requests": g.Requests, "source": g.Source}))
				}
			case asCSV:
				w := csv.NewWriter(a.out)
				w.Write([]string{"date", "model", "provider", "cost", "requests", "source"})
				for _, g := range groups {
					w.Write([]string{g.Date, g.Model, g.Provider, format.Decimal(g.Cost), strconv.Itoa(g.Requests), g.Source})
				}
				w.Flush()
				return w.Error()
			default:
				if len(groups) == 0 {
					fmt.Fprintln(a.errw, "no logged request since "+format.LocalTime(from))
					return nil
				}
				t := newTable(a.out)
				head := map[string]string{"day": "DATE (UTC)", "model": "MODEL", "provider": "PROVIDER"}[by]
				t.row(head, "COST", "REQUESTS", "FROM")
				total := 0.0
				for _, g := range groups {
					total += g.Cost
					t.row(orDash(oneLine(g.Date+g.Model+g.Provider)), format.Cost(g.Cost), format.Int(g.Requests), g.Source)
				}
				t.row("total", format.Cost(total), "", "")
				t.flush()
			}
			fmt.Fprintln(a.errw, note)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&since, "since", "30d", "from this time: 30d, 720h or 2026-11-01")
	f.StringVar(&by, "by", "day", "day, model or provider")
	f.BoolVar(&asJSON, "json", false, "one JSON object per line")
	f.BoolVar(&asCSV, "csv", false, "CSV with a header line")
	return c
}

// withActivity replaces the local figures of the completed UTC days that
// GET /activity covers (the last 30) by the service's, when a management
// key is set; note says where the figures came from.
func (a *app) withActivity(ctx context.Context, local []reqlog.SpendRow, from, now time.Time) ([]reqlog.SpendRow, string) {
	const only = "from the local log only: "
	cfg, err := config.Load(config.Inputs{Flags: a.flags, Env: a.env})
	switch {
	case err != nil || cfg.BaseURL == "":
		return local, only + "no gateway configured for /activity"
	case cfg.ManagementKey == "":
		return local, only + "no management key for /activity"
	}
	client, err := api.New(api.Options{BaseURL: cfg.BaseURL, ManagementKey: cfg.ManagementKey, UserAgent: "gwdash/" + Version(), MaxBodyBytes: cfg.MaxBodyMB << 20})
	if err != nil {
		return local, only + describe(err)
	}
	items, err := client.Activity(ctx, "")
	if err != nil {
		return local, only + "/activity: " + describe(err)
	}
	return reqlog.MergeActivity(local, items, from, now), "completed UTC days from /activity, today from the local log"
}
