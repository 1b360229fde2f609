package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/jsonschema"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// maxToolTurns bounds the turns of a tool loop answered from a results
// file (a model that keeps calling stops here).
const maxToolTurns = api.MaxToolTurns

// depthFlags are respond's flags for structured outputs, function tools
// and provider routing.
type depthFlags struct {
	schema, schemaName, format              string
	strict                                  bool
	tools, toolChoice, toolResults          string
	parallel                                bool
	order, only, ignore, sortBy, fallbacks  string
	noFallbacks, requireParams              bool
	dataCollection, quantizations, maxPrice string

	// read by apply
	fs         *pflag.FlagSet
	toolList   []api.FunctionTool
	results    map[string]string
	resultFile string
	textFormat *api.TextFormat
}

func (d *depthFlags) register(f *pflag.FlagSet) {
	d.fs = f
	f.StringVar(&d.schema, "schema", "", "JSON Schema file (or - for stdin): ask for JSON that follows it, and check the answer")
	f.StringVar(&d.schemaName, "schema-name", "", "name of the schema sent (default: the file's name)")
	f.BoolVar(&d.strict, "strict", false, "ask for strict schema adherence")
	f.StringVar(&d.format, "format", "", "response format without a schema: text or json_object")
	f.StringVar(&d.tools, "tools", "", "JSON file of function tools: a list of {name, description, parameters}")
	f.StringVar(&d.toolChoice, "tool-choice", "", "auto, none, required, or a tool's name")
	f.StringVar(&d.toolResults, "tool-results", "", "JSON file of canned tool results by tool name: answers calls and continues")
	f.BoolVar(&d.parallel, "parallel-tool-calls", true, "let the model make several calls at once (sent only when given)")
	f.StringVar(&d.order, "provider-order", "", "providers to try first, in order (comma-separated)")
	f.StringVar(&d.only, "provider-only", "", "only these providers (comma-separated)")
	f.StringVar(&d.ignore, "provider-ignore", "", "never these providers (comma-separated)")
	f.StringVar(&d.sortBy, "provider-sort", "", "rank providers by "+strings.Join(api.ProviderSorts, ", "))
	f.BoolVar(&d.noFallbacks, "no-fallbacks", false, "do not fall back to other providers")
	f.BoolVar(&d.requireParams, "require-parameters", false, "only providers that support every parameter sent")
	f.StringVar(&d.dataCollection, "data-collection", "", "allow or deny providers that may store prompts")
	f.StringVar(&d.quantizations, "quantizations", "", "only endpoints of these quantizations (comma-separated: "+strings.Join(api.Quantizations, ", ")+")")
	f.StringVar(&d.maxPrice, "max-price", "", "price caps in dollars per million tokens: prompt=0.5,completion=2")
	f.StringVar(&d.fallbacks, "fallback-models", "", "models to try in order when the first fails (comma-separated)")
}

// active reports whether the answer needs the depth runner (checked JSON,
// or calls to print or answer).
func (d *depthFlags) active() bool {
	return d.textFormat != nil && d.textFormat.Type != api.FormatText || len(d.toolList) > 0
}

// readFlagFile reads the file a flag names, bounded; errors name the flag.
func (a *app) readFlagFile(flag, path string, limit int64) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		r = a.io.In
	} else {
		f, err := os.Open(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, inputErrorf("--%s: %s does not exist", flag, path)
		case errors.Is(err, fs.ErrPermission):
			return nil, inputErrorf("--%s: %s cannot be read (permission denied)", flag, path)
		case err != nil:
			return nil, inputErrorf("--%s: %s cannot be opened", flag, path)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, inputErrorf("--%s: %s could not be read", flag, path)
	}
	if int64(len(b)) > limit {
		return nil, inputErrorf("--%s: %s is larger than %d bytes", flag, path, limit)
	}
	return b, nil
}

