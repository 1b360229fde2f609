package ui

// The playground: the model and its routing of keys between the
// transcript, the prompt, the model picker, the settings and the compare
// panes. Turns and their rendering are in turn.go, the commands in
// stream_cmds.go, saving in playground_save.go, compare mode in
// compare.go.

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
)

type playMode int

const (
	playNav playMode = iota
	playTyping
	playPicker
	playSettings
	playSaving
)

// liveStream is a stream being read.
type liveStream struct {
	events <-chan streamItem
	turn   *turn
}

type playground struct {
	c    *common
	keys PlaygroundKeys
	w, h int
	mode playMode

	prompt   textarea.Model
	model    string
	recent   []string
	cat      *api.Catalogue
	catErr   error
	catAsked bool
	picker   *modelPicker
	settings *form
	save     pathInput

	turns  []*turn
	scroll int // lines from the end; 0 follows the end
	gen    int
	cancel context.CancelFunc
	live   map[int]*liveStream // by pane (0 outside compare)

	cmp *compareState

	md        *markdown
	rendering bool
	insist    bool // enter again sends despite unsupported settings
	// confirm asks before a new chat drops turns not saved; savedTurns
	// is how many turns the last save held.
	confirm    *confirmPrompt
	savedTurns int
}

func newPlayground(c *common) *playground {
	ta := textarea.New()
	ta.Cursor.SetMode(cursor.CursorStatic) // no blink: an idle dashboard must not redraw
	ta.Placeholder = "your prompt"
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.SetHeight(3)
	ta.KeyMap.InsertNewline = DefaultPlaygroundKeys().Newline
	model := c.opts.Model
	recent := c.record.Models(c.base)
	if model == "" && len(recent) > 0 {
		model = recent[0]
	}
	if model == "" && len(c.opts.SuggestedModels) > 0 {
		model = c.opts.SuggestedModels[0]
	}
	if model == "" {
		model = "openai/gpt-4o-mini"
	}
	style := "light"
	if c.styles.Dark {
		style = "dark"
	}
	p := &playground{c: c, keys: DefaultPlaygroundKeys(), prompt: ta, model: model, settings: newSettingsForm(),
		recent: appendMissing(recent, c.opts.SuggestedModels), live: map[int]*liveStream{},
		md: &markdown{style: style, profile: c.styles.Renderer.ColorProfile()}}
	return p
}

// appendMissing appends the items not already in list, in order.
func appendMissing(list, items []string) []string {
	for _, x := range items {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

func (p *playground) Init() tea.Cmd { return nil }

func (p *playground) running() bool { return len(p.live) > 0 }

// stopAll stops every live answer now: each turn ends stopped with what
// arrived, and the streams are cancelled (their late messages find no
// live turn and are dropped).
func (p *playground) stopAll() tea.Cmd {
	now := p.c.now()
	var cmds []tea.Cmd
	for pane := range p.live {
		o := p.live[pane].turn.out.Stopped(now)
		cmds = append(cmds, p.finish(pane, o))
	}
	if p.cancel != nil {
		p.cancel()
	}
	return tea.Batch(cmds...)
}

func (p *playground) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.gen++
}

// ---- UPDATE ----

func (p *playground) Update(msg tea.Msg) tea.Cmd {
	cmd := p.update(msg)
	p.clampScroll()
	return tea.Batch(cmd, p.requestRenders())
}

func (p *playground) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case focusMsg:
		if msg.view == viewPlayground && !p.catAsked {
			p.catAsked = true
			return catalogueCmd(p.c.client, p.c.ctx, false)
		}
		return nil
	case catalogueMsg:
		p.cat, p.catErr = msg.cat, msg.err
		if p.picker != nil {
			cur := p.picker
			p.picker = newModelPicker(p.cat, p.catErr, p.model, cur.compare)
			p.picker.marked = cur.marked
			p.picker.filter.SetValue(cur.filter.Value())
			p.picker.apply()
			p.picker.setSize(p.w, p.h)
		}
		return nil
	case streamOpenedMsg:
		return p.onOpened(msg)
	case streamChunkMsg:
		return p.onChunk(msg)
	case answerMsg:
		return p.onAnswer(msg)
	case generationMsg:
		if t := p.turnFor(msg.gen, msg.pane); t != nil {
			t.genWait, t.gen, t.genErr = false, msg.rec, msg.err
		}
		return nil
	case rateTickMsg:
		if msg.gen != p.gen || !p.running() {
			return nil
		}
		now := p.c.now()
		for _, l := range p.live {
			l.turn.sample(now)
		}
		return rateTick(p.c, p.gen)
	case renderedMsg:
		p.rendering = false
		for i, b := range msg.blocks {
			msg.doc.store(b, msg.width, msg.lines[i])
		}
		return nil
	case savedMsg:
		if msg.err != nil {
			return fail("save failed: " + msg.err.Error())
		}
		if msg.what == "conversation" {
			p.savedTurns = msg.turns
		}
		return say(msg.what + " saved to " + msg.path)
	case pathCompletedMsg:
		p.save.completed(msg)
		return nil
	case tea.MouseMsg:
		return p.onMouse(msg)
	case tea.KeyMsg:
		return p.onKey(msg)
	}
	return nil
}

