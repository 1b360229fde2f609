package ui

// What a change sends, shown before it is sent: the fields that change
// (old → new, a secret only as "changed"), or for a new destination the
// exact JSON (secrets masked on screen, sent in full); and, when the
// destination changed on the server meanwhile, the three versions side by
// side with the choice to apply on top, reload, or go back.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// reviewLines are the lines of the review.
func (e *destEditor) reviewLines(s Styles) []string {
	if e.kind == editCreate {
		body, _ := json.MarshalIndent(e.create, "", "  ")
		var m map[string]any
		json.Unmarshal(body, &m)
		if cfg, ok := m["config"].(map[string]any); ok {
			for k, v := range cfg {
				if str, ok := v.(string); ok && e.isSecret(k) {
					cfg[k] = secretHint(str)
				}
			}
		}
		shown, _ := json.MarshalIndent(m, "", "  ")
		lines := []string{s.Subtle.Render("New destination: POST /observability/destinations sends exactly this (secrets hidden here, sent in full):"), ""}
		for _, l := range strings.Split(string(shown), "\n") {
			lines = append(lines, textsafe.Line(l))
		}
		return lines
	}
	lines := []string{s.Subtle.Render("This PATCH sends only these fields:"), ""}
	o := e.orig
	yours := api.PatchValues(e.patch)
	vals := api.DestinationValues(&o)
	for _, f := range sortedKeys(yours) {
		if strings.HasPrefix(f, "config.") && e.isSecret(strings.TrimPrefix(f, "config.")) {
			lines = append(lines, fmt.Sprintf("%s %s", s.Label.Render(fmt.Sprintf("%-38s", f)), s.Warning.Render("changed (secret)")))
			continue
		}
		old := vals[f]
		if f == "filter_rules" {
			old = orText(rulesToText(o.FilterRules), "none")
			yours[f] = orText(rulesToText(e.patch.FilterRules.Get()), "none (null)")
		}
		lines = append(lines, fmt.Sprintf("%s %s %s %s", s.Label.Render(fmt.Sprintf("%-38s", f)), s.Error.Render(textsafe.Line(orText(old, "(none)"))),
			s.Muted.Render("→"), s.Success.Render(textsafe.Line(yours[f]))))
	}
	return lines
}

func (e *destEditor) isSecret(member string) bool {
	if e.known {
		return e.spec.IsSecret(member)
	}
	if f := e.form.Field("config." + member); f != nil && f.Kind == widgets.KindSecret {
		return true
	}
	return api.IsSecretMember(member)
}

func (e *destEditor) reviewView(s Styles, w, h int) string {
	lines := e.reviewLines(s)
	e.scroll.SetCount(len(lines))
	out := []string{e.title(s)}
	a, b := e.scroll.Visible()
	for _, l := range lines[a:b] {
		out = append(out, ansi.Truncate(l, max(1, w), "…"))
	}
	if pos := e.scroll.Position(); pos != "" {
		out = append(out, s.Muted.Render("lines "+pos))
	}
	out = append(out, "", s.Warning.Render("y sends it · esc goes back to the form"))
	return strings.Join(out, "\n")
}

// conflictView shows the destination as loaded, on the server now, and
// what this change sends, field by field.
func (e *destEditor) conflictView(s Styles, w, h int) string {
	rows := api.ConflictRows(&e.orig, e.now, e.patch)
	tbl := widgets.NewTable(
		widgets.Column{Title: "FIELD", Keep: 9, Max: 38},
		widgets.Column{Title: "AS LOADED", Keep: 5},
		widgets.Column{Title: "ON THE SERVER NOW", Keep: 7},
		widgets.Column{Title: "YOURS", Keep: 8},
	)
	cells := make([][]string, len(rows))
	for i, r := range rows {
		y := r.Yours
		if y == "" {
			y = "(unchanged)"
		}
		if strings.HasPrefix(r.Field, "config.") && e.isSecret(strings.TrimPrefix(r.Field, "config.")) && r.Yours != "" {
			y = "(new value)"
		}
		cells[i] = []string{textsafe.Line(r.Field), textsafe.Line(r.Loaded), textsafe.Line(r.Now), textsafe.Line(y)}
		tbl.Measure(cells[i]...)
	}
	tbl.Layout(w)
	out := []string{e.title(s), s.Warning.Render("It changed on the server since it was loaded (someone else edited it)."), tbl.Header(s)}
	e.scroll.SetCount(len(rows))
	a, b := e.scroll.Visible()
	for i := a; i < b; i++ {
		line := tbl.Row(cells[i], false)
		if rows[i].Loaded != rows[i].Now {
			line = s.Warning.Render(line)
		}
		out = append(out, line)
	}
	if pos := e.scroll.Position(); pos != "" {
		out = append(out, s.Muted.Render("rows "+pos))
	}
	choice := "a applies your change on top · l reloads theirs (drops your edits) · esc goes back"
	if e.kind == editToggle {
		choice = "a applies your toggle on top · l reloads theirs · esc cancels"
	}
	return strings.Join(append(out, "", s.Warning.Render(choice)), "\n")
}
