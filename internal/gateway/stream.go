package gateway

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// sseWriter writes events with increasing sequence numbers.
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	seq     int
	bw      *bufio.Writer
}

// startSSE answers 200 with the headers of an event stream and returns
// the writer of its events.
func startSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return &sseWriter{w: w, flusher: fl, bw: bufio.NewWriterSize(w, 32<<10)}
}

func (s *sseWriter) event(typ string, payload map[string]any) {
	payload["type"] = typ
	payload["sequence_number"] = s.seq
	s.seq++
	b, _ := json.Marshal(payload)
	s.bw.WriteString("event: ")
	s.bw.WriteString(typ)
	s.bw.WriteString("\ndata: ")
	s.bw.Write(b)
	s.bw.WriteString("\n\n")
}

func (s *sseWriter) raw(line string) { s.bw.WriteString(line) }

func (s *sseWriter) flush() {
	s.bw.Flush()
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// stream answers a streaming request with the real event sequence.
func (g *Gateway) stream(w http.ResponseWriter, r *http.Request, q *respRequest, p plan) {
	s := startSSE(w)
	ctx := r.Context()
	start := g.now()
	sent := 0 // output tokens sent, for the bill of a stream that ends early
	billed := false
	bill := func(finish string, cancelled bool) {
		if !billed {
			billed = true
			g.charge(q, p, start, sent, finish, true, cancelled)
		}
	}
	defer func() {
		if ctx.Err() != nil { // the client stopped the stream
			bill("", true)
		}
	}()

	// Keep-alive comments while "waiting on the upstream".
	s.raw(": OPENROUTER PROCESSING\n\n")
	s.flush()
	if g.opts.ThinkTime > 0 {
		deadline := time.Now().Add(g.opts.ThinkTime)
		for time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(min(g.opts.KeepAliveEvery, time.Until(deadline))):
			}
			s.raw(": OPENROUTER PROCESSING\n\n")
			s.flush()
		}
	}

	inProgress := fullResponse(p.id, q.Model, p.created, "in_progress", "", 0, 0, 0)
	q.echo(inProgress)
	s.event("response.created", map[string]any{"response": inProgress})
	s.event("response.in_progress", map[string]any{"response": inProgress})
	s.flush()

	drop := q.Model == ModelDrop || g.chance(g.opts.DropRate)
	failAt := -1
	if q.Model == ModelFailMidstream || q.Model == ModelErrorEvent {
		failAt = min(30, len(p.tokens)/2)
	}
	dropAt := -1
	if drop {
		dropAt = min(25, len(p.tokens)/2)
	}

	var tick pacer
	tick.init(g.opts.TokensPerSecond)
	outIndex := 0
	if len(p.reasoning) > 0 {
		rid := "rs-" + p.id
		s.event("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"type": "reasoning", "id": rid, "status": "in_progress", "summary": []any{}, "content": []any{}}})
		s.event("response.content_part.added", map[string]any{"item_id": rid, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "reasoning_text", "text": ""}})
		for _, t := range p.reasoning {
			s.event("response.reasoning_text.delta", map[string]any{"item_id": rid, "output_index": 0, "content_index": 0, "delta": t})
			sent++
			if !tick.wait(ctx.Done(), s) {
				return
			}
		}
		rt := strings.Join(p.reasoning, "")
		s.event("response.reasoning_text.done", map[string]any{"item_id": rid, "output_index": 0, "content_index": 0, "text": rt})
		s.event("response.content_part.done", map[string]any{"item_id": rid, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "reasoning_text", "text": rt}})
		s.event("response.output_item.done", map[string]any{"output_index": 0, "item": reasoningItem(p.id, rt)})
		outIndex = 1
	}

	mid := "msg-" + p.id
	partType, deltaType, doneType := "output_text", "response.output_text.delta", "response.output_text.done"
	if p.refusal {
		partType, deltaType, doneType = "refusal", "response.refusal.delta", "response.refusal.done"
	}
	emptyPart := map[string]any{"type": partType, "text": "", "annotations": []any{}}
	if p.refusal {
		emptyPart = map[string]any{"type": "refusal", "refusal": ""}
	}
	s.event("response.output_item.added", map[string]any{"output_index": outIndex, "item": map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}}})
	s.event("response.content_part.added", map[string]any{"item_id": mid, "output_index": outIndex, "content_index": 0, "part": emptyPart})
	s.flush()
	var text0 strings.Builder
	for i, t := range p.tokens {
		if i == dropAt {
			s.flush()
			bill("", true)
			dropConnection(w)
			return
		}
		if i == failAt {
			bill("error", false)
			g.failStream(s, q, p, text0.String(), outIndex)
			return
		}
		ev := map[string]any{"item_id": mid, "output_index": outIndex, "content_index": 0, "delta": t}
		if !p.refusal {
			ev["logprobs"] = []any{}
		}
		s.event(deltaType, ev)
		if !p.bulk {
			text0.WriteString(t)
		}
		sent++
		if !tick.wait(ctx.Done(), s) {
			return
		}
	}
	text := text0.String()
	done := map[string]any{"item_id": mid, "output_index": outIndex, "content_index": 0}
	if p.refusal {
		done["refusal"] = text
	} else {
		done["text"] = text
		done["logprobs"] = []any{}
	}
	s.event(doneType, done)
	part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	if p.refusal {
		part = map[string]any{"type": "refusal", "refusal": text}
	}
	s.event("response.content_part.done", map[string]any{"item_id": mid, "output_index": outIndex, "content_index": 0, "part": part})
	final := g.finalResponse(q, p, text, g.now().Sub(start))
	output := final["output"].([]any)
	s.event("response.output_item.done", map[string]any{"output_index": outIndex, "item": output[len(output)-1]})
	terminal, finish := "response.completed", "stop"
	if p.status == "incomplete" {
		terminal, finish = "response.incomplete", "length"
	}
	bill(finish, false)
	s.event(terminal, map[string]any{"response": final})
	s.raw("data: [DONE]\n\n")
	s.flush()
}

