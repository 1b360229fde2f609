package ui

// The Logs view: the local request log, newest first, searched with /
// (words, and model: provider: state: since: filters), a request opened
// whole with enter, reopened in the playground with r, re-raced with c,
// copied as curl with y; the header charts the spend of the last 30 days.
// Every read of the file happens in a command.

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/ui/transcript"
	"github.com/gwdash/gwdash/ui/widgets"
)

// logsPage is how many rows a load reads: the view scrolls through them,
// and reading more is a search away.
const logsPage = 1000

// spendDays is the span of the header's chart.
const spendDays = 30

type logsView struct {
	c    *common
	keys LogsKeys
	w, h int

	nav    widgets.ListNav
	search widgets.FilterLine
	rows   []reqlog.Entry
	total  int
	spend  []float64
	table  widgets.Table

	db      *reqlog.DB
	gen     int
	loading bool
	loaded  bool
	err     error
	at      time.Time

	// md renders a logged answer as markdown (its cache outlives an
	// open row).
	md *transcript.Markdown
	// stack holds a row opened (logDetail) or the spend panel.
	stack stack
}

func newLogsView(c *common) *logsView {
	v := &logsView{c: c, keys: DefaultLogsKeys(), search: widgets.NewFilterLine("words · model: provider: state: since:7d")}
	v.table = widgets.NewTable(
		// The input's first line gives way first: time, cost and end state
		// are what a row is read for.
		widgets.Column{Title: "TIME", Keep: 9, Min: 11},
		widgets.Column{Title: "MODEL", Max: 32, Keep: 6, Min: 12},
		widgets.Column{Title: "PROVIDER", Max: 16, Keep: 3, Optional: true},
		widgets.Column{Title: "TOKENS", Keep: 7, Right: true},
		widgets.Column{Title: "COST", Keep: 8, Right: true, Min: 7},
		widgets.Column{Title: "TTFT", Keep: 2, Right: true, Optional: true},
		widgets.Column{Title: "STATE", Max: 14, Keep: 8, Min: 9},
		widgets.Column{Title: "INPUT", Keep: 1, Min: 10},
	)
	return v
}

// ---- messages ----

type logsLoadedMsg struct {
	gen   int
	db    *reqlog.DB
	rows  []reqlog.Entry
	total int
	spend []float64
	err   error
	at    time.Time
}

type logsDetailMsg struct {
	gen   int
	entry reqlog.Entry
	err   error
}

// ---- commands ----

// loadCmd reads a page of rows, their count and the 30 days of spend.
func (v *logsView) loadCmd() tea.Cmd {
	if v.c.opts.Requests == nil {
		return nil
	}
	v.gen++
	v.loading = true
	gen, db, path, f, now := v.gen, v.db, v.c.opts.Requests.Path(), v.filter(), v.c.now()
	ctx := v.c.ctx
	return func() tea.Msg {
		out := logsLoadedMsg{gen: gen, db: db, at: now}
		if db == nil {
			var err error
			if db, _, err = reqlog.OpenExisting(path); err != nil {
				var none *reqlog.ErrNoLog
				if asErr(err, &none) {
					err = nil
				}
				out.err = err
				return out
			}
			out.db = db
		}
		if out.rows, out.err = db.List(ctx, f); out.err != nil {
			return out
		}
		if out.total, out.err = db.Count(ctx, f); out.err != nil {
			return out
		}
		first := now.UTC().Truncate(24 * time.Hour).Add(-(spendDays - 1) * 24 * time.Hour)
		rows, err := db.Spend(ctx, first)
		if err == nil {
			out.spend = reqlog.DailySpend(rows, first, now)
		}
		return out
	}
}

// detailCmd reads one row whole.
func (v *logsView) detailCmd(id int64) tea.Cmd {
	db, gen, ctx := v.db, v.gen, v.c.ctx
	if db == nil {
		return nil
	}
	return func() tea.Msg {
		e, err := db.Get(ctx, id)
		return logsDetailMsg{gen: gen, entry: e, err: err}
	}
}

