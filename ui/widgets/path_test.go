package widgets

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func complete(t *testing.T, value string) PathCompletedMsg {
	t.Helper()
	return CompletePath(1, value)().(PathCompletedMsg)
}

// Completion keeps what was typed before the last element ("~/" stays
// "~/"), reads the directory named, and keeps a bounded list.
func TestCompletePathFromHomeAndDirectories(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{"results", "reports"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "results", "run1.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if m := complete(t, "~/"); m.value != "~/re" || len(m.candidates) != 2 {
		t.Fatalf("~/ completes to %q %q", m.value, m.candidates)
	}
	if m := complete(t, "~/res"); m.value != "~/results/" {
		t.Fatalf("~/res completes to %q", m.value)
	}
	if m := complete(t, "~/results/"); m.value != "~/results/run1.jsonl" {
		t.Fatalf("~/results/ completes to %q", m.value)
	}
	many := t.TempDir()
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if m := complete(t, many+"/f"); len(m.candidates) != maxCandidates {
		t.Fatalf("%d candidates kept, want at most %d", len(m.candidates), maxCandidates)
	}
}
