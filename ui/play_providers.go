package ui

// The providers panel: the endpoints of one model (GET
// /models/{author}/{slug}/endpoints), a row per provider with its prices,
// context, quantization, uptime, latency, throughput and status, sortable
// by any of them. Providers are marked in order with space: enter makes
// the marks the provider order setting, c races them in compare mode. The
// panel never touches the playground: a key returns an action that the
// playground handles in one place.

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/widgets"
)

// endpointsMsg is a model's endpoints, read for the panel tagged gen.
type endpointsMsg struct {
	gen  int
	data *api.ModelEndpoints
	err  error
}

func endpointsCmd(client Client, ctx context.Context, model string, gen int) tea.Cmd {
	return func() tea.Msg {
		me, err := client.ModelEndpoints(ctx, model)
		return endpointsMsg{gen: gen, data: me, err: err}
	}
}

// The panel's columns by name: the order mark, then the columns of
// present.EndpointRow (named by their titles).
const provOrder = "#"

// providerSorts are the columns the panel sorts by, in the order s steps
// through them, each with its value (nil: unknown, always last).
var providerSorts = []struct {
	col  string
	less func(a, b *api.Endpoint) int
}{
	{"PROVIDER", func(a, b *api.Endpoint) int {
		return cmp.Compare(strings.ToLower(a.ProviderName), strings.ToLower(b.ProviderName))
	}},
	{"INPUT $/M", priceCmp("prompt")},
	{"OUTPUT $/M", priceCmp("completion")},
	{"CONTEXT", func(a, b *api.Endpoint) int { return cmp.Compare(b.ContextLength, a.ContextLength) }},
	{"UPTIME 1D", func(a, b *api.Endpoint) int { return cmp.Compare(val(b.UptimeLast1d), val(a.UptimeLast1d)) }},
	{"LATENCY P50", func(a, b *api.Endpoint) int {
		return cmp.Compare(p50(a.LatencyLast30m, 1e18), p50(b.LatencyLast30m, 1e18))
	}},
	{"TOKENS/S P50", func(a, b *api.Endpoint) int {
		return cmp.Compare(p50(b.ThroughputLast30m, -1), p50(a.ThroughputLast30m, -1))
	}},
	{"STATUS", func(a, b *api.Endpoint) int { return cmp.Compare(status(b), status(a)) }},
}

func priceCmp(kind string) func(a, b *api.Endpoint) int {
	return func(a, b *api.Endpoint) int {
		pa, pb := a.PriceOf(kind), b.PriceOf(kind)
		x, y := pa.PerMillion, pb.PerMillion
		if !pa.Known {
			x = 1e18
		}
		if !pb.Known {
			y = 1e18
		}
		return cmp.Compare(x, y)
	}
}

