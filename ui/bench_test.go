package ui

// Benchmarks of the hot paths, each beside its own floor (bench/run.sh
// prints the ratios): a playground frame with a small and a large
// transcript, a 50 MiB answer streamed through the playground, a results
// frame at 100 and 100,000 rows, and a key handled while a model streams.
// None of them is a test: no time is asserted here.

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/record"
)

// benchPlayground is a playground of the shell's common state, sized.
func benchPlayground(b testing.TB) *playground {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	c := &common{styles: NewStyles(DefaultTheme(), plainRenderer()), keys: DefaultGlobalKeys(), ctx: ctx, cancel: cancel,
		record: record.Open(""), width: 120, height: 40}
	p := newPlayground(c)
	p.SetSize(120, 38)
	return p
}

// renderAll does what the program does between frames: the markdown
// renders the playground asks for (only those: the other commands, such
// as reading the next chunk, are the benchmark's to play).
func renderAll(p *playground, _ tea.Cmd) {
	for i := 0; i < 64; i++ {
		p.rendering = false
		cmd := p.requestRenders()
		if cmd == nil {
			return
		}
		p.Update(cmd())
	}
}

// streamFrame feeds one chunk of deltas to a live turn and draws a frame.
func benchStreamFrame(b *testing.B, before int) {
	p := benchPlayground(b)
	t := newTurn("bench", "m/x", p.contentWidth(), time.Now())
	p.turns = []*turn{t}
	p.gen = 1
	p.live[0] = &liveStream{turn: t, events: make(chan streamItem)}
	para := strings.Repeat("lorem ipsum dolor sit amet ", 20) + "\n\n"
	for t.answer.Size() < int64(before) {
		t.answer.Append(para)
	}
	renderAll(p, p.Update(tea.WindowSizeMsg{}))
	chunk := streamChunkMsg{gen: 1, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: "consectetur "}, {Type: api.EventOutputTextDelta, Delta: "adipiscing "}},
		outcome: api.Outcome{State: api.EndOpen, Started: time.Now(), Streamed: true}}
	end := streamChunkMsg{gen: 1, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: "elit.\n\n"}}, outcome: chunk.outcome}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msg := chunk
		if i%40 == 39 {
			msg = end
		}
		renderAll(p, p.Update(msg))
		_ = p.View()
	}
}

func BenchmarkPlaygroundFrame1KB(b *testing.B)  { benchStreamFrame(b, 1<<10) }
func BenchmarkPlaygroundFrame1MB(b *testing.B)  { benchStreamFrame(b, 1<<20) }
func BenchmarkPlaygroundFrame50MB(b *testing.B) { benchStreamFrame(b, 50<<20) }

// demoAnswer is an answer of the size and shape the demo gateway gives
// (about 1.3 KB of markdown in four blocks).
var demoAnswer = "## Routing\n\nThe gateway picks a **provider** for each request by price, latency and uptime; " +
	strings.Repeat("a request that fails falls back to the next provider in the list, ", 8) + "\n\n- fallbacks on errors\n- `provider.order` pins one\n\n" +
	strings.Repeat("Usage and cost come back with every answer. ", 8)

// conversation plays n demo turns through the playground: each prompt's
// answer streams in four chunks, each followed by the renders asked, then
// ends and is drawn.
func conversation(p *playground, n int) {
	for i := 0; i < n; i++ {
		playTurn(p, fmt.Sprintf("question %d", i), demoAnswer)
	}
}

func playTurn(p *playground, prompt, answer string) {
	started := time.Now()
	t := newTurn(prompt, "m/x", p.contentWidth(), started)
	p.turns = append(p.turns, t)
	p.gen++
	p.live[0] = &liveStream{turn: t, events: make(chan streamItem)}
	o := api.Outcome{State: api.EndOpen, Model: "m/x", Started: started, FirstToken: started, Streamed: true}
	step := (len(answer) + 3) / 4
	for at := 0; at < len(answer); at += step {
		o.Deltas++
		renderAll(p, p.Update(streamChunkMsg{gen: p.gen, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: answer[at:min(len(answer), at+step)]}}, outcome: o}))
	}
	o.State, o.Ended = api.EndCompleted, started.Add(time.Second)
	o.Final = &api.Response{Status: api.ResponseCompleted, Usage: &api.ResponseUsage{InputTokens: 12, OutputTokens: o.Deltas, TotalTokens: 12 + o.Deltas}}
	renderAll(p, p.Update(streamChunkMsg{gen: p.gen, outcome: o, ended: true}))
	_ = p.View()
}

// benchHistoryFrame is the frame of a playground holding n finished
// turns: with nothing new (an idle redraw), or after a delta into a new
// turn that streams under them.
func benchHistoryFrame(b *testing.B, n int, delta bool) {
	p := benchPlayground(b)
	conversation(p, n)
	msg := tea.Msg(settleBench{})
	if delta {
		started := time.Now()
		t := newTurn("streaming", "m/x", p.contentWidth(), started)
		p.turns = append(p.turns, t)
		p.gen++
		p.live[0] = &liveStream{turn: t, events: make(chan streamItem)}
		msg = streamChunkMsg{gen: p.gen, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: "word "}},
			outcome: api.Outcome{State: api.EndOpen, Started: started, FirstToken: started, Streamed: true}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		renderAll(p, p.Update(msg))
		_ = p.View()
	}
}

// settleBench is a message that is not the playground's.
type settleBench struct{}

