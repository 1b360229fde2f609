package widgets

import (
	"testing"

	"github.com/gwdash/gwdash/internal/leaf"
)

// widgets is a leaf: it imports no package of the dashboard's screens
// (ui, or any package under it but the theme) and no command.
func TestWidgetsIsALeaf(t *testing.T) { leaf.Check(t, "github.com/gwdash/gwdash/ui/styles") }
