package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/muesli/termenv"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/notify"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// view is the shape every view has. Views are pointers; only their Update
// changes them, and View draws from state without changing it.
type view interface {
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	// KeyMap is the focused component's keys: the help bar shows its
	// short help, the ? screen its full help.
	KeyMap() help.KeyMap
	// Help says what the user is doing now ("typing the prompt"), for the
	// status bar; "" for nothing in particular.
	Help() string
	// Typing is true while a text field has focus: letters and digits
	// type, and the shell's 1 2 3 q ? wait until esc.
	Typing() bool
	// Busy says what is loading ("" when idle).
	Busy() string
	// Updated is when the data on screen was last refreshed (zero: none).
	Updated() time.Time
	// Stop cancels whatever the view has running (streams, polls).
	Stop()
}

const (
	viewBatches = iota
	viewPlayground
	viewDestinations
	viewLogs
)

var viewNames = []string{"Batches", "Playground", "Destinations", "Logs"}

// Sizes: below minW x minH the shell draws only a short message; below
// compactW x compactH views draw their compact layout and the help bar
// goes.
const (
	minW, minH         = 20, 5
	compactW, compactH = 60, 15
	noticeTTL          = 6 * time.Second
	frameRate          = 15
)

// Model is the root of the dashboard: a router with explicit focus, a
// header, a status bar and a help bar.
type Model struct {
	c      *common
	views  []view
	active int
	help   help.Model

	helpOpen bool
	helpNav  widgets.ListNav

	notice    string
	noticeSeq int
	errText   string
	errAbout  string // the state errText describes ("" for none named)
	credit    *api.KeyInfo
	balance   *api.Credits // the organisation's (management key)
	ticking   bool
	quitting  bool
	// wait is an operation's wait on screen, a countdown (app_waits.go).
	wait        shownWait
	waitTicking bool
	// quitAsk is "quit and lose it?" while open (app_quit.go).
	quitAsk *widgets.ConfirmPrompt

	// frame is the last frame drawn, kept while nothing visible changes:
	// a message for a hidden view does not redraw.
	frame *frameCache
}

type frameCache struct {
	s     string
	valid bool
}

// redraw drops the frame kept: something visible may have changed.
func (m *Model) redraw() {
	if m.frame != nil {
		m.frame.valid = false
	}
}

type clearNoticeMsg struct{ seq int }
type ageTickMsg struct{}
type creditMsg struct {
	key *api.KeyInfo
	err error
	// credits and cerr are GET /credits, asked only with a management key.
	credits *api.Credits
	cerr    error
}

// focusMsg tells a view it became the active one.
type focusMsg struct{ view int }

// New builds the dashboard model.
func New(opts Options) Model {
	ctx, cancel := context.WithCancel(context.Background())
	r := opts.Renderer
	if r == nil {
		r = lipgloss.DefaultRenderer()
		r.SetHasDarkBackground(opts.DarkBackground)
	}
	c := &common{opts: opts, client: guardWrites(opts.Client, opts.ReadOnly), styles: NewStyles(DefaultTheme(), r), keys: DefaultGlobalKeys(),
		width: 80, height: 24, ctx: ctx, cancel: cancel, record: opts.Record,
		submitted: map[string]time.Time{}, writes: newWriteQueue(), credit: &notify.CreditWatch{Threshold: opts.CreditWarn}}
	if c.client != nil {
		c.base = record.Key(c.client.BaseURL())
	}
	c.client = logRequests(c.client, opts.Requests)
	// The record is read here, once, before the program runs: Update
	// then asks it from memory (the 404 grace, recent models, lineage).
	c.retryOf = lineageOf(c.record.Batches(c.base))
	m := Model{c: c, help: help.New(), frame: &frameCache{}}
	m.views = []view{newBatchesView(c), newPlayground(c), newDestView(c), newLogsView(c)}
	switch strings.ToLower(opts.View) {
	case "playground", "2":
		m.active = viewPlayground
	case "destinations", "dest", "3":
		m.active = viewDestinations
	case "logs", "4":
		m.active = viewLogs
	}
	c.active = m.active
	m.help.Styles.ShortKey = c.styles.HelpKey
	m.help.Styles.ShortDesc = c.styles.HelpDesc
	m.help.Styles.FullKey = c.styles.HelpKey
	m.help.Styles.FullDesc = c.styles.HelpDesc
	m.help.Styles.ShortSeparator = c.styles.Muted
	m.help.Styles.FullSeparator = c.styles.Muted
	return m
}

