package ui

// The playground: the model and its routing of keys between the
// transcript, the prompt, the model picker, the settings and the compare
// panes. Sending and following answers is in play_send.go, the
// drawing in play_draw.go, turns and their rendering in play_turn.go, the
// commands in play_stream.go, saving in play_save.go, compare mode
// in play_compare.go.

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/gwdash/gwdash/ui/transcript"
	"github.com/gwdash/gwdash/ui/widgets"
)

type playMode int

const (
	playNav playMode = iota
	playTyping
)

// liveStream is a stream being read; cancel ends its request alone (a
// compare pane stopped at the answer cap leaves the others running).
type liveStream struct {
	events <-chan streamItem
	turn   *turn
	cancel context.CancelFunc
}

type playground struct {
	c    *common
	keys PlaygroundKeys
	w, h int
	mode playMode

	prompt   textarea.Model
	model    string
	cat      *api.Catalogue
	catErr   error
	catAsked bool
	// provGen tags the providers panel's reads.
	provGen  int
	settings *requestSettings

	turns  []*turn
	scroll int // lines from the end; 0 follows the end
	gen    int
	cancel context.CancelFunc
	live   map[int]*liveStream // by pane (0 outside compare)
	// stack holds the screens opened over the playground: the model
	// picker, the providers panel, the settings, the tool form, the save
	// path and the y/N questions (play_screens.go).
	stack stack

	cmp *compareState

	md *transcript.Markdown
	// replayOf is the logged row the next prompt sends again (0: none).
	replayOf  int64
	rendering bool
	resized   bool // SetSize changed the layout: renders are due
	insist    bool // enter again sends despite unsupported settings
	// savedTurns is how many turns the last save held, savedCmp the
	// first compared answer of the last comparison saved.
	savedTurns int
	savedCmp   *turn
	// depth is the structured outputs and function tools chosen, and the
	// input answering a call (play_tool_answer.go).
	depth playDepth
}

func newPlayground(c *common) *playground {
	ta := textarea.New()
	ta.Cursor.SetMode(cursor.CursorStatic) // no blink: an idle dashboard must not redraw
	ta.Placeholder = "your prompt"
	ta.ShowLineNumbers = false
	ta.Prompt = promptGlyph(false)
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
		live: map[int]*liveStream{},
		md:   transcript.NewMarkdown(style, c.styles.Renderer.ColorProfile(), c.styles.Muted)}
	p.depth.keys = DefaultToolAnswerKeys()
	return p
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

// Update implements view. A message that is not the playground's changes
// nothing and costs nothing (no layout, no render request), unless a
// resize left the blocks on screen to render at the new width.
func (p *playground) Update(msg tea.Msg) tea.Cmd {
	if !p.owns(msg) && !p.resized {
		return nil
	}
	p.resized = false
	cmd := p.update(msg)
	p.clampScroll()
	return tea.Batch(cmd, p.requestRenders())
}

// owns reports whether update acts on msg.
func (p *playground) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case focusMsg, catalogueMsg, settingFileMsg, endpointsMsg, streamOpenedMsg, streamChunkMsg, answerMsg, generationMsg, rateTickMsg, renderedMsg,
		savedMsg, widgets.PathCompletedMsg, tea.MouseMsg, tea.KeyMsg, tea.WindowSizeMsg,
		answerCheckedMsg, argsCheckedMsg, toolResultsMsg, toolFileMsg:
		return true
	}
	return false
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
		p.reloadPicker()
		return nil
	case endpointsMsg:
		return p.act(p.stack.update(msg)) // the providers panel's
	case settingFileMsg:
		if p.settings.gotFile(msg) {
			p.checkSettings()
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
			t.setGeneration(msg.rec, msg.err)
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
			msg.doc.Store(b, msg.width, msg.lines[i])
		}
		return nil
	case savedMsg:
		if msg.err != nil {
			return fail("save failed: " + present.Plain(msg.err))
		}
		if msg.what == "conversation" {
			p.savedTurns = msg.turns
		} else {
			p.savedCmp = msg.first
		}
		return say(msg.what + " saved to " + msg.path)
	case widgets.PathCompletedMsg:
		return p.act(p.stack.update(msg)) // a path's (the save, a result file)
	case answerCheckedMsg, argsCheckedMsg, toolResultsMsg, toolFileMsg:
		return p.onDepthMsg(msg)
	case tea.MouseMsg:
		if p.stack.open() {
			return p.act(p.stack.update(msg))
		}
		return p.onMouse(msg)
	case tea.KeyMsg:
		return p.onKey(msg)
	}
	return nil
}

