package ui

import tea "github.com/charmbracelet/bubbletea"

// The states an error in the status bar can describe; when such a state
// ends (the list loads again), its error goes: no stale error beside a
// success.
const (
	aboutBatchList = "batch list"
	aboutDestList  = "destination list"
)

// failAbout shows an error that describes the state named about.
func failAbout(about, text string) tea.Cmd {
	n := failNotice(text)
	n.about = about
	return msgCmd(n)
}

// errorEnded clears the error shown about that state, if it is the one
// shown; any other error stays.
func errorEnded(about string) tea.Cmd { return msgCmd(noticeMsg{ended: about}) }

// endError clears the error shown when it describes the state that ended.
func (m *Model) endError(about string) {
	if m.errText != "" && m.errAbout == about {
		m.errText, m.errAbout = "", ""
	}
}
