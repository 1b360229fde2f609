package ui

// The destinations list's drawing: the table sized to content, the
// filter line, the load state, and the screen that says how to set a
// management key.

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// ---- VIEW ----

func (v *destView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.layout()
	v.stack.SetSize(w, h)
}

func (v *destView) layout() {
	v.tbl.Layout(v.w)
	extra := 0
	if pagingNote(v.pager) != "" {
		extra = 1
	}
	v.nav.SetHeight(max(1, v.h-3-extra))
}

func (v *destView) cells(d *api.Destination) []string {
	en := "off"
	if d.Enabled {
		en = "on"
	}
	if v.inflight[d.ID] {
		en += "…"
	}
	privacy := "off"
	if d.PrivacyMode {
		privacy = "on"
	}
	keys := "all keys"
	if d.APIKeyHashes != nil {
		keys = format.Plural(len(d.APIKeyHashes), "key", "keys")
	}
	upd := textsafe.Line(d.UpdatedAt)
	if t, err := time.Parse(time.RFC3339, d.UpdatedAt); err == nil {
		upd = format.Age(t, v.c.now())
	}
	return []string{textsafe.Line(d.DisplayName()), textsafe.Line(d.Type), en, format.Percent(d.SamplingRate),
		textsafe.Line(strings.Join(d.Regions, ",")), privacy, keys, upd}
}

func (v *destView) View() string {
	s := v.c.styles
	if v.needsKey() || api.StatusOf(v.err) == 401 || api.StatusOf(v.err) == 403 {
		return v.keyScreen()
	}
	if full, ok := v.stack.full(); ok {
		return full
	}
	var lines []string
	ws := "default workspace"
	if v.work != "" {
		ws = "workspace " + textsafe.Line(v.work)
	}
	head := s.Title.Render("Destinations") + s.Muted.Render("  "+ws+" · "+format.Int(len(v.rows))+" of "+format.Int(v.total)+" loaded")
	if pos := v.nav.Position(); pos != "" {
		head += s.Muted.Render(" · " + pos)
	}
	if v.c.opts.ReadOnly {
		head += "  " + s.Warning.Render("read-only")
	}
	lines = append(lines, ansi.Truncate(head, max(1, v.w), "…"))
	if note := pagingNote(v.pager); note != "" {
		lines = append(lines, s.Warning.Render(ansi.Truncate(note, max(1, v.w), "…")))
	}
	inline, asking := v.stack.inline()
	switch {
	case asking:
		lines = append(lines, inline)
	case v.filter.Active():
		lines = append(lines, v.filter.Line(s, len(v.view), len(v.rows)))
	default:
		lines = append(lines, "")
	}
	top, rows := listState{err: v.err, loaded: v.loaded, total: len(v.rows), shown: len(v.view), width: v.w,
		loading: "loading…",
		empty:   "no destinations: n creates one",
		noMatch: noMatchYet("no destination matches", v.pager, len(v.rows), "esc clears the filter"),
		header:  v.tbl.Header(s)}.top(s)
	lines = append(lines, top...)
	if !rows {
		return strings.Join(lines, "\n")
	}
	a, b := v.nav.Visible()
	for k := a; k < b; k++ {
		d := &v.rows[v.view[k]]
		line := v.tbl.Row(v.cells(d), k == v.nav.Cursor)
		switch {
		case k == v.nav.Cursor:
			line = s.Selected.Render(line)
		case !d.Enabled:
			line = s.Muted.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func (v *destView) keyScreen() string {
	s := v.c.styles
	msg := []string{
		s.Title.Render("Destinations need a management key"),
		"",
		"Observability destinations are managed with a management key, not an API key;",
		"the API key is never sent to them. Set one of:",
		"  GWDASH_MANAGEMENT_KEY=…            (environment)",
		"  --management-key …                 (flag)",
		"  management_key_cmd = \"pass show …\" (config file, per profile)",
	}
	if v.err != nil {
		msg = append(msg, "", s.Muted.Render("the gateway said: "+describeErr(v.err)))
	}
	return wrap(strings.Join(msg, "\n"), max(20, v.w))
}