func (p *playground) onKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	// esc stops what is running, wherever the focus is.
	if p.running() && key.Matches(msg, k.Stop) && p.mode != playPicker && p.mode != playSaving {
		return p.stopAll()
	}
	if p.confirm != nil {
		_, done, yes := p.confirm.key(msg)
		if !done {
			return nil
		}
		p.confirm = nil
		if !yes {
			return say("the conversation is kept")
		}
		p.newChat()
		return say("new conversation")
	}
	switch p.mode {
	case playTyping:
		switch {
		case key.Matches(msg, k.Leave):
			p.setMode(playNav)
			return nil
		case key.Matches(msg, k.Send):
			return p.send()
		}
		var cmd tea.Cmd
		p.prompt, cmd = p.prompt.Update(msg)
		p.insist = false
		return cmd
	case playPicker:
		return p.onPickerKey(msg)
	case playSettings:
		if key.Matches(msg, p.settings.keys.Back) || key.Matches(msg, p.settings.keys.Save) {
			p.setMode(playNav)
			return nil
		}
		cmd, changed, used := p.settings.key(msg)
		if changed {
			p.checkSettings()
		}
		if !used {
			return unknownKey(msg)
		}
		return cmd
	case playSaving:
		cmd, done, path := p.save.key(msg)
		if done {
			p.setMode(playNav)
			if path != "" {
				return p.saveTo(path)
			}
			return say("nothing saved")
		}
		return cmd
	}
	// Reading the transcript (or the compare panes).
	if p.cmp != nil {
		if cmd, ok := p.compareKey(msg); ok {
			return cmd
		}
	}
	th := p.transcriptHeight()
	switch {
	case key.Matches(msg, k.Edit):
		p.setMode(playTyping)
		return p.prompt.Focus()
	case key.Matches(msg, k.Model):
		return p.openPicker(false)
	case key.Matches(msg, k.Compare):
		return p.openPicker(true)
	case key.Matches(msg, k.Settings):
		p.setMode(playSettings)
		p.checkSettings()
		return nil
	case key.Matches(msg, k.NewChat):
		if p.running() {
			return say("an answer is still streaming: esc stops it first")
		}
		if n := len(p.turns) - p.savedTurns; n > 0 {
			p.confirm = newConfirm("start a new chat? "+format.Plural(n, "answer is", "answers are")+" not saved (w saves)", "")
			return nil
		}
		p.newChat()
		return say("new conversation")
	case key.Matches(msg, k.Copy):
		if len(p.turns) == 0 {
			return say("no answer yet to copy")
		}
		return copyCmd(p.c, p.turns[len(p.turns)-1].answer.text(), "the answer's markdown")
	case key.Matches(msg, k.Save):
		return p.startSave()
	case key.Matches(msg, k.Reasoning):
		if n := len(p.turns); n > 0 && p.turns[n-1].reasoning.size > 0 {
			p.turns[n-1].showReas = !p.turns[n-1].showReas
			return nil
		}
		return say("the last answer has no reasoning to show")
	case key.Matches(msg, k.ScrollUp):
		p.scroll++
	case key.Matches(msg, k.ScrollDown):
		p.scroll--
	case key.Matches(msg, k.PageUp):
		p.scroll += max(1, th-2)
	case key.Matches(msg, k.PageDown):
		p.scroll -= max(1, th-2)
	case key.Matches(msg, k.Top):
		p.scroll = 1 << 30
	case key.Matches(msg, k.Bottom):
		p.scroll = 0
	case key.Matches(msg, k.Stop):
		return say("esc: nothing is streaming and nothing to go back to (i types a prompt)")
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane):
		return say("one pane here: tab moves between panes in compare mode (c)")
	default:
		return unknownKey(msg)
	}
	return nil
}

