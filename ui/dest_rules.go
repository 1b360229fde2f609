package ui

// The structured filter-rules editor of the destination form: groups of
// rules joined by and/or; each rule a field and an operator picked from
// the service's lists and an optional value. A field or operator the
// server sent that gwdash does not know is kept (and shown inert) until
// changed.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// rulesEditor is a screen over a destination's filter rules; it is done
// with rulesEdited.
type rulesEditor struct {
	c       *common
	w, h    int
	cleared bool
	enabled bool
	groups  []*ruleGroup
	g, r    int // focused group, and rule (-1: the group's logic)
	col     int // 0 field, 1 operator, 2 value
	keys    RulesKeys
}

type ruleGroup struct {
	logic string // and, or (or what the server sent)
	rules []*ruleRow
}

type ruleRow struct {
	field, op string
	value     textinput.Model
}

func newValueInput(v string) textinput.Model { return widgets.NewInput("", "value (optional)", 512, v) }

// rulesEdited is the rules as the editor left them (nil: none).
type rulesEdited struct{ rules *api.FilterRules }

func newRulesEditor(c *common, fr *api.FilterRules) *rulesEditor {
	e := &rulesEditor{c: c, cleared: fr == nil, enabled: true, r: -1, keys: DefaultRulesKeys()}
	if fr != nil {
		e.enabled = fr.Enabled
		for _, g := range fr.Groups {
			grp := &ruleGroup{logic: g.Logic}
			for _, r := range g.Rules {
				v := ""
				if r.Value != nil {
					v = fmt.Sprint(r.Value)
				}
				grp.rules = append(grp.rules, &ruleRow{field: r.Field, op: r.Operator, value: newValueInput(v)})
			}
			e.groups = append(e.groups, grp)
		}
	}
	return e
}

func newRule() *ruleRow {
	return &ruleRow{field: api.FilterFields[0], op: api.FilterOperators[0], value: newValueInput("")}
}

// rules returns the edited rules, nil when cleared or empty.
func (e *rulesEditor) rules() *api.FilterRules {
	if e.cleared || len(e.groups) == 0 {
		return nil
	}
	fr := &api.FilterRules{Enabled: e.enabled}
	for _, g := range e.groups {
		grp := api.FilterGroup{Logic: g.logic, Rules: []api.FilterRule{}}
		for _, r := range g.rules {
			rule := api.FilterRule{Field: r.field, Operator: r.op}
			if v := strings.TrimSpace(r.value.Value()); v != "" {
				if n, err := api.ParseNumber(v); err == nil {
					rule.Value = n
				} else {
					rule.Value = v
				}
			}
			grp.Rules = append(grp.Rules, rule)
		}
		fr.Groups = append(fr.Groups, grp)
	}
	return fr
}

func (e *rulesEditor) typing() bool { return e.current() != nil && e.col == 2 }

func (e *rulesEditor) focus() {
	for gi, g := range e.groups {
		for ri, r := range g.rules {
			if gi == e.g && ri == e.r && e.col == 2 {
				r.value.Focus()
			} else {
				r.value.Blur()
			}
		}
	}
}

func (e *rulesEditor) current() *ruleRow {
	if e.g < len(e.groups) && e.r >= 0 && e.r < len(e.groups[e.g].rules) {
		return e.groups[e.g].rules[e.r]
	}
	return nil
}

// move walks the focus order: each group's logic, then its rules.
func (e *rulesEditor) move(d int) {
	type pos struct{ g, r int }
	var order []pos
	for gi, g := range e.groups {
		order = append(order, pos{gi, -1})
		for ri := range g.rules {
			order = append(order, pos{gi, ri})
		}
	}
	if len(order) == 0 {
		return
	}
	i := slices.Index(order, pos{e.g, e.r})
	i = max(0, min(len(order)-1, i+d))
	e.g, e.r = order[i].g, order[i].r
	if e.r < 0 {
		e.col = 0
	}
	e.focus()
}

func cycle(i, n, d int) int { return ((i+d)%n + n) % n }

// next steps through a list from a value that may not be in it.
func next(list []string, cur string, d int) string {
	i := slices.Index(list, cur)
	if i < 0 {
		if d < 0 {
			return list[len(list)-1]
		}
		return list[0]
	}
	return list[cycle(i, len(list), d)]
}

