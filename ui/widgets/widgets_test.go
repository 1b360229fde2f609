package widgets

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// widgets is a leaf: it imports no package of the dashboard's screens
// (ui, or any package under it but the theme) and no command.
func TestWidgetsIsALeaf(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	if len(files) == 0 {
		t.Fatal("no Go files here")
	}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if p == "github.com/gwdash/gwdash/ui/styles" {
				continue
			}
			if strings.HasPrefix(p, "github.com/gwdash/gwdash/ui") || strings.HasPrefix(p, "github.com/gwdash/gwdash/cmd") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
