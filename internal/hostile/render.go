package hostile

// Answers that are hostile by their size or their shape rather than by
// their bytes: an answer that never ends, and tiny answers of markdown
// nested deep enough to make a renderer take gigabytes. Render wraps a
// gateway so that a request for one of the models below gets its
// scenario; every other request passes on.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// The models whose answers Render replaces.
const (
	// ModelEndless streams EndlessDelta forever, until the client goes
	// away.
	ModelEndless = "hostile/endless"
	// ModelNestedQuotes answers NestedQuotes.
	ModelNestedQuotes = "hostile/nested-quotes"
	// ModelNestedList answers NestedList.
	ModelNestedList = "hostile/nested-list"
)

// EndlessDelta is each delta of the endless answer (4 KiB of text, a
// paragraph).
var EndlessDelta = strings.Repeat("endless answer text, ", 195) + "more.\n\n"

// NestedQuotes is a 130-byte answer: block quotes nested 120 deep.
var NestedQuotes = strings.Repeat(">", 120) + " deep text"

// NestedList is 400 list items, each nested in the one before (every
// marker on one line, 1.2 KB).
var NestedList = strings.Repeat("1. ", 400) + "deep"

// RenderAnswer is the text a nested scenario answers for a model.
func RenderAnswer(model string) (string, bool) {
	switch model {
	case ModelNestedQuotes:
		return NestedQuotes, true
	case ModelNestedList:
		return NestedList, true
	}
	return "", false
}

// Render wraps h: a POST to a responses endpoint for one of the models
// above is answered by its scenario (streamed, or whole when the request
// does not ask for a stream).
func Render(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body.Close()
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		text, nested := RenderAnswer(req.Model)
		switch {
		case req.Model == ModelEndless:
			endless(w, r, req.Model, req.Stream)
		case nested:
			answer(w, req.Model, text, req.Stream)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// endless streams deltas until the request's context ends. A request
// that does not ask for a stream gets an endless JSON body instead.
func endless(w http.ResponseWriter, r *http.Request, model string, stream bool) {
	ctx := r.Context()
	fl, _ := w.(http.Flusher)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"resp-endless","object":"response","model":`+quote(model)+`,"status":"completed","output_text":"`)
		piece := strings.Trim(quote(EndlessDelta), `"`)
		for ctx.Err() == nil {
			if _, err := io.WriteString(w, piece); err != nil {
				return
			}
		}
		return
	}
	sse(w)
	event(w, 0, map[string]any{"type": "response.created", "response": response(model, "in_progress", "")})
	delta, _ := json.Marshal(EndlessDelta)
	for seq := 1; ctx.Err() == nil; seq++ {
		if _, err := io.WriteString(w, `event: response.output_text.delta`+"\n"+`data: {"type":"response.output_text.delta","item_id":"msg-endless","output_index":0,"content_index":0,"delta":`+string(delta)+`,"sequence_number":`+itoa(seq)+"}\n\n"); err != nil {
			return
		}
		if fl != nil && seq%16 == 0 {
			fl.Flush()
		}
	}
}

// answer sends text as a whole, well-formed answer.
func answer(w http.ResponseWriter, model, text string, stream bool) {
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(response(model, "completed", text))
		w.Write(b)
		return
	}
	sse(w)
	event(w, 0, map[string]any{"type": "response.created", "response": response(model, "in_progress", "")})
	event(w, 1, map[string]any{"type": "response.output_text.delta", "item_id": "msg-" + model, "output_index": 0, "content_index": 0, "delta": text})
	event(w, 2, map[string]any{"type": "response.completed", "response": response(model, "completed", text)})
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

func sse(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func event(w io.Writer, seq int, payload map[string]any) {
	payload["sequence_number"] = seq
	b, _ := json.Marshal(payload)
	io.WriteString(w, "event: "+payload["type"].(string)+"\ndata: "+string(b)+"\n\n")
}

func response(model, status, text string) map[string]any {
	r := map[string]any{"id": "resp-" + model, "object": "response", "created_at": 1763640000, "model": model, "status": status, "output": []any{}}
	if status == "completed" {
		r["output"] = []any{map[string]any{"type": "message", "id": "msg-" + model, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}}
		r["output_text"] = text
		r["usage"] = map[string]any{"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
	}
	return r
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
