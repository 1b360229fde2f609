package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// ---- MSG ----

// batchFetchedMsg is the result of one GET, tagged with the poll it
// belongs to; stale tags are dropped.
type batchFetchedMsg struct {
	tag   int
	batch *api.Batch
	rows  []resultRow
	err   error
	at    time.Time
}

// batchPollMsg fires when the next poll is due.
type batchPollMsg struct{ tag int }

// batchClockMsg refreshes "updated 3s ago" once a second while polling.
type batchClockMsg struct{ tag int }

type exportedMsg struct {
	path string
	n    int
	err  error
}

type copiedMsg struct {
	what string
	err  error
}

// ---- MODEL ----

type batchMode int

const (
	batchOpening batchMode = iota
	batchShowing
	batchDetail
	batchSearching
)

type batchView struct {
	c     *common
	keys  BatchKeys
	w, h  int
	mode  batchMode
	state *stateFile

	input   textinput.Model
	recent  []string
	pickIdx int

	id       string
	tag      int
	ctx      context.Context
	cancel   context.CancelFunc
	sched    *api.PollSchedule
	loading  bool
	done     bool
	batch    *api.Batch
	updated  time.Time
	nextPoll time.Time
	pollErr  error
	payment  *api.APIError
	fatal    error

	table     resultsTable
	top       string // the panels above the table, rendered by relayout
	errTypes  []string
	search    textinput.Model
	detail    viewport.Model
	detailOpt detailOpts
	detailIdx int
}

func newBatchView(c *common) *batchView {
	in := newInput("batch id › ", "batch id, e.g. batch-1763700000-abc123", 256, "")
	se := newInput("/ ", "custom_id contains…", 256, "")
	v := &batchView{c: c, keys: DefaultBatchKeys(), input: in, search: se, state: newStateFile(c.opts.StateDir), detail: viewport.New(80, 10)}
	v.input.Focus()
	return v
}

// ---- INIT / UPDATE ----

func (v *batchView) Init() tea.Cmd {
	cmds := []tea.Cmd{v.state.loadCmd()}
	if v.c.opts.BatchID != "" {
		cmds = append(cmds, v.open(v.c.opts.BatchID))
	}
	return tea.Batch(cmds...)
}

func (v *batchView) Capturing() bool { return v.mode == batchOpening || v.mode == batchSearching }

func (v *batchView) Stop() {
	if v.cancel != nil {
		v.cancel()
	}
	v.tag++ // drop whatever is in flight
}

// open starts showing and polling a batch.
func (v *batchView) open(id string) tea.Cmd {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	v.Stop()
	v.ctx, v.cancel = context.WithCancel(v.c.ctx)
	v.id, v.batch, v.fatal, v.pollErr, v.payment, v.done = id, nil, nil, nil, nil, false
	v.table = resultsTable{width: v.table.width, height: v.table.height}
	v.errTypes = nil
	v.sched = api.NewPollSchedule(v.c.opts.Poll, v.c.now())
	v.mode = batchShowing
	v.input.Blur()
	v.recent = pushFront(v.recent, id, recentMax)
	return tea.Batch(v.fetch(), v.state.rememberCmd(func(s *recentState) *[]string { return &s.Batches }, id), v.clock())
}

// fetch is the one GET command; it builds the table rows off the UI loop.
func (v *batchView) fetch() tea.Cmd {
	v.loading = true
	client, ctx, id, tag, now := v.c.client, v.ctx, v.id, v.tag, v.c.now
	return func() tea.Msg {
		b, err := client.GetBatch(ctx, id)
		msg := batchFetchedMsg{tag: tag, batch: b, err: err, at: now()}
		if b != nil && b.Results != nil {
			msg.rows = buildRows(b)
		}
		return msg
	}
}

func (v *batchView) clock() tea.Cmd {
	tag := v.tag
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return batchClockMsg{tag: tag} })
}

// Update changes the view's state, then lays it out again: View only draws
// what relayout prepared.
func (v *batchView) Update(msg tea.Msg) tea.Cmd {
	cmd := v.update(msg)
	v.relayout()
	return cmd
}

