package leaf

import (
	"os"
	"path/filepath"
	"testing"
)

func TestViolationsNameEachForbiddenImport(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport (\n\t\"fmt\"\n\t\"github.com/gwdash/gwdash/ui\"\n\t\"github.com/gwdash/gwdash/ui/styles\"\n\t\"github.com/gwdash/gwdash/cmd\"\n\t\"github.com/gwdash/gwdash/uiextra\"\n)\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Violations(t, dir, "github.com/gwdash/gwdash/ui/styles")
	want := []string{"x.go imports github.com/gwdash/gwdash/ui", "x.go imports github.com/gwdash/gwdash/cmd"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("violations %q, want %q", got, want)
	}
	if v := Violations(t, ".", ""); len(v) != 0 {
		t.Fatalf("this package is a leaf: %q", v)
	}
}