// failStream ends a stream with an error, in the form the model asks for.
func (g *Gateway) failStream(s *sseWriter, q *respRequest, p plan, text string, outIndex int) {
	if q.Model == ModelErrorEvent {
		s.event("error", map[string]any{"code": "provider_overloaded", "message": "The provider is overloaded; the stream was stopped", "param": nil})
		s.flush()
		return
	}
	failed := fullResponse(p.id, q.Model, p.created, "failed", text, p.inTokens, len(strings.Fields(text)), 0)
	q.echo(failed)
	failed["error"] = map[string]any{"code": "server_error", "message": "The upstream provider disconnected mid-generation"}
	failed["error_type"] = "provider_unavailable"
	s.event("response.failed", map[string]any{"response": failed, "error_type": "provider_unavailable"})
	s.raw("data: [DONE]\n\n")
	s.flush()
}

// pacer spaces tokens at a rate, sleeping in slices of at least 5ms so
// that high rates do not cost a timer per token, and flushing before each
// sleep.
type pacer struct {
	per   time.Duration
	start time.Time
	n     int
}

func (p *pacer) init(rate float64) {
	if rate > 0 {
		p.per = time.Duration(float64(time.Second) / rate)
	}
	p.start = time.Now()
}

func (p *pacer) wait(done <-chan struct{}, s *sseWriter) bool {
	p.n++
	if p.per <= 0 {
		select {
		case <-done:
			return false
		default:
		}
		return true
	}
	due := p.start.Add(time.Duration(p.n) * p.per)
	if d := time.Until(due); d >= 5*time.Millisecond {
		s.flush()
		select {
		case <-done:
			return false
		case <-time.After(d):
		}
	}
	return true
}