func (v *batchView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case recentLoadedMsg:
		v.recent = appendMissing(v.recent, msg.state.Batches)
		return nil
	case batchFetchedMsg:
		if msg.tag != v.tag {
			return nil // a late answer for a batch no longer shown
		}
		return v.onFetched(msg)
	case batchPollMsg:
		if msg.tag != v.tag || v.done {
			return nil
		}
		return v.fetch()
	case batchClockMsg:
		if msg.tag != v.tag || v.done || v.id == "" {
			return nil
		}
		return v.clock()
	case exportedMsg:
		if msg.err != nil {
			return msgCmd(failNotice("export failed: " + msg.err.Error()))
		}
		return msgCmd(notice(fmt.Sprintf("exported %s results to %s", format.Int(msg.n), msg.path)))
	case tea.MouseMsg:
		return v.onMouse(msg)
	case tea.KeyMsg:
		return v.onKey(msg)
	}
	return nil
}

func (v *batchView) onFetched(msg batchFetchedMsg) tea.Cmd {
	v.loading = false
	d := v.sched.Observe(msg.batch, msg.err, msg.at)
	v.updated = msg.at
	var cmds []tea.Cmd
	var ae *api.APIError
	switch {
	case msg.err == nil:
		v.batch, v.pollErr, v.payment = msg.batch, nil, nil
		if msg.rows != nil && v.table.rows == nil {
			v.table.setRows(msg.rows)
			v.errTypes = errorTypesOf(msg.rows)
		}
	case errors.As(msg.err, &ae) && ae.Status == 402:
		v.payment = ae
		if ae.Batch != nil {
			v.batch = ae.Batch
		}
	case d.Transient:
		v.pollErr = msg.err
		cmds = append(cmds, msgCmd(failNotice(describeErr(msg.err)+fmt.Sprintf(" — retrying in %s", d.Delay.Round(time.Second)))))
	case errors.Is(msg.err, context.Canceled):
		return nil
	default:
		v.fatal = msg.err
	}
	if d.Done {
		v.done = true
		if v.batch != nil && v.fatal == nil {
			cmds = append(cmds, msgCmd(notice("polling stopped: batch "+string(v.batch.Status))))
		}
		return tea.Batch(cmds...)
	}
	v.nextPoll = msg.at.Add(d.Delay)
	tag := v.tag
	cmds = append(cmds, tea.Tick(d.Delay, func(time.Time) tea.Msg { return batchPollMsg{tag: tag} }))
	return tea.Batch(cmds...)
}

