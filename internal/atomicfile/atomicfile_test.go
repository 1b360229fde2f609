package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeWithItsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%q %v", b, fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("a temporary file was left: %v", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); err == nil {
		t.Fatal("a folder that does not exist is an error")
	}
}

// A state file behind a symbolic link is neither read nor created
// through it.
func TestOpenRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link, 10); !errors.Is(err, ErrLink) {
		t.Fatalf("read through a link: %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "created"), dangling)
	if f, err := Open(dangling, os.O_CREATE|os.O_RDWR, 0o600); err == nil {
		f.Close()
		t.Fatal("created through a dangling link")
	}
	if _, err := os.Stat(filepath.Join(dir, "created")); !os.IsNotExist(err) {
		t.Fatal("the link's target was created")
	}
	if _, err := ReadFile(target, 0); err == nil {
		t.Fatal("a file over the bound was read")
	}
	if b, err := ReadFile(target, 10); err != nil || string(b) != "x" {
		t.Fatalf("a plain file: %q %v", b, err)
	}
}
