package cmd

import (
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/spf13/cobra"
)

// send sends req as respond does: to every model at once when there are
// several (compare), else once (noStream) or as a stream.
func (a *app) send(c *cobra.Command, client *api.Client, req api.ResponseRequest, models []string, asJSON, noStream bool, answerCap int64) error {
	if len(models) > 1 {
		return a.compare(c, client, req, models, asJSON, noStream, answerCap)
	}
	if noStream {
		return a.respondOnce(c, client, req, asJSON)
	}
	return a.respondStream(c, client, req, asJSON)
}

// sendFlags adds the flags of how send answers, shared by respond and logs
// replay.
func sendFlags(c *cobra.Command, noStream, asJSON *bool) {
	f := c.Flags()
	f.BoolVar(noStream, "no-stream", false, "send one non-streaming request")
	f.BoolVar(asJSON, "json", false, "print the final Response object exactly as the server sent it")
}

func (a *app) respondCommand() *cobra.Command {
	var (
		instructions, effort, tier, session, user string
		models                                    []string
		noStream, asJSON, routing                 bool
		maxOut, maxTools                          int
		temperature, topP                         float64
		metadata                                  []string
		depth                                     depthFlags // respond_depth.go
	)
	c := &cobra.Command{
		Use:   "respond [PROMPT|-]",
		Short: "Send a prompt to POST /responses and stream the answer to stdout; several --model compare",
		Long: `Send a prompt and write the answer's text to stdout as it arrives; a
one-line summary (status, tokens, cost, time to first token, tokens per
second, generation id) goes to stderr. "-" or no prompt reads it from stdin.
A failed, incomplete or interrupted response exits 1 after printing what
arrived.

With 2 to 4 --model flags the same prompt and settings go to every model at
once: each answer is printed under its model when all have ended, with one
summary line per model on stderr (ranked by time to first token, speed and
cost), or with --json one JSON object per model per line (model, status,
text, usage, cost, ttft_ms, tokens_per_second, generation_id, error).
Until then each answer waits in a temporary file, removed on every exit,
of at most answer_cap_mb (--answer-cap-mb, default 64): past it that
model's stream stops, "truncated at" the cap, and what arrived is kept.
One model's answer is written through and kept nowhere.

--schema FILE asks for JSON that follows a JSON Schema and checks the
answer (exit 1 naming each violation); --tools FILE offers function tools
(each call is printed as a JSON line, or answered from --tool-results FILE
and the conversation continues); the --provider-* flags, --no-fallbacks
and --fallback-models choose who serves. A bad schema, tools file or
routing flag exits 2 before any request.`,
		Args: maxArgs(1, "one prompt (quote it) or -"),
		RunE: func(c *cobra.Command, args []string) error {
			prompt, err := a.prompt(args)
			if err != nil {
				return err
			}
			req := api.ResponseRequest{Input: api.Input{Text: prompt}, Instructions: instructions,
				ServiceTier: tier, SessionID: session, User: user, RoutingMetadata: routing}
			if c.Flags().Changed("max-output-tokens") {
				req.MaxOutputTokens = &maxOut
			}
			if c.Flags().Changed("max-tool-calls") {
				req.MaxToolCalls = &maxTools
			}
			if c.Flags().Changed("temperature") {
				req.Temperature = &temperature
			}
			if c.Flags().Changed("top-p") {
				req.TopP = &topP
			}
			if effort != "" {
				req.Reasoning = &api.Reasoning{Effort: effort}
			}
			if len(metadata) > 0 {
				md, err := api.ParseMetadata(metadata)
				if err != nil {
					return err
				}
				req.Metadata = md
			}
			if err := depth.apply(a, &req); err != nil {
				return err
			}
			switch {
			case len(models) == 0:
				return inputErrorf("--model is required (<provider>/<model>)")
			case len(models) > maxCompare:
				return inputErrorf("--model given %d times: compare 2 to %d models", len(models), maxCompare)
			}
			for _, m := range models {
				req.Model = m
				if err := req.Validate(); err != nil {
					return err
				}
			}
			cfg, client, err := a.client(true)
			if err != nil {
				return err
			}
			if len(models) == 1 && depth.active() {
				return a.respondDepth(c, client, req, &depth, asJSON, noStream)
			}
			return a.send(c, client, req, models, asJSON, noStream, cfg.AnswerCap)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&models, "model", nil, "model, <provider>/<model> (required; 2 to 4 of them compare)")
	sendFlags(c, &noStream, &asJSON)
	f.StringVar(&instructions, "instructions", "", "system instructions")
	f.IntVar(&maxOut, "max-output-tokens", 0, "cap on output tokens (at least 1)")
	f.StringVar(&effort, "reasoning-effort", "", "reasoning effort: "+strings.Join(api.ReasoningEfforts, ", "))
	f.StringVar(&tier, "service-tier", "", "service tier: "+strings.Join(api.ServiceTiers, ", ")+" (fast = priority)")
	f.StringArrayVar(&metadata, "metadata", nil, "metadata pair key=value (repeatable, or comma-separated; at most 16)")
	f.StringVar(&session, "session-id", "", "session id (at most 256 characters)")
	f.StringVar(&user, "user", "", "end-user id (at most 256 characters)")
	f.IntVar(&maxTools, "max-tool-calls", 0, "maximum server-tool steps, 0 to 30")
	f.Float64Var(&temperature, "temperature", 0, "sampling temperature, 0 to 2")
	f.Float64Var(&topP, "top-p", 0, "nucleus sampling, 0 to 1")
	f.BoolVar(&routing, "routing-metadata", false, "ask for routing metadata (X-OpenRouter-Metadata: enabled)")
	depth.register(f)
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
	call := a.reqlog.Begin(req, a.logMeta)
	start := time.Now()
	r, err := client.CreateResponse(c.Context(), req)
	o := api.OutcomeOf(req.Model, r, err, start, time.Now())
	call.Finish(o)
	if err != nil && o.State != api.EndStopped {
		return err
	}
	if r != nil {
		if asJSON {
			a.json(r.Raw)
		} else {
			text := r.OutputTextAll()
			if text == "" {
				text = r.RefusalText()
			}
			io.WriteString(a.out, text)
			if text != "" && !strings.HasSuffix(text, "\n") {
				io.WriteString(a.out, "\n")
			}
		}
	}
	fmt.Fprintln(a.errw, present.Summary(o, time.Now()))
	return outcomeError(o)
}

// respondStream writes each piece of the answer as it arrives, unbuffered
// (a pipe reader sees it live, and a signal loses nothing that arrived),
// and keeps none of it: memory stays flat however long the answer.
func (a *app) respondStream(c *cobra.Command, client *api.Client, req api.ResponseRequest, asJSON bool) error {
	defer a.streamingGC()()
	call := a.reqlog.Begin(req, a.logMeta)
	start := time.Now()
	s, err := client.StreamResponse(c.Context(), req)
	if err != nil {
		call.Finish(api.OpenFailed(req.Model, err, start, time.Now()))
		return err
	}
	defer s.Close()
	var last byte
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		call.Event(ev)
		if asJSON || ev.Type != api.EventOutputTextDelta && ev.Type != api.EventRefusalDelta || ev.Delta == "" {
			continue
		}
		if _, err := io.WriteString(a.out, ev.Delta); err != nil {
			s.Close()
			return &exitError{code: ExitFailure, msg: "writing the answer: " + err.Error()}
		}
		last = ev.Delta[len(ev.Delta)-1]
	}
	o := s.Outcome()
	call.Finish(o)
	switch {
	case asJSON && o.Final != nil:
		a.json(o.Final.Raw)
	case !asJSON && o.FinalText != "":
		// The server sent the answer only in its final event.
		io.WriteString(a.out, o.FinalText)
		last = o.FinalText[len(o.FinalText)-1]
	}
	if !asJSON && last != 0 && last != '\n' {
		io.WriteString(a.out, "\n")
	}
	fmt.Fprintln(a.errw, present.Summary(o, time.Now()))
	return outcomeError(o)
}

// outcomeError maps how a response ended to the exit status; the summary
// line already said why, so nothing is printed twice.
func outcomeError(o api.Outcome) error {
	if o.OK() {
		return nil
	}
	return &exitError{code: ExitFailure}
}

// streamingGC sets the collector for a stream and returns what puts it
// back. A streamed answer makes garbage at the speed of the network (each
// event is decoded and dropped) and keeps almost nothing: collecting at a
// fixed ceiling above what is live, instead of at every doubling of a
// tiny heap, halves the CPU a 1 GiB answer costs and keeps its peak near
// 50 MiB (bench/run.sh). GOGC or GOMEMLIMIT in the environment win.
func (a *app) streamingGC() func() {
	if a.env("GOGC") != "" || a.env("GOMEMLIMIT") != "" {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	live := int64(0)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		live = int64(sample[0].Value.Uint64())
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(live + 32<<20)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}
