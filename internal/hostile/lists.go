package hostile

// Scenarios of unbounded answers: list routes that never end (a cursor or
// a page repeated, new pages forever, fat pages), names that look alike
// on a screen, and an answer that never ends. Each wraps a real handler
// (the embedded gateway) and serves only the routes it is about; every
// other request passes through.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// ListScenario says how the list routes (GET …/batches and GET
// …/observability/destinations) misbehave.
type ListScenario int

// The list scenarios.
const (
	// RepeatCursor: every page of batches has more, and names as its
	// last_id the cursor it was asked for (the first page "c0"), with new
	// ids; destinations repeat their first page (an offset list has no
	// cursor).
	RepeatCursor ListScenario = iota + 1
	// RepeatPage: the same page whatever was asked, saying there is more.
	RepeatPage
	// EndlessPages: a page of new rows for every request, with more
	// always to come (a new cursor each time; a total_count out of reach).
	EndlessPages
	// FatPages: EndlessPages with every row padded by an unknown member
	// to FatRowBytes: each page stays well under the page cap, and the
	// pages add up to gigabytes.
	FatPages
	// LookAlikes: one page of destinations whose names differ only by
	// invisible characters (LookAlikeNames).
	LookAlikes
)

// FatRowBytes is the padding of each row of FatPages.
const FatRowBytes = 64 << 10

// ListRows is how many rows every page of a list scenario holds.
const ListRows = 20

// LookAlikeNames are names that a terminal draws alike (or nearly): a
// zero-width space, a soft hyphen, a variation selector (VS16), a tag
// character, a word joiner, a byte order mark and a combining mark on
// nothing, each in "prod".
var LookAlikeNames = []string{
	"prod", "pro\u200bd", "prod\u00ad", "prod\ufe0f", "prod\U000e0041", "pro\u2060d", "\ufeffprod", "\u0301prod",
}

// Lists serves a ListScenario in front of a handler and counts the list
// requests it answered.
type Lists struct {
	Scenario ListScenario
	requests atomic.Int64
}

// Requests is how many list requests were answered.
func (l *Lists) Requests() int64 { return l.requests.Load() }

// Wrap serves the scenario on the list routes and passes every other
// request to h.
func (l *Lists) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/batches"):
			l.requests.Add(1)
			l.batches(w, r)
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/observability/destinations"):
			l.requests.Add(1)
			l.destinations(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

func (l *Lists) batches(w http.ResponseWriter, r *http.Request) {
	after := r.URL.Query().Get("after")
	n := l.requests.Load()
	last := fmt.Sprintf("c%d", n)
	switch l.Scenario {
	case RepeatCursor:
		last = after
		if last == "" {
			last = "c0"
		}
	case RepeatPage:
		n, last = 0, "c0"
	}
	rows := make([]map[string]any, ListRows)
	for i := range rows {
		rows[i] = map[string]any{"id": fmt.Sprintf("batch-%d-%d", n, i), "object": "batch", "status": "in_progress",
			"endpoint": "/v1/chat/completions", "model": "openai/gpt-4o-mini", "created_at": 1760000000 - n*100 - int64(i),
			"request_counts": map[string]int{"total": 10, "completed": 1, "failed": 0}}
		l.pad(rows[i])
	}
	l.write(w, map[string]any{"object": "list", "data": rows, "first_id": rows[0]["id"], "last_id": last, "has_more": true})
}

func (l *Lists) destinations(w http.ResponseWriter, r *http.Request) {
	off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	if l.Scenario == RepeatCursor || l.Scenario == RepeatPage {
		off = 0
	}
	names := make([]string, ListRows)
	for i := range names {
		names[i] = fmt.Sprintf("dest-%d", off+i)
	}
	total := 1 << 30
	if l.Scenario == LookAlikes {
		names, total, off = LookAlikeNames, len(LookAlikeNames), 0
	}
	rows := make([]map[string]any, len(names))
	for i, name := range names {
		rows[i] = map[string]any{"id": fmt.Sprintf("00000000-0000-4000-8000-%012d", off+i), "workspace_id": "00000000-0000-4000-8000-000000000001",
			"name": name, "type": "webhook", "enabled": true, "config": map[string]any{"url": "https://h.example"}, "regions": []string{"global"},
			"sampling_rate": 1, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
		l.pad(rows[i])
	}
	l.write(w, map[string]any{"data": rows, "total_count": total})
}

func (l *Lists) pad(row map[string]any) {
	if l.Scenario == FatPages {
		row["x_padding"] = strings.Repeat("p", FatRowBytes)
	}
}

func (l *Lists) write(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// EndlessAnswer streams an answer that never ends on POST …/responses
// (every other request passes through): 64 KiB deltas until the client
// goes away, or until it has sent Limit bytes in one answer (a guard for
// the test itself, 1 GiB when 0), where it drops the connection.
type EndlessAnswer struct {
	Limit int64
	sent  atomic.Int64
	// Sent, when set, is told the bytes of text sent so far, after each
	// delta (tests wait on it instead of a clock).
	Sent func(total int64)
}

// Bytes is how many bytes of answer text were sent in all.
func (e *EndlessAnswer) Bytes() int64 { return e.sent.Load() }

// Wrap serves the endless answer in front of h.
func (e *EndlessAnswer) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			h.ServeHTTP(w, r)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl, _ := w.(http.Flusher)
		limit := e.Limit
		if limit <= 0 {
			limit = 1 << 30
		}
		chunk := strings.Repeat("endless answer ", (64<<10)/15)
		delta, _ := json.Marshal(map[string]any{"type": "response.output_text.delta", "delta": chunk, "item_id": "msg_1", "output_index": 0, "content_index": 0})
		model, _ := json.Marshal(req.Model)
		fmt.Fprintf(w, "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_endless\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":%s,\"output\":[]}}\n\n", model)
		for sent := int64(0); sent < limit; sent += int64(len(chunk)) {
			if r.Context().Err() != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "event: response.output_text.delta\ndata: %s\n\n", delta); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
			total := e.sent.Add(int64(len(chunk)))
			if e.Sent != nil {
				e.Sent(total)
			}
		}
		// the guard was reached: drop the connection without a final event
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
	})
}
