package ui

// The Logs view's spend panel ($): the last 30 days by day, model and
// provider, the month so far and its projected end against the key's
// limit. With a management key the completed days come from GET
// /activity (the whole account); today, and everything without one, from
// the local log, and the panel says which.

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/reqlog"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// spendPanel is what the panel shows.
type spendPanel struct {
	daily                  []float64
	byModel, byProvider    []reqlog.SpendRow
	note                   string
	monthToDate, projected float64
	limit                  *float64
}

type spendLoadedMsg struct {
	gen   int
	panel spendPanel
	err   error
}

// activityReader is a client that reads GET /activity (the API client
// does; fakes need not).
type activityReader interface {
	Activity(ctx context.Context, date string) ([]api.ActivityItem, error)
}

// Activity forwards to the wrapped client when it reads /activity.
func (c loggingClient) Activity(ctx context.Context, date string) ([]api.ActivityItem, error) {
	if a, ok := c.Client.(activityReader); ok {
		return a.Activity(ctx, date)
	}
	return nil, &api.NotOfferedError{Op: "GET /activity", Err: &api.APIError{Status: 404}}
}

// spendCmd reads the panel's figures.
func (v *logsView) spendCmd() tea.Cmd {
	db, client, ctx, now, gen := v.db, v.c.client, v.c.ctx, v.c.now(), v.gen
	if db == nil {
		return nil
	}
	return func() tea.Msg {
		today := now.UTC().Truncate(24 * time.Hour)
		month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
		first := today.Add(-(spendDays - 1) * 24 * time.Hour)
		from := first
		if month.Before(first) {
			from = month
		}
		rows, err := db.Spend(ctx, from)
		if err != nil {
			return spendLoadedMsg{gen: gen, err: err}
		}
		var p spendPanel
		p.note = "from the local log only: no management key for /activity"
		if ar, ok := client.(activityReader); ok && client.HasManagementKey() {
			if items, err := ar.Activity(ctx, ""); err == nil {
				rows = reqlog.MergeActivity(rows, items, from, now)
				p.note = "completed days from /activity, today from the local log"
			} else {
				p.note = "from the local log only: /activity: " + describeErr(err)
			}
		}
		if client != nil && (client.HasAPIKey() || client.HasManagementKey()) {
			if k, err := client.Key(ctx); err == nil && k != nil {
				p.limit = k.Limit
			}
		}
		var recent []reqlog.SpendRow
		for _, r := range rows {
			if r.Date >= first.Format(time.DateOnly) {
				recent = append(recent, r)
			}
			if r.Date >= month.Format(time.DateOnly) {
				p.monthToDate += r.Cost
			}
		}
		p.daily = reqlog.DailySpend(recent, first, now)
		p.byModel, p.byProvider = reqlog.GroupSpend(recent, "model"), reqlog.GroupSpend(recent, "provider")
		days := time.Date(today.Year(), today.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
		p.projected = p.monthToDate / float64(today.Day()) * float64(days)
		return spendLoadedMsg{gen: gen, panel: p}
	}
}

// View draws the panel.
func (sp *spendScreen) View() string {
	s := sp.c.styles
	p := sp.data
	if p == nil {
		return s.Muted.Render("reading the spend…")
	}
	lines := []string{s.Title.Render("Spend, last 30 days") + "  " + s.Muted.Render(textsafe.Line(p.note)),
		s.Busy.Render(sparkline(p.daily, spendDays))}
	month := "month to date " + format.Cost(p.monthToDate) + " · projected month end " + format.Cost(p.projected)
	if p.limit != nil && *p.limit > 0 {
		month += fmt.Sprintf(" of the key's limit %s (%.0f%%)", format.Cost(*p.limit), 100*p.projected / *p.limit)
	} else {
		month += " · the key has no limit"
	}
	lines = append(lines, s.Value.Render(month), "")
	room := max(1, (sp.h-len(lines)-4)/2)
	table := func(title string, rows []reqlog.SpendRow, name func(reqlog.SpendRow) string) {
		lines = append(lines, s.TableHead.Render(fmt.Sprintf("  %-40s %10s %9s", title, "COST", "REQUESTS")))
		for i, r := range rows {
			if i == room {
				lines = append(lines, s.Muted.Render(fmt.Sprintf("  … %d more", len(rows)-room)))
				break
			}
			lines = append(lines, fmt.Sprintf("  %-40s %10s %9s", widgets.Fit(textsafe.Line(orDashUI(name(r))), 40, false), format.Cost(r.Cost), format.Int(r.Requests)))
		}
	}
	table("MODEL", p.byModel, func(r reqlog.SpendRow) string { return r.Model })
	table("PROVIDER", p.byProvider, func(r reqlog.SpendRow) string { return r.Provider })
	return strings.Join(lines, "\n")
}