// Init implements tea.Model.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.c.safeCmd(shellOwner, m.fetchCredit()), m.c.safeCmd(shellOwner, watchWaits(m.c))}
	for i, v := range m.views {
		cmds = append(cmds, m.c.safeCmd(i, v.Init()))
	}
	cmds = append(cmds, m.c.safeCmd(m.active, m.views[m.active].Update(focusMsg{view: m.active})))
	return tea.Batch(cmds...)
}

func (m Model) fetchCredit() tea.Cmd {
	client, ctx := m.c.client, m.c.ctx
	if client == nil || !client.HasAPIKey() && !client.HasManagementKey() {
		return nil
	}
	return func() tea.Msg {
		k, err := client.Key(ctx)
		msg := creditMsg{key: k, err: err}
		if client.HasManagementKey() {
			msg.credits, msg.cerr = client.Credits(ctx)
		}
		return msg
	}
}

// Update implements tea.Model. A command's result goes to the view that
// asked for it only; one for a hidden view changes nothing on screen, so
// the frame drawn last stays.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if am, ok := msg.(addressedMsg); ok {
		if shellMsg(am.msg) {
			return m.Update(am.msg)
		}
		if am.view < 0 || am.view >= len(m.views) {
			return m, nil
		}
		cmd := m.c.safeCmd(am.view, m.views[am.view].Update(am.msg))
		if q, ok := m.views[am.view].(interface{ Quiet(tea.Msg) bool }); am.view != m.active || ok && q.Quiet(am.msg) {
			return m, cmd
		}
		m.redraw()
		tick := m.armTick()
		return m, tea.Batch(cmd, tick)
	}
	m.redraw()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.width, m.c.height = msg.Width, msg.Height
		m.layout()
		// The shown view hears of it too: what it renders for the new
		// width starts now, not at the next message.
		return m, m.c.safeCmd(m.active, m.views[m.active].Update(msg))
	case noticeMsg:
		if msg.ended != "" {
			m.endError(msg.ended)
			return m, nil
		}
		text := textsafe.Line(msg.text)
		m.c.log().Info("notice", "text", text, "error", msg.err)
		if msg.err {
			m.errText, m.notice, m.errAbout = text, "", msg.about
			return m, nil
		}
		if msg.fixed {
			m.errText = ""
		}
		m.noticeSeq++
		m.notice = text
		seq := m.noticeSeq
		return m, m.c.tick(noticeTTL, func(time.Time) tea.Msg { return clearNoticeMsg{seq} })
	case copiedMsg: // the shell's concern: one notice, whichever view copied
		if msg.err != nil {
			return m.Update(failNotice("copy failed: " + msg.err.Error()))
		}
		return m.Update(notice(msg.said))
	case clearNoticeMsg:
		if msg.seq == m.noticeSeq {
			m.notice = ""
		}
		return m, nil
	case creditMsg:
		var warn tea.Cmd
		if msg.err == nil {
			m.credit = msg.key
			warn = m.c.creditWarn(msg.key) // credit_warn: home_watch.go
		} else if api.IsNotOffered(msg.err) {
			m.credit = nil
		}
		if msg.credits != nil {
			m.balance = msg.credits
		} else if api.IsNotOffered(msg.cerr) {
			m.balance = nil
		}
		return m, warn
	case creditsStaleMsg:
		return m, m.c.safeCmd(shellOwner, m.fetchCredit())
	case replayMsg: // a logged request reopened: the playground takes it
		cmd := m.views[viewPlayground].(*playground).loadReplay(msg)
		m.active = viewPlayground
		return m, cmd
	case flushDueMsg:
		return m, m.c.safeCmd(shellOwner, m.c.writes.flush(m.c))
	case flushedMsg:
		if msg.err != nil {
			m.c.log().Warn("record not written", "error", msg.err)
		}
		return m, nil
	case waitMsg, waitTickMsg:
		return m, m.onWait(msg)
	case ageTickMsg:
		m.ticking = false
		cmd := m.views[m.active].Update(msg) // it lays out again: its ages move too
		tick := m.armTick()
		return m, tea.Batch(cmd, tick)
	case tea.KeyMsg:
		next, cmd := m.handleKey(msg)
		nm := next.(Model)
		tick := nm.armTick()
		return nm, tea.Batch(cmd, tick)
	case tea.MouseMsg:
		if m.helpOpen {
			m.helpNav.Wheel(msg)
			return m, nil
		}
		msg.Y-- // the header's line
		cmd := m.c.safeCmd(m.active, m.views[m.active].Update(msg))
		tick := m.armTick()
		return m, tea.Batch(cmd, tick)
	}
	// A message from outside the dashboard's commands (a test's) goes to
	// every view; each keeps only what is its own.
	cmds := make([]tea.Cmd, 0, len(m.views)+1)
	for i, v := range m.views {
		cmds = append(cmds, m.c.safeCmd(i, v.Update(msg)))
	}
	tick := m.armTick()
	cmds = append(cmds, tick)
	return m, tea.Batch(cmds...)
}

