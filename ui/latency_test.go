package ui

import (
	"sort"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/gateway"
)

// BenchmarkKeypressWhileStreaming measures how long a key waits to be
// handled while a model streams at 2,000 tokens per second: each iteration
// sends one message through the program's queue and waits for Update to
// see it (the path a key press takes). "streaming-%" is the share of
// samples taken while a stream was live.
func BenchmarkKeypressWhileStreaming(b *testing.B) {
	_, c := startGW(b, gateway.Options{TokensPerSecond: 2000})
	m := New(Options{Client: c, View: "playground", Model: gateway.ModelFirehose})
	p := tea.NewProgram(probed{m}, tea.WithInput(nil), tea.WithOutput(discardWriter{}), tea.WithoutSignals(), tea.WithFPS(frameRate))
	go p.Run()
	defer p.Kill()
	send := func(s string) {
		for _, r := range s {
			p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
		p.Send(tea.KeyMsg{Type: tea.KeyEnter})
	}
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	send("go")
	lat := make([]time.Duration, 0, b.N)
	live := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reply := make(chan probeResult, 1)
		start := time.Now()
		p.Send(probeMsg{check: func(m Model) bool { return playOf(m).running }, reply: reply})
		r := <-reply
		lat = append(lat, time.Since(start))
		if r.ok {
			live++
		} else {
			go send("again") // keep a stream going
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
