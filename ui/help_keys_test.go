package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// lastLine is the help bar: the last line of the screen.
func lastLine(v string) string {
	lines := strings.Split(strings.TrimRight(v, "\n"), "\n")
	return lines[len(lines)-1]
}

func requireLists(t *testing.T, where, v string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(v, w) {
			t.Fatalf("%s lacks %q:\n%s", where, w, v)
		}
	}
	for _, n := range not {
		if strings.Contains(v, n) {
			t.Fatalf("%s lists %q, which does not work there:\n%s", where, n, v)
		}
	}
}

// Item 26: in a read-only session the batches home's help leaves out
// submit and delete, which are refused there; the keys still answer with
// the refusal. With writes allowed they are listed.
func TestHomeHelpHidesWritesWhenReadOnly(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{}, 140, 40)
	requireLists(t, "help bar", lastLine(viewOf(m)), []string{"submit a JSONL file"}, nil)
	requireLists(t, "? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"submit a JSONL file", "delete (settled)"}, nil)

	m = stateModel(t, fakeBatches(), Options{ReadOnly: true}, 140, 40)
	requireLists(t, "read-only help bar", lastLine(viewOf(m)), []string{"filter"}, []string{"submit", "delete"})
	requireLists(t, "read-only ? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"order: created/status/cost"}, []string{"submit a JSONL file", "delete (settled)"})
	m = drive(m, keyMsg("s"))
	if !strings.Contains(m.notice, "read-only: submitting a batch is disabled") {
		t.Fatalf("s in a read-only session: notice %q", m.notice)
	}
}

// Item 26: in a read-only session the destinations list lists neither
// create, toggle nor delete, and enter says it views; the editor lists
// no key that changes a field or saves.
func TestDestHelpHidesWritesWhenReadOnly(t *testing.T) {
	fc := fakeBatches()
	fc.dests = []api.Destination{{ID: "d1", Type: "webhook", Regions: []string{"us"}, SamplingRate: 1, Config: map[string]any{"url": "https://h", "secret": "whsec...abcd"}}}
	m := stateModel(t, fc, Options{ReadOnly: true}, 140, 60)
	m = drive(m, keyMsg("3"))
	requireLists(t, "read-only help bar", lastLine(viewOf(m)), []string{"enter view"}, []string{"enable/disable", "new destination", "edit"})
	requireLists(t, "read-only ? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"workspace"}, []string{"enable/disable", "new destination", "delete (type its name)"})
	m = drive(m, keyMsg(" "))
	if !strings.Contains(m.notice, "read-only: enabling or disabling a destination is disabled") {
		t.Fatalf("space in a read-only session: notice %q", m.notice)
	}
	m = drive(m, keyMsg("enter"))
	if destOf(m).editor() == nil {
		t.Fatal("enter did not open the destination")
	}
	requireLists(t, "read-only editor help bar", lastLine(viewOf(m)), []string{"next field"}, []string{"review & save", "toggle"})
	requireLists(t, "read-only editor ? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"show/hide secret", "previous field"},
		[]string{"review & save", "toggle", "previous choice", "next choice", "edit rules"})

	m = stateModel(t, fc, Options{}, 140, 60)
	m = drive(m, keyMsg("3"))
	requireLists(t, "help bar", lastLine(viewOf(m)), []string{"enable/disable", "enter edit", "new destination"}, nil)
	requireLists(t, "? help", viewOf(drive(m, tea.KeyMsg{Type: tea.KeyF1})), []string{"delete (type its name)"}, nil)
}

// Item 26: the playground settings hold no secret and no rules, so their
// help lists neither ctrl+r nor enter.
func TestSettingsHelpListsOnlyWorkingKeys(t *testing.T) {
	var rows []string
	for _, g := range DefaultSettingsKeys().FullHelp() {
		for _, b := range g {
			if b.Enabled() {
				rows = append(rows, b.Help().Key+" "+b.Help().Desc)
			}
		}
	}
	requireLists(t, "settings help", strings.Join(rows, "\n"), []string{"ctrl+s keep settings"}, []string{"show/hide secret", "edit rules"})
}

// Item 26: while an answer runs esc stops it, even while typing, so the
// typing help says so instead of "stop typing".
func TestTypingHelpNamesWhatEscDoes(t *testing.T) {
	m := stateModel(t, fakeBatches(), Options{View: "playground", Model: "openai/gpt-4o-mini"}, 140, 40)
	p := playOf(m)
	p.setMode(playTyping)
	requireLists(t, "typing help", lastLine(viewOf(m)), []string{"esc stop typing"}, []string{"stop the answer"})
	listed := func() string {
		var rows []string
		km := p.KeyMap()
		for _, b := range append(km.ShortHelp(), km.FullHelp()[0]...) {
			rows = append(rows, b.Help().Key+" "+b.Help().Desc)
		}
		return strings.Join(rows, "\n")
	}
	p.live = map[int]*liveStream{0: {}} // an answer runs (the keys only; not drawn)
	requireLists(t, "typing help while an answer runs", listed(), []string{"esc stop the answer"}, []string{"stop typing"})
	p.live = nil
}

// listedKeys is what the focused view's help lists, one "key desc" a line.
func listedKeys(m Model) string {
	km := m.views[m.active].KeyMap()
	var rows []string
	for _, g := range append([][]key.Binding{km.ShortHelp()}, km.FullHelp()...) {
		for _, b := range g {
			if b.Enabled() {
				rows = append(rows, b.Help().Key+" "+b.Help().Desc)
			}
		}
	}
	return strings.Join(rows, "\n")
}

// Item 26: the Logs view lists the keys that act on a request only when
// one is selected, the search line's keys while it is typed, and nothing
// while the log is off (where every key says so).
func TestLogsHelpListsOnlyWorkingKeys(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	lists := func(want, not []string) func(Model) bool {
		return func(m Model) bool {
			l := listedKeys(m)
			for _, w := range want {
				if !strings.Contains(l, w) {
					return false
				}
			}
			for _, n := range not {
				if strings.Contains(l, n) {
					return false
				}
			}
			return true
		}
	}
	rec := requestLog(t)
	u := start(t, Options{Client: c, View: "logs", Requests: rec}, 120, 40)
	u.screen("4 Logs")
	u.until("empty log", lists([]string{"/ search", "$ spend panel"}, []string{"copy as curl", "reopen in the playground", "re-race"}))
	u.runes("/")
	u.until("search typed", lists([]string{"enter keep filter", "esc clear filter"}, []string{"copy as curl", "spend panel"}))
	u.quit()

	rec.Record(reqlog.Entry{Kind: reqlog.KindResponse, Model: "openai/gpt-4o-mini", State: "completed", Input: "hello"})
	rec.Flush()
	u = start(t, Options{Client: c, View: "logs", Requests: rec}, 120, 40)
	u.screen("1 request logged")
	u.until("one request", lists([]string{"y copy as curl", "r reopen in the playground", "c re-race in compare mode"}, nil))
	u.quit()

	u = start(t, Options{Client: c, View: "logs"}, 120, 40)
	u.screen("The request log is off")
	u.until("log off", lists(nil, []string{"search", "reload", "spend panel", "copy as curl"}))
	u.quit()
}
