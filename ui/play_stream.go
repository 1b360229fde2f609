package ui

// The playground's commands and their messages: opening a stream, reading
// it one chunk of events at a time, a plain answer, the generation's
// record, the catalogue, and markdown rendering off the UI loop.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/ui/transcript"
	"github.com/gwdash/gwdash/ui/widgets"
)

// streamItem is what the pump hands over: an event (or the end) and the
// outcome so far, read from the stream by its one goroutine.
type streamItem struct {
	ev      api.Event
	end     error
	outcome api.Outcome
}

// streamOpenedMsg: the POST was answered (a stream, or an error).
type streamOpenedMsg struct {
	gen    int
	pane   int
	events <-chan streamItem
	err    error
	at     time.Time
}

// streamChunkMsg carries every event that arrived since the last one was
// taken: renders coalesce deltas instead of queueing them.
type streamChunkMsg struct {
	gen     int
	pane    int
	events  []api.Event
	outcome api.Outcome
	ended   bool
}

// answerMsg is the answer of a non-streaming request.
type answerMsg struct {
	gen     int
	pane    int
	resp    *api.Response
	outcome api.Outcome
}

// generationMsg is a generation's record, fetched when an answer ended.
type generationMsg struct {
	gen  int
	pane int
	rec  *api.Generation
	err  error
}

// catalogueMsg is the models catalogue.
type catalogueMsg struct {
	cat *api.Catalogue
	err error
}

// rateTickMsg samples the live streams' rates.
type rateTickMsg struct{ gen int }

// renderedMsg carries blocks rendered as markdown.
type renderedMsg struct {
	doc    *transcript.Doc
	width  int
	blocks []int
	lines  [][]string
}

// openStreamCmd opens a stream and starts its pump.
func openStreamCmd(client Client, ctx context.Context, req api.ResponseRequest, gen, pane int) tea.Cmd {
	return func() tea.Msg {
		s, err := client.OpenStream(ctx, req)
		if err != nil {
			return streamOpenedMsg{gen: gen, pane: pane, err: err, at: time.Now()}
		}
		ch := make(chan streamItem, 4096)
		go pump(ctx, s, ch)
		return streamOpenedMsg{gen: gen, pane: pane, events: ch}
	}
}