func errorTypesOf(rows []resultRow) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		if r.failed && r.errorType != "" {
			seen[r.errorType] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (v *batchView) onKey(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	switch v.mode {
	case batchOpening:
		return v.onOpenerKey(msg)
	case batchSearching:
		switch msg.Type {
		case tea.KeyEnter, tea.KeyEsc:
			if msg.Type == tea.KeyEsc {
				v.search.SetValue("")
				v.table.search = ""
				v.table.apply()
			}
			v.search.Blur()
			v.mode = batchShowing
			return nil
		}
		var cmd tea.Cmd
		v.search, cmd = v.search.Update(msg)
		if v.table.search != v.search.Value() {
			v.table.search = v.search.Value()
			v.table.apply()
		}
		return cmd
	case batchDetail:
		switch {
		case key.Matches(msg, k.Back), key.Matches(msg, k.Enter):
			v.mode = batchShowing
			return nil
		case key.Matches(msg, k.RawJSON):
			v.detailOpt.raw = !v.detailOpt.raw
			v.renderDetail()
			return nil
		case key.Matches(msg, k.Reasoning):
			v.detailOpt.reasoning = !v.detailOpt.reasoning
			v.renderDetail()
			return nil
		case key.Matches(msg, k.Logprobs):
			v.detailOpt.logprobs = !v.detailOpt.logprobs
			v.renderDetail()
			return nil
		case key.Matches(msg, k.Copy):
			return v.copySelected()
		case key.Matches(msg, k.Top):
			v.detail.GotoTop()
			return nil
		case key.Matches(msg, k.Bottom):
			v.detail.GotoBottom()
			return nil
		}
		var cmd tea.Cmd
		v.detail, cmd = v.detail.Update(msg)
		return cmd
	}
	// Showing a batch.
	switch {
	case key.Matches(msg, k.Open):
		v.mode = batchOpening
		v.input.SetValue("")
		v.pickIdx = -1
		return v.input.Focus()
	case key.Matches(msg, k.Refresh):
		if v.id == "" {
			return nil
		}
		if v.done && v.fatal == nil && v.batch != nil && v.batch.Status.Terminal() {
			return msgCmd(notice("batch is " + string(v.batch.Status) + ": nothing more will change"))
		}
		v.tag++
		v.done, v.fatal = false, nil
		v.sched = api.NewPollSchedule(v.c.opts.Poll, v.c.now())
		return tea.Batch(v.fetch(), v.clock())
	}
	if v.table.rows == nil {
		return nil
	}
	page := max(1, v.table.height-2)
	switch {
	case key.Matches(msg, k.Up):
		v.table.move(-1)
	case key.Matches(msg, k.Down):
		v.table.move(1)
	case key.Matches(msg, k.PageUp):
		v.table.move(-page)
	case key.Matches(msg, k.PageDown):
		v.table.move(page)
	case key.Matches(msg, k.Top):
		v.table.move(-len(v.table.view))
	case key.Matches(msg, k.Bottom):
		v.table.move(len(v.table.view))
	case key.Matches(msg, k.Enter):
		if row, ok := v.table.selected(); ok {
			v.mode = batchDetail
			v.detailIdx = row.idx
			v.detailOpt = detailOpts{}
			v.renderDetail()
		}
	case key.Matches(msg, k.Filter):
		v.table.filter = (v.table.filter + 1) % len(filterNames)
		v.table.apply()
	case key.Matches(msg, k.ErrorType):
		v.table.errType = nextOf(v.errTypes, v.table.errType)
		v.table.apply()
	case key.Matches(msg, k.Sort):
		v.table.sortBy = (v.table.sortBy + 1) % len(sortNames)
		v.table.apply()
	case key.Matches(msg, k.Search):
		v.mode = batchSearching
		return v.search.Focus()
	case key.Matches(msg, k.Back):
		if v.table.search != "" || v.table.filter != showAll || v.table.errType != "" {
			v.table.search, v.table.filter, v.table.errType = "", showAll, ""
			v.search.SetValue("")
			v.table.apply()
		}
	case key.Matches(msg, k.Export):
		return v.export()
	case key.Matches(msg, k.Copy):
		return v.copySelected()
	}
	return nil
}

// nextOf cycles "" -> list[0] -> ... -> "".
func nextOf(list []string, cur string) string {
	if cur == "" {
		if len(list) == 0 {
			return ""
		}
		return list[0]
	}
	for i, x := range list {
		if x == cur && i+1 < len(list) {
			return list[i+1]
		}
	}
	return ""
}

func (v *batchView) suggestions() []Suggestion {
	var out []Suggestion
	for _, id := range v.recent {
		out = append(out, Suggestion{ID: id, About: "recent"})
	}
	for _, s := range v.c.opts.SuggestedBatches {
		if !slices.Contains(v.recent, s.ID) {
			out = append(out, s)
		}
	}
	return out
}

func (v *batchView) onOpenerKey(msg tea.KeyMsg) tea.Cmd {
	sug := v.suggestions()
	switch msg.Type {
	case tea.KeyEnter:
		id := v.input.Value()
		if v.pickIdx >= 0 && v.pickIdx < len(sug) {
			id = sug[v.pickIdx].ID
		}
		if strings.TrimSpace(id) == "" {
			return msgCmd(failNotice("type a batch id, or pick one with ↑/↓"))
		}
		return v.open(id)
	case tea.KeyEsc:
		if v.id != "" {
			v.mode = batchShowing
			v.input.Blur()
		}
		return nil
	case tea.KeyUp:
		if v.pickIdx > -1 {
			v.pickIdx--
		}
		return nil
	case tea.KeyDown:
		if v.pickIdx < len(sug)-1 {
			v.pickIdx++
		}
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	v.pickIdx = -1
	return cmd
}

func (v *batchView) onMouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	d := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		d = -3
	case tea.MouseButtonWheelDown:
		d = 3
	default:
		return nil
	}
	if v.mode == batchDetail {
		if d < 0 {
			v.detail.ScrollUp(-d)
		} else {
			v.detail.ScrollDown(d)
		}
		return nil
	}
	v.table.move(d)
	return nil
}

