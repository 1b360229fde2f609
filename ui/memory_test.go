package ui

// The whole dashboard over real HTTP for a long conversation: what the
// process keeps after N turns (the playground, the request log, the
// client, the embedded gateway of the demo) follows the conversation's
// text, not a copy of it per turn.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// program runs the dashboard as Run does (a real program, a renderer
// writing frames) with its output discarded, so that nothing the test
// keeps (teatest keeps every frame) is counted.
type program struct {
	t *testing.T
	p *tea.Program
}

func runProgram(t *testing.T, o Options, w, h int) *program {
	t.Helper()
	if o.Renderer == nil {
		o.Renderer = plainRenderer()
	}
	if o.Record == nil {
		o.Record = record.Open(t.TempDir())
	}
	p := tea.NewProgram(probed{New(o)}, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithFPS(frameRate), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := p.Run(); err != nil {
			t.Errorf("program: %v", err)
		}
	}()
	t.Cleanup(func() { p.Quit(); <-done })
	p.Send(tea.WindowSizeMsg{Width: w, Height: h})
	return &program{t: t, p: p}
}

// until waits (a condition, never a speed) for check on the program's
// goroutine.
func (g *program) until(what string, check func(Model) bool) {
	g.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		reply := make(chan probeResult, 1)
		g.p.Send(probeMsg{check: check, reply: reply})
		select {
		case r := <-reply:
			if r.ok {
				return
			}
		case <-time.After(10 * time.Second):
		}
		time.Sleep(2 * time.Millisecond)
	}
	g.t.Fatalf("timed out waiting for %s", what)
}

func (g *program) runes(s string) {
	for _, r := range s {
		g.p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// turn types a prompt and waits until its answer and its generation's
// record are in.
func (g *program) turn(n int) {
	g.t.Helper()
	g.p.Send(tea.KeyMsg{Type: tea.KeyEsc})
	g.runes("i")
	g.until("typing", func(m Model) bool { return playOf(m).mode == playTyping })
	g.runes(fmt.Sprintf("turn %d", n))
	g.p.Send(tea.KeyMsg{Type: tea.KeyEnter})
	g.until(fmt.Sprintf("turn %d", n), func(m Model) bool {
		p := playOf(m)
		t := lastTurn(m)
		return len(p.turns) == n && t != nil && !t.running && !p.running() && t.out.State == api.EndCompleted && t.gen != nil
	})
}

// liveHeap is the live heap after collections, and (when
// GWDASH_HEAP_PROFILE names a folder) a heap profile named name there.
func liveHeap(t *testing.T, name string) uint64 {
	h := heapAfterGC()
	if dir := os.Getenv("GWDASH_HEAP_PROFILE"); dir != "" {
		f, err := os.Create(filepath.Join(dir, name+".pprof"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// The demo's dashboard and its embedded gateway in one process, as
// `gwdash demo --view playground`: 200 turns over HTTP, each sending the
// whole conversation, recorded in the request log. Nothing may keep a
// copy of the conversation per turn (the request log's recent calls, the
// gateway's recorded bodies): the heap the turns add stays a small
// multiple of their text.
func TestLongConversationOverHTTPKeepsItsText(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 200 turns over HTTP")
	}
	const turns = 200
	// As the demo: the gateway keeps no request bodies (no test reads them).
	_, c := startGW(t, gateway.Options{GenerationDelay: time.Millisecond, RecordBytes: -1})
	dir := t.TempDir()
	rec := reqlog.Start(reqlog.Options{Path: reqlog.Path(dir), Profile: "demo", Host: "127.0.0.1"})
	t.Cleanup(func() { rec.Close(5 * time.Second) })
	g := runProgram(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Demo: true,
		SuggestedModels: gateway.DemoModels, Requests: rec, Record: record.Open(dir), Poll: api.PollOptions{Interval: 2 * time.Second}}, 160, 48)
	g.turn(1)
	// The home reads its list at start (hidden, it reads nothing more):
	// the baseline is taken once that read is over.
	g.until("the home's list", func(m Model) bool { h := homeOf(m); return h.loaded && !h.loading })
	rec.Flush()
	before := liveHeap(t, "turn1")
	for n := 2; n <= turns; n++ {
		g.turn(n)
	}
	rec.Flush()
	after := liveHeap(t, fmt.Sprintf("turn%d", turns))
	var text int
	g.until("text", func(m Model) bool {
		text = 0
		for _, tn := range playOf(m).turns {
			text += int(tn.kept()) + len(tn.prompt)
		}
		return true
	})
	added := float64(after) - float64(before)
	ratio := added / float64(text)
	t.Logf("%d turns over HTTP, %d bytes of text: live heap %.1f MB → %.1f MB: +%.0f KB (%.0f bytes a turn, %.1fx the text)",
		turns, text, float64(before)/1e6, float64(after)/1e6, added/1024, added/turns, ratio)
	// Each prompt sends the whole conversation: one copy of it kept per
	// turn (the request log's recent calls held 32) is ~60x the text.
	if ratio > 30 {
		t.Fatalf("200 turns added %.0f KB of live heap for %d bytes of text (%.1fx)", added/1024, text, ratio)
	}
}
