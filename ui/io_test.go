package ui

// The second hostile round over the dashboard: absurd numbers, secrets
// sent in clear and duplicate member names (internal/hostile/io.go).

import (
	"net/http"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// A 1e300 limit, -0 usage and costs of 300 digits keep the status bar
// and every row within the width: the credit reads "no practical limit".
func TestAbsurdNumbersKeepTheScreen(t *testing.T) {
	_, c := startGW(t, gateway.Options{KeyLimit: 10, Wrap: hostile.Numbers})
	const w = 100
	u := start(t, Options{Client: c, Model: "openai/gpt-4o-mini", Poll: fastPoll()}, w, 30)
	v := u.until("the credit and the home", func(m Model) bool {
		return m.credit != nil && len(homeOf(m).rows) > 0
	})
	if !strings.Contains(v, "no practical limit") {
		t.Fatalf("the credit:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if lipgloss.Width(l) > w {
			t.Fatalf("a line of %d cells:\n%s", lipgloss.Width(l), v)
		}
	}
}

// A secret the server echoes in clear never reaches a screen: the list,
// the detail and the edit form show it masked.
func TestServerSecretNeverOnScreen(t *testing.T) {
	_, c := startGW(t, gateway.Options{Wrap: hostile.Secrets})
	u := start(t, Options{Client: c, Model: "openai/gpt-4o-mini", Poll: fastPoll()}, 150, 45)
	u.runes("3")
	v := u.until("destinations", func(m Model) bool { return len(destOf(m).rows) > 5 })
	if strings.Contains(v, hostile.ClearSecret) {
		t.Fatalf("a clear secret on screen:\n%s", v)
	}
	u.selectDest("prod-langfuse")
	u.key(tea.KeyEnter)
	v = u.until("an edit form", func(m Model) bool { return destOf(m).editor() != nil })
	if strings.Contains(v, hostile.ClearSecret) || strings.Contains(v, "CLEARTEXT") {
		t.Fatalf("a clear secret in the form:\n%s", v)
	}
}

// An answer with a member twice is refused in the dashboard as in the
// commands, naming the member: the home does not show a status of its own.
func TestDuplicateMembersRefusedInTheHome(t *testing.T) {
	_, c := startGW(t, gateway.Options{Wrap: func(h http.Handler) http.Handler { return hostile.DuplicateMembers(h, false) }})
	u := start(t, Options{Client: c, Model: "openai/gpt-4o-mini", Poll: fastPoll()}, 150, 45)
	u.screen("twice in one object")
}
