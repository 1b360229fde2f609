package styles

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/leaf"
)

// Every colour role has a light and a dark shade: the adaptive pairs are
// the only place the two backgrounds differ.
func TestEveryRoleHasBothShades(t *testing.T) {
	th := reflect.ValueOf(Default())
	for i := 0; i < th.NumField(); i++ {
		c := th.Field(i).Interface().(lipgloss.AdaptiveColor)
		if c.Light == "" || c.Dark == "" {
			t.Errorf("%s: %+v", th.Type().Field(i).Name, c)
		}
	}
}

// Every status the contract names has a colour of its own meaning; an
// unknown one is worth a look (warning), never unstyled.
func TestStatusRoles(t *testing.T) {
	s := New(Default(), lipgloss.NewRenderer(nil))
	th := s.Theme
	want := map[api.BatchStatus]lipgloss.AdaptiveColor{
		api.BatchCompleted: th.Success, api.BatchFailed: th.Error, api.BatchExpired: th.Error,
		api.BatchCancelled: th.Muted, api.BatchCancelling: th.Muted, api.BatchValidating: th.Info,
		api.BatchInProgress: th.Info, api.BatchFinalizing: th.Info, "someday": th.Warning,
	}
	for st, c := range want {
		if got := s.StatusRole(st, false); got != c {
			t.Errorf("%s: %+v, want %+v", st, got, c)
		}
	}
	if s.StatusRole(api.BatchCompleted, true) != th.Warning {
		t.Error("completed with failures is a warning")
	}
}

// styles is a leaf: it imports no package of the dashboard's screens.
func TestStylesIsALeaf(t *testing.T) { leaf.Check(t) }
