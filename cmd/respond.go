package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
)

func (a *app) respondCommand() *cobra.Command {
	var (
		model, instructions, effort, tier, session, user string
		noStream, asJSON, routing                        bool
		maxOut, maxTools                                 int
		metadata                                         []string
	)
	c := &cobra.Command{
		Use:   "respond [PROMPT|-]",
		Short: "Send a prompt to POST /responses and stream the answer to stdout",
		Long: `Send a prompt and write the answer's text to stdout as it arrives; a
one-line summary (status, tokens, cost, time to first token, tokens per
second) goes to stderr. "-" or no prompt reads it from stdin. A failed,
incomplete or interrupted response exits 1 after printing what arrived.`,
		Args: maxArgs(1, "one prompt (quote it) or -"),
		RunE: func(c *cobra.Command, args []string) error {
			prompt, err := a.prompt(args)
			if err != nil {
				return err
			}
			req := api.ResponseRequest{Input: api.Input{Text: prompt}, Model: model, Instructions: instructions,
				ServiceTier: tier, SessionID: session, User: user, RoutingMetadata: routing}
			if c.Flags().Changed("max-output-tokens") {
				req.MaxOutputTokens = &maxOut
			}
			if c.Flags().Changed("max-tool-calls") {
				req.MaxToolCalls = &maxTools
			}
			if effort != "" {
				req.Reasoning = &api.Reasoning{Effort: effort}
			}
			if len(metadata) > 0 {
				req.Metadata = map[string]string{}
				for _, kv := range metadata {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						return inputErrorf("--metadata %q: want key=value", kv)
					}
					req.Metadata[k] = v
				}
			}
			if model == "" {
				return inputErrorf("--model is required (<provider>/<model>)")
			}
			if err := req.Validate(); err != nil {
				return err
			}
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			if noStream {
				return a.respondOnce(c, client, req, asJSON)
			}
			return a.respondStream(c, client, req, asJSON)
		},
	}
	f := c.Flags()
	f.StringVar(&model, "model", "", "model, <provider>/<model> (required)")
	f.BoolVar(&noStream, "no-stream", false, "send one non-streaming request")
	f.BoolVar(&asJSON, "json", false, "print the final Response object exactly as the server sent it")
	f.StringVar(&instructions, "instructions", "", "system instructions")
	f.IntVar(&maxOut, "max-output-tokens", 0, "cap on output tokens (at least 1)")
	f.StringVar(&effort, "reasoning-effort", "", "reasoning effort: "+strings.Join(api.ReasoningEfforts, ", "))
	f.StringVar(&tier, "service-tier", "", "service tier: "+strings.Join(api.ServiceTiers, ", ")+" (fast = priority)")
	f.StringArrayVar(&metadata, "metadata", nil, "metadata pair key=value (repeatable; at most 16)")
	f.StringVar(&session, "session-id", "", "session id (at most 256 characters)")
	f.StringVar(&user, "user", "", "end-user id (at most 256 characters)")
	f.IntVar(&maxTools, "max-tool-calls", 0, "maximum server-tool steps, 0 to 30")
	f.BoolVar(&routing, "routing-metadata", false, "ask for routing metadata (X-OpenRouter-Metadata: enabled)")
	return c
}

func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > n {
			return inputErrorf("%s takes %s (see --help)", c.CommandPath(), what)
		}
		return nil
	}
}

// prompt is the argument, or stdin for "-" or no argument.
func (a *app) prompt(args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		if strings.TrimSpace(args[0]) == "" {
			return "", inputErrorf("the prompt is empty")
		}
		return args[0], nil
	}
	if len(args) == 0 && a.io.InTTY {
		return "", inputErrorf("give a prompt, or - to read it from stdin")
	}
	b, err := io.ReadAll(io.LimitReader(a.io.In, 16<<20))
	if err != nil {
		return "", inputErrorf("reading the prompt from stdin: %v", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", inputErrorf("the prompt read from stdin is empty")
	}
	return string(b), nil
}

