// Package ui is gwdash's Bubble Tea dashboard: a shell with four views
// (batches, playground, destinations, logs). See README.md in this folder for the
// shape every view has and the rules it follows.
package ui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/notify"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// Client is what the views need of the API client. FromAPI adapts an
// *api.Client; tests give fakes.
type Client interface {
	Host() string
	BaseURL() string
	HasAPIKey() bool
	HasManagementKey() bool

	ListBatches(ctx context.Context, o api.BatchListOptions) (*api.BatchPage, error)
	GetBatchData(ctx context.Context, id string) (*api.BatchData, error)
	DeleteBatch(ctx context.Context, id string) error
	SubmitBatch(ctx context.Context, endpoint, model string, reqs []api.BatchRequest) (*api.Batch, error)

	CreateResponse(ctx context.Context, req api.ResponseRequest) (*api.Response, error)
	OpenStream(ctx context.Context, req api.ResponseRequest) (Stream, error)
	Models(ctx context.Context, refresh bool) (*api.Catalogue, error)
	Key(ctx context.Context) (*api.KeyInfo, error)
	Credits(ctx context.Context) (*api.Credits, error)
	WaitGeneration(ctx context.Context, id string) (*api.Generation, error)
	ModelEndpoints(ctx context.Context, model string) (*api.ModelEndpoints, error)

	ListDestinations(ctx context.Context, o api.ListOptions) (*api.DestinationPage, error)
	GetDestination(ctx context.Context, id string) (*api.Destination, error)
	CreateDestination(ctx context.Context, d api.DestinationCreate) (*api.Destination, error)
	UpdateDestination(ctx context.Context, id string, p api.DestinationPatch) (*api.Destination, error)
	DeleteDestination(ctx context.Context, id string) error

	Explain404(ctx context.Context, err error) error
}

// Stream is an open streamed answer; *api.Stream is one.
type Stream interface {
	Next() (api.Event, error)
	Outcome() api.Outcome
	Close() error
}

// apiClient adapts *api.Client to Client.
type apiClient struct {
	*api.Client
	cacheDir string
}

// FromAPI adapts an API client; the models catalogue is cached in
// cacheDir ("" caches nothing).
func FromAPI(c *api.Client, cacheDir string) Client { return apiClient{Client: c, cacheDir: cacheDir} }

