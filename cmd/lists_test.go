package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// Every list a command reads goes through the one pager: a server that
// repeats a cursor or a page, or never ends, is read to a bound, what
// arrived is printed, and stderr says "stopped after N pages: why" with
// exit 1. (The bytes and rows bounds are proved over HTTP in api, with
// small bounds: TestWalksStopAtEachBoundOverHTTP.)
func TestListCommandsStopAtThePagerBounds(t *testing.T) {
	cases := []struct {
		scenario hostile.ListScenario
		batches  string // why `batch list --all` stops
		dests    string // why `dest list --all` stops
	}{
		{hostile.RepeatCursor, "a cursor it had sent before", "added no new destination"},
		{hostile.RepeatPage, "added no new batch", "added no new destination"},
		{hostile.EndlessPages, fmt.Sprintf("the cap of %d pages was reached", api.MaxListPages), fmt.Sprintf("the cap of %d pages was reached", api.MaxListPages)},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.scenario), func(t *testing.T) {
			l := &hostile.Lists{Scenario: tc.scenario}
			h := newHarness(t, gateway.Options{Wrap: l.Wrap})
			for _, run := range []struct {
				args []string
				why  string
				row  string
			}{
				{[]string{"batch", "list", "--all"}, tc.batches, "batch-"},
				{[]string{"dest", "list", "--all"}, tc.dests, "dest-"},
				{[]string{"dest", "list", "--all", "--json"}, tc.dests, `"dest-`},
			} {
				before := l.Requests()
				r := h.run("", run.args...)
				r.must(t, ExitFailure, []string{run.row}, []string{"gwdash: stopped after ", " pages (", run.why})
				if n := l.Requests() - before; n > api.MaxListPages {
					t.Fatalf("%v: %d list requests, over the cap of %d pages", run.args, n, api.MaxListPages)
				}
				if rows := strings.Count(r.out, "\n"); rows > api.MaxListRows+10 {
					t.Fatalf("%v: %d lines printed", run.args, rows)
				}
			}
		})
	}
}

// A healthy list ends without a note.
func TestListCommandsHealthyServer(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	r := h.run("", "dest", "list", "--all")
	r.must(t, 0, []string{"NAME"}, nil)
	if strings.Contains(r.err, "stopped") {
		t.Fatalf("a healthy list says it stopped: %s", r.err)
	}
}
