package api_test

import (
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// Every bound of the one pager holds over real HTTP against the hostile
// list scenarios: bytes (fat pages), pages and rows (endless pages), a
// repeated cursor, a repeated page; what arrived before the stop is
// yielded once each.
func TestWalksStopAtEachBoundOverHTTP(t *testing.T) {
	page := int64(hostile.ListRows * hostile.FatRowBytes)
	cases := []struct {
		scenario hostile.ListScenario
		bounds   api.ListBounds
		batches  string
		dests    string
		maxPages int64
	}{
		{hostile.FatPages, api.ListBounds{Pages: 200, Rows: 20000, Bytes: 4 * page, PageBytes: 8 << 20}, "the pages read add up to 5", "the pages read add up to 5", 4},
		{hostile.EndlessPages, api.ListBounds{Pages: 30, Rows: 20000, Bytes: 64 << 20, PageBytes: 8 << 20}, "the cap of 30 pages was reached", "the cap of 30 pages was reached", 30},
		{hostile.EndlessPages, api.ListBounds{Pages: 200, Rows: 50, Bytes: 64 << 20, PageBytes: 8 << 20}, "the cap of 50 rows was reached", "the cap of 50 rows was reached", 3},
		{hostile.RepeatCursor, api.DefaultListBounds, "a cursor it had sent before", "page 2 added no new destination", 2},
		{hostile.RepeatPage, api.DefaultListBounds, "page 2 added no new batch", "page 2 added no new destination", 2},
	}
	for _, tc := range cases {
		l := &hostile.Lists{Scenario: tc.scenario}
		srv, c := startGateway(t, gateway.Options{Wrap: l.Wrap})
		_ = srv
		for _, walk := range []struct {
			name string
			why  string
			seq  func(p *api.Pager) (ids []string, err error)
		}{
			{"batches", tc.batches, func(p *api.Pager) (ids []string, err error) {
				for b, e := range c.WalkBatches(ctx(t), api.BatchListOptions{}, p) {
					if e != nil {
						return ids, e
					}
					ids = append(ids, b.ID)
				}
				return ids, nil
			}},
			{"destinations", tc.dests, func(p *api.Pager) (ids []string, err error) {
				for d, e := range c.WalkDestinations(ctx(t), "", 0, p) {
					if e != nil {
						return ids, e
					}
					ids = append(ids, d.ID)
				}
				return ids, nil
			}},
		} {
			before := l.Requests()
			p := api.NewPagerWith(tc.bounds)
			ids, err := walk.seq(p)
			n := l.Requests() - before
			if err == nil || !strings.Contains(err.Error(), walk.why) || !strings.HasPrefix(err.Error(), "stopped after ") {
				t.Fatalf("%v %s: %v", tc.scenario, walk.name, err)
			}
			if n > tc.maxPages || len(ids) > tc.bounds.Rows || len(ids) == 0 {
				t.Fatalf("%v %s: %d requests, %d rows", tc.scenario, walk.name, n, len(ids))
			}
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Fatalf("%s yielded twice", id)
				}
				seen[id] = true
			}
		}
	}
}