// filter is the search line read as a filter: words are searched, and
// model:, provider:, state: and since: (7d, 24h, a date) narrow.
func (v *logsView) filter() reqlog.Filter {
	f := reqlog.Filter{Limit: logsPage}
	var words []string
	for _, w := range strings.Fields(v.search.Input.Value()) {
		k, val, ok := strings.Cut(w, ":")
		switch {
		case ok && val != "" && k == "model":
			f.Model = val
		case ok && val != "" && k == "provider":
			f.Provider = val
		case ok && val != "" && k == "state":
			f.State = strings.ReplaceAll(val, "_", " ")
		case ok && val != "" && k == "since":
			f.Since = sinceOf(val, v.c.now())
		default:
			words = append(words, w)
		}
	}
	f.Search = strings.Join(words, " ")
	if len(f.Search) > reqlog.MaxSearchLen {
		f.Search = f.Search[:reqlog.MaxSearchLen]
	}
	return f
}

// sinceOf reads 7d, 24h or a date; anything else is no bound.
func sinceOf(s string, now time.Time) time.Time {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := time.ParseDuration(n + "h"); err == nil && d >= 0 {
			return now.Add(-24 * d)
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d)
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t
	}
	return time.Time{}
}

// ---- the view interface ----

func (v *logsView) Init() tea.Cmd { return watchLogProblems(v.c) }

func (v *logsView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.nav.SetHeight(v.listHeight())
	v.table.Layout(w)
	v.stack.SetSize(w, h)
}

// KeyMap lists the keys that work now: the search line's while it is
// typed, none while the log is off (every key says so), and the keys that
// act on a request only when one is selected.
func (v *logsView) KeyMap() help.KeyMap {
	if v.search.Typing {
		return v.search.Keys
	}
	if v.c.opts.Requests == nil {
		return keyMap{}
	}
	if s := v.stack.top(); s != nil {
		return s.KeyMap()
	}
	k := v.keys
	if v.selected() == nil {
		k.Replay.SetEnabled(false)
		k.Rerace.SetEnabled(false)
		k.Curl.SetEnabled(false)
	}
	return k
}

// markdown is the renderer of logged answers, made on first use.
func (v *logsView) markdown() *transcript.Markdown {
	if v.md == nil {
		style := "light"
		if v.c.styles.Dark {
			style = "dark"
		}
		v.md = transcript.NewMarkdown(style, v.c.styles.Renderer.ColorProfile(), v.c.styles.Muted)
	}
	return v.md
}

// open is the logged request open, if any.
func (v *logsView) open() *logDetail { d, _ := find[*logDetail](&v.stack); return d }

func (v *logsView) Help() string {
	switch {
	case v.search.Typing:
		return "typing a search"
	case v.stack.open():
		return v.stack.top().Help()
	}
	return ""
}

func (v *logsView) Typing() bool { return v.search.Typing }

func (v *logsView) Busy() string {
	if v.loading {
		return "reading the request log"
	}
	return ""
}

func (v *logsView) Updated() time.Time { return v.at }

func (v *logsView) Stop() {
	if v.db != nil {
		v.db.Close()
		v.db = nil
	}
}

// listHeight is the rows' room: the chart, the search line and the
// table's header take theirs.
func (v *logsView) listHeight() int { return max(1, v.h-3) }

func (v *logsView) selected() *reqlog.Entry {
	if d := v.open(); d != nil {
		return &d.entry
	}
	if v.nav.Cursor < 0 || v.nav.Cursor >= len(v.rows) {
		return nil
	}
	return &v.rows[v.nav.Cursor]
}

// ---- update ----

func (v *logsView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case focusMsg:
		if msg.view == viewLogs {
			cmd := v.loadCmd()
			if d := v.open(); d != nil {
				cmd = tea.Batch(cmd, d.render())
			}
			return cmd
		}
	case logProblemMsg:
		return tea.Batch(fail(msg.text), watchLogProblems(v.c))
	case logsLoadedMsg:
		if msg.gen != v.gen {
			if msg.db != nil && msg.db != v.db {
				msg.db.Close()
			}
			return nil
		}
		v.loading, v.loaded, v.at = false, true, msg.at
		if msg.db != nil {
			v.db = msg.db
		}
		v.err = msg.err
		if msg.err == nil {
			v.rows, v.total, v.spend = msg.rows, msg.total, msg.spend
			v.measure()
			v.nav.SetCount(len(v.rows))
		}
	case spendLoadedMsg:
		if _, ok := v.stack.top().(*spendScreen); ok && msg.gen == v.gen {
			return v.act(v.stack.update(msg))
		}
	case logsDetailMsg:
		if msg.gen != v.gen {
			return nil
		}
		if msg.err != nil {
			return fail("reading the request log: " + describeErr(msg.err))
		}
		d := newLogDetail(v.c, v.keys, v.markdown(), msg.entry)
		v.stack.push(d)
		return d.render()
	case logsAnswerMsg, tea.WindowSizeMsg:
		return v.act(v.stack.update(msg))
	case tea.MouseMsg:
		if v.stack.open() {
			return v.act(v.stack.update(msg))
		}
		v.nav.Wheel(msg)
	case tea.KeyMsg:
		return v.key(msg)
	}
	return nil
}