func (p *playground) setMode(m playMode) {
	p.mode = m
	p.prompt.Blur()
	p.settings.focus()
	if m != playSettings {
		for _, f := range p.settings.fields {
			f.input.Blur()
		}
	}
}

func (p *playground) openPicker(compare bool) tea.Cmd {
	p.picker = newModelPicker(p.cat, p.catErr, p.model, compare)
	if compare && p.cmp != nil {
		p.picker.marked = append([]string(nil), p.cmp.models...)
	}
	p.picker.setSize(p.w, p.transcriptHeight()+1)
	p.setMode(playPicker)
	var cmd tea.Cmd
	if p.cat == nil && !api.IsNotOffered(p.catErr) {
		p.catAsked = true
		cmd = catalogueCmd(p.c.client, p.c.ctx, false)
	}
	return tea.Batch(cmd, p.picker.filter.Focus())
}

func (p *playground) onPickerKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, p.picker.keys.Refresh) {
		return catalogueCmd(p.c.client, p.c.ctx, true)
	}
	cmd, res, chosen := p.picker.key(msg)
	switch res {
	case pickerCancelled:
		p.setMode(playNav)
		p.picker = nil
		return say("model unchanged: " + textsafe.Line(p.model))
	case pickerChosen:
		p.model = chosen
		p.cmp = nil
		p.picker = nil
		p.setMode(playNav)
		p.checkSettings()
		return say("model " + textsafe.Line(chosen) + " · i types a prompt")
	case pickerCompared:
		p.startCompare(p.picker.marked)
		p.picker = nil
		p.setMode(playNav)
		return say("i types one prompt for all of them; ctrl+x leaves compare")
	}
	return cmd
}

// selectedModel is the catalogue's entry of the model, or nil.
func (p *playground) selectedModel() *api.Model { return p.cat.Find(p.model) }

// checkSettings validates the settings panel as it is typed.
func (p *playground) checkSettings() {
	var req api.ResponseRequest
	applySettings(p.settings, &req, p.selectedModel())
}

// history is the conversation so far, sent whole in input: the service
// stores nothing and refuses a previous-response reference.
func (p *playground) history(prompt string) api.Input {
	var msgs []api.InputMessage
	for _, t := range p.turns {
		if t.out.State == api.EndNoAnswer {
			continue
		}
		msgs = append(msgs, api.InputMessage{Type: "message", Role: "user", Content: t.prompt})
		if a := t.answer.text(); a != "" {
			msgs = append(msgs, api.InputMessage{Type: "message", Role: "assistant", Content: a})
		}
	}
	if len(msgs) == 0 {
		return api.Input{Text: prompt}
	}
	msgs = append(msgs, api.InputMessage{Type: "message", Role: "user", Content: prompt})
	return api.Input{Messages: msgs}
}

// buildRequest makes the request from the prompt and the settings; every
// problem is placed beside its setting.
func (p *playground) buildRequest(input api.Input, model string) (api.ResponseRequest, bool, []*api.ValidationError) {
	req := api.ResponseRequest{Input: input, Model: model}
	stream, errs := applySettings(p.settings, &req, p.cat.Find(model))
	if err := api.ValidateModel(model); err != nil {
		errs = append(errs, err.(*api.ValidationError))
	}
	return req, stream, errs
}

