package ui

import (
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/internal/gateway"
)

func TestRecentIDsAndModelsAreRemembered(t *testing.T) {
	srv, c := startGW(t, gateway.Options{})
	dir := t.TempDir()
	id := srv.SeedID(gateway.SeedMessages)
	u := start(t, Options{Client: c, BatchID: id, StateDir: dir, Model: "anthropic/claude-sonnet-4"}, 100, 30)
	u.screen("Results 1 of 10")
	u.key(tea.KeyTab)
	u.runes("hi")
	u.key(tea.KeyEnter)
	u.until("answer", ended("completed"))
	u.quit()
	st, err := os.Stat(filepath.Join(dir, "recent.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", st, err)
	}
	// A new dashboard offers them.
	u = start(t, Options{Client: c, StateDir: dir}, 100, 30)
	u.screen("Open a batch", id, "recent")
	u.until("recent model", func(m Model) bool {
		return len(playOf(m).models) > 0 && playOf(m).models[0] == "anthropic/claude-sonnet-4"
	})
	u.quit()
}
