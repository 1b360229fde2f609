package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// view is what the shell asks of each of its three views. Views are
// pointers; only their Update changes them.
type view interface {
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	// Capturing is true while a text field has focus: the shell then
	// leaves printable keys (1 2 3 q ? tab) to the view.
	Capturing() bool
	// Busy says what is loading, for the status bar ("" when idle).
	Busy() string
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	// Stop cancels whatever the view has running (streams, polls).
	Stop()
}

const (
	viewBatches = iota
	viewPlayground
	viewDestinations
)

var viewNames = []string{"Batches", "Playground", "Destinations"}

// Minimum sizes: below minW x minH the shell draws only a short message;
// below compactW x compactH views draw their compact layout.
const (
	minW, minH         = 20, 5
	compactW, compactH = 60, 15
	noticeTTL          = 6 * time.Second
	frameRate          = 30
)

// Model is the root of the dashboard: a router with explicit focus.
type Model struct {
	c      *common
	views  []view
	active int
	help   help.Model
	full   bool

	notice    string
	noticeErr bool
	noticeSeq int
	quitting  bool
}

type clearNoticeMsg struct{ seq int }

// New builds the dashboard model.
func New(opts Options) Model {
	ctx, cancel := context.WithCancel(context.Background())
	c := &common{opts: opts, client: opts.Client, styles: NewStyles(DefaultTheme()), global: DefaultGlobalKeys(), width: 80, height: 24, ctx: ctx, cancel: cancel}
	m := Model{c: c, help: help.New()}
	m.views = []view{newBatchView(c), newPlayground(c), newDestView(c)}
	switch strings.ToLower(opts.View) {
	case "playground", "2":
		m.active = viewPlayground
	case "destinations", "dest", "3":
		m.active = viewDestinations
	}
	m.help.Styles.ShortKey = c.styles.StatusKey
	m.help.Styles.ShortDesc = c.styles.StatusDesc
	m.help.Styles.FullKey = c.styles.StatusKey
	m.help.Styles.FullDesc = c.styles.StatusDesc
	return m
}

// Init implements tea.Model.
func (m Model) Init() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.views))
	for _, v := range m.views {
		cmds = append(cmds, v.Init())
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.width, m.c.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case noticeMsg:
		m.c.log().Info("notice", "text", textsafe.Line(msg.text), "error", msg.err)
		m.noticeSeq++
		m.notice, m.noticeErr = textsafe.Line(msg.text), msg.err
		seq := m.noticeSeq
		return m, tea.Tick(noticeTTL, func(time.Time) tea.Msg { return clearNoticeMsg{seq} })
	case copiedMsg: // the shell's concern: one notice, whichever view copied
		if msg.err != nil {
			return m.Update(failNotice("copy failed: " + msg.err.Error()))
		}
		return m.Update(notice("copied " + msg.what + " to the clipboard"))
	case clearNoticeMsg:
		if msg.seq == m.noticeSeq {
			m.notice = ""
		}
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m, m.views[m.active].Update(msg)
	}
	// Everything else (results of commands, ticks) goes to every view;
	// each keeps only what is addressed to it.
	cmds := make([]tea.Cmd, 0, len(m.views))
	for _, v := range m.views {
		cmds = append(cmds, v.Update(msg))
	}
	return m, tea.Batch(cmds...)
}

func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	g := m.c.global
	if key.Matches(msg, g.ForceQuit) {
		return m.quit()
	}
	v := m.views[m.active]
	if m.full {
		if key.Matches(msg, g.Help) || msg.Type == tea.KeyEsc || key.Matches(msg, g.Quit) {
			m.full = false
		}
		return m, nil
	}
	if !v.Capturing() {
		switch {
		case key.Matches(msg, g.Quit):
			return m.quit()
		case key.Matches(msg, g.Help):
			m.full = true
			return m, nil
		case key.Matches(msg, g.Batches):
			return m.switchTo(viewBatches)
		case key.Matches(msg, g.Playground):
			return m.switchTo(viewPlayground)
		case key.Matches(msg, g.Destinations):
			return m.switchTo(viewDestinations)
		case key.Matches(msg, g.Next):
			return m.switchTo((m.active + 1) % len(m.views))
		}
	}
	return m, v.Update(msg)
}

// focusMsg tells a view it became the active one.
type focusMsg struct{ view int }

func (m Model) switchTo(i int) (tea.Model, tea.Cmd) {
	m.c.log().Debug("view", "name", viewNames[i])
	m.active = i
	return m, m.views[i].Update(focusMsg{view: i})
}

func (m Model) quit() (tea.Model, tea.Cmd) {
	for _, v := range m.views {
		v.Stop()
	}
	m.c.cancel()
	m.quitting = true
	return m, tea.Quit
}

func (m *Model) layout() {
	body := max(0, m.c.height-2)
	for _, v := range m.views {
		v.SetSize(m.c.width, body)
	}
	m.help.Width = m.c.width
}