func (v *batchView) renderDetail() {
	if v.batch == nil || v.detailIdx >= len(v.batch.Results) {
		return
	}
	it := &v.batch.Results[v.detailIdx]
	v.detail.SetContent(renderResult(v.c.styles, it, v.detail.Width-1, v.detailOpt))
	v.detail.GotoTop()
}

// export writes the shown results as JSON Lines (temp file + rename).
func (v *batchView) export() tea.Cmd {
	if v.batch == nil || v.table.rows == nil {
		return nil
	}
	items := make([][]byte, len(v.table.view))
	for i, ri := range v.table.view {
		items[i] = v.batch.Results[v.table.rows[ri].idx].Raw
	}
	name := fmt.Sprintf("gwdash-%s-%s-%s.jsonl", safeName(v.id), filterNames[v.table.filter], v.c.now().Format("20060102-150405"))
	dir := v.c.opts.ExportDir
	return func() tea.Msg {
		path, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			return exportedMsg{err: err}
		}
		var buf []byte
		for _, it := range items {
			buf = append(buf, it...)
			buf = append(buf, '\n')
		}
		if err := writeFileAtomic(path, buf, 0o644); err != nil {
			return exportedMsg{err: err}
		}
		return exportedMsg{path: path, n: len(items)}
	}
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

func (v *batchView) copySelected() tea.Cmd {
	row, ok := v.table.selected()
	if v.mode == batchDetail {
		row, ok = resultRow{idx: v.detailIdx}, true
	}
	if !ok || v.batch == nil {
		return nil
	}
	raw := string(v.batch.Results[row.idx].Raw)
	return copyCmd(v.c, raw, "the result's JSON")
}

// ---- VIEW ----

func (v *batchView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.input.Width = max(10, w-16)
	v.detail.Width, v.detail.Height = w, max(1, h-1)
	v.relayout()
	if v.mode == batchDetail {
		v.renderDetail()
	}
}

func (v *batchView) compact() bool { return v.w < compactW || v.h < compactH }

func (v *batchView) Busy() string {
	if v.loading {
		return "loading " + textsafe.Line(v.id)
	}
	return ""
}

func (v *batchView) View() string {
	switch v.mode {
	case batchOpening:
		return v.viewOpener()
	case batchDetail:
		s := v.c.styles
		title := s.Title.Render("Result detail") + s.Muted.Render("  esc back · J raw JSON · R reasoning · L logprobs · y copy")
		return title + "\n" + v.detail.View()
	}
	if v.id == "" {
		return v.viewOpener()
	}
	if v.fatal != nil {
		return v.viewFatal()
	}
	if v.batch == nil {
		return v.c.styles.Muted.Render("loading " + textsafe.Line(v.id) + "…")
	}
	return v.viewBatch()
}

