package transcript

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// transcript is a leaf: it imports no package of the dashboard's screens
// (ui, its sub-packages, cmd).
func TestTranscriptIsALeaf(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	if len(files) == 0 {
		t.Fatal("no files")
	}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p := strings.Trim(im.Path.Value, `"`); strings.HasPrefix(p, "github.com/gwdash/gwdash/ui") || strings.HasPrefix(p, "github.com/gwdash/gwdash/cmd") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