// key handles a key; done reports that the editor closes.
func (e *rulesEditor) key(msg tea.KeyMsg) (cmd tea.Cmd, done bool) {
	k := e.keys
	row := e.current()
	switch {
	case key.Matches(msg, k.Done):
		return nil, true
	case key.Matches(msg, k.Up):
		e.move(-1)
		return nil, false
	case key.Matches(msg, k.Down):
		e.move(1)
		return nil, false
	case key.Matches(msg, k.NextCol):
		if row != nil {
			e.col = cycle(e.col, 3, 1)
			e.focus()
		}
		return nil, false
	case key.Matches(msg, k.PrevCol):
		if row != nil {
			e.col = cycle(e.col, 3, -1)
			e.focus()
		}
		return nil, false
	case key.Matches(msg, k.AddRule): // a rule in the focused group (a group first if none)
		e.cleared = false
		if len(e.groups) == 0 {
			e.groups = append(e.groups, &ruleGroup{logic: "and"})
			e.g = 0
		}
		g := e.groups[e.g]
		g.rules = append(g.rules, newRule())
		e.r, e.col = len(g.rules)-1, 0
		e.focus()
		return nil, false
	case key.Matches(msg, k.AddGroup): // a new group with one rule
		e.cleared = false
		e.groups = append(e.groups, &ruleGroup{logic: "and", rules: []*ruleRow{newRule()}})
		e.g, e.r, e.col = len(e.groups)-1, 0, 0
		e.focus()
		return nil, false
	case key.Matches(msg, k.Delete): // the focused rule, or the group on its logic line
		if e.g >= len(e.groups) {
			return nil, false
		}
		g := e.groups[e.g]
		if e.r < 0 {
			e.groups = slices.Delete(e.groups, e.g, e.g+1)
			e.g, e.r = max(0, e.g-1), -1
		} else {
			g.rules = slices.Delete(g.rules, e.r, e.r+1)
			e.r = min(e.r, len(g.rules)-1)
		}
		e.focus()
		return nil, false
	case key.Matches(msg, k.Enable):
		e.enabled = !e.enabled
		return nil, false
	case key.Matches(msg, k.Clear): // clear to null
		e.cleared, e.groups, e.g, e.r = true, nil, 0, -1
		return nil, false
	}
	if e.g < len(e.groups) && e.r < 0 { // the group's logic
		if key.Matches(msg, k.Change, k.Prev) {
			e.groups[e.g].logic = next([]string{"and", "or"}, e.groups[e.g].logic, 1)
		}
		return nil, false
	}
	if row == nil {
		return nil, false
	}
	if e.col < 2 {
		d := 0
		switch {
		case key.Matches(msg, k.Change):
			d = 1
		case key.Matches(msg, k.Prev):
			d = -1
		}
		if d != 0 {
			if e.col == 0 {
				row.field = next(api.FilterFields, row.field, d)
			} else {
				row.op = next(api.FilterOperators, row.op, d)
			}
		}
		return nil, false
	}
	row.value, cmd = row.value.Update(msg)
	return cmd, false
}

func (e *rulesEditor) view(s Styles, w, h int) string {
	var lines []string
	state := s.Success.Render("enabled")
	if !e.enabled {
		state = s.Muted.Render("disabled")
	}
	lines = append(lines, s.Title.Render("Filter rules")+"  "+state)
	if e.cleared || len(e.groups) == 0 {
		lines = append(lines, "", s.Muted.Render("no filter rules (sent as null): every generation is forwarded"), "")
	}
	for gi, g := range e.groups {
		logic := "and: every rule must match"
		switch g.logic {
		case "or":
			logic = "or: any rule may match"
		case "and":
		default:
			logic = "unknown logic “" + textsafe.Line(g.logic) + "” (space sets and/or)"
		}
		line := fmt.Sprintf("group %d · %s", gi+1, logic)
		if gi == e.g && e.r < 0 {
			line = s.Selected.Render("▸ " + line + "  (space toggles and/or)")
		} else {
			line = s.Label.Render("  " + line)
		}
		lines = append(lines, line)
		for ri, r := range g.rules {
			focused := gi == e.g && ri == e.r
			cell := func(col int, text string) string {
				text = textsafe.Line(text)
				if focused && e.col == col {
					return s.Selected.Render("‹" + text + "›")
				}
				return " " + text + " "
			}
			val := r.value.View()
			if focused && e.col == 2 {
				val = s.Selected.Render("‹") + val + s.Selected.Render("›")
			}
			marker := "    "
			if focused {
				marker = "  ▸ "
			}
			lines = append(lines, ansi.Truncate(marker+cell(0, r.field)+cell(1, r.op)+" "+val, max(1, w), "…"))
		}
	}
	lines = append(lines, "", s.Muted.Render("↑/↓ rule · tab field/operator/value · ←/→ or space change · ctrl+n add rule · ctrl+g add group"),
		s.Muted.Render("ctrl+d delete · ctrl+e enable/disable · ctrl+x clear to null · esc done"))
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return strings.Join(lines, "\n")
}

func (e *rulesEditor) Update(msg tea.Msg) (tea.Cmd, action) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, noAction
	}
	if cmd, d := e.key(km); d {
		return cmd, done(rulesEdited{rules: e.rules()})
	} else {
		return cmd, noAction
	}
}

func (e *rulesEditor) View() string        { return e.view(e.c.styles, e.w, e.h) }
func (e *rulesEditor) SetSize(w, h int)    { e.w, e.h = w, h }
func (e *rulesEditor) KeyMap() help.KeyMap { return e.keys }
func (e *rulesEditor) Help() string        { return "editing filter rules" }
func (e *rulesEditor) Typing() bool        { return e.typing() }