func (c apiClient) OpenStream(ctx context.Context, req api.ResponseRequest) (Stream, error) {
	s, err := c.StreamResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (c apiClient) Models(ctx context.Context, refresh bool) (*api.Catalogue, error) {
	return c.CachedModels(ctx, api.CataloguePath(c.cacheDir, strings.TrimRight(c.BaseURL(), "/")), refresh)
}

func (c apiClient) Key(ctx context.Context) (*api.KeyInfo, error) {
	k, _, err := c.Client.Key(ctx)
	return k, err
}

func (c apiClient) Credits(ctx context.Context) (*api.Credits, error) {
	cr, _, err := c.Client.Credits(ctx)
	return cr, err
}

// Options configure the dashboard.
type Options struct {
	Client   Client
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
	// ListBounds bound every walk of a list's pages (zero:
	// api.DefaultListBounds, the bounds of the commands too).
	ListBounds api.ListBounds
	// Record remembers batches, destinations and models on this machine
	// (nil remembers nothing).
	Record *record.Store
	// Requests logs every request sent (nil logs nothing); the Logs view
	// reads its file.
	Requests *reqlog.Recorder
	// ExportDir is where exports and saved conversations go by default
	// ("" = the working directory); the path can be changed before writing.
	ExportDir string
	// SuggestedModels are offered when no catalogue is.
	SuggestedModels []string
	// Clipboard receives copied text; nil sends OSC 52 to the terminal.
	Clipboard func(string) error
	// Now is the clock (tests pin it).
	Now func() time.Time
	// Renderer draws the styles (nil: lipgloss's default); DarkBackground
	// picks the markdown style when Renderer is nil.
	Renderer       *lipgloss.Renderer
	DarkBackground bool
	// Log receives a debug log (never keys: the UI holds none); nil
	// discards it.
	Log *slog.Logger
	// AnswerCap is the most text one answer keeps in the playground and
	// in each compare pane (0: api.DefaultAnswerCap).
	AnswerCap int64
	// Tick schedules a message after a delay (nil: tea.Tick). State tests
	// replace it, so that no test waits on a clock.
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	// Waits brings each wait of an operation before a retry (set
	// api.Options.OnWait to its Note): the status bar counts it down.
	Waits *Waits
	// Notifier tells the terminal that a watched batch ended, or that the
	// key's credit runs low (nil: the status bar says it only).
	Notifier *notify.Notifier
	// CreditWarn is the remaining limit, in dollars, under which the
	// key's credit is warned of, once (0: off).
	CreditWarn float64
}

// common is the small shared state every view gets by pointer: sizes,
// styles, keys, client, options. Only the root's Update writes it.
type common struct {
	opts   Options
	client Client
	styles Styles
	keys   GlobalKeys
	width  int
	height int
	ctx    context.Context
	cancel context.CancelFunc
	record *record.Store
	base   string // the gateway, as the record names it
	// submitted holds the batches submitted in this session, and when:
	// the record learns them off the UI loop, the 404 grace at once.
	submitted map[string]time.Time
	// retryOf links a retry made from this machine to the batch it
	// retries (child to parent): read from the record when the dashboard
	// starts, added to by R (batch_retry.go).
	retryOf map[string]string
	// active is the view shown (the root writes it): a hidden view
	// pauses what only the screen needs.
	active int
	// writes are the file writes the dashboard started: gathered,
	// tracked, and finished before it quits.
	writes *writeQueue
	// credit warns once when the key's credit runs low (home_watch.go).
	credit *notify.CreditWatch
	// tags hands each new screen its own range of generation tags, so
	// that a closed screen's late answers never match a newer one's.
	tags int
}

// tagBase is a fresh range of generation tags for a new screen (a
// screen counts up from it; 2^20 steps never reach the next range).
func (c *common) tagBase() int {
	c.tags++
	return c.tags << 20
}

// submittedWithin reports whether batch id was submitted from this
// machine within d: in this session (known at once), or before it (the
// record, read into memory when the dashboard starts).
func (c *common) submittedWithin(id string, d time.Duration) bool {
	now := c.now()
	if at, ok := c.submitted[id]; ok {
		return now.Sub(at) <= d
	}
	return c.record.SubmittedWithin(c.base, id, d, now)
}

// remember changes this machine's record. The change is kept in memory
// (Update does no I/O) and written by a command, gathered with the other
// changes of a few seconds into one write (see app_cmds.go); quitting
// writes what is left before the program ends.
func (c *common) remember(change func(st *record.Store, base string)) tea.Cmd {
	if c.record == nil || c.writes == nil {
		return nil
	}
	return c.writes.queue(c, change)
}

func (c *common) log() *slog.Logger {
	if c.opts.Log == nil {
		return discard
	}
	return c.opts.Log
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// tick is tea.Tick, or the test's replacement.
func (c *common) tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	if c.opts.Tick != nil {
		return c.opts.Tick(d, fn)
	}
	return tea.Tick(d, fn)
}

func (c *common) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// noticeMsg asks the shell to show a notice (it fades) or an error (it
// stays until dismissed or replaced) in the status bar.
type noticeMsg struct {
	text string
	err  bool
	// fixed clears the error shown: what it was about is put right.
	fixed bool
	// about names the state an error describes (see failAbout); ended
	// clears the error shown about that state, which has ended.
	about, ended string
}

func notice(text string) noticeMsg     { return noticeMsg{text: text} }
func failNotice(text string) noticeMsg { return noticeMsg{text: text, err: true} }

// say returns a Cmd that shows a notice.
func say(text string) tea.Cmd { return msgCmd(notice(text)) }

// sayFixed shows a notice and clears the error shown, whose cause the
// user has just put right (a form that now validates).
func sayFixed(text string) tea.Cmd { return msgCmd(noticeMsg{text: text, fixed: true}) }

// fail returns a Cmd that shows an error.
func fail(text string) tea.Cmd { return msgCmd(failNotice(text)) }

func msgCmd(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }

// creditsStaleMsg asks the shell to read the key's credit again (after an
// answer, or a 402).
type creditsStaleMsg struct{}

// describeErr renders an error for a screen: status, code, message and
// what to do where known. The text is the server's: callers draw it
// through textsafe (line cells) or the frame filter.
func describeErr(err error) string {
	var ae *api.APIError
	var wt *api.WaitTooLongError
	var gu *api.GaveUpError // "giving up after N attempts", then the answer
	if asErr(err, &ae) && !asErr(err, &wt) && !asErr(err, &gu) {
		s := ae.Error()
		if h := ae.Hint(); h != "" {
			s += " — " + h
		}
		return textsafe.Line(s)
	}
	if err == context.Canceled {
		return "stopped"
	}
	return textsafe.Line(present.Plain(err)) // in the user's words, never Go's
}

func asErr(err error, target any) bool { return errors.As(err, target) }
