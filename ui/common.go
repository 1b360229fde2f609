// Package ui is gwdash's Bubble Tea dashboard: a shell with three views
// (batches, playground, destinations). See README.md in this folder for the
// rules every view follows.
package ui

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/gwdash/gwdash/api"
)

// Gateway is what the views need of the API client; *api.Client
// implements it and tests may substitute their own.
type Gateway interface {
	GetBatch(ctx context.Context, id string) (*api.Batch, error)
	CreateResponse(ctx context.Context, req api.ResponseRequest) (*api.Response, error)
	StreamResponse(ctx context.Context, req api.ResponseRequest) (*api.Stream, error)
	ListDestinations(ctx context.Context, o api.ListOptions) (*api.DestinationPage, error)
	UpdateDestination(ctx context.Context, id string, p api.DestinationPatch) (*api.Destination, error)
	HasManagementKey() bool
	Host() string
}

// Options configure the dashboard.
type Options struct {
	Client   Gateway
	Profile  string
	Demo     bool
	View     string // batches, playground, destinations
	BatchID  string
	Model    string
	ReadOnly bool
	// Workspace is the destinations workspace ("" = the key's default).
	Workspace string
	// Poll tunes batch polling (the interval comes from poll_interval).
	Poll api.PollOptions
	// StateDir keeps recent batch ids and models ("" = nothing is kept).
	StateDir string
	// ExportDir is where exports and saved conversations go ("" = cwd).
	ExportDir string
	// Suggestions shown in the batch opener and the model field.
	SuggestedBatches []Suggestion
	SuggestedModels  []string
	// Clipboard receives copied text (OSC 52 by default).
	Clipboard func(string) error
	// Now is the clock (tests pin it).
	Now func() time.Time
	// DarkBackground picks the markdown style.
	DarkBackground bool
	// Log receives a debug log (never keys: the UI holds none); nil
	// discards it.
	Log *slog.Logger
}

// Suggestion is a batch id with a few words on it.
type Suggestion struct{ ID, About string }

// common is the small shared state every view gets by pointer: sizes,
// styles, keys, client, options. Only the root's Update writes it.
type common struct {
	opts   Options
	client Gateway
	styles Styles
	global GlobalKeys
	width  int
	height int
	ctx    context.Context
	cancel context.CancelFunc
}

func (c *common) log() *slog.Logger {
	if c.opts.Log == nil {
		return discard
	}
	return c.opts.Log
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func (c *common) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// noticeMsg asks the shell to show a notice (or an error) in the status bar.
type noticeMsg struct {
	text string
	err  bool
}

func notice(text string) noticeMsg     { return noticeMsg{text: text} }
func failNotice(text string) noticeMsg { return noticeMsg{text: text, err: true} }
