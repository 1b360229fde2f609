// Package leaf checks that a package of the dashboard is a leaf: its
// files (tests included) import no package of the screens (ui and the
// packages under it) and no command, but those it names as allowed.
// The ui leaves (styles, widgets, transcript) call it from a test.
package leaf

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forbidden are the import paths a leaf must not reach.
var forbidden = []string{"github.com/gwdash/gwdash/ui", "github.com/gwdash/gwdash/cmd"}

// Check fails t for each import of the package in the current directory
// that reaches the screens or the commands, unless allowed names it.
func Check(t testing.TB, allowed ...string) {
	t.Helper()
	for _, f := range Violations(t, ".", allowed...) {
		t.Error(f)
	}
}

// Violations lists "file imports path" for each forbidden import of the
// Go files in dir.
func Violations(t testing.TB, dir string, allowed ...string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	var out []string
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if slices.Contains(allowed, p) {
				continue
			}
			for _, bad := range forbidden {
				if p == bad || strings.HasPrefix(p, bad+"/") {
					out = append(out, filepath.Base(f)+" imports "+p)
				}
			}
		}
	}
	return out
}
