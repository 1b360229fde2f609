package ui

// A playground left open all day: a conversation costs what its text
// costs, a new conversation gives the old one back, a frame costs the
// same at turn 200 as at turn 1, and a message that is not the
// playground's costs nothing.

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/ui/transcript"
)

var errNoRecordForTest = errors.New("no record for the test")

// heapAfterGC is the live heap once the collector has run.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Each turn used to start its answer in a 1 MiB block (35 MB at turn 1,
// 370 MB at 200 for 300 KB of text). Now the heap a turn adds follows its
// text: the text, its blocks and the lines rendered for it.
func TestConversationMemoryFollowsItsText(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 200 turns")
	}
	const turns = 200
	p := benchPlayground(t)
	p.c.styles = NewStyles(DefaultTheme(), colourRenderer(true)) // escapes in every rendered line, as on a terminal
	p.md = transcript.NewMarkdown("dark", p.c.styles.Renderer.ColorProfile(), p.c.styles.Muted)
	conversation(p, 1) // the renderer and the caches of a first answer
	before := heapAfterGC()
	conversation(p, turns)
	after := heapAfterGC()
	text := 0
	for _, tn := range p.turns {
		text += int(tn.kept()) + len(tn.prompt)
	}
	perTurn := float64(after-before) / turns
	ratio := float64(after-before) / float64(text)
	t.Logf("%d turns, %d bytes of text: heap +%.0f KB (%.0f bytes a turn, %.1fx the text)", turns, text, float64(after-before)/1024, perTurn, ratio)
	// Generous: the text, its blocks and their coloured rendering come to
	// ~10x; a fixed 1 MiB per turn is ~800x.
	if ratio > 40 {
		t.Fatalf("a turn costs %.0f bytes for %d bytes of text (%.1fx)", perTurn, text/turns, ratio)
	}
	runtime.KeepAlive(p)
}

// A new conversation drops every turn of the old one: nothing (a cache, a
// live stream, a compare pane) keeps them.
func TestNewChatReleasesTheConversation(t *testing.T) {
	p := benchPlayground(t)
	conversation(p, 20)
	p.startCompare([]string{"a/x", "b/y"})
	for _, pn := range p.cmp.panes {
		pn.turn = newTurn("q", pn.model, pn.innerWidth(), fixedNow)
		pn.turn.answer.Append(demoAnswer)
	}
	var held []weak.Pointer[transcript.Doc]
	for _, tn := range p.turns {
		held = append(held, weak.Make(tn.answer))
	}
	for _, pn := range p.cmp.panes {
		held = append(held, weak.Make(pn.turn.answer))
	}
	p.newChat()
	p.Update(keyMsg("G")) // a frame after the new chat
	_ = p.View()
	runtime.GC()
	runtime.GC()
	for i, w := range held {
		if w.Value() != nil {
			t.Fatalf("answer %d of %d is still held after a new chat", i, len(held))
		}
	}
}

// A frame draws the turns it shows and adds up the heights of the others
// from what each keeps: the usage cards of 200 finished turns are not
// drawn again on every frame.
func TestFrameWorkIsIndependentOfHistory(t *testing.T) {
	frame := func(n int) float64 {
		p := benchPlayground(t)
		finishedTurns(p, n)
		return testing.AllocsPerRun(20, func() {
			renderAll(p, p.Update(rateTickMsg{gen: p.gen})) // the playground's, changing nothing
			_ = p.View()
		})
	}
	one, many := frame(1), frame(200)
	if many > one+8 {
		t.Fatalf("a frame allocates %.0f times with 200 turns, %.0f with 1", many, one)
	}
	// A changed turn is drawn again: its generation's record arrives.
	p := benchPlayground(t)
	conversation(p, 3)
	last := p.turns[len(p.turns)-1]
	last.out.GenerationID = "gen-1"
	p.Update(generationMsg{gen: p.gen, rec: nil, err: errNoRecordForTest})
	if v := p.View(); !strings.Contains(v, "generation record: no record for the test") {
		t.Fatalf("the changed card is not drawn again:\n%s", v)
	}
}

// finishedTurns adds n ended demo turns at once (conversation plays
// them through Update, which a test of frames needs not wait for).
func finishedTurns(p *playground, n int) {
	for i := 0; i < n; i++ {
		tn := newTurn("question", "m/x", p.contentWidth(), fixedNow)
		tn.answer.Append(demoAnswer)
		tn.end(api.Outcome{State: api.EndCompleted, Started: fixedNow, Ended: fixedNow.Add(time.Second),
			Final: &api.Response{Status: api.ResponseCompleted, Usage: &api.ResponseUsage{InputTokens: 12, OutputTokens: 300, TotalTokens: 312}}})
		p.turns = append(p.turns, tn)
	}
	renderAll(p, p.Update(tea.WindowSizeMsg{}))
}

// A message that is not the playground's (a batch poll, a status tick)
// changes nothing, asks nothing and costs no allocation, however long the
// conversation.
func TestOtherViewsMessagesCostThePlaygroundNothing(t *testing.T) {
	p := benchPlayground(t)
	finishedTurns(p, 50)
	type notOurs struct{}
	if cmd := p.Update(notOurs{}); cmd != nil {
		t.Fatal("a message for another view returned a command")
	}
	if n := testing.AllocsPerRun(50, func() { p.Update(notOurs{}) }); n != 0 {
		t.Fatalf("a message for another view cost %.0f allocations", n)
	}
	// After a resize the blocks on screen are rendered at the new width
	// at the next message, whoever it is for.
	p.SetSize(90, 38)
	cmd := p.Update(notOurs{})
	if cmd == nil {
		t.Fatal("no render asked after a resize")
	}
	if _, ok := cmd().(renderedMsg); !ok {
		t.Fatal("the command after a resize is not a render")
	}
}