// apply reads the files and flags into the request; anything wrong is an
// input error (exit 2) before any request.
func (d *depthFlags) apply(a *app, req *api.ResponseRequest) error {
	changed := d.fs.Changed
	switch {
	case d.schema == "" && (changed("schema-name") || changed("strict")):
		return inputErrorf("--schema-name and --strict need --schema")
	case d.schema != "" && d.format != "":
		return inputErrorf("--format and --schema are exclusive (a schema means json_schema)")
	case d.tools == "" && (d.toolChoice != "" || d.toolResults != "" || changed("parallel-tool-calls")):
		return inputErrorf("--tool-choice, --tool-results and --parallel-tool-calls need --tools")
	}
	if d.schema != "" {
		b, err := a.readFlagFile("schema", d.schema, jsonschema.MaxSchemaBytes)
		if err != nil {
			return err
		}
		name := d.schemaName
		if name == "" {
			name = api.SchemaName(d.schema)
		}
		f, err := api.SchemaFormat(name, b, d.strict)
		if err != nil {
			return err
		}
		d.textFormat = f
	} else if d.format != "" {
		if d.format != api.FormatText && d.format != api.FormatJSONObject {
			return &api.ValidationError{Field: "--format", Rule: "must be text or json_object (use --schema for json_schema)"}
		}
		d.textFormat = &api.TextFormat{Type: d.format}
	}
	if d.textFormat != nil {
		req.Text = &api.TextConfig{Format: d.textFormat}
	}
	if d.tools != "" {
		b, err := a.readFlagFile("tools", d.tools, api.MaxToolsFileBytes)
		if err != nil {
			return err
		}
		tools, err := api.ParseTools(b)
		if err != nil {
			return err
		}
		var choice api.ToolChoice
		if d.toolChoice != "" {
			if choice, err = api.ParseToolChoice(d.toolChoice); err != nil {
				return err
			}
		}
		if err := req.SetTools(tools, choice); err != nil {
			return err
		}
		d.toolList = tools
		if changed("parallel-tool-calls") {
			p := d.parallel
			req.ParallelToolCalls = &p
		}
	}
	if d.toolResults != "" {
		b, err := a.readFlagFile("tool-results", d.toolResults, api.MaxToolsFileBytes)
		if err != nil {
			return err
		}
		if d.results, err = api.ParseToolResults(b); err != nil {
			return err
		}
		d.resultFile = d.toolResults
	}
	p := &api.ProviderPreferences{Order: api.SplitList(d.order), Only: api.SplitList(d.only), Ignore: api.SplitList(d.ignore),
		Sort: d.sortBy, DataCollection: d.dataCollection, Quantizations: api.SplitList(d.quantizations)}
	if d.noFallbacks {
		f := false
		p.AllowFallbacks = &f
	}
	if d.requireParams {
		t := true
		p.RequireParameters = &t
	}
	if d.maxPrice != "" {
		mp, err := api.ParseMaxPrice(d.maxPrice)
		if err != nil {
			return err
		}
		p.MaxPrice = mp
	}
	if !p.Empty() {
		req.Provider = p
	}
	req.Models = api.SplitList(d.fallbacks)
	return nil
}

// turn is one answer of the depth runner.
type turn struct {
	text    string
	calls   []api.Call
	final   *api.Response
	outcome api.Outcome
}

// runTurn sends one request and prints its text as it arrives (streamed)
// or at the end; it keeps the text (to check it) up to the validator's
// bound, and the calls.
func (a *app) runTurn(c *cobra.Command, client *api.Client, req api.ResponseRequest, asJSON, noStream bool) (turn, error) {
	var t turn
	var text strings.Builder
	// Each turn is a row of the request log (with its format, tools and
	// routing), like any other respond.
	call := a.reqlog.Begin(req, a.logMeta)
	defer func() { call.Finish(t.outcome) }()
	keep := func(s string) {
		if text.Len()+len(s) <= jsonschema.MaxAnswerBytes {
			text.WriteString(s)
		}
	}
	if noStream {
		start := time.Now()
		r, err := client.CreateResponse(c.Context(), req)
		t.outcome = api.OutcomeOf(req.Model, r, err, start, time.Now())
		if err != nil && t.outcome.State != api.EndStopped {
			return t, err
		}
		if r != nil {
			keep(r.OutputTextAll())
			if !asJSON {
				io.WriteString(a.out, r.OutputTextAll())
			}
			t.calls, t.final = api.CallsOf(r), r
		}
	} else {
		start := time.Now()
		s, err := client.StreamResponse(c.Context(), req)
		if err != nil {
			t.outcome = api.OpenFailed(req.Model, err, start, time.Now())
			return t, err
		}
		defer s.Close()
		var calls api.Calls
		for {
			ev, err := s.Next()
			if err != nil {
				break
			}
			call.Event(ev)
			calls.Apply(ev)
			if ev.Type == api.EventOutputTextDelta {
				keep(ev.Delta)
				if !asJSON {
					io.WriteString(a.out, ev.Delta)
				}
			}
		}
		t.outcome = s.Outcome()
		if t.outcome.FinalText != "" && text.Len() == 0 {
			keep(t.outcome.FinalText)
			if !asJSON {
				io.WriteString(a.out, t.outcome.FinalText)
			}
		}
		t.calls, t.final = calls.List(), t.outcome.Final
	}
	t.text = text.String()
	if !asJSON && t.text != "" && !strings.HasSuffix(t.text, "\n") {
		io.WriteString(a.out, "\n")
	}
	if asJSON && t.final != nil {
		a.json(t.final.Raw)
	}
	fmt.Fprintln(a.errw, present.Summary(t.outcome, time.Now()))
	return t, nil
}

