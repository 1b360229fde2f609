package ui

// Bounded under any answer: markdown is rendered within a budget (depth,
// size, time) and shown plain past it; an answer is kept up to its cap,
// then its stream is stopped and the answer ends "truncated at <size>".

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// inFlight counts the requests a server is still answering.
type inFlight struct {
	mu sync.Mutex
	n  int
}

func (f *inFlight) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.n++
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.n--
			f.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

func (f *inFlight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// remembered waits until this machine's record holds the models used, so
// that no write of it is still running when the test's directories go.
func (u *ui) remembered(models ...string) {
	u.until("the record holds the models", func(m Model) bool {
		got := m.c.record.Models(m.c.base)
		for _, x := range models {
			if !slices.Contains(got, x) {
				return false
			}
		}
		return true
	})
}

// Over HTTP, from a server that answers the hostile scenarios: nested
// markdown shows plain with its note; an endless answer is kept up to the
// cap, its stream is stopped (the server sees the request end) and the
// turn ends "truncated at 1 MiB".
func TestPlaygroundHostileAnswersStayBounded(t *testing.T) {
	var live inFlight
	// No batch list: the home, shown to no one, then writes no record
	// while the test ends.
	_, c := startGW(t, gateway.Options{NoBatchList: true, Wrap: func(h http.Handler) http.Handler { return live.wrap(hostile.Render(h)) }})
	u := start(t, Options{Client: c, View: "playground", Model: hostile.ModelNestedQuotes, AnswerCap: 1 << 20}, 120, 40)
	u.typePrompt("quote me")
	u.until("completed", ended(api.EndCompleted))
	u.screen("shown as plain text: quotes and lists nested 120 deep")

	u.until("model", func(m Model) bool { playOf(m).model = hostile.ModelEndless; return true })
	u.typePrompt("never stop")
	v := u.until("truncated", ended(api.EndTruncated))
	u.until("the stream's request ended", func(Model) bool { return live.count() == 0 })
	u.remembered(hostile.ModelNestedQuotes, hostile.ModelEndless)
	for _, want := range []string{"✂ truncated at 1 MiB", "what arrived is kept"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	m := u.quit()
	tn := lastTurn(m)
	if tn.kept() != 1<<20 || !strings.HasPrefix(hostile.EndlessDelta, tn.answer.Slice(0, 64)) {
		t.Fatalf("kept %d bytes, want the first 1 MiB", tn.kept())
	}
}

// In compare mode the cap stops the one pane that reached it; the others
// stream on to their end.
func TestComparePaneCappedAlone(t *testing.T) {
	var live inFlight
	_, c := startGW(t, gateway.Options{NoBatchList: true, TokensPerSecond: 400, Wrap: func(h http.Handler) http.Handler { return live.wrap(hostile.Render(h)) }})
	u := start(t, Options{Client: c, View: "playground", AnswerCap: 256 << 10}, 160, 40)
	u.until("compare", func(m Model) bool {
		playOf(m).startCompare([]string{hostile.ModelEndless, "openai/gpt-4o-mini"})
		return true
	})
	u.typePrompt("both")
	u.until("both ended", func(m Model) bool {
		p := playOf(m)
		return !p.running() && p.cmp.panes[0].turn != nil && p.cmp.panes[0].turn.out.State == api.EndTruncated &&
			p.cmp.panes[1].turn.out.State == api.EndCompleted
	})
	u.until("no request left", func(Model) bool { return live.count() == 0 })
	u.remembered(hostile.ModelEndless, "openai/gpt-4o-mini")
	u.screen("truncated at 256 KiB")
	m := u.quit()
	if k := playOf(m).cmp.panes[0].turn.kept(); k != 256<<10 {
		t.Fatalf("the capped pane kept %d bytes", k)
	}
}