// send validates and starts the request; nothing is sent when invalid.
func (p *playground) send() tea.Cmd {
	if p.running() {
		return say("an answer is still streaming: esc stops it")
	}
	prompt := p.prompt.Value()
	if strings.TrimSpace(prompt) == "" {
		return say("the prompt is empty: type something first")
	}
	if p.cmp != nil {
		return p.sendCompare(prompt)
	}
	req, stream, errs := p.buildRequest(p.history(prompt), p.model)
	if len(errs) > 0 {
		return p.refuse(errs)
	}
	if un := api.Unsupported(p.selectedModel(), &req); len(un) > 0 && !p.insist {
		p.insist = true
		return fail("not sent yet: " + textsafe.Line(p.model) + " does not list " + strings.Join(un, ", ") + " · enter again sends anyway, s opens settings")
	}
	p.insist = false
	p.gen++
	ctx, cancel := context.WithCancel(p.c.ctx)
	p.cancel = cancel
	p.scroll = 0
	now := p.c.now()
	t := newTurn(prompt, p.model, p.contentWidth(), now)
	t.estimate = api.EstimateCost(p.selectedModel(), prompt, maxOut(req))
	t.out.Streamed = stream
	p.turns = append(p.turns, t)
	p.live[0] = &liveStream{turn: t}
	p.prompt.Reset()
	p.setMode(playNav)
	p.remember(req.Model)
	if !stream {
		return tea.Batch(rateTick(p.c, p.gen), answerCmd(p.c.client, ctx, req, p.gen, 0, now))
	}
	return tea.Batch(rateTick(p.c, p.gen), openStreamCmd(p.c.client, ctx, req, p.gen, 0))
}

func maxOut(req api.ResponseRequest) int {
	if req.MaxOutputTokens != nil {
		return *req.MaxOutputTokens
	}
	return 0
}

func (p *playground) remember(model string) {
	p.c.record.UseModel(p.c.base, model)
	if !slices.Contains(p.recent, model) {
		p.recent = append([]string{model}, p.recent...)
	}
}

func (p *playground) newChat() {
	p.turns, p.scroll, p.cmp, p.savedTurns = nil, 0, nil, 0
}

// refuse says why nothing was sent: a bad model by name, bad settings by
// opening them at the first field in error (each error is beside its
// field; the status line names the fields).
func (p *playground) refuse(errs []*api.ValidationError) tea.Cmd {
	for _, e := range errs {
		if e.Field == "model" {
			return fail("not sent: " + e.Error() + " (m picks a model)")
		}
	}
	p.setMode(playSettings)
	return fail("not sent: " + p.settings.errorSummary())
}

// turnFor is the turn a message of (gen, pane) is about, or nil when it is
// stale.
func (p *playground) turnFor(gen, pane int) *turn {
	if gen != p.gen {
		return nil
	}
	if p.cmp != nil {
		if pane < len(p.cmp.panes) {
			return p.cmp.panes[pane].turn
		}
		return nil
	}
	if len(p.turns) == 0 {
		return nil
	}
	return p.turns[len(p.turns)-1]
}

func (p *playground) onOpened(msg streamOpenedMsg) tea.Cmd {
	l := p.live[msg.pane]
	if msg.gen != p.gen || l == nil {
		return nil
	}
	if msg.err != nil {
		return p.finish(msg.pane, api.OpenFailed(l.turn.model, msg.err, l.turn.out.Started, msg.at))
	}
	l.events = msg.events
	return readChunk(msg.gen, msg.pane, msg.events)
}

// onChunk folds a chunk of events into its turn.
func (p *playground) onChunk(msg streamChunkMsg) tea.Cmd {
	l := p.live[msg.pane]
	if msg.gen != p.gen || l == nil {
		return nil // a stream already ended (stopped, or a new chat)
	}
	l.turn.apply(msg.events)
	if msg.outcome.Started.IsZero() {
		msg.outcome = l.turn.out
		msg.outcome.State = api.EndStopped
	}
	l.turn.out = msg.outcome
	if msg.ended {
		return p.finish(msg.pane, msg.outcome)
	}
	return readChunk(msg.gen, msg.pane, l.events)
}