// respondDepth runs a request with a response format or tools: it checks
// the answer against the schema, prints calls, and answers them from the
// results file turn after turn.
func (a *app) respondDepth(c *cobra.Command, client *api.Client, req api.ResponseRequest, d *depthFlags, asJSON, noStream bool) error {
	for turnNo := 1; ; turnNo++ {
		t, err := a.runTurn(c, client, req, asJSON, noStream)
		if err != nil {
			return err
		}
		if !t.outcome.OK() {
			return &exitError{code: ExitFailure}
		}
		for _, call := range t.calls {
			if err := api.CheckArguments(call, d.toolList); err != nil {
				fmt.Fprintf(a.errw, "gwdash: the arguments of %s (call %s) do not fit its parameters: %s\n", call.Name, call.CallID, err)
			}
		}
		if len(t.calls) == 0 {
			return a.checkAnswer(d.textFormat, t.text)
		}
		if d.results == nil {
			// no canned results: the calls are the answer
			if !asJSON {
				for _, call := range t.calls {
					a.json(encodeJSON(map[string]string{"type": "function_call", "call_id": call.CallID, "name": call.Name, "arguments": call.Arguments}))
				}
			}
			return nil
		}
		if turnNo >= maxToolTurns {
			return &exitError{code: ExitFailure, msg: fmt.Sprintf("the model still calls tools after %d turns; stopping", maxToolTurns)}
		}
		outputs, missing := api.AnswerCalls(t.calls, d.results)
		if len(missing) > 0 {
			return &exitError{code: ExitFailure, msg: fmt.Sprintf("the model called %s, which %s has no result for", missing[0].Name, d.resultFile)}
		}
		for _, call := range t.calls {
			fmt.Fprintf(a.errw, "gwdash: %s(%s) answered from %s\n", call.Name, call.Arguments, d.resultFile)
		}
		var previous []api.OutputItem
		if t.final != nil {
			previous = t.final.Output
		}
		in, err := api.ContinueWith(req.Input, previous, outputs)
		if err != nil {
			return err
		}
		req.Input = in
	}
}

// checkAnswer validates a structured answer: every violation goes to
// stderr with its JSON pointer, and the exit status is 1.
func (a *app) checkAnswer(f *api.TextFormat, text string) error {
	if f == nil || f.Type == api.FormatText {
		return nil
	}
	chk, err := api.CheckAnswer(f, text)
	if err != nil {
		return err
	}
	switch {
	case chk.Valid && f.Type == api.FormatJSONSchema:
		fmt.Fprintln(a.errw, "gwdash: the answer is valid: it matches the schema")
		return nil
	case chk.Valid:
		fmt.Fprintln(a.errw, "gwdash: the answer is valid JSON")
		return nil
	case chk.NotJSON != "":
		return &exitError{code: ExitFailure, msg: chk.NotJSON}
	}
	fmt.Fprintf(a.errw, "gwdash: the answer does not match the schema (%d problem(s)):\n", len(chk.Problems)+chk.Omitted)
	for _, p := range chk.Problems {
		fmt.Fprintln(a.errw, "  "+p.String())
	}
	if chk.Omitted > 0 {
		fmt.Fprintf(a.errw, "  and %d more\n", chk.Omitted)
	}
	return &exitError{code: ExitFailure}
}