// pump is the one goroutine per stream: it reads events and hands them to
// the UI through ch; it ends with the stream, or when ctx ends.
func pump(ctx context.Context, s Stream, ch chan<- streamItem) {
	defer close(ch)
	defer s.Close()
	for {
		ev, err := s.Next()
		item := streamItem{ev: ev, end: err, outcome: s.Outcome()}
		select {
		case ch <- item:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// readChunk waits for one item, then takes every item already waiting.
func readChunk(gen, pane int, ch <-chan streamItem) tea.Cmd {
	return func() tea.Msg {
		it, ok := <-ch
		msg := streamChunkMsg{gen: gen, pane: pane}
		if !ok {
			msg.ended = true
			return msg
		}
		for {
			msg.outcome = it.outcome
			if it.end != nil {
				msg.ended = true
				return msg
			}
			msg.events = append(msg.events, it.ev)
			if len(msg.events) >= 8192 {
				return msg
			}
			select {
			case it, ok = <-ch:
				if !ok {
					msg.ended = true
					return msg
				}
			default:
				return msg
			}
		}
	}
}

// answerCmd sends one plain request.
func answerCmd(client Client, ctx context.Context, req api.ResponseRequest, gen, pane int, started time.Time) tea.Cmd {
	return func() tea.Msg {
		r, err := client.CreateResponse(ctx, req)
		return answerMsg{gen: gen, pane: pane, resp: r, outcome: api.OutcomeOf(req.Model, r, err, started, time.Now())}
	}
}

// generationCmd fetches an answer's record (the early 404 is retried a
// few seconds, bounded).
func generationCmd(client Client, ctx context.Context, id string, gen, pane int) tea.Cmd {
	return func() tea.Msg {
		rec, err := client.WaitGeneration(ctx, id)
		return generationMsg{gen: gen, pane: pane, rec: rec, err: err}
	}
}

// catalogueCmd reads the models catalogue (cached an hour on disk).
func catalogueCmd(client Client, ctx context.Context, refresh bool) tea.Cmd {
	return func() tea.Msg {
		cat, err := client.Models(ctx, refresh)
		return catalogueMsg{cat: cat, err: err}
	}
}

// renderCmd renders blocks as markdown, off the UI loop.
func renderCmd(md *transcript.Markdown, d *transcript.Doc, width int, blocks []int, texts []string) tea.Cmd {
	return func() tea.Msg {
		out := renderedMsg{doc: d, width: width, blocks: blocks, lines: make([][]string, len(texts))}
		for i, t := range texts {
			out.lines[i] = md.Render(t, width)
		}
		return out
	}
}

func rateTick(c *common, gen int) tea.Cmd {
	return c.tick(250*time.Millisecond, func(time.Time) tea.Msg { return rateTickMsg{gen: gen} })
}

// ---- structured answers and function calls ----

// answerCheckedMsg is a structured answer's verdict.
type answerCheckedMsg struct {
	t   *turn
	chk api.AnswerCheck
	err error
}

// argsCheckedMsg is the check of a call's arguments against its tool's
// parameters (nil: they fit).
type argsCheckedMsg struct {
	t   *turn
	idx int
	err error
}

// toolResultsMsg is the file of canned results, read for a turn's calls.
type toolResultsMsg struct {
	t       *turn
	path    string
	results map[string]string
	err     error
}

// toolFileMsg is a file read as one call's result.
type toolFileMsg struct {
	t    *turn
	idx  int
	path string
	data []byte
	err  error
}

// checkAnswerCmd validates an answer against its format.
func checkAnswerCmd(t *turn, f *api.TextFormat, text string) tea.Cmd {
	return func() tea.Msg {
		chk, err := api.CheckAnswer(f, text)
		return answerCheckedMsg{t: t, chk: chk, err: err}
	}
}

// checkArgsCmd checks a call's arguments against the tools sent.
func checkArgsCmd(t *turn, idx int, call api.Call, tools []api.FunctionTool) tea.Cmd {
	return func() tea.Msg {
		return argsCheckedMsg{t: t, idx: idx, err: api.CheckArguments(call, tools)}
	}
}

// readToolResultsCmd reads the canned results (read again for every
// answer: edited between tries, the file's newest content answers).
func readToolResultsCmd(t *turn, path string) tea.Cmd {
	return func() tea.Msg {
		b, err := readBounded(path, api.MaxToolsFileBytes)
		if err != nil {
			return toolResultsMsg{t: t, path: path, err: err}
		}
		res, err := api.ParseToolResults(b)
		return toolResultsMsg{t: t, path: path, results: res, err: err}
	}
}

// readToolFileCmd reads a file as a call's result.
func readToolFileCmd(t *turn, idx int, path string) tea.Cmd {
	return func() tea.Msg {
		b, err := readBounded(path, api.MaxToolOutputBytes)
		return toolFileMsg{t: t, idx: idx, path: path, data: b, err: err}
	}
}

// readBounded reads a whole file of at most limit bytes (a leading ~ is
// the home folder): every file the playground reads (settings files, a
// call's result, canned results). Its errors say what is wrong in words.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(widgets.ExpandHome(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no such file: " + path)
	case errors.Is(err, fs.ErrPermission):
		return nil, errors.New("cannot be read (permission denied): " + path)
	case err != nil:
		return nil, errors.New("cannot be opened: " + path)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, errors.New("is a directory, not a file: " + path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errors.New("could not be read: " + path)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("is larger than %s: %s", api.SizeText(limit), path)
	}
	return b, nil
}
