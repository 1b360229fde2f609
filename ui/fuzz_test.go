package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
)

// FuzzBatchView feeds the batch view any counts, times, status and size a
// server and a terminal could produce: it never panics, never draws past
// the terminal, and a bar is exactly as wide as asked.
func FuzzBatchView(f *testing.F) {
	f.Add(int64(200), int64(60), int64(2), int64(1763630000), int64(1763633600), "in_progress", uint8(120), uint8(40), 3)
	f.Add(int64(-5), int64(9e18), int64(-9e18), int64(-1), int64(1e18), "completed", uint8(1), uint8(1), 0)
	f.Add(int64(0), int64(0), int64(0), int64(1763630000000), int64(0), "\x1b[2Jweird", uint8(20), uint8(5), 1)
	f.Add(int64(1<<62), int64(1<<62), int64(1<<62), int64(1<<40), int64(1<<40), "failed", uint8(200), uint8(60), 2)
	f.Fuzz(func(t *testing.T, total, completed, failed, created, finalized int64, status string, w, h uint8, results int) {
		if results < 0 || results > 50 {
			results = 0
		}
		var rs []string
		for i := 0; i < results; i++ {
			rs = append(rs, fmt.Sprintf(`{"id":"r%d","custom_id":"c%d","response":{"status_code":200,"body":{"object":"chat.completion","model":"m/x","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}},"error":null}`, i, i, completed, total))
		}
		fin := "null"
		if finalized != 0 {
			fin = fmt.Sprint(finalized)
		}
		body := fmt.Sprintf(`{"id":"batch-f","object":"batch","status":%q,"model":"m/x","created_at":%d,"finalized_at":%s,"request_counts":{"total":%d,"completed":%d,"failed":%d},"results":[%s]}`,
			status, created, fin, total, completed, failed, strings.Join(rs, ","))
		d, err := api.ReadBatchData([]byte(body))
		if err != nil {
			return // not a batch: the decoder's own fuzz target covers it
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := &common{styles: NewStyles(DefaultTheme(), plainRenderer()), keys: DefaultGlobalKeys(), ctx: ctx, cancel: cancel,
			record: record.Open(""), width: int(w), height: int(h),
			opts: Options{Now: func() time.Time { return fixedNow }}}
		v := newBatchView(c, "batch-f", d.Batch, nil)
		v.SetSize(int(w), int(h))
		v.start() // its fetch is not run: the answer is given below
		v.Update(batchFetchedMsg{data: d, at: fixedNow})
		out := v.View()
		// Below 40 columns the shell's frame clips what a view draws; from
		// there the view lays itself out within the width.
		for _, l := range strings.Split(out, "\n") {
			if w >= 40 && lipgloss.Width(l) > int(w) {
				t.Fatalf("%dx%d: a line of %d cells: %q", w, h, lipgloss.Width(l), l)
			}
		}
		for _, bw := range []int{1, int(w) + 1} {
			if got := lipgloss.Width(progressBar(c.styles, d.Batch.RequestCounts, bw)); got != bw {
				t.Fatalf("bar of %d is %d cells", bw, got)
			}
		}
	})
}
