package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
)

// recentState is what gwdash remembers between runs: the batch ids opened
// and the models used most recently, newest first.
type recentState struct {
	Batches []string `json:"batches"`
	Models  []string `json:"models"`
}

const recentMax = 12

type recentLoadedMsg struct{ state recentState }

// stateFile serialises writes of the state file within one process.
type stateFile struct {
	mu   sync.Mutex
	path string
}

func newStateFile(dir string) *stateFile {
	if dir == "" {
		return &stateFile{}
	}
	return &stateFile{path: filepath.Join(dir, "recent.json")}
}

func (s *stateFile) load() recentState {
	var st recentState
	if s.path == "" {
		return st
	}
	if b, err := os.ReadFile(s.path); err == nil {
		json.Unmarshal(b, &st)
	}
	return st
}

// loadCmd reads the state file.
func (s *stateFile) loadCmd() tea.Cmd {
	return func() tea.Msg { return recentLoadedMsg{state: s.load()} }
}

// rememberCmd puts value first in the list chosen by pick and writes the
// file atomically. Failures are silent: remembering is a convenience.
func (s *stateFile) rememberCmd(pick func(*recentState) *[]string, value string) tea.Cmd {
	if s.path == "" || value == "" {
		return nil
	}
	return func() tea.Msg {
		s.mu.Lock()
		defer s.mu.Unlock()
		st := s.load()
		list := pick(&st)
		*list = pushFront(*list, value, recentMax)
		b, _ := json.Marshal(st)
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return nil
		}
		writeFileAtomic(s.path, b, 0o600)
		return nil
	}
}

// appendMissing appends the items not already in list, in order.
func appendMissing(list, items []string) []string {
	for _, x := range items {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

func pushFront(list []string, v string, max int) []string {
	out := []string{v}
	for _, x := range list {
		if x != v && len(out) < max {
			out = append(out, x)
		}
	}
	return out
}

// writeFileAtomic writes through a temporary file and a rename, so that a
// failure never leaves half a file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
