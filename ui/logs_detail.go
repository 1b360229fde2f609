package ui

// A logged request opened (enter in the Logs view): its input, answer
// (rendered as markdown in a command, plain until then), request and
// generation record, laid out per width in Update and SetSize. It is a
// screen on the Logs view's stack; what it asks of the view (reopen,
// re-race, copy as curl, reload) it returns as a logsAsk.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/ui/transcript"
	"github.com/gwdash/gwdash/ui/widgets"
)

// logsAsk is what a Logs screen asks of the view.
type logsAsk struct {
	what  logsWhat
	entry reqlog.Entry
}

type logsWhat int

const (
	askReplay logsWhat = iota // r: reopen in the playground
	askRerace                 // c: re-race in compare mode
	askCurl                   // y: copy as curl
	askReload                 // R: read the log again
)

// ask maps the keys that act on a logged request to what they ask.
func (k LogsKeys) ask(msg tea.KeyMsg) (logsWhat, bool) {
	switch {
	case key.Matches(msg, k.Replay):
		return askReplay, true
	case key.Matches(msg, k.Rerace):
		return askRerace, true
	case key.Matches(msg, k.Curl):
		return askCurl, true
	case key.Matches(msg, k.Reload):
		return askReload, true
	}
	return 0, false
}

type logDetail struct {
	c     *common
	keys  LogsKeys
	md    *transcript.Markdown
	entry reqlog.Entry
	w, h  int

	lines []string
	width int // the width lines were laid out for
	nav   widgets.ListNav
	// answer is the answer rendered as markdown for answerWidth (nil
	// until its command has answered: shown plain).
	answer      []string
	answerWidth int
}

func newLogDetail(c *common, keys LogsKeys, md *transcript.Markdown, e reqlog.Entry) *logDetail {
	return &logDetail{c: c, keys: keys, md: md, entry: e}
}

func (d *logDetail) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case logsAnswerMsg:
		if msg.id == d.entry.ID && msg.width == d.textWidth() {
			d.answer, d.answerWidth = msg.lines, msg.width
			d.layout()
		}
	case tea.WindowSizeMsg:
		return d.render(), noAction
	case tea.MouseMsg:
		d.nav.Wheel(msg)
	case tea.KeyMsg:
		if what, ok := d.keys.ask(msg); ok {
			return nil, event(logsAsk{what: what, entry: d.entry})
		}
		switch {
		case key.Matches(msg, d.keys.List.Back):
			return nil, cancelled
		case d.nav.Key(msg, d.keys.List):
		default:
			return unknownKey(msg), noAction
		}
	}
	return nil, noAction
}

// textWidth is the width the row is laid out for.
func (d *logDetail) textWidth() int { return max(20, d.w) }

// render asks for the answer as markdown at the current width (nil when
// there is nothing to render or it is already).
func (d *logDetail) render() tea.Cmd {
	w := d.textWidth()
	if d.entry.Answer == "" || d.answerWidth == w || d.md == nil {
		return nil
	}
	return renderAnswerCmd(d.md, d.entry.ID, d.entry.Answer, w)
}

// layout lays the row out for the width (in Update and SetSize, never in
// View).
func (d *logDetail) layout() {
	var answer []string
	if d.answerWidth == d.textWidth() {
		answer = d.answer
	}
	d.lines = detailLines(d.entry, d.c.styles, d.textWidth(), answer)
	d.width = d.w
	d.nav.SetCount(len(d.lines))
}

func (d *logDetail) SetSize(w, h int) {
	d.w, d.h = w, h
	d.nav.SetHeight(max(1, h-1))
	if d.width != w || d.lines == nil {
		d.layout()
	}
}

// View draws the row as laid out; it changes nothing.
func (d *logDetail) View() string {
	s := d.c.styles
	a := d.nav.Offset
	b := min(len(d.lines), a+d.nav.Height)
	pos := widgets.ScrollPosition(a, d.nav.Height, len(d.lines))
	head := s.Title.Render(fmt.Sprintf("Request %d", d.entry.ID)) + "  " + s.Muted.Render("esc back · r playground · c compare · y curl  "+pos)
	return strings.Join(append([]string{head}, d.lines[a:b]...), "\n")
}

// KeyMap is the keys that work on an open row: no search, no opening,
// no spend panel here.
func (d *logDetail) KeyMap() help.KeyMap {
	k := d.keys
	k.List.Open.SetEnabled(false)
	k.List.Filter.SetEnabled(false)
	k.Spend.SetEnabled(false)
	return k
}

func (d *logDetail) Help() string { return "reading a logged request" }
func (d *logDetail) Typing() bool { return false }

// spendScreen is the spend panel ($), drawn below the view's chart line.
type spendScreen struct {
	c    *common
	keys LogsKeys
	data *spendPanel // nil while it is read
	w, h int
}

func (p *spendScreen) Update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case spendLoadedMsg:
		if msg.err != nil {
			return fail("reading the request log: " + describeErr(msg.err)), noAction
		}
		panel := msg.panel
		p.data = &panel
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.SpendClose):
			return nil, cancelled
		case key.Matches(msg, p.keys.Reload):
			return nil, event(logsAsk{what: askReload})
		}
		return unknownKey(msg), noAction
	}
	return nil, noAction
}

func (p *spendScreen) SetSize(w, h int) { p.w, p.h = w, h }

// KeyMap: $ and esc close the panel; R reads again.
func (p *spendScreen) KeyMap() help.KeyMap {
	k := p.keys
	return keyMap{short: []key.Binding{k.SpendClose, k.Reload}, full: [][]key.Binding{{k.SpendClose, k.Reload}}}
}

func (p *spendScreen) Help() string { return "reading the spend" }
func (p *spendScreen) Typing() bool { return false }
