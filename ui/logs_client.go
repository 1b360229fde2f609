package ui

// Recording: the client every view sends through is wrapped so that each
// request to /responses and each submitted batch reaches the request log,
// whichever view sent it. The wrapper runs where the client runs: in
// commands and in the stream's own goroutine, never in Update or View.

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// loggingClient records what passes through it. Requests sent under one
// context at once (compare mode's panes) are one compare group.
type loggingClient struct {
	Client
	rec *reqlog.Recorder
}

func logRequests(c Client, rec *reqlog.Recorder) Client {
	if rec == nil || c == nil {
		return c
	}
	return loggingClient{Client: c, rec: rec}
}

func (c loggingClient) CreateResponse(ctx context.Context, req api.ResponseRequest) (*api.Response, error) {
	call := c.rec.BeginIn(ctx, req)
	start := time.Now()
	r, err := c.Client.CreateResponse(ctx, req)
	call.Finish(api.OutcomeOf(req.Model, r, err, start, time.Now()))
	return r, err
}

func (c loggingClient) OpenStream(ctx context.Context, req api.ResponseRequest) (Stream, error) {
	call := c.rec.BeginIn(ctx, req)
	start := time.Now()
	s, err := c.Client.OpenStream(ctx, req)
	if err != nil {
		call.Finish(api.OpenFailed(req.Model, err, start, time.Now()))
		return nil, err
	}
	return &loggedStream{Stream: s, call: call}, nil
}

func (c loggingClient) WaitGeneration(ctx context.Context, id string) (*api.Generation, error) {
	g, err := c.Client.WaitGeneration(ctx, id)
	if err == nil {
		c.rec.Generation(g)
	}
	return g, err
}

func (c loggingClient) SubmitBatch(ctx context.Context, endpoint, model string, reqs []api.BatchRequest) (*api.Batch, error) {
	b, err := c.Client.SubmitBatch(ctx, endpoint, model, reqs)
	if !api.IsValidation(err) {
		c.rec.Batch(endpoint, model, reqs, b, err)
	}
	return b, err
}

// loggedStream hands each event to the log as the pump reads it, and
// writes the row when the stream ends or is closed (a stop).
type loggedStream struct {
	Stream
	call *reqlog.Call
}

func (s *loggedStream) Next() (api.Event, error) {
	ev, err := s.Stream.Next()
	if err != nil {
		s.call.Finish(s.Stream.Outcome())
		return ev, err
	}
	s.call.Event(ev)
	return ev, nil
}

func (s *loggedStream) Close() error {
	err := s.Stream.Close()
	s.call.Finish(s.Stream.Outcome().Stopped(time.Now()))
	return err
}

// logProblemMsg is a problem of the request log, said once.
type logProblemMsg struct{ text string }

// watchLogProblems waits for the log's next problem (until the dashboard
// ends).
func watchLogProblems(c *common) tea.Cmd {
	ch, ctx := c.opts.Requests.Problems(), c.ctx
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case p := <-ch:
			return logProblemMsg{text: p}
		case <-ctx.Done():
			return nil
		}
	}
}
