package cmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
)

// maxCompare is how many models one comparison sends to.
const maxCompare = 4

// contestant is one model of a comparison: its answer goes to a temporary
// file as it arrives, so that memory per stream stays as flat as with one
// model.
type contestant struct {
	model   string
	outcome api.Outcome
	text    *os.File
	bytes   int64
	werr    error
}

// compare sends the same request to every model at once.
func (a *app) compare(c *cobra.Command, client *api.Client, req api.ResponseRequest, models []string, asJSON, noStream bool) error {
	defer a.streamingGC()()
	runs := make([]*contestant, len(models))
	for i, m := range models {
		f, err := os.CreateTemp("", "gwdash-compare-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // gone when closed
		defer f.Close()
		runs[i] = &contestant{model: m, text: f}
	}
	group := a.reqlog.NewGroup()
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func(r *contestant) {
			defer wg.Done()
			rq := req
			rq.Model = r.model
			call := a.reqlog.Begin(rq, reqlog.Meta{CompareGroup: group, ReplayOf: a.logMeta.ReplayOf})
			defer func() { call.Finish(r.outcome) }()
			if noStream {
				start := time.Now()
				resp, err := client.CreateResponse(c.Context(), rq)
				r.outcome = api.OutcomeOf(r.model, resp, err, start, time.Now())
				if resp != nil {
					r.write(resp.OutputTextAll())
				}
				return
			}
			s, err := client.StreamResponse(c.Context(), rq)
			if err != nil {
				r.outcome = api.OpenFailed(r.model, err, time.Now(), time.Now())
				return
			}
			defer s.Close()
			for {
				ev, err := s.Next()
				if err != nil {
					break
				}
				if ev.Type == api.EventOutputTextDelta || ev.Type == api.EventRefusalDelta {
					r.write(ev.Delta)
				}
				call.Event(ev)
			}
			r.outcome = s.Outcome()
			if r.bytes == 0 && r.outcome.FinalText != "" {
				r.write(r.outcome.FinalText)
			}
		}(r)
	}
	wg.Wait()
	now := time.Now()
	failed := false
	for _, r := range runs {
		failed = failed || !r.outcome.OK()
		if asJSON {
			a.compareJSON(r)
			continue
		}
		fmt.Fprintln(a.out, "── "+oneLine(r.model)+" ── "+oneLine(r.outcome.Message()))
		r.copyText(a.out)
		fmt.Fprintln(a.out)
	}
	for _, r := range runs {
		fmt.Fprintln(a.errw, oneLine(r.model)+": "+present.Summary(r.outcome, now))
	}
	outcomes := make([]api.Outcome, len(runs))
	for i, r := range runs {
		outcomes[i] = r.outcome
	}
	for _, line := range present.Ranking(outcomes) {
		fmt.Fprintln(a.errw, line)
	}
	if failed {
		return &exitError{code: ExitFailure}
	}
	return nil
}

func (r *contestant) write(s string) {
	if r.werr != nil || s == "" {
		return
	}
	n, err := io.WriteString(r.text, s)
	r.bytes += int64(n)
	r.werr = err
}

// copyText writes the answer kept in the file.
func (r *contestant) copyText(w io.Writer) {
	r.text.Seek(0, io.SeekStart)
	io.Copy(w, bufio.NewReader(r.text))
}

// compareJSON writes one JSON object for a contestant, its text escaped as
// it is read from the file (never whole in memory).
func (a *app) compareJSON(r *contestant) {
	o := r.outcome
	head := map[string]any{"model": r.model, "status": string(o.State)}
	w := bufio.NewWriter(a.io.Out)
	defer w.Flush()
	b := encodeJSON(head)
	w.Write(b[:len(b)-1])
	w.WriteString(`,"text":"`)
	r.text.Seek(0, io.SeekStart)
	rd := bufio.NewReader(r.text)
	buf := make([]byte, 32<<10)
	var carry []byte
	for {
		n, err := rd.Read(buf)
		chunk := append(carry, buf[:n]...)
		// keep an unfinished rune for the next read
		cut := len(chunk)
		for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-3; i-- {
			if chunk[i]&0xC0 == 0xC0 {
				if !fullRune(chunk[i:]) {
					cut = i
				}
				break
			}
			if chunk[i] < 0x80 {
				break
			}
		}
		q := quoteJSON(string(chunk[:cut]))
		a.writeJSONFragment(w, q[1:len(q)-1])
		carry = append([]byte(nil), chunk[cut:]...)
		if err != nil {
			break
		}
	}
	if len(carry) > 0 {
		q := quoteJSON(string(carry))
		a.writeJSONFragment(w, q[1:len(q)-1])
	}
	w.WriteString(`"`)
	tail := map[string]any{"usage": nil, "cost": nil, "ttft_ms": nil, "tokens_per_second": nil, "generation_id": nil, "error": nil}
	if u := o.Usage(); u != nil {
		tail["usage"] = u
		tail["cost"] = u.Cost
	}
	if ttft := o.TTFT(); ttft > 0 && o.Streamed {
		tail["ttft_ms"] = ttft.Milliseconds()
	}
	if tps, ok := o.TokensPerSecond(); ok {
		tail["tokens_per_second"] = tps
	}
	if o.GenerationID != "" {
		tail["generation_id"] = o.GenerationID
	}
	if !o.OK() {
		tail["error"] = o.Message()
	}
	for _, k := range []string{"usage", "cost", "ttft_ms", "tokens_per_second", "generation_id", "error"} {
		v := encodeJSON(tail[k])
		fmt.Fprintf(w, `,%q:`, k)
		a.writeJSONFragment(w, v)
	}
	w.WriteString("}\n")
}

// writeJSONFragment writes JSON bytes with controls escaped.
func (a *app) writeJSONFragment(w io.Writer, b []byte) {
	w.Write(textsafe.JSON(b))
}

// quoteJSON is a JSON string without HTML escaping.
func quoteJSON(s string) []byte { return encodeJSON(s) }

func fullRune(b []byte) bool {
	n := 0
	switch c := b[0]; {
	case c&0xE0 == 0xC0:
		n = 2
	case c&0xF0 == 0xE0:
		n = 3
	case c&0xF8 == 0xF0:
		n = 4
	}
	return len(b) >= n
}