// View implements tea.Model.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	w, h := m.c.width, m.c.height
	if w < minW || h < minH {
		msg := fmt.Sprintf("terminal too small (%dx%d)", w, h)
		return fitBlock(ansi.Truncate(msg, max(1, w), ""), w, h)
	}
	var body string
	if m.full {
		body = m.fullHelp()
	} else {
		body = m.views[m.active].View()
	}
	out := m.header() + "\n" + fitBlock(body, w, h-2) + "\n" + m.statusBar()
	// The frame may carry only our colours: whatever a view forgot to
	// clean is shown inert here.
	return textsafe.Frame(out)
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
		if i == m.active {
			tabs[i] = s.TabOn.Render(label)
		} else {
			tabs[i] = s.HeaderTab.Render(label)
		}
	}
	left := strings.Join(tabs, "")
	right := ""
	if m.c.opts.Demo {
		right = s.Demo.Render("DEMO") + " "
	}
	host := ""
	if m.c.client != nil {
		host = m.c.client.Host()
	}
	if m.c.opts.Profile != "" {
		host += " · " + m.c.opts.Profile
	}
	if m.c.opts.ReadOnly {
		host += " · read-only"
	}
	right += s.Host.Render(textsafe.Line(host))
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return ansi.Truncate(left+" "+right, w, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m Model) statusBar() string {
	s := m.c.styles
	w := m.c.width
	v := m.views[m.active]
	var left string
	switch {
	case m.notice != "" && m.noticeErr:
		left = s.StatusErr.Render("✗ " + m.notice)
	case m.notice != "":
		left = s.StatusNote.Render(m.notice)
	}
	if b := v.Busy(); b != "" {
		if left != "" {
			left += "  "
		}
		left += s.Busy.Render("⟳ " + b)
	}
	keys := append(v.ShortHelp(), m.c.global.Help, m.c.global.Quit)
	if v.Capturing() {
		keys = v.ShortHelp()
	}
	hw := max(0, w-lipgloss.Width(left)-2)
	m.help.Width = hw
	right := m.help.ShortHelpView(keys)
	if left == "" {
		return ansi.Truncate(right, w, "…")
	}
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 2 {
		return ansi.Truncate(left, w, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m Model) fullHelp() string {
	s := m.c.styles
	v := m.views[m.active]
	g := m.c.global
	groups := append([][]key.Binding{{g.Batches, g.Playground, g.Destinations, g.Next, g.Help, g.Quit, g.ForceQuit}}, v.FullHelp()...)
	m.help.Width = m.c.width
	return s.Title.Render(viewNames[m.active]+" — keys") + "\n\n" + m.help.FullHelpView(groups) + "\n\n" + s.Muted.Render("press ? or esc to close")
}

// fitBlock pads or cuts s to exactly h lines of at most w cells.
func fitBlock(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// CrashError is a panic inside the dashboard, caught after the terminal
// was restored. Value is short and safe to print; the stack goes to the
// log only.
type CrashError struct{ Value string }

func (e *CrashError) Error() string { return "the dashboard crashed: " + e.Value }

// guard catches a panic in Update or View, logs the stack, and quits so
// that Bubble Tea restores the terminal.
type guard struct {
	Model
	crash *crashState
}

type crashState struct {
	mu    sync.Mutex
	value string
	quit  func()
}

func (g guard) recovered(r any) {
	g.crash.mu.Lock()
	defer g.crash.mu.Unlock()
	if g.crash.value == "" {
		g.crash.value = ansi.Truncate(textsafe.Line(fmt.Sprint(r)), 200, "…")
		g.c.log().Error("panic", "value", g.crash.value, "stack", string(debug.Stack()))
		if g.crash.quit != nil {
			go g.crash.quit()
		}
	}
}

func (g guard) Update(msg tea.Msg) (m tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.recovered(r)
			m, cmd = g, tea.Quit
		}
	}()
	next, cmd := g.Model.Update(msg)
	return guard{Model: next.(Model), crash: g.crash}, cmd
}

func (g guard) View() (s string) {
	defer func() {
		if r := recover(); r != nil {
			g.recovered(r)
			s = ""
		}
	}()
	return g.Model.View()
}

// filteredTTY is the terminal the dashboard draws on, with the last-line
// filter in front of it: it is still a terminal to Bubble Tea (its size is
// read, its mode restored), but every byte written passes TermFilter.
type filteredTTY struct {
	*os.File
	mu     sync.Mutex
	filter *textsafe.TermFilter
}

func (t *filteredTTY) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.filter.Write(p)
}

// Run starts the dashboard and blocks until it quits or ctx ends; when ctx
// ends (a signal) the terminal is restored before Run returns. Bubble
// Tea's own signal handler is off: the caller owns signals. A panic in the
// dashboard restores the terminal and returns a *CrashError.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	crash := &crashState{}
	g := guard{Model: New(opts), crash: crash}
	var output io.Writer = textsafe.NewTermFilter(out)
	if f, ok := out.(*os.File); ok {
		output = &filteredTTY{File: f, filter: textsafe.NewTermFilter(f)}
	}
	// 30 frames a second: streamed text reads as smoothly as at 60, and an
	// idle dashboard wakes half as often (measured: about 0.6% of a core
	// instead of 1.1%). Keys are handled in Update, not at the frame rate.
	p := tea.NewProgram(g, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(output),
		tea.WithFPS(frameRate), tea.WithoutSignalHandler())
	crash.mu.Lock()
	crash.quit = p.Quit
	crash.mu.Unlock()
	final, err := p.Run()
	if fg, ok := final.(guard); ok {
		for _, v := range fg.views {
			v.Stop()
		}
		fg.c.cancel()
	}
	crash.mu.Lock()
	defer crash.mu.Unlock()
	if crash.value != "" {
		return &CrashError{Value: crash.value}
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller ended it (a signal) and knows why
	}
	return err
}
