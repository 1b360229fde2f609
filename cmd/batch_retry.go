package cmd

// batch retry: a new batch of a settled batch's failed rows (their
// bodies kept by the request log, or read from the original JSON Lines),
// linked to it in this machine's record; and the lineage it makes:
// retry_of in get and list --json, effective results.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/retry"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
)

func (a *app) batchRetry() *cobra.Command {
	var types []string
	var model, input string
	var dryRun, watch, yes, asJSON, effective bool
	c := &cobra.Command{
		Use:   "retry ID",
		Short: "Submit a new batch of a settled batch's failed rows (retryable error types by default)",
		Long: `Submit a new batch of only the failed rows of a settled batch, custom_ids
unchanged. The failures are grouped by error type: the retryable ones
(` + strings.Join(retry.RetryableTypes, ", ") + `) are chosen by default, the
others are listed and retried only when named with --error-type (which
then chooses exactly the types named). The rows go to the batch's model,
or to --model. The plan (groups, counts, model, a cost estimate at
catalogue prices) is printed, then a y/N question (default no; --yes
skips it, and without a terminal on stdin --yes is required).

The request bodies come from the request log, which keeps the requests of
every batch gwdash submits; for a batch submitted elsewhere (or before the
log), --input FILE gives the original JSON Lines, matched by custom_id.
--dry-run prints the JSON Lines that would be sent and sends nothing.
--effective plans from the effective results instead: the rows whose
latest attempt, across the retries made here, failed.
The new batch is remembered as a retry of ID: batch get and list --json
carry retry_of, and batch results --effective reads the latest attempt of
each row.`,
		Args: exactArgs(1, "a batch id"),
		RunE: func(c *cobra.Command, args []string) error {
			for _, t := range types {
				if !api.ErrorType(t).Known() {
					return inputErrorf("--error-type %q is not a canonical error type (retryable by default: %s)", t, strings.Join(retry.RetryableTypes, ", "))
				}
			}
			if model != "" {
				if err := api.ValidateModel(model); err != nil {
					return err
				}
			}
			if dryRun && (watch || asJSON) {
				return inputErrorf("--dry-run prints the JSON Lines that would be sent: --watch and --json do not apply")
			}
			var in *retry.Input
			if input != "" {
				var err error
				if in, err = readRetryInput(input); err != nil {
					return err
				}
			}
			cfg, client, err := a.client(true)
			if err != nil {
				return err
			}
			if !dryRun {
				if err := refuseWrite(cfg, present.WriteBatchRetry); err != nil {
					return err
				}
			}
			id := args[0]
			var d *api.BatchData
			if effective { // the rows whose latest attempt failed
				if d, _, err = a.effectiveData(c.Context(), client, id); err != nil {
					return err
				}
			} else if d, err = client.GetBatchData(c.Context(), id); err != nil {
				return client.Explain404(c.Context(), err)
			} else {
				a.remember(client, d.Batch)
			}
			if in == nil {
				if in, err = a.keptInput(c.Context(), id); err != nil {
					return err
				}
			}
			plan, err := retry.Build(d, in, retry.Options{Types: types, Model: model})
			if err != nil {
				return retryProblem(err)
			}
			var m *api.Model
			if cat, err := a.catalogue(c, client, false); err == nil {
				m = cat.Find(plan.Model)
			}
			plan.Price(m)
			if dryRun {
				printPlan(a.errw, plan, d.Batch, model == "")
				w := bufio.NewWriterSize(a.io.Out, 64<<10)
				if err := plan.WriteJSONL(textsafeJSONLines{w}); err != nil {
					return err
				}
				if err := w.Flush(); err != nil {
					return err
				}
				fmt.Fprintf(a.errw, "dry run: nothing was sent (%s above)\n", format.Plural(plan.Chosen(), "request", "requests"))
				return nil
			}
			if !asJSON {
				printPlan(a.out, plan, d.Batch, model == "")
				a.out.Flush()
			}
			if !yes {
				if err := a.confirm("submit "+format.Plural(plan.Chosen(), "failed row", "failed rows")+" of "+id+" as a new batch?", "--yes"); err != nil {
					return err
				}
			}
			child, err := client.SubmitBatch(c.Context(), plan.Endpoint, plan.Model, plan.Requests)
			a.reqlog.Batch(plan.Endpoint, plan.Model, plan.Requests, child, err)
			if err != nil {
				return err
			}
			now := time.Now()
			rb := record.FromAPI(child, now)
			rb.SubmittedAt, rb.RetryOf = &now, id
			a.store().Remember(gatewayKey(client), rb)
			if asJSON {
				a.json(encodeJSON(map[string]any{"parent": plan.Parent, "child": child.ID, "endpoint": plan.Endpoint, "model": plan.Model,
					"requests": plan.Chosen(), "groups": plan.Groups, "source": plan.Source, "estimate": plan.Estimate}))
			} else {
				fmt.Fprintf(a.out, "submitted %s: a retry of %s, %s\n", child.ID, id, format.Plural(plan.Chosen(), "request", "requests"))
			}
			if watch {
				fmt.Fprintf(a.errw, "watching %s\n", child.ID)
				return a.watch(c.Context(), client, child.ID, cfg.PollInterval, 0, api.SubmitGrace, asJSON)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&types, "error-type", nil, "retry the failed rows of this canonical error type (repeat for more; default: the retryable ones)")
	f.StringVar(&model, "model", "", "send the rows to this model, <provider>/<model> (default: the batch's)")
	f.StringVar(&input, "input", "", "the original JSON Lines of the batch, for one whose requests were not kept here")
	f.BoolVar(&dryRun, "dry-run", false, "print the JSON Lines that would be sent, and send nothing")
	f.BoolVar(&watch, "watch", false, "watch the new batch until it ends (as batch watch)")
	f.BoolVar(&yes, "yes", false, "do not ask")
	f.BoolVar(&asJSON, "json", false, "print the plan and the new batch's id as one JSON object")
	f.BoolVar(&effective, "effective", false, "retry the rows whose latest attempt failed, across the retries made here (see batch results --effective)")
	return c
}

// readRetryInput reads --input before any request is sent.
func readRetryInput(name string) (*retry.Input, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, inputErrorf("--input: cannot read %s: %s", name, present.Plain(err))
	}
	defer f.Close()
	in, err := retry.ReadInput(f, name)
	if err != nil {
		return nil, &inputError{msg: err.Error()}
	}
	return in, nil
}

// keptInput is what the request log kept of a batch (nil when nothing).
func (a *app) keptInput(ctx context.Context, id string) (*retry.Input, error) {
	path, err := a.requestLogPath()
	if err != nil {
		return nil, nil
	}
	db, _, err := reqlog.OpenExisting(path)
	var noLog *reqlog.ErrNoLog
	if errors.As(err, &noLog) {
		return nil, nil
	}
	if err != nil {
		return nil, &exitError{code: ExitFailure, msg: oneLine(err.Error()) + ": pass --input FILE with the original JSON Lines"}
	}
	defer db.Close()
	k, err := db.KeptBatch(ctx, id)
	var notKept *reqlog.ErrNotKept
	if errors.As(err, &notKept) {
		return nil, nil
	}
	if err != nil {
		return nil, &exitError{code: ExitFailure, msg: "the request log cannot be read: pass --input FILE with the original JSON Lines"}
	}
	return retry.FromKept(k), nil
}

// retryProblem turns a plan's refusal into the command's error: each
// says what is wrong and what to do (exit 1: the batch was read).
func retryProblem(err error) error {
	var ve *api.ValidationError
	if errors.As(err, &ve) {
		return &exitError{code: ExitFailure, msg: "the retry would be refused: " + ve.Error()}
	}
	return &exitError{code: ExitFailure, msg: oneLine(err.Error())}
}

// printPlan writes a retry's plan: the groups (chosen or not), the
// model, the endpoint, the rows sent and the estimate.
func printPlan(w io.Writer, p *retry.Plan, parent *api.Batch, sameModel bool) {
	rc := parent.RequestCounts
	fmt.Fprintf(w, "retry of %s (%s · %s · %s failed)\n", oneLine(p.Parent), present.Status(parent.Status),
		format.Plural(rc.Total, "row", "rows"), format.Int(rc.Failed))
	t := newTable(w)
	for _, g := range p.Groups {
		mark, note := "[ ]", "not retried by default: name it with --error-type"
		if g.Chosen {
			mark, note = "[x]", "retried"
		}
		if g.Retryable {
			note += " (retryable)"
		}
		t.row("  "+mark, oneLine(g.Type), format.Int(g.Rows), note)
	}
	t.flush()
	t = newTable(w)
	which := "(another than the batch's " + oneLine(parent.Model) + ")"
	if sameModel {
		which = "(the batch's)"
	}
	t.row("model", oneLine(p.Model)+" "+which)
	t.row("endpoint", oneLine(p.Endpoint))
	t.row("requests", format.Plural(p.Chosen(), "row", "rows")+", bodies from "+oneLine(p.Source))
	t.row("estimate", p.Estimate.String())
	t.flush()
}

// textsafeJSONLines writes JSON lines re-encoded (every control
// escaped), line by line.
type textsafeJSONLines struct{ w io.Writer }

func (t textsafeJSONLines) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte{'\n'}) {
		body := bytes.TrimSuffix(line, []byte{'\n'})
		if len(body) == 0 {
			continue
		}
		if err := textsafe.WriteJSON(t.w, body); err != nil {
			return 0, err
		}
		if _, err := t.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// retryOf is the batch a batch retries, from this machine's record ("":
// none known).
func (a *app) retryOf(client *api.Client, id string) string {
	if b, ok := a.store().Batch(gatewayKey(client), id); ok {
		return b.RetryOf
	}
	return ""
}

// withRetryOf adds "retry_of" to a batch object as sent (unless it has
// one): its other members are kept byte for byte.
func withRetryOf(raw []byte, parent string) []byte {
	if parent == "" || hasTopMember(raw, "retry_of") {
		return raw
	}
	raw = bytes.TrimRight(raw, " \t\r\n")
	if len(raw) < 2 || raw[len(raw)-1] != '}' {
		return raw
	}
	head := bytes.TrimRight(raw[:len(raw)-1], " \t\r\n")
	var out bytes.Buffer
	out.Grow(len(raw) + len(parent) + 16)
	out.Write(head)
	if len(head) > 1 {
		out.WriteByte(',')
	}
	out.WriteString(`"retry_of":`)
	q, _ := jsontext.AppendQuote(nil, parent)
	out.Write(q)
	out.WriteByte('}')
	return out.Bytes()
}

// hasTopMember reports whether a JSON object has a member of that name
// at its top level.
func hasTopMember(raw []byte, name string) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.String() == name {
			return true
		}
		if err := dec.SkipValue(); err != nil {
			return false
		}
	}
	return false
}

// effectiveData reads a batch and its retries made here, and returns its
// effective results (the latest attempt of each custom_id).
func (a *app) effectiveData(ctx context.Context, client *api.Client, id string) (*api.BatchData, retry.Counts, error) {
	d, err := a.settledData(ctx, client, id)
	if err != nil {
		return nil, retry.Counts{}, err
	}
	var later []*api.BatchData
	for _, r := range retry.Descendants(a.store().Batches(gatewayKey(client)), id) {
		cd, err := client.GetBatchData(ctx, r.ID)
		if err != nil {
			return nil, retry.Counts{}, fmt.Errorf("the retry %s: %w", r.ID, client.Explain404(ctx, err))
		}
		a.remember(client, cd.Batch)
		later = append(later, cd)
	}
	ed, counts, err := retry.Effective(d, later)
	return ed, counts, err
}