func (p *playground) onAnswer(msg answerMsg) tea.Cmd {
	l := p.live[msg.pane]
	if msg.gen != p.gen || l == nil {
		return nil
	}
	if msg.resp != nil {
		if txt := msg.resp.OutputTextAll(); txt != "" {
			l.turn.answer.append(textsafe.Clean(txt))
		} else if r := msg.resp.RefusalText(); r != "" {
			l.turn.refusal.append(textsafe.Clean(r))
		}
	}
	return p.finish(msg.pane, msg.outcome)
}

// finish settles a turn, fetches its generation record and the credit.
func (p *playground) finish(pane int, o api.Outcome) tea.Cmd {
	l := p.live[pane]
	delete(p.live, pane)
	t := l.turn
	t.end(o)
	cmds := []tea.Cmd{msgCmd(creditsStaleMsg{})}
	if o.GenerationID != "" && o.State != api.EndNoAnswer {
		t.genWait = true
		cmds = append(cmds, generationCmd(p.c.client, p.c.ctx, o.GenerationID, p.gen, pane))
	}
	if !p.running() && p.cancel != nil {
		p.cancel()
	}
	switch {
	case o.OK(), p.cmp != nil:
	case o.State == api.EndStopped:
		cmds = append(cmds, say("stopped: what arrived is kept"))
	default:
		cmds = append(cmds, fail(textsafe.Line(t.model)+": "+textsafe.Line(o.Message())))
	}
	return tea.Batch(cmds...)
}

func (p *playground) onMouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	d := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		d = 3
	case tea.MouseButtonWheelDown:
		d = -3
	default:
		return nil
	}
	switch {
	case p.mode == playPicker && p.picker != nil:
		p.picker.nav.move(-d)
	case p.mode == playSettings:
		p.settings.move(-d / 3)
	case p.cmp != nil:
		if pane := p.cmp.paneAt(msg.X, msg.Y); pane != nil {
			pane.scroll += d
		}
	default:
		p.scroll += d
	}
	return nil
}

// requestRenders asks for a markdown render of the blocks on screen that
// have none at this width (one render command at a time).
func (p *playground) requestRenders() tea.Cmd {
	if p.rendering {
		return nil
	}
	var target *doc
	var blocks []int
	var texts []string
	need := func(d *doc, i int) {
		if target != nil && d != target || len(blocks) >= 8 {
			return
		}
		target = d
		blocks = append(blocks, i)
		b := d.blocks[i]
		texts = append(texts, d.slice(b.start, b.end))
	}
	now := p.c.now()
	if p.cmp != nil {
		p.cmp.visit(p, now, need)
	} else if p.mode == playNav || p.mode == playTyping {
		p.visitTranscript(now, need)
	}
	if target == nil {
		return nil
	}
	p.rendering = true
	return renderCmd(p.md, target, target.width, blocks, texts)
}

func (p *playground) visitTranscript(now time.Time, need func(*doc, int)) {
	h := p.transcriptHeight()
	for _, pc := range visiblePieces(p.turns, p.c.styles, p.contentWidth(), now, h, p.scroll).pieces {
		if pc.doc != nil && pc.doc.needs(pc.block) {
			need(pc.doc, pc.block)
		}
	}
}

// ---- VIEW ----

func (p *playground) SetSize(w, h int) {
	p.w, p.h = w, h
	p.prompt.SetWidth(max(10, w-2))
	p.prompt.SetHeight(p.promptHeight())
	p.save.setWidth(w)
	for _, t := range p.turns {
		t.resize(p.contentWidth())
	}
	if p.picker != nil {
		p.picker.setSize(w, p.transcriptHeight()+1)
	}
	if p.cmp != nil {
		p.cmp.layout(p)
	}
	p.clampScroll()
}

func (p *playground) contentWidth() int { return max(20, p.w-2) }

func (p *playground) promptHeight() int {
	if p.h < compactH {
		return 1
	}
	return 3
}