// armTick keeps the status bar's refresh age ticking while the active
// view shows data with an age.
func (m *Model) armTick() tea.Cmd {
	if m.ticking || m.quitting || m.views[m.active].Updated().IsZero() {
		return nil
	}
	m.ticking = true
	v := m.views[m.active]
	step := ageStep(m.c.now().Sub(v.Updated()))
	if c, ok := v.(interface{ Countdown() bool }); ok && c.Countdown() {
		step = time.Second // a countdown on screen ticks by the second
	}
	return m.c.tick(step, func(time.Time) tea.Msg { return ageTickMsg{} })
}

// ageStep is how long until an age written by format.Freshness next
// changes: every 10 s under a minute, then every minute, then every hour,
// so an idle dashboard wakes only when the status bar would change.
func ageStep(age time.Duration) time.Duration {
	switch {
	case age < 0:
		return format.FreshStep
	case age < time.Minute:
		return format.FreshStep - age%format.FreshStep
	case age < time.Hour:
		return time.Minute - age%time.Minute
	}
	return time.Hour - age%time.Hour
}

func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	g := m.c.keys
	if next, cmd, done := m.quitHook(msg); done { // q, ctrl+c and unsaved work: app_quit.go
		return next, cmd
	}
	v := m.views[m.active]
	if m.helpOpen {
		hk := DefaultHelpScreenKeys()
		switch {
		case key.Matches(msg, hk.Close):
			m.helpOpen = false
		default:
			m.helpNav.Key(msg, hk.ListKeys)
		}
		return m, nil
	}
	if key.Matches(msg, g.AnyHelp) {
		m.helpOpen, m.helpNav = true, widgets.ListNav{}
		m.layoutHelp()
		return m, nil
	}
	if !v.Typing() {
		switch {
		case key.Matches(msg, g.Help):
			m.helpOpen, m.helpNav = true, widgets.ListNav{}
			m.layoutHelp()
			return m, nil
		case key.Matches(msg, g.Batches):
			return m.switchTo(viewBatches)
		case key.Matches(msg, g.Playground):
			return m.switchTo(viewPlayground)
		case key.Matches(msg, g.Destinations):
			return m.switchTo(viewDestinations)
		case key.Matches(msg, g.Logs):
			return m.switchTo(viewLogs)
		case key.Matches(msg, g.Dismiss) && m.errText != "":
			m.errText = ""
			return m, nil
		}
	}
	return m, m.c.safeCmd(m.active, v.Update(msg))
}

func (m Model) switchTo(i int) (tea.Model, tea.Cmd) {
	if i == m.active {
		return m, say(viewNames[i] + " is already shown")
	}
	m.c.log().Debug("view", "name", viewNames[i])
	m.active, m.c.active = i, i
	return m, m.c.safeCmd(i, m.views[i].Update(focusMsg{view: i}))
}

