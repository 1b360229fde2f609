package ui

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/reqlog"
)

func logsOf(m Model) *logsView { return m.views[viewLogs].(*logsView) }

// requestLog starts a recorder on a file of the test's own.
func requestLog(t *testing.T) *reqlog.Recorder {
	t.Helper()
	rec := reqlog.Start(reqlog.Options{Path: reqlog.Path(t.TempDir()), Profile: "test", Host: "127.0.0.1"})
	t.Cleanup(func() { rec.Close(10 * time.Second) })
	return rec
}

func loggedRows(t *testing.T, rec *reqlog.Recorder) []reqlog.Entry {
	t.Helper()
	rec.Flush()
	db, _, err := reqlog.OpenExisting(rec.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.List(context.Background(), reqlog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestPlaygroundTurnsAreLoggedAndTheLogsViewReopensThem(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	rec := requestLog(t)
	var mu sync.Mutex
	var copied string
	clip := func(s string) error { mu.Lock(); copied = s; mu.Unlock(); return nil }
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Requests: rec, Clipboard: clip}, 140, 40)
	u.until("temperature set", func(m Model) bool {
		playOf(m).settings.Field(setTemperature).Input.SetValue("0.4")
		return true
	})
	u.typePrompt("first question")
	u.until("first answer", ended(api.EndCompleted))
	u.typePrompt("second question")
	u.until("second answer", func(m Model) bool { return len(playOf(m).turns) == 2 && ended(api.EndCompleted)(m) })

	rows := loggedRows(t, rec)
	if len(rows) != 2 || rows[0].Input != "second question" || rows[1].Input != "first question" {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0].ConversationID == nil || *rows[0].ConversationID != rows[1].ID || rows[0].State != "completed" || rows[0].Cost == nil || rows[0].TTFTMillis == nil {
		t.Fatalf("second turn row %+v", rows[0])
	}
	u.until("generation stored", func(Model) bool {
		rec.Flush()
		db, _, _ := reqlog.OpenExisting(rec.Path())
		defer db.Close()
		e, _ := db.Get(context.Background(), rows[1].ID)
		return e.Generation != "" && e.Provider != ""
	})

	u.runes("4")
	u.screen("Logs", "2 requests logged", "spend 30d", "second question", "first question", "openai/gpt-4o-mini", "completed")
	u.runes("/")
	u.runes("first")
	u.screen("1 of 1")
	u.key(tea.KeyEnter)
	u.until("one row", func(m Model) bool { return len(logsOf(m).rows) == 1 && !logsOf(m).search.Typing })
	u.key(tea.KeyEnter)
	u.screen("Request ", "── input ──", "first question", "── answer ──", "provider      OpenAI")
	// The answer is rendered as markdown, as in the playground: its code
	// fence is drawn as a block, not as backticks.
	u.until("the answer rendered", func(m Model) bool {
		a := strings.Join(logsOf(m).open().answer, "\n")
		return strings.Contains(a, "client.Stream(ctx, req)") && !strings.Contains(a, "```")
	})
	u.until("the request below", func(m Model) bool {
		all := strings.Join(logsOf(m).open().lines, "\n")
		return strings.Contains(all, "── request (JSON) ──") && strings.Contains(all, `"temperature": 0.4`) && strings.Contains(all, "── generation record ──")
	})
	u.runes("y")
	u.until("copied", func(Model) bool { mu.Lock(); defer mu.Unlock(); return copied != "" })
	mu.Lock()
	if !strings.Contains(copied, "$GWDASH_API_KEY") || strings.Contains(copied, gateway.DemoAPIKey) || !strings.Contains(copied, "/responses") || !strings.Contains(copied, `"first question"`) {
		t.Fatalf("curl: %s", copied)
	}
	mu.Unlock()
	u.runes("r")
	u.until("reopened in the playground", func(m Model) bool {
		p := playOf(m)
		return m.active == viewPlayground && p.prompt.Value() == "first question" && p.model == "openai/gpt-4o-mini" &&
			p.settings.Field(setTemperature).Value() == "0.4" && len(p.turns) == 0 && p.mode == playTyping
	})
	// Sent as it is, the new row says which row it replays.
	first := rows[1].ID
	u.key(tea.KeyEnter)
	u.until("the replay answered", func(m Model) bool { return len(playOf(m).turns) == 1 && !playOf(m).running() })
	u.until("the replay logged", func(Model) bool {
		for _, e := range loggedRows(t, rec) {
			if e.Input == "first question" && e.ReplayOf != nil && *e.ReplayOf == first {
				return true
			}
		}
		return false
	})
	u.quit()
}

func TestACompareIsOneGroupInTheLog(t *testing.T) {
	_, c := startGW(t, gateway.Options{TokensPerSecond: 3000})
	rec := requestLog(t)
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Requests: rec}, 160, 48)
	u.runes("c")
	u.until("two marked", func(m Model) bool {
		p := playOf(m).picker()
		if p == nil || p.cat == nil {
			return false
		}
		p.marked = []string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4"}
		return true
	})
	u.key(tea.KeyEnter)
	u.until("compare mode", func(m Model) bool { return playOf(m).cmp != nil })
	u.typePrompt("race this")
	u.until("both ended", func(m Model) bool {
		for _, pn := range playOf(m).cmp.panes {
			if pn.turn == nil || pn.turn.running {
				return false
			}
		}
		return !playOf(m).running()
	})
	u.quit()
	rows := loggedRows(t, rec)
	if len(rows) != 2 || rows[0].CompareGroup == "" || rows[0].CompareGroup != rows[1].CompareGroup || rows[0].Model == rows[1].Model {
		t.Fatalf("compare rows %+v", rows)
	}
}