func (v *batchView) viewOpener() string {
	s := v.c.styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Open a batch") + "\n\n" + v.input.View() + "\n\n")
	sug := v.suggestions()
	if len(sug) > 0 {
		b.WriteString(s.Label.Render("↑/↓ to pick, enter to open") + "\n")
	}
	room := max(0, v.h-6)
	for i, sg := range sug {
		if i >= room {
			break
		}
		line := "  " + textsafe.Line(sg.ID)
		if sg.About != "" {
			line += "  " + s.Muted.Render(textsafe.Line(sg.About))
		}
		if i == v.pickIdx {
			line = s.Selected.Render("▸ " + textsafe.Line(sg.ID) + "  " + textsafe.Line(sg.About))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func (v *batchView) viewFatal() string {
	s := v.c.styles
	var title, body string
	var ae *api.APIError
	errors.As(v.fatal, &ae)
	switch api.StatusOf(v.fatal) {
	case 404:
		title = "Batch not found"
		body = fmt.Sprintf("No batch has the id %s.\nCheck the id: a batch submitted a moment ago can take a few seconds to appear (gwdash retried for a while).", textsafe.Line(v.id))
	case 410:
		title = "Batch results deleted"
		body = fmt.Sprintf("The results of %s are gone: they are kept 30 days after the batch is created.", textsafe.Line(v.id))
	case 401:
		title = "Not authenticated"
		body = "The gateway refused the API key. Check GWDASH_API_KEY or api_key / api_key_cmd in your config."
	case 403:
		title = "Not allowed"
		body = "This key may not read this batch."
	default:
		title = "Could not load the batch"
		body = describeErr(v.fatal)
	}
	if ae != nil && api.StatusOf(v.fatal) != 404 && api.StatusOf(v.fatal) != 410 {
		body += "\n\n" + s.Muted.Render(textsafe.Line(ae.Error()))
	} else if ae != nil {
		body += "\n\n" + s.Muted.Render(fmt.Sprintf("HTTP %d: %s", ae.Status, textsafe.Line(ae.Message)))
	}
	return s.Error.Render(title) + "\n\n" + wrap(body, max(20, v.w-2)) + "\n\n" + s.Muted.Render("o open another batch · r try again")
}

func (v *batchView) viewBatch() string {
	s := v.c.styles
	if v.table.rows != nil && v.table.height >= 2 {
		return v.top + "\n" + v.tableBar() + "\n" + v.table.render(s)
	}
	if v.batch.Results == nil && v.h-lipgloss.Height(v.top) >= 2 {
		return v.top + "\n" + s.Muted.Render("results appear when the batch reaches a terminal status")
	}
	return v.top
}

// relayout renders the panels above the table and gives the table the
// rows that are left. It runs after every Update and on resize, so that
// View changes nothing.
func (v *batchView) relayout() {
	if v.batch == nil || v.fatal != nil {
		v.top = ""
		return
	}
	s := v.c.styles
	var parts []string
	card := v.headerCard()
	switch {
	case v.w >= 110 && !v.compact():
		parts = append(parts, lipgloss.JoinHorizontal(lipgloss.Top, card, " ", v.usagePanel()))
	case v.compact() || v.h < 34:
		// Not enough room for two panels: usage on one line.
		parts = append(parts, card, v.usageLine())
	default:
		parts = append(parts, card, v.usagePanel())
	}
	parts = append(parts, v.progress())
	if v.payment != nil {
		parts = append(parts, s.Warning.Render(wrap("402 · the finalized cost exceeds your balance: add credits, polling continues ("+textsafe.Line(v.payment.Message)+")", max(20, v.w))))
	}
	if v.batch.Error != nil && v.batch.Error.Message != "" && v.payment == nil {
		parts = append(parts, s.Error.Render(wrap("batch failed: "+textsafe.Clean(v.batch.Error.Message), max(20, v.w))))
	}
	v.top = strings.Join(parts, "\n")
	// under the panels: the results bar, then the table (header + rows)
	v.table.setSize(v.w, max(0, v.h-lipgloss.Height(v.top)-2))
}

func (v *batchView) tableBar() string {
	s := v.c.styles
	et := v.table.errType
	if et == "" {
		et = "any"
	}
	bar := fmt.Sprintf("Results %s · show %s · error type %s · sort %s", v.table.position(), filterNames[v.table.filter], et, sortNames[v.table.sortBy])
	if v.table.search != "" || v.mode == batchSearching {
		bar += " · " + v.search.View()
	}
	return s.Title.Render(bar) + "  " + s.Muted.Render(v.failureSummary())
}

func (v *batchView) failureSummary() string {
	counts := v.batch.ErrorTypeCounts()
	if len(counts) == 0 {
		return "no failures"
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		if name == "" {
			name = "other"
		}
		parts = append(parts, fmt.Sprintf("%s %d", textsafe.Line(name), counts[k]))
	}
	return "failures: " + strings.Join(parts, " · ")
}

func (v *batchView) statusRole(st api.BatchStatus) lipgloss.AdaptiveColor {
	t := v.c.styles.Theme
	switch st {
	case api.BatchCompleted:
		if v.batch.RequestCounts.Failed > 0 {
			return t.Warning
		}
		return t.Success
	case api.BatchFailed, api.BatchExpired:
		return t.Error
	case api.BatchCancelled, api.BatchCancelling:
		return t.Muted
	}
	return t.Info
}

// headerCard shows id, endpoint, model, status, times and window.
func (v *batchView) headerCard() string {
	s := v.c.styles
	b := v.batch
	now := v.c.now()
	status := string(b.Status)
	if b.Status == api.BatchCompleted && b.RequestCounts.Failed > 0 {
		status = "completed with errors"
	}
	badge := s.badge(status, v.statusRole(b.Status))
	created := b.CreatedTime()
	createdS := format.LocalTime(created) + " (" + format.Age(created, now) + ")"
	fin := "—"
	if t := b.FinalizedTime(); !t.IsZero() {
		fin = format.LocalTime(t) + " (" + format.Age(t, now) + ")"
	}
	if v.compact() {
		return badge + " " + s.Value.Render(textsafe.Line(b.ID)) + " " + s.Muted.Render(textsafe.Line(b.Model))
	}
	row := func(l, val string) string { return s.Label.Render(fmt.Sprintf("%-10s", l)) + " " + val }
	lines := []string{
		badge + "  " + s.Title.Render(textsafe.Line(b.ID)),
		row("endpoint", textsafe.Line(b.Endpoint)) + "   " + s.Label.Render("window") + " " + textsafe.Line(b.CompletionWindow),
		row("model", textsafe.Line(b.Model)),
		row("created", createdS),
		row("finalized", fin),
	}
	return s.Card.Width(v.cardWidth()).Render(strings.Join(lines, "\n"))
}

// cardWidth is the width of a panel without its border: two side by side
// on wide terminals, one across otherwise.
func (v *batchView) cardWidth() int {
	if v.w >= 110 && !v.compact() {
		return min(76, (v.w-1)/2-2)
	}
	return max(10, min(76, v.w-2))
}

// progress shows completed and failed separately, finalizing as its own
// phase, and the polling state.
func (v *batchView) progress() string {
	s := v.c.styles
	b := v.batch
	rc := b.RequestCounts
	width := max(10, min(50, v.w-50))
	bar := progressBar(s, rc, width)
	phase := ""
	switch b.Status {
	case api.BatchValidating:
		phase = "validating the input"
	case api.BatchFinalizing:
		phase = "finalizing: collecting results"
	case api.BatchCancelling:
		phase = "cancelling"
	case api.BatchInProgress:
		phase = "in progress"
	}
	pending := max(0, rc.Total-rc.Done())
	counts := fmt.Sprintf("%s %s  %s %s  %s %s  of %s",
		s.Success.Render("✓"), format.Int(rc.Completed), s.Error.Render("✗"), format.Int(rc.Failed), s.Muted.Render("…"), format.Int(pending), format.Int(rc.Total))
	line := bar + " " + counts
	if phase != "" {
		line += "  " + s.Info.Render(phase)
	}
	return line + "\n" + v.pollLine()
}

// progressBar draws completed (success colour) and failed (error colour)
// as separate segments; it is full only when every request is done.
func progressBar(s Styles, rc api.RequestCounts, width int) string {
	if rc.Total <= 0 {
		return s.Muted.Render(strings.Repeat("░", width))
	}
	ok := rc.Completed * width / rc.Total
	bad := rc.Failed * width / rc.Total
	if rc.Failed > 0 && bad == 0 {
		bad = 1
	}
	if rc.Done() >= rc.Total {
		bad = width - ok // all done: a full bar, whatever the rounding
	}
	if rc.Done() < rc.Total && ok+bad >= width {
		// never a full bar while work remains
		if ok > 0 {
			ok--
		} else {
			bad--
		}
	}
	if ok+bad > width {
		ok = width - bad
	}
	rest := max(0, width-ok-bad)
	return s.Success.Render(strings.Repeat("█", ok)) + s.Error.Render(strings.Repeat("█", bad)) + s.Muted.Render(strings.Repeat("░", rest))
}

func (v *batchView) pollLine() string {
	s := v.c.styles
	now := v.c.now()
	ago := "updated " + format.Age(v.updated, now)
	switch {
	case v.done:
		return s.Muted.Render(ago + " · polling stopped: batch " + string(v.batch.Status))
	case v.loading:
		return s.Muted.Render(ago + " · polling…")
	case v.pollErr != nil:
		return s.Warning.Render(ago+" · last poll failed: "+describeErr(v.pollErr)) + s.Muted.Render(" · retry in "+format.Duration(max(0, v.nextPoll.Sub(now))))
	}
	return s.Muted.Render(ago + " · next in " + format.Duration(max(0, v.nextPoll.Sub(now))) + " · r to poll now")
}

// usagePanel shows tokens, cost and billing details.
func (v *batchView) usagePanel() string {
	s := v.c.styles
	u := v.batch.Usage
	if u == nil {
		return s.Card.Width(v.cardWidth()).Render(s.Label.Render("usage") + " " + s.Muted.Render("not reported yet"))
	}
	row := func(l, val string) string { return s.Label.Render(fmt.Sprintf("%-11s", l)) + " " + val }
	lines := []string{
		s.Title.Render("Usage & cost"),
		row("prompt", format.Int(u.PromptTokens)) + "   " + row("completion", format.Int(u.CompletionTokens)),
		row("total", format.Int(u.TotalTokens)) + "   " + row("cost", s.Value.Render(format.CostPtr(u.Cost))),
	}
	var extra []string
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
		extra = append(extra, row("cached", format.Int(*d.CachedTokens)))
	}
	if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
		extra = append(extra, row("reasoning", format.Int(*d.ReasoningTokens)))
	}
	if len(extra) > 0 {
		lines = append(lines, strings.Join(extra, "   "))
	}
	var bill []string
	if u.IsBYOK != nil {
		bill = append(bill, row("BYOK", map[bool]string{true: "yes", false: "no"}[*u.IsBYOK]))
	}
	if u.ServiceTier != nil {
		bill = append(bill, row("tier", textsafe.Line(*u.ServiceTier)))
	}
	if len(bill) > 0 {
		lines = append(lines, strings.Join(bill, "   "))
	}
	if len(u.CostDetails) > 0 && string(u.CostDetails) != "null" {
		lines = append(lines, row("cost detail", textsafe.Line(costDetails(u.CostDetails))))
	}
	return s.Card.Width(v.cardWidth()).Render(strings.Join(lines, "\n"))
}

// usageLines is the usage panel in two lines, for short terminals.
func (v *batchView) usageLine() string {
	s := v.c.styles
	u := v.batch.Usage
	if u == nil {
		return s.Label.Render("usage") + " " + s.Muted.Render("not reported yet")
	}
	tokens := fmt.Sprintf("%s prompt %s · completion %s · total %s", s.Label.Render("tokens"),
		format.Int(u.PromptTokens), format.Int(u.CompletionTokens), format.Int(u.TotalTokens))
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
		tokens += " · cached " + format.Int(*d.CachedTokens)
	}
	if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
		tokens += " · reasoning " + format.Int(*d.ReasoningTokens)
	}
	cost := s.Label.Render("cost  ") + " " + s.Value.Render(format.CostPtr(u.Cost))
	if u.IsBYOK != nil && *u.IsBYOK {
		cost += " · BYOK"
	}
	if u.ServiceTier != nil {
		cost += " · tier " + textsafe.Line(*u.ServiceTier)
	}
	w := max(1, v.w)
	return ansi.Truncate(tokens, w, "…") + "\n" + ansi.Truncate(cost, w, "…")
}

// ---- HELP ----

func (v *batchView) ShortHelp() []key.Binding {
	k := v.keys
	switch v.mode {
	case batchOpening:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))}
	case batchDetail:
		return []key.Binding{k.Back, k.RawJSON, k.Copy}
	case batchSearching:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep")), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear"))}
	}
	if v.table.rows != nil {
		return []key.Binding{k.Enter, k.Filter, k.Search, k.Export}
	}
	return []key.Binding{k.Open, k.Refresh}
}

func (v *batchView) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{
		{k.Open, k.Refresh, k.Export, k.Copy},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Enter, k.Back, k.Filter, k.ErrorType, k.Search, k.Sort},
		{k.RawJSON, k.Reasoning, k.Logprobs},
	}
}

// ---- helpers ----

func msgCmd(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }

// describeErr renders an error for the status bar: status, code, message.
func describeErr(err error) string {
	var ae *api.APIError
	if errors.As(err, &ae) {
		s := ae.Error()
		if h := ae.Hint(); h != "" {
			s += " — " + h
		}
		return textsafe.Line(s)
	}
	return textsafe.Line(err.Error())
}

func costDetails(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