func (v *logsView) key(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	if v.search.Typing {
		cmd, _, changed := v.search.Key(msg)
		if changed {
			return tea.Batch(cmd, v.loadCmd())
		}
		return cmd
	}
	if v.c.opts.Requests == nil && !key.Matches(msg, k.List.Back) {
		return say("the request log is off (log = false, or --no-log): nothing is recorded")
	}
	if v.stack.open() {
		return v.act(v.stack.update(msg))
	}
	if what, ok := k.ask(msg); ok {
		e := v.selected()
		if e == nil && what != askReload {
			return say("no logged request is selected")
		}
		var entry reqlog.Entry
		if e != nil {
			entry = *e
		}
		return v.act(nil, event(logsAsk{what: what, entry: entry}))
	}
	switch {
	case key.Matches(msg, k.Spend):
		v.stack.push(&spendScreen{c: v.c, keys: v.keys})
		return v.spendCmd()
	case v.nav.Key(msg, k.List):
	case key.Matches(msg, k.List.Open):
		e := v.selected()
		if e == nil {
			return say("no logged request is selected: nothing to open")
		}
		return v.detailCmd(e.ID)
	case key.Matches(msg, k.List.Filter):
		return v.search.Start()
	case key.Matches(msg, k.List.Back):
		if v.search.Input.Value() != "" {
			v.search.Clear()
			return v.loadCmd()
		}
		return say("nothing to go back to: 1 2 3 4 switch views")
	default:
		return unknownKey(msg)
	}
	return nil
}

// act is where the view does what its screens (and its own keys) ask.
func (v *logsView) act(cmd tea.Cmd, a action) tea.Cmd {
	if ask, ok := a.value.(logsAsk); ok {
		switch ask.what {
		case askReplay, askRerace:
			return tea.Batch(cmd, v.reopen(ask.entry, ask.what == askRerace))
		case askCurl:
			return tea.Batch(cmd, v.copyCurl(ask.entry))
		case askReload:
			return tea.Batch(cmd, v.loadCmd())
		}
	}
	return cmd
}

// reopen hands a logged request to the playground (r), or to its compare
// mode (c); only responses can be sent again.
func (v *logsView) reopen(e reqlog.Entry, rerace bool) tea.Cmd {
	if e.Kind != reqlog.KindResponse {
		return say("a batch cannot be reopened: only responses replay")
	}
	db, ctx := v.db, v.c.ctx
	return func() tea.Msg {
		e, err := whole(ctx, db, e)
		if err != nil {
			return failNotice("reading the request log: " + describeErr(err))
		}
		req, err := reqlog.ReplayRequest(e)
		if err != nil {
			return failNotice(err.Error())
		}
		return replayMsg{req: req, entry: e, compare: rerace}
	}
}

// copyCurl copies the row's request as a curl command; the key is named,
// never written.
func (v *logsView) copyCurl(e reqlog.Entry) tea.Cmd {
	if e.Kind != reqlog.KindResponse {
		return say("a batch has no single request to copy")
	}
	db, ctx, c := v.db, v.c.ctx, v.c
	base := ""
	if c.client != nil {
		base = c.client.BaseURL()
	}
	return func() tea.Msg {
		e, err := whole(ctx, db, e)
		if err != nil {
			return failNotice("reading the request log: " + describeErr(err))
		}
		text, err := curlCommand(base, e)
		if err != nil {
			return failNotice(err.Error())
		}
		return copyCmd(c, text, "the request as curl (key as $GWDASH_API_KEY)")()
	}
}

// whole is a row with its request, read from the log when the list's copy
// was read without it.
func whole(ctx context.Context, db *reqlog.DB, e reqlog.Entry) (reqlog.Entry, error) {
	if e.Request != "" || db == nil {
		return e, nil
	}
	return db.Get(ctx, e.ID)
}