// quit ends the dashboard: every view stops what it runs, then the
// writes started here finish (in a command: Update does no I/O) before
// the program quits. A question before quitting belongs here, in front.
func (m Model) quit() (tea.Model, tea.Cmd) {
	for _, v := range m.views {
		v.Stop()
	}
	m.c.cancel()
	m.quitting = true
	return m, tea.Sequence(m.c.safeCmd(shellOwner, m.finishWrites()), tea.Quit)
}

// finishWrites is the command that writes what is gathered and waits
// for the writes running.
func (m Model) finishWrites() tea.Cmd {
	q, st, base := m.c.writes, m.c.record, m.c.base
	return func() tea.Msg {
		if err := q.finish(st, base); err != nil {
			m.c.log().Warn("record not written", "error", err)
		}
		return nil
	}
}

// bodyHeight is the views' height: the screen less the header, the
// status bar and (when there is room) the help bar.
func (m *Model) bodyHeight() int {
	h := m.c.height - 2
	if m.showHelpBar() {
		h--
	}
	return max(0, h)
}

func (m *Model) showHelpBar() bool { return m.c.height >= compactH }

func (m *Model) layout() {
	for _, v := range m.views {
		v.SetSize(m.c.width, m.bodyHeight())
	}
	m.help.Width = m.c.width
	m.layoutHelp()
}

// View implements tea.Model. It draws again only after a message that
// may have changed what is visible.
func (m Model) View() string {
	if m.frame != nil && m.frame.valid {
		return m.frame.s
	}
	s := m.draw()
	if m.frame != nil {
		m.frame.s, m.frame.valid = s, true
	}
	return s
}

func (m Model) draw() string {
	if m.quitting {
		return ""
	}
	w, h := m.c.width, m.c.height
	if w < minW || h < minH {
		msg := fmt.Sprintf("terminal too small (%dx%d)", w, h)
		return fitBlock(ansi.Truncate(msg, max(1, w), ""), w, h)
	}
	var body string
	if m.helpOpen {
		body = m.fullHelp()
	} else {
		body = m.views[m.active].View()
	}
	if m.quitAsk != nil {
		// Wrapped: what would be lost can be long, and y/N ends it.
		body = ansi.Wrap(m.quitAsk.View(m.c.styles), w, " ") + "\n" + body
	}
	parts := []string{m.header(), fitBlock(body, w, m.bodyHeight()), m.statusBar()}
	if m.showHelpBar() {
		parts = append(parts, m.helpBar())
	}
	// The frame may carry only our colours: whatever a view forgot to
	// clean is shown inert here.
	return textsafe.Frame(strings.Join(parts, "\n"))
}

func (m Model) header() string {
	s := m.c.styles
	w := m.c.width
	tabs := make([]string, len(viewNames))
	for i, n := range viewNames {
		label := fmt.Sprintf("%d %s", i+1, n)
		if w < compactW {
			label = fmt.Sprintf("%d %s", i+1, n[:3])
		}
		switch {
		case i == m.active && s.Renderer.ColorProfile() == termenv.Ascii:
			// Without colour (NO_COLOR) bold and underline are gone
			// too: brackets in the padding's place say which view is on.
			tabs[i] = "[" + label + "]"
		case i == m.active:
			tabs[i] = s.TabOn.Render(label)
		default:
			tabs[i] = s.HeaderTab.Render(label)
		}
	}
	left := strings.Join(tabs, "")
	var right []string
	if m.c.opts.Demo {
		right = append(right, s.Demo.Render("DEMO"))
	}
	right = append(right, s.Host.Render("gwdash"))
	r := strings.Join(right, " ")
	gap := w - lipgloss.Width(left) - lipgloss.Width(r)
	if gap < 1 {
		return ansi.Truncate(left+" "+r, w, "…")
	}
	return left + strings.Repeat(" ", gap) + r
}

// shortID is the first block of a UUID.
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i] + "…"
	}
	return id
}
