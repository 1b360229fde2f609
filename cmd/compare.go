package cmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
)

// maxCompare is how many models one comparison sends to.
const maxCompare = 4

// contestant is one model of a comparison: its answer goes to a temporary
// file (its spool) as it arrives, so that memory per stream stays as flat
// as with one model, and at most cap bytes of it: past the cap the
// model's stream stops, "truncated at" the cap, with what arrived kept.
type contestant struct {
	model   string
	outcome api.Outcome
	text    *os.File
	path    string
	bytes   int64
	cap     int64
	full    bool // the cap was reached: the rest was not kept
	werr    error
}

// spool opens a contestant's temporary file in dir ("" = the system's).
// It is unlinked at once where the system allows it (gone even if the
// process is killed), and close removes it on every other path.
func spool(dir, model string, cap int64) (*contestant, error) {
	f, err := os.CreateTemp(dir, "gwdash-compare-*")
	if err != nil {
		return nil, &exitError{code: ExitFailure, msg: "cannot keep the answers of a comparison: " + err.Error()}
	}
	os.Remove(f.Name())
	return &contestant{model: model, text: f, path: f.Name(), cap: cap}, nil
}

// close closes and removes the spool (again: a system that keeps an open
// file's name removes it only now).
func (r *contestant) close() {
	r.text.Close()
	os.Remove(r.path)
}

// compare sends the same request to every model at once. answerCap is
// the text kept per model (config answer_cap_mb).
func (a *app) compare(c *cobra.Command, client *api.Client, req api.ResponseRequest, models []string, asJSON, noStream bool, answerCap int64) error {
	defer a.streamingGC()()
	runs := make([]*contestant, 0, len(models))
	defer func() {
		for _, r := range runs {
			r.close()
		}
	}()
	for _, m := range models {
		r, err := spool(a.env("TMPDIR"), m, answerCap)
		if err != nil {
			return err
		}
		runs = append(runs, r)
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
			defer func() {
				// A fault here ends this model's answer, not the
				// program: the spools are still removed on the way out.
				if p := recover(); p != nil {
					r.outcome = api.OpenFailed(r.model, fmt.Errorf("internal error: %v", p), time.Now(), time.Now())
				}
			}()
			r.run(c, client, rq, noStream, call.Event)
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

// run sends the request to the contestant's model and spools its answer.
// run sends one model's request; event sees every streamed event (the
// request log).
func (r *contestant) run(c *cobra.Command, client *api.Client, req api.ResponseRequest, noStream bool, event func(api.Event)) {
	req.Model = r.model
	if noStream {
		start := time.Now()
		resp, err := client.CreateResponse(c.Context(), req)
		r.outcome = api.OutcomeOf(r.model, resp, err, start, time.Now())
		if resp != nil {
			r.write(resp.OutputTextAll())
		}
		r.truncated()
		return
	}
	s, err := client.StreamResponse(c.Context(), req)
	if err != nil {
		r.outcome = api.OpenFailed(r.model, err, time.Now(), time.Now())
		return
	}
	defer s.Close()
	for !r.full {
		ev, err := s.Next()
		if err != nil {
			break
		}
		if ev.Type == api.EventOutputTextDelta || ev.Type == api.EventRefusalDelta {
			r.write(ev.Delta)
		}
		event(ev)
	}
	s.Close() // a truncated answer stops here: nothing more is read
	r.outcome = s.Outcome()
	if r.bytes == 0 && r.outcome.FinalText != "" {
		r.write(r.outcome.FinalText)
	}
	r.truncated()
}

// truncated marks the outcome of an answer that went past the cap.
func (r *contestant) truncated() {
	if r.full {
		r.outcome = r.outcome.Truncated(time.Now(), r.cap)
	}
}

// write spools s, up to the cap (cut at a rune's start).
func (r *contestant) write(s string) {
	if r.werr != nil || r.full || s == "" {
		return
	}
	if room := r.cap - r.bytes; int64(len(s)) > room {
		s, r.full = format.CutBytes(s, int(max(0, room))), true
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
	b := textsafe.JSON(encodeJSON(head))
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
		w.Write(textsafe.AppendJSONStringBody(nil, string(chunk[:cut])))
		carry = append([]byte(nil), chunk[cut:]...)
		if err != nil {
			break
		}
	}
	if len(carry) > 0 {
		w.Write(textsafe.AppendJSONStringBody(nil, string(carry)))
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

// writeJSONFragment writes a JSON value re-encoded (textsafe.JSON).
func (a *app) writeJSONFragment(w io.Writer, b []byte) {
	w.Write(textsafe.JSON(b))
}

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
