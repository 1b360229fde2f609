package ui

import (
	"fmt"
	"os"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
	"github.com/gwdash/gwdash/internal/record"
)

// looseRecord is a record in a folder removed after the test without
// failing it: a walk of hundreds of pages remembers its rows in commands
// that may still be writing when the program quits.
func looseRecord(t *testing.T) *record.Store {
	dir, err := os.MkdirTemp("", "gwdash-lists-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return record.Open(dir)
}

// small bounds for the walks of these tests (the defaults hold thousands
// of rows: proved in api over HTTP, TestWalksStopAtEachBoundOverHTTP).
var smallBounds = api.ListBounds{Pages: 20, Rows: 100, Bytes: 64 << 20, PageBytes: 8 << 20}

// The batches home and the destinations list page with the one pager of
// the commands: a server that repeats a cursor or a page, or never ends,
// is read to a bound and the view says "paging stopped after N pages:
// why". The home is shown a filter that matches none of the rows, so
// that it wants page after page (what once sent 26,535 requests in 20 s).
func TestListViewsStopAtThePagerBounds(t *testing.T) {
	for _, tc := range []struct {
		scenario   hostile.ListScenario
		bounds     api.ListBounds
		home, dest string
	}{
		{hostile.RepeatCursor, api.ListBounds{}, "a cursor it had sent before", "page 2 added no new destination"},
		{hostile.RepeatPage, api.ListBounds{}, "page 2 added no new batch", "page 2 added no new destination"},
		{hostile.EndlessPages, api.ListBounds{Pages: 20, Rows: 10000, Bytes: 64 << 20, PageBytes: 8 << 20}, "the cap of 20 pages was reached", ""},
	} {
		t.Run(fmt.Sprint(tc.scenario), func(t *testing.T) {
			l := &hostile.Lists{Scenario: tc.scenario}
			_, c := startGW(t, gateway.Options{Wrap: l.Wrap})
			u := start(t, Options{Client: c, Poll: fastPoll(), Record: looseRecord(t), ListBounds: tc.bounds}, 120, 30)
			u.screen("batch-")
			u.runes("ff") // settled only: no row shows, so the home wants more
			u.key(tea.KeyDown)
			u.screen("paging stopped after", tc.home, "r reloads")
			n := l.Requests()
			if n > api.MaxListPages {
				t.Fatalf("%d list requests: over the cap of %d pages", n, api.MaxListPages)
			}
			// The walk is over: moving does not fetch again.
			u.key(tea.KeyDown)
			u.key(tea.KeyUp)
			u.sync()
			if l.Requests() != n {
				t.Fatalf("the home fetched again after its walk stopped: %d, then %d", n, l.Requests())
			}
			if tc.dest != "" {
				u.runes("3")
				u.screen("Destinations", "dest-0", "paging stopped after 2 pages", tc.dest)
			}
			u.quit()
		})
	}
}

// The rows a home holds are bounded across reloads too: a server that
// answers every reload with new batches never makes the home hold more
// than the rows bound.
func TestHomeHoldsAtMostTheRowsBound(t *testing.T) {
	l := &hostile.Lists{Scenario: hostile.EndlessPages}
	_, c := startGW(t, gateway.Options{Wrap: l.Wrap})
	u := start(t, Options{Client: c, Poll: fastPoll(), Record: looseRecord(t), ListBounds: smallBounds}, 120, 30)
	u.screen("batch-")
	u.runes("ff")
	u.key(tea.KeyDown)
	u.screen("paging stopped after 5 pages (100 rows): the cap of 100 rows was reached")
	for i := 0; i < 3; i++ {
		u.runes("r") // each reload brings new batches: none fits
		u.screen("paging stopped after 1 page (20 rows): the cap of 100 rows was reached")
		u.until("rows bounded", func(m Model) bool { return len(homeOf(m).rows) <= smallBounds.Rows })
	}
	u.quit()
}