func BenchmarkPlaygroundHistory1(b *testing.B)        { benchHistoryFrame(b, 1, false) }
func BenchmarkPlaygroundHistory200(b *testing.B)      { benchHistoryFrame(b, 200, false) }
func BenchmarkPlaygroundHistoryDelta1(b *testing.B)   { benchHistoryFrame(b, 1, true) }
func BenchmarkPlaygroundHistoryDelta200(b *testing.B) { benchHistoryFrame(b, 200, true) }

// BenchmarkPlaygroundBulk50MiB streams a 50 MiB answer (800 deltas of
// 64 KiB, the gateway's demo/bulk) through the playground, a frame after
// every delta, then scrolls to its top and middle. It reports the peak
// heap over the text ("heap/text", budget < 4) and the time per frame.
func BenchmarkPlaygroundBulk50MiB(b *testing.B) {
	const deltas = 800
	var peak uint64
	var ms runtime.MemStats
	for i := 0; i < b.N; i++ {
		p := benchPlayground(b)
		t := newTurn("bench", gateway.ModelBulk, p.contentWidth(), time.Now())
		p.turns = []*turn{t}
		p.gen = 1
		p.live[0] = &liveStream{turn: t, events: make(chan streamItem)}
		o := api.Outcome{State: api.EndOpen, Started: time.Now(), Streamed: true}
		for d := 0; d < deltas; d++ {
			renderAll(p, p.Update(streamChunkMsg{gen: 1, events: []api.Event{{Type: api.EventOutputTextDelta, Delta: gateway.BulkChunk}}, outcome: o}))
			_ = p.View()
			if d%50 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		o.State = api.EndCompleted
		renderAll(p, p.Update(streamChunkMsg{gen: 1, outcome: o, ended: true}))
		for _, k := range []tea.KeyType{tea.KeyHome, tea.KeyPgDown, tea.KeyEnd} {
			renderAll(p, p.Update(tea.KeyMsg{Type: k}))
			_ = p.View()
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		if t.answer.Size() != deltas*int64(len(gateway.BulkChunk)) {
			b.Fatalf("kept %d bytes of %d", t.answer.Size(), deltas*len(gateway.BulkChunk))
		}
	}
	b.ReportMetric(float64(peak)/float64(deltas*len(gateway.BulkChunk)), "heap/text")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(deltas+3)), "ns/frame")
}

// benchResults is one frame of the results table: a cursor move and View.
func benchResults(b *testing.B, n int) {
	var sb strings.Builder
	sb.WriteString(`{"id":"batch-bench","object":"batch","status":"completed","model":"openai/gpt-4o-mini","created_at":1763630000,"request_counts":{"total":` + fmt.Sprint(n) + `,"completed":` + fmt.Sprint(n) + `,"failed":0},"results":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":"r%d","custom_id":"req-%06d","response":{"status_code":200,"body":{"object":"chat.completion","model":"openai/gpt-4o-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}}},"error":null}`, i, i, i%500, i%500+3)
	}
	sb.WriteString(`]}`)
	d, err := api.ReadBatchData([]byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &common{styles: NewStyles(DefaultTheme(), plainRenderer()), keys: DefaultGlobalKeys(), ctx: ctx, cancel: cancel,
		record: record.Open(""), width: 160, height: 48, opts: Options{Now: time.Now}}
	v := newBatchView(c, "batch-bench", d.Batch, d)
	v.SetSize(160, 46)
	down, up := tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyUp}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			v.Update(down)
		} else {
			v.Update(up)
		}
		_ = v.View()
	}
}

func BenchmarkResultsTableFrame100(b *testing.B)    { benchResults(b, 100) }
func BenchmarkResultsTableFrame100000(b *testing.B) { benchResults(b, 100000) }

// BenchmarkKeypressWhileStreaming measures how long a key waits to be
// handled while a model streams 64 KiB deltas as fast as the gateway can
// send them: each iteration sends one message through the program's queue
// and waits for Update to see it (the path a key takes). "streaming-%" is
// the share of samples taken while a stream was live.
func BenchmarkKeypressWhileStreaming(b *testing.B) {
	_, c := startGW(b, gateway.Options{})
	m := New(Options{Client: c, View: "playground", Model: gateway.ModelBulk, Renderer: plainRenderer()})
	p := tea.NewProgram(probed{m}, tea.WithInput(nil), tea.WithOutput(discardWriter{}), tea.WithoutSignals(), tea.WithFPS(frameRate))
	go p.Run()
	defer p.Kill()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	p.Send(probeMsg{check: func(m Model) bool {
		m.views[viewPlayground].(*playground).settings.Field(setMaxOut).Input.SetValue("400")
		return true
	}, reply: make(chan probeResult, 1)})
	send := func() {
		for _, k := range []tea.KeyMsg{keyMsg("i"), keyMsg("g"), keyMsg("o"), {Type: tea.KeyEnter}} {
			p.Send(k)
		}
	}
	send()
	lat := make([]time.Duration, 0, b.N)
	live := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reply := make(chan probeResult, 1)
		start := time.Now()
		p.Send(probeMsg{check: func(m Model) bool { return playOf(m).running() }, reply: reply})
		r := <-reply
		lat = append(lat, time.Since(start))
		if r.ok {
			live++
		} else {
			send() // keep a stream going
		}
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(100*float64(live)/float64(b.N), "streaming-%")
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