func TestTheLogsViewWithoutALog(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	u := start(t, Options{Client: c, View: "logs"}, 100, 30)
	u.screen("The request log is off")
	u.runes("/")
	u.until("said", func(m Model) bool { return strings.Contains(m.notice, "the request log is off") })
	u.quit()
}

func TestALogProblemIsSaidOnceInTheStatusBar(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	rec := reqlog.Start(reqlog.Options{Path: dir + "/file/" + reqlog.FileName})
	t.Cleanup(func() { rec.Close(10 * time.Second) })
	// A file where the log's folder must be: the log cannot open.
	if err := writeTestFile(dir+"/file", "x"); err != nil {
		t.Fatal(err)
	}
	u := start(t, Options{Client: c, View: "playground", Model: "openai/gpt-4o-mini", Requests: rec}, 120, 40)
	u.typePrompt("still answered")
	u.until("answered", ended(api.EndCompleted))
	u.until("said", func(m Model) bool { return strings.Contains(m.errText, "requests are not being logged") })
	u.quit()
}

func writeTestFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }

func TestTheSpendPanelJoinsActivityAndTheLocalLog(t *testing.T) {
	_, c := startGW(t, gateway.Options{})
	rec := requestLog(t)
	cost := 0.25
	rec.Record(reqlog.Entry{Kind: reqlog.KindResponse, Model: "local/only-model", Provider: "LocalProv", State: "completed", Cost: &cost, Input: "today"})
	rec.Flush()
	u := start(t, Options{Client: c, View: "logs", Requests: rec}, 120, 40)
	u.screen("1 request logged", "today")
	u.runes("$")
	u.screen("Spend, last 30 days", "completed days from /activity, today from the local log", "month to date", "projected month end",
		"MODEL", "local/only-model", "anthropic/claude-sonnet-4", "PROVIDER", "LocalProv")
	u.key(tea.KeyEsc)
	u.screen("local/only-model", "completed", "today")
	u.quit()
}

// At 80 columns a long input gives way: the time, the cost and the end
// state of each row stay whole.
func TestNarrowLogsKeepTimeCostAndState(t *testing.T) {
	rec := requestLog(t)
	db, _, err := reqlog.Open(rec.Path())
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.0123
	for _, in := range []string{"Explain routing in one paragraph, with the fallbacks and the provider order", "short"} {
		if _, err := db.Insert(context.Background(), &reqlog.Entry{Time: time.Date(2026, 11, 26, 1, 2, 3, 0, time.Local), Kind: reqlog.KindResponse,
			Model: "anthropic/claude-sonnet-4", Provider: "Anthropic", State: "completed", Cost: &cost, Input: in}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	u := start(t, Options{View: "logs", Requests: rec}, 80, 24)
	v := u.screen("11-26 01:02", "$0.0123", "completed", "Explain")
	for _, l := range strings.Split(v, "\n") {
		if lipgloss.Width(l) > 80 {
			t.Fatalf("a line of %d cells:\n%s", lipgloss.Width(l), v)
		}
	}
	u.quit()
}
