package transcript

import (
	"testing"

	"github.com/gwdash/gwdash/internal/leaf"
)

// transcript is a leaf: it imports no package of the dashboard's screens
// (ui, its sub-packages, cmd).
func TestTranscriptIsALeaf(t *testing.T) { leaf.Check(t) }