// transcriptHeight is the lines above the footer, the model line and the
// prompt.
func (p *playground) transcriptHeight() int { return max(1, p.h-p.promptHeight()-2) }

func (p *playground) clampScroll() {
	total := columnHeight(p.turns, p.c.styles, p.contentWidth(), p.c.now())
	p.scroll = max(0, min(p.scroll, total-p.transcriptHeight()))
}

func (p *playground) View() string {
	s := p.c.styles
	th := p.transcriptHeight()
	var top string
	switch {
	case p.mode == playPicker && p.picker != nil:
		top = p.picker.view(s, p.w, th+1)
	case p.mode == playSettings:
		top = s.Title.Render("Settings") + s.Muted.Render("  each value is checked as you type · esc closes") + "\n" + p.settings.view(s, p.w, th)
	case p.cmp != nil:
		top = p.cmp.view(p, s)
	default:
		top = p.transcriptView(th)
	}
	top = fitBlock(top, p.w, th+1)
	parts := []string{top}
	if p.mode == playSaving {
		parts = append(parts, p.save.view(s))
	} else {
		parts = append(parts, p.footer())
	}
	parts = append(parts, p.modelLine(), p.prompt.View())
	return strings.Join(parts, "\n")
}

func (p *playground) transcriptView(h int) string {
	s := p.c.styles
	if len(p.turns) == 0 {
		intro := []string{s.Title.Render("Playground"),
			s.Muted.Render("i (or enter) types a prompt; the answer streams here. m picks the model from the catalogue,"),
			s.Muted.Render("c compares 2 to 4 models side by side, s opens the settings, w saves the conversation.")}
		return strings.Join(intro, "\n")
	}
	now := p.c.now()
	lines := linesOf(visiblePieces(p.turns, s, p.contentWidth(), now, h, p.scroll), h)
	for len(lines) < h {
		lines = append([]string{""}, lines...)
	}
	pos := ""
	if total := columnHeight(p.turns, s, p.contentWidth(), now); total > h {
		pos = s.Muted.Render("lines " + scrollPosition(total-h-p.scroll, h, total))
		if p.scroll > 0 {
			pos += s.Muted.Render(" · G follows the end")
		}
	}
	return strings.Join(lines, "\n") + "\n" + pos
}

// window is what a view of h lines, skip lines from a column's end,
// draws: the pieces it reaches and how many lines to cut from their end.
type window struct {
	pieces []piece
	cut    int
}

// visiblePieces walks a column from its end to the window and keeps only
// the pieces the window shows: those below it are passed by their heights
// (a block is not drawn to be skipped), so that a view anywhere in a
// 50 MiB answer costs what it shows.
func visiblePieces(turns []*turn, s Styles, width int, now time.Time, h, skip int) window {
	var w window
	below := skip // lines still to pass before the window
	want := h
	for i := len(turns) - 1; i >= 0 && want > 0; i-- {
		turns[i].pieces(s, width, now, func(pc piece) bool {
			if below >= pc.h {
				below -= pc.h
				return true
			}
			if len(w.pieces) == 0 {
				w.cut = below // the first piece kept is cut at the bottom
			}
			w.pieces = append(w.pieces, pc)
			want -= pc.h - below
			below = 0
			return want > 0
		})
	}
	slices.Reverse(w.pieces)
	return w
}

// linesOf draws the window's pieces and cuts them to it.
func linesOf(w window, h int) []string {
	var lines []string
	for _, pc := range w.pieces {
		lines = append(lines, pc.lines()...)
	}
	lines = lines[:max(0, len(lines)-w.cut)]
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return lines
}

// footer is the live line while streaming, or what to do next.
func (p *playground) footer() string {
	s := p.c.styles
	now := p.c.now()
	if p.cmp == nil {
		if l, ok := p.live[0]; ok {
			return ansi.Truncate(l.turn.liveLine(s, now)+s.Muted.Render("  esc stops"), p.w, "…")
		}
	} else if p.running() {
		return s.Busy.Render(format.Plural(len(p.live), "answer", "answers")+" streaming") + s.Muted.Render(" · esc stops them all")
	}
	// The keys are in the help bar; this line says only what it cannot.
	if p.confirm != nil {
		return ansi.Truncate(p.confirm.view(s), p.w, "…")
	}
	if p.mode == playTyping && p.insist {
		return s.Warning.Render(ansi.Truncate("enter again sends despite the unsupported settings · s settings", p.w, "…"))
	}
	return ""
}