func (p *playground) onKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	// esc stops what is running, wherever the focus is (but in a screen
	// that keeps its esc: the picker, the providers, a path, the tool form).
	if p.running() && key.Matches(msg, k.Stop) && p.escStops() {
		return p.stopAll()
	}
	if p.stack.open() {
		return p.act(p.stack.update(msg))
	}
	if p.mode == playTyping {
		switch {
		case key.Matches(msg, k.Leave):
			p.setMode(playNav)
			return nil
		case key.Matches(msg, k.Send):
			if p.cmp != nil && p.unsavedCompared() && strings.TrimSpace(p.prompt.Value()) != "" && !p.running() {
				return p.ask(askSend, "send a new prompt to the compared models? Their answers are not saved (w saves)")
			}
			return p.send()
		}
		var cmd tea.Cmd
		p.prompt, cmd = p.prompt.Update(msg)
		p.insist = false
		return cmd
	}
	// Reading the transcript (or the compare panes).
	if p.cmp != nil {
		if key.Matches(msg, k.EndEarly) && !p.running() && p.unsavedCompared() {
			return p.ask(askLeaveCompare, "leave compare mode? The compared answers are not saved (w saves)")
		}
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
		if p.cmp != nil && p.unsavedCompared() {
			return p.ask(askModel, "pick one model and leave compare mode? The compared answers are not saved (w saves)")
		}
		return p.openPicker(false)
	case key.Matches(msg, k.Compare):
		if p.unsavedCompared() {
			return p.ask(askCompare, "start a new compare? The compared answers are not saved (w saves)")
		}
		return p.openPicker(true)
	case key.Matches(msg, k.Providers):
		return p.openProviders(p.shownModel())
	case key.Matches(msg, k.Settings):
		p.settings.Base = p.settings.Snapshot() // esc asks before dropping changes from here
		p.checkSettings()
		p.openSettings()
		return p.settings.readFiles(true) // files may have changed on disk
	case key.Matches(msg, k.NewChat):
		if p.running() {
			return say("an answer is still streaming: esc stops it first")
		}
		if lost := p.unsavedAnswers(); lost != "" {
			return p.ask(askNewChat, "start a new chat? "+lost)
		}
		p.newChat()
		return say("new conversation")
	case key.Matches(msg, k.Copy):
		if len(p.turns) == 0 {
			return say("no answer yet to copy")
		}
		return copyCmd(p.c, p.turns[len(p.turns)-1].answer.Text(), "the answer's markdown")
	case key.Matches(msg, k.Save):
		return p.startSave()
	case key.Matches(msg, p.depth.keys.Open):
		return p.openAnswer()
	case key.Matches(msg, k.Reasoning):
		if n := len(p.turns); n > 0 && p.turns[n-1].reasoning.Size() > 0 {
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

// escStops reports whether esc stops the running answers now: over the
// transcript, the prompt, the settings, a question or a tool's answer it
// does; the picker, the providers panel, a path and the tool form keep
// their esc.
func (p *playground) escStops() bool {
	switch p.stack.top().(type) {
	case nil, *settingsScreen, *question, *toolAnswer:
		return true
	}
	return false
}

func (p *playground) setMode(m playMode) {
	p.mode = m
	p.prompt.Blur()
	p.prompt.Prompt = promptGlyph(m == playTyping)
}

// picker is the model picker while open, or nil.
func (p *playground) picker() *modelPicker { pk, _ := find[*modelPicker](&p.stack); return pk }

func (p *playground) openPicker(compare bool) tea.Cmd {
	pk := newModelPicker(p.c, p.cat, p.catErr, p.model, compare)
	if compare && p.cmp != nil && p.cmp.providers == nil {
		pk.marked = append([]string(nil), p.cmp.models...)
	}
	p.setMode(playNav)
	p.stack.push(pk)
	var cmd tea.Cmd
	if p.cat == nil && !api.IsNotOffered(p.catErr) {
		p.catAsked = true
		cmd = catalogueCmd(p.c.client, p.c.ctx, false)
	}
	return tea.Batch(cmd, pk.filter.Focus())
}

// reloadPicker shows a catalogue read again in the open picker, its
// filter and marks kept.
func (p *playground) reloadPicker() {
	pk := p.picker()
	if pk == nil {
		return
	}
	fresh := newModelPicker(p.c, p.cat, p.catErr, p.model, pk.compare)
	fresh.marked = pk.marked
	fresh.filter.SetValue(pk.filter.Value())
	fresh.apply()
	w, h := pk.w, pk.h
	*pk = *fresh
	pk.SetSize(w, h)
}

// selectedModel is the catalogue's entry of the model, or nil.
func (p *playground) selectedModel() *api.Model { return p.cat.Find(p.model) }

// checkSettings validates the settings panel as it is typed.
func (p *playground) checkSettings() {
	var req api.ResponseRequest
	applySettings(p.settings, &req, p.selectedModel())
}

// ---- HELP ----

func (p *playground) KeyMap() help.KeyMap {
	k := p.keys
	if s := p.stack.top(); s != nil {
		if st, ok := s.(*settingsScreen); ok && p.running() {
			// esc stops the answer first (onKey)
			fk := st.form.Keys
			fk.Back = k.Stop
			return keyMap{short: append(fk.ShortHelp(), k.AddTool), full: append(fk.FullHelp(), []key.Binding{k.AddTool})}
		}
		return s.KeyMap()
	}
	if p.mode == playTyping {
		// esc stops a running answer first, and leaves typing only
		// when nothing runs (onKey).
		esc := k.Leave
		if p.running() {
			esc = k.Stop
		}
		return keyMap{short: []key.Binding{k.Send, k.Newline, esc}, full: [][]key.Binding{{k.Send, k.Newline, esc}}}
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
	case p.callsWait():
		short = append([]key.Binding{p.depth.keys.Open}, short...)
	}
	return keyMap{short: short, full: p.fullHelp()}
}

func (p *playground) Help() string {
	if s := p.stack.top(); s != nil {
		return s.Help()
	}
	if p.mode == playTyping {
		return "typing the prompt"
	}
	if p.cmp != nil {
		return p.cmp.doing()
	}
	return "reading the transcript"
}

// Dialog reports a field, a screen or a tool's answer open: q is then
// the playground's key, never the shell's quit.
func (p *playground) Dialog() bool {
	return p.mode != playNav || p.stack.open()
}

// Unsaved says what quitting would lose (see unsavedAnswers).
func (p *playground) Unsaved() string {
	var parts []string
	if s := p.unsavedAnswers(); s != "" {
		parts = append(parts, s)
	}
	if st, ok := find[*settingsScreen](&p.stack); ok {
		if s := st.Unsaved(); s != "" {
			parts = append(parts, s)
		}
	}
	if strings.TrimSpace(p.prompt.Value()) != "" {
		parts = append(parts, "a prompt not sent")
	}
	if a := p.answerInput(); a != nil {
		if s := a.Unsaved(); s != "" {
			parts = append(parts, s)
		}
	}
	if tf, ok := find[*toolForm](&p.stack); ok {
		if s := tf.Unsaved(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

func (p *playground) Typing() bool {
	if s := p.stack.top(); s != nil {
		return s.Typing()
	}
	return p.mode == playTyping
}

func (p *playground) Busy() string {
	if p.running() {
		return "streaming"
	}
	return ""
}

func (p *playground) Updated() time.Time { return time.Time{} }

// ---- WORK KEPT NOWHERE ----

// What a yes to the playground's question does.
const (
	askNewChat      = "new chat"
	askCompare      = "new compare"
	askModel        = "pick a model"
	askLeaveCompare = "leave compare"
	askSend         = "send over the compared answers"
	askSettings     = "discard settings"
)

// ask opens a y/N question; the tag says what yes does.
func (p *playground) ask(tag, question string) tea.Cmd {
	p.stack.push(newQuestion(p.c, widgets.NewConfirm(question, tag), "answering y/N"))
	return nil
}

// onQuestion does what a yes to a question asks.
func (p *playground) onQuestion(a answer) tea.Cmd {
	if !a.yes {
		if a.tag == askSettings {
			return say("still editing the settings: ctrl+s keeps them")
		}
		return say("nothing dropped: w saves the answers")
	}
	switch a.tag {
	case askNewChat:
		p.newChat()
		return say("new conversation")
	case askCompare:
		p.savedCmp = nil
		return p.openPicker(true)
	case askModel:
		return p.openPicker(false)
	case askLeaveCompare:
		p.cmp = nil
		return say("compare mode left: back to " + textsafe.Line(p.model))
	case askSend:
		return p.send()
	case askSettings:
		p.settings.Reset()
		p.checkSettings()
		p.closeSettings()
		return say("settings unchanged")
	}
	return nil
}

// openSettings opens the settings screen (once).
func (p *playground) openSettings() {
	if _, ok := find[*settingsScreen](&p.stack); !ok {
		p.stack.push(newSettingsScreen(p.c, p.settings, p.keys.AddTool))
	}
}

// closeSettings closes the settings screen (and what is open over it).
func (p *playground) closeSettings() {
	if st, ok := find[*settingsScreen](&p.stack); ok {
		st.blur()
		p.stack.drop(st)
	}
}

// unsavedAnswers says which answers are kept nowhere: not saved with w
// and not in the request log (when it records and has refused nothing).
// It is the one predicate asked before a new chat, a new compare and
// quitting; "" when all are kept.
func (p *playground) unsavedAnswers() string {
	if p.c.opts.Requests.Keeps() {
		return "" // every answer is in the request log (gwdash logs)
	}
	var parts []string
	if n := len(p.turns) - p.savedTurns; n > 0 {
		parts = append(parts, format.Plural(n, "answer is", "answers are")+" not saved (w saves)")
	}
	if p.unsavedCompared() {
		parts = append(parts, "the compared answers are not saved (w saves)")
	}
	return strings.Join(parts, "; ")
}

// unsavedCompared reports compared answers kept nowhere.
func (p *playground) unsavedCompared() bool {
	if p.cmp == nil || len(p.cmp.panes) == 0 || p.cmp.panes[0].turn == nil {
		return false
	}
	return p.cmp.panes[0].turn != p.savedCmp
}

// keepSettings leaves the settings only when every field is valid; each
// error is shown beside its field, and the focus goes to the first.
func (p *playground) keepSettings() tea.Cmd {
	var req api.ResponseRequest
	if _, errs := applySettings(p.settings, &req, p.selectedModel()); len(errs) > 0 {
		return fail("settings not kept: " + p.settings.ErrorSummary())
	}
	p.settings.Base = p.settings.Snapshot()
	p.closeSettings()
	return sayFixed("settings kept")
}

// act is the one place the playground does what its screens ask.
func (p *playground) act(cmd tea.Cmd, a action) tea.Cmd {
	switch v := a.value.(type) {
	case answer:
		return tea.Batch(cmd, p.onQuestion(v))
	case pathChosen: // the save path
		return tea.Batch(cmd, p.saveTo(string(v)))
	case modelChosen:
		p.model = string(v)
		p.cmp = nil
		p.checkSettings()
		return tea.Batch(cmd, say("model "+textsafe.Line(string(v))+" · i types a prompt"))
	case modelsCompared:
		p.startCompare([]string(v))
		return tea.Batch(cmd, say("i types one prompt for all of them; ctrl+x leaves compare"))
	case providersOf:
		return tea.Batch(cmd, p.openProviders(string(v)))
	case providersChosen:
		return tea.Batch(cmd, p.providersChosen(v))
	case callsAnswered:
		return tea.Batch(cmd, p.continueCalls(v.t, false))
	case toolAsked:
		p.stack.push(newToolForm(p.c, p.settings.Tools))
	case toolsDefined:
		p.settings.Field(setTools).Input.SetValue(string(v))
		p.checkSettings()
	case settingsEdited:
		p.checkSettings()
		return tea.Batch(cmd, p.settings.readFiles(false))
	case settingsKeep:
		return tea.Batch(cmd, p.keepSettings())
	case settingsDiscard:
		return tea.Batch(cmd, p.ask(askSettings, "discard the changed settings?"))
	}
	return cmd
}
