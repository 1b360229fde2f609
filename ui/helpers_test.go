package ui

import (
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/muesli/termenv"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	time.Local = time.UTC // golden files show local times
	os.Exit(m.Run())
}

func startGW(t testing.TB, o gateway.Options) (*gateway.Server, *api.Client) {
	t.Helper()
	srv, err := gateway.Start("127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := api.New(api.Options{BaseURL: srv.URL, APIKey: gateway.DemoAPIKey, ManagementKey: gateway.DemoManagementKey})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// probed wraps the model so that a test can evaluate a condition inside
// Update, on the program's goroutine (no data race with the UI).
type probed struct{ Model }

type probeMsg struct {
	check func(Model) bool
	reply chan probeResult
}

type probeResult struct {
	ok   bool
	view string
}

func (p probed) Init() tea.Cmd { return p.Model.Init() }
func (p probed) View() string  { return p.Model.View() }
func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- probeResult{ok: pm.check(p.Model), view: p.Model.View()}
		return p, nil
	}
	m, cmd := p.Model.Update(msg)
	return probed{m.(Model)}, cmd
}

type ui struct {
	t  *testing.T
	tm *teatest.TestModel
}

func start(t *testing.T, o Options, w, h int) *ui {
	t.Helper()
	if o.ExportDir == "" {
		o.ExportDir = t.TempDir()
	}
	if o.Clipboard == nil {
		o.Clipboard = func(string) error { return nil }
	}
	tm := teatest.NewTestModel(t, probed{New(o)}, teatest.WithInitialTermSize(w, h))
	u := &ui{t: t, tm: tm}
	t.Cleanup(func() { tm.Quit() })
	return u
}

// until waits (bounded) for a condition on the model and returns the view.
func (u *ui) until(what string, check func(Model) bool) string {
	u.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		reply := make(chan probeResult, 1)
		u.tm.Send(probeMsg{check: check, reply: reply})
		select {
		case r := <-reply:
			if r.ok {
				return r.view
			}
			last = r.view
		case <-time.After(5 * time.Second):
		}
		time.Sleep(15 * time.Millisecond)
	}
	u.t.Fatalf("timed out waiting for %s; last screen:\n%s", what, last)
	return ""
}

// screen waits until the view contains every string.
func (u *ui) screen(subs ...string) string {
	u.t.Helper()
	return u.until(strings.Join(subs, " + "), func(m Model) bool {
		v := m.View()
		for _, s := range subs {
			if !strings.Contains(v, s) {
				return false
			}
		}
		return true
	})
}

func (u *ui) key(k tea.KeyType) { u.tm.Send(tea.KeyMsg{Type: k}) }
func (u *ui) runes(s string) {
	for _, r := range s {
		u.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}
func (u *ui) space() { u.tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}) }

func (u *ui) quit() Model {
	u.t.Helper()
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := u.tm.FinalModel(u.t, teatest.WithFinalTimeout(10*time.Second))
	return fm.(probed).Model
}