// modelLine is the model with its prices, and while a prompt is typed,
// the cost estimate and the settings the model does not list.
func (p *playground) modelLine() string {
	s := p.c.styles
	label := "model "
	names := p.model
	if p.cmp != nil {
		label, names = "compare ", strings.Join(p.cmp.models, ", ")
	}
	line := s.Label.Render(label) + s.Value.Render(textsafe.Line(names))
	if m := p.selectedModel(); m != nil && p.cmp == nil {
		line += s.Muted.Render(" · in " + present.Price(m.PriceOf("prompt")) + "/M · out " + present.Price(m.PriceOf("completion")) + "/M")
		if n := m.Context(); n > 0 {
			line += s.Muted.Render(" · " + format.Int(int(n)) + " context")
		}
		if prompt := p.prompt.Value(); strings.TrimSpace(prompt) != "" {
			var req api.ResponseRequest
			applySettings(p.settings, &req, m)
			line += "  " + s.Info.Render("estimate: "+present.Estimate(api.EstimateCost(m, prompt, maxOut(req))))
			if un := api.Unsupported(m, &req); len(un) > 0 {
				line += "  " + s.Warning.Render("⚠ not listed by this model: "+strings.Join(un, ", "))
			}
		}
	} else if api.IsNotOffered(p.catErr) {
		line += s.Muted.Render(" · no catalogue on this server")
	}
	return ansi.Truncate(line, max(1, p.w), "…")
}

// ---- HELP ----

func (p *playground) KeyMap() help.KeyMap {
	k := p.keys
	if p.confirm != nil {
		return p.confirm.KeyMap()
	}
	switch p.mode {
	case playTyping:
		return keyMap{short: []key.Binding{k.Send, k.Newline, k.Leave}, full: [][]key.Binding{{k.Send, k.Newline, k.Leave, k.Stop}}}
	case playPicker:
		return p.picker.keys
	case playSettings:
		return p.settings.keys
	case playSaving:
		return p.save.keys
	}
	short := []key.Binding{k.Edit, k.Model, k.Compare, k.Settings}
	switch {
	case p.running():
		short = []key.Binding{k.Stop, k.ScrollUp, k.ScrollDown}
		if p.cmp != nil {
			short = append(short, k.NextPane)
		}
	case p.cmp != nil:
		short = []key.Binding{k.Edit, k.NextPane, k.ScrollUp, k.Save, k.EndEarly}
	}
	full := [][]key.Binding{{k.Edit, k.Model, k.Compare, k.Settings, k.NewChat}, {k.Copy, k.Save, k.Reasoning, k.Stop},
		{k.ScrollUp, k.ScrollDown, k.PageUp, k.PageDown, k.Top, k.Bottom}}
	if p.cmp != nil {
		full = append(full, []key.Binding{k.NextPane, k.PrevPane, k.EndEarly})
	}
	return keyMap{short: short, full: full}
}

func (p *playground) Help() string {
	if p.confirm != nil {
		return "answering y/N"
	}
	switch p.mode {
	case playTyping:
		return "typing the prompt"
	case playPicker:
		return "picking a model"
	case playSettings:
		return "settings"
	case playSaving:
		return "typing where to save"
	}
	if p.cmp != nil {
		return "comparing " + format.Plural(len(p.cmp.models), "model", "models")
	}
	return "reading the transcript"
}

func (p *playground) Typing() bool {
	switch p.mode {
	case playTyping, playPicker, playSaving:
		return true
	case playSettings:
		return p.settings.typing()
	}
	return false
}

func (p *playground) Busy() string {
	if p.running() {
		return "streaming"
	}
	return ""
}

func (p *playground) Updated() time.Time { return time.Time{} }