func val(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func p50(p *api.Percentiles, none float64) float64 {
	if p == nil {
		return none
	}
	return p.P50
}

func status(e *api.Endpoint) int {
	if e.Status == nil {
		return -1 << 20
	}
	return *e.Status
}

// providersPanel is the panel of one model.
type providersPanel struct {
	c       *common
	model   string
	keys    ProvidersKeys
	gen     int
	loading bool
	data    *api.ModelEndpoints
	err     error
	// rows are the endpoints in the order shown.
	rows    []int
	sortBy  int
	reverse bool
	// marked are provider names in the order marked.
	marked []string
	nav    widgets.ListNav
	tbl    widgets.Table
	w, h   int
}

func newProvidersPanel(c *common, model string, marked []string, gen int) *providersPanel {
	cols := []widgets.Column{{Name: provOrder, Title: provOrder, Keep: 10, Min: 1, Max: 2, Right: true}}
	for _, title := range present.EndpointHeader {
		// the provider and what it charges are kept longest; context and
		// quantization give way first
		c := widgets.Column{Title: title, Keep: 5, Max: 14, Right: true}
		switch title {
		case "PROVIDER":
			c = widgets.Column{Title: title, Keep: 9, Min: 12, Max: 28}
		case "INPUT $/M", "OUTPUT $/M":
			c.Keep = 7
		case "CONTEXT":
			c.Keep = 2
		case "QUANT":
			c = widgets.Column{Title: title, Keep: 3, Max: 10}
		case "UPTIME 1D":
			c.Keep = 4
		case "STATUS":
			c = widgets.Column{Title: title, Keep: 8, Max: 10}
		}
		cols = append(cols, c)
	}
	return &providersPanel{c: c, model: model, keys: DefaultProvidersKeys(), gen: gen, loading: true,
		marked: append([]string(nil), marked...), tbl: widgets.NewTable(cols...)}
}

// providersResult is what a key in the panel decided.
type providersResult int

const (
	providersOpen providersResult = iota
	providersClosed
	providersOrdered // marked is the provider order to use
	providersRaced   // marked are the providers to race
)

// got takes the endpoints read; stale answers are dropped.
func (pp *providersPanel) got(msg endpointsMsg) {
	if msg.gen != pp.gen {
		return
	}
	pp.loading, pp.data, pp.err = false, msg.data, msg.err
	pp.arrange()
}

// arrange sorts the rows and measures the columns.
func (pp *providersPanel) arrange() {
	pp.rows = pp.rows[:0]
	pp.tbl.ResetContent()
	if pp.data == nil {
		pp.nav.SetCount(0)
		return
	}
	eps := pp.data.Endpoints
	for i := range eps {
		pp.rows = append(pp.rows, i)
	}
	by := providerSorts[pp.sortBy%len(providerSorts)].less
	slices.SortStableFunc(pp.rows, func(a, b int) int {
		c := by(&eps[a], &eps[b])
		if pp.reverse {
			c = -c
		}
		return c
	})
	for _, i := range pp.rows {
		pp.tbl.Measure(pp.cells(&eps[i])...)
	}
	pp.tbl.Layout(pp.w)
	pp.nav.SetCount(len(pp.rows))
}

func (pp *providersPanel) cells(e *api.Endpoint) []string {
	row := present.EndpointRow(e)
	return pp.tbl.Cells(func(col string) string {
		if col == provOrder {
			if i := slices.Index(pp.marked, e.ProviderName); i >= 0 {
				return strconv.Itoa(i + 1)
			}
			return ""
		}
		if i := slices.Index(present.EndpointHeader, col); i >= 0 && i < len(row) {
			return textsafe.Line(row[i])
		}
		return ""
	})
}

func (pp *providersPanel) selected() *api.Endpoint {
	if pp.data == nil || pp.nav.Cursor >= len(pp.rows) {
		return nil
	}
	return &pp.data.Endpoints[pp.rows[pp.nav.Cursor]]
}

func (pp *providersPanel) setSize(w, h int) {
	pp.w, pp.h = w, h
	pp.tbl.Layout(w)
	pp.nav.SetHeight(max(1, h-4))
}

// key handles a key; the result says what the marks are for.
func (pp *providersPanel) key(msg tea.KeyMsg, client Client, ctx context.Context) (tea.Cmd, providersResult) {
	k := pp.keys
	switch {
	case key.Matches(msg, k.Close):
		return nil, providersClosed
	case pp.nav.Key(msg, k.ListKeys):
		return nil, providersOpen
	case key.Matches(msg, k.Reload):
		pp.gen++
		pp.loading = true
		return endpointsCmd(client, ctx, pp.model, pp.gen), providersOpen
	case key.Matches(msg, k.Sort):
		pp.sortBy = (pp.sortBy + 1) % len(providerSorts)
		pp.arrange()
		return nil, providersOpen
	case key.Matches(msg, k.Reverse):
		pp.reverse = !pp.reverse
		pp.arrange()
		return nil, providersOpen
	case key.Matches(msg, k.Mark):
		e := pp.selected()
		if e == nil {
			return say("no provider here to mark"), providersOpen
		}
		if i := slices.Index(pp.marked, e.ProviderName); i >= 0 {
			pp.marked = slices.Delete(pp.marked, i, i+1)
		} else if len(pp.marked) >= api.MaxProviderNames {
			return say("the order holds at most " + strconv.Itoa(api.MaxProviderNames) + " providers"), providersOpen
		} else {
			pp.marked = append(pp.marked, e.ProviderName)
		}
		pp.arrange()
		return nil, providersOpen
	case key.Matches(msg, k.Clear):
		pp.marked = nil
		pp.arrange()
		return nil, providersOpen
	case key.Matches(msg, k.Order):
		if len(pp.marked) == 0 {
			if e := pp.selected(); e != nil {
				pp.marked = []string{e.ProviderName}
			} else {
				return say("no provider to put first: space marks providers in order"), providersOpen
			}
		}
		return nil, providersOrdered
	case key.Matches(msg, k.Race):
		if n := len(pp.marked); n < 2 || n > maxCompareModels {
			return say("mark 2 to 4 providers with space, then c races them"), providersOpen
		}
		return nil, providersRaced
	}
	return unknownKey(msg), providersOpen
}

func (pp *providersPanel) view(s Styles, w, h int) string {
	lines := []string{ansi.Truncate(s.Title.Render("Providers of "+textsafe.Line(pp.model))+
		s.Muted.Render("  space marks the order · enter uses it · c races the marked · s sorts"), max(1, w), "…")}
	marked := "order: the service's (none marked)"
	if len(pp.marked) > 0 {
		marked = "order: " + textsafe.Line(strings.Join(pp.marked, " → "))
	}
	lines = append(lines, s.Subtle.Render(ansi.Truncate(marked, max(1, w), "…")))
	switch {
	case pp.loading && pp.data == nil:
		lines = append(lines, s.Muted.Render("reading the endpoints…"))
		return fitBlock(strings.Join(lines, "\n"), w, h)
	case pp.err != nil && api.IsNotOffered(pp.err):
		lines = append(lines, s.Warning.Render("this server does not list a model's endpoints"))
		return fitBlock(strings.Join(lines, "\n"), w, h)
	case pp.err != nil:
		lines = append(lines, s.Error.Render("the endpoints could not be read: "+describeErr(pp.err)), s.Muted.Render("ctrl+r tries again"))
		return fitBlock(strings.Join(lines, "\n"), w, h)
	}
	by := providerSorts[pp.sortBy%len(providerSorts)].col
	dir := ""
	if pp.reverse {
		dir = ", reversed"
	}
	count := format.Plural(len(pp.rows), "endpoint", "endpoints") + " · sorted by " + strings.ToLower(by) + dir
	if pp.data.Truncated {
		count += " (the server lists more: only the first " + format.Int(len(pp.rows)) + " were read)"
	}
	if pos := pp.nav.Position(); pos != "" {
		count += " · " + pos
	}
	lines = append(lines, s.Muted.Render(count), pp.tbl.Header(s))
	a, b := pp.nav.Visible()
	for k := a; k < b; k++ {
		e := &pp.data.Endpoints[pp.rows[k]]
		line := pp.tbl.Row(pp.cells(e), k == pp.nav.Cursor)
		switch {
		case k == pp.nav.Cursor:
			line = s.Selected.Render(line)
		case e.StatusWord() != "ok":
			line = s.Warning.Render(line)
		}
		lines = append(lines, line)
	}
	return fitBlock(strings.Join(lines, "\n"), w, h)
}

// ---- the playground's side ----

// shownModel is the model the playground shows: the focused pane's in
// compare mode.
func (p *playground) shownModel() string {
	if p.cmp != nil && p.cmp.focus < len(p.cmp.panes) {
		return p.cmp.panes[p.cmp.focus].model
	}
	return p.model
}

// openProviders opens the providers panel of a model, its marks the
// provider order already set.
func (p *playground) openProviders(model string) tea.Cmd {
	if err := api.ValidateModel(model); err != nil {
		return say("no model to list the providers of: pick or type one first")
	}
	p.provGen = p.c.tagBase() // the panel's reloads count up from it
	p.stack.push(newProvidersPanel(p.c, model, api.SplitList(p.settings.Value(setOrder)), p.provGen))
	return endpointsCmd(p.c.client, p.c.ctx, model, p.provGen)
}

// providersChosen acts on the panel's marks: the provider order, or a
// race of the providers.
func (p *playground) providersChosen(pc providersChosen) tea.Cmd {
	if pc.race {
		if p.running() {
			return say("answers are still streaming: esc stops them first")
		}
		p.useModel(pc.model)
		p.startRace(pc.model, pc.marked)
		return say("i types one prompt for every provider; ctrl+x leaves the race")
	}
	p.settings.set(setOrder, strings.Join(pc.marked, ", "))
	p.useModel(pc.model)
	p.checkSettings()
	if fl := p.settings.Field(setOrder); fl != nil && fl.Err != "" {
		return fail("provider order: " + fl.Err + " (s opens the settings)")
	}
	return say("provider order " + textsafe.Line(strings.Join(pc.marked, " → ")) + " for " + textsafe.Line(pc.model) + " · s shows the settings")
}

// useModel makes model the playground's (closing the picker the panel
// was opened from).
func (p *playground) useModel(model string) {
	if pk := p.picker(); pk != nil {
		p.stack.drop(pk)
	}
	if model != p.model {
		p.model = model
		p.cmp = nil
	}
}