func (a *app) respondOnce(c *cobra.Command, client *api.Client, req api.ResponseRequest, asJSON bool) error {
	start := time.Now()
	r, err := client.CreateResponse(c.Context(), req)
	if err != nil {
		return err
	}
	if asJSON {
		writeRaw(a.io.Out, r.Raw)
	} else {
		text := textsafe.Clean(r.OutputTextAll())
		fmt.Fprint(a.io.Out, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(a.io.Out)
		}
	}
	var fail *api.StreamError
	if r.Error != nil {
		fail = &api.StreamError{Code: r.Error.Code, Message: r.Error.Message}
		if r.ErrorType != nil {
			fail.ErrorType = string(*r.ErrorType)
		}
	}
	outcome := api.Outcome(r.Status)
	fmt.Fprintln(a.io.Err, summaryLine(outcome, r, 0, time.Since(start), fail))
	return outcomeError(outcome, r, fail, nil)
}

func (a *app) respondStream(c *cobra.Command, client *api.Client, req api.ResponseRequest, asJSON bool) error {
	s, err := client.StreamResponse(c.Context(), req)
	if err != nil {
		return err
	}
	defer s.Close()
	out := bufio.NewWriterSize(a.io.Out, 64<<10)
	var endErr error
	wrote := false
	last := ""
	for {
		ev, err := s.Next()
		if err != nil {
			if err != io.EOF {
				endErr = err
			}
			break
		}
		if asJSON || ev.Type != api.EventOutputTextDelta && ev.Type != api.EventRefusalDelta {
			continue
		}
		piece := textsafe.Clean(ev.Delta)
		out.WriteString(piece)
		if piece != "" {
			wrote, last = true, piece
		}
		if a.io.OutTTY {
			out.Flush()
		}
	}
	if asJSON {
		if f := s.Final(); f != nil {
			out.Write(f.Raw)
			out.WriteByte('\n')
		}
	} else if wrote && !strings.HasSuffix(last, "\n") {
		out.WriteByte('\n')
	}
	out.Flush()
	elapsed := time.Since(s.Started())
	fmt.Fprintln(a.io.Err, summaryLine(s.Outcome(), s.Final(), s.TimeToFirstToken(), elapsed, s.Failure()))
	return outcomeError(s.Outcome(), s.Final(), s.Failure(), endErr)
}

// summaryLine is the one-line summary respond prints on stderr.
func summaryLine(o api.Outcome, r *api.Response, ttft, elapsed time.Duration, fail *api.StreamError) string {
	parts := []string{string(o)}
	if r != nil && r.Usage != nil {
		u := r.Usage
		parts = append(parts,
			fmt.Sprintf("in %s (cached %s)", format.Int(u.InputTokens), format.Int(u.InputTokensDetails.CachedTokens)),
			fmt.Sprintf("out %s (reasoning %s)", format.Int(u.OutputTokens), format.Int(u.OutputTokensDetails.ReasoningTokens)),
			"cost "+format.CostPtr(u.Cost))
		gen := elapsed - ttft
		if gen > 0 && u.OutputTokens > 0 {
			parts = append(parts, fmt.Sprintf("%.1f tok/s", float64(u.OutputTokens)/gen.Seconds()))
		}
	}
	if ttft > 0 {
		parts = append(parts, "ttft "+format.Seconds(ttft))
	}
	parts = append(parts, "elapsed "+format.Seconds(elapsed))
	if fail != nil {
		parts = append(parts, textsafe.Line(fail.Error()))
	}
	return strings.Join(parts, " · ")
}

// outcomeError maps how a response ended to the exit status.
func outcomeError(o api.Outcome, r *api.Response, fail *api.StreamError, endErr error) error {
	switch o {
	case api.OutcomeCompleted:
		return nil
	case api.OutcomeIncomplete:
		reason := "unknown reason"
		if r != nil && r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		return &exitError{code: ExitFailure, msg: "response incomplete: " + textsafe.Line(reason)}
	case api.OutcomeFailed:
		msg := "response failed"
		if fail != nil {
			msg = fail.Error()
		}
		return &exitError{code: ExitFailure, msg: textsafe.Line(msg)}
	case api.OutcomeInterrupted:
		cause := "the stream ended before a terminal event"
		var ie *api.InterruptedError
		if errors.As(endErr, &ie) {
			cause = describe(ie)
		}
		return &exitError{code: ExitFailure, msg: "response interrupted: " + cause + " (the text above is what arrived)"}
	case api.OutcomeStopped:
		return &exitError{code: ExitFailure, msg: "stopped"}
	}
	if endErr != nil {
		return endErr
	}
	return &exitError{code: ExitFailure, msg: "response ended " + string(o)}
}
