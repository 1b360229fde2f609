// Package styles holds the dashboard's theme: colour roles (Theme) and
// the one Styles struct built from them for a renderer. It knows nothing
// of the dashboard's screens; every colour ui draws comes from here.
package styles

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/api"
)

// Theme names colour roles; every colour the UI draws comes from one. The
// adaptive pairs are the only place light and dark terminals differ.
type Theme struct {
	Primary, Accent, Text, Subtle, Muted lipgloss.AdaptiveColor
	Success, Warning, Error, Info        lipgloss.AdaptiveColor
	Border, SelectionBg, SelectionFg     lipgloss.AdaptiveColor
	BadgeFg                              lipgloss.AdaptiveColor
}

// Default is gwdash's theme.
func Default() Theme {
	return Theme{
		Primary:     lipgloss.AdaptiveColor{Light: "#5A3FD1", Dark: "#A48CFF"},
		Accent:      lipgloss.AdaptiveColor{Light: "#0B7A75", Dark: "#4FD1C5"},
		Text:        lipgloss.AdaptiveColor{Light: "#1F1F24", Dark: "#E6E6EA"},
		Subtle:      lipgloss.AdaptiveColor{Light: "#5C5C66", Dark: "#A0A0AB"},
		Muted:       lipgloss.AdaptiveColor{Light: "#8A8A94", Dark: "#6B6B75"},
		Success:     lipgloss.AdaptiveColor{Light: "#1A7F37", Dark: "#56D364"},
		Warning:     lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#E3B341"},
		Error:       lipgloss.AdaptiveColor{Light: "#CF222E", Dark: "#F85149"},
		Info:        lipgloss.AdaptiveColor{Light: "#0969DA", Dark: "#58A6FF"},
		Border:      lipgloss.AdaptiveColor{Light: "#C8C8D0", Dark: "#3A3A44"},
		SelectionBg: lipgloss.AdaptiveColor{Light: "#DDD6FE", Dark: "#3B2F6B"},
		SelectionFg: lipgloss.AdaptiveColor{Light: "#1F1F24", Dark: "#FFFFFF"},
		BadgeFg:     lipgloss.AdaptiveColor{Light: "#FFFFFF", Dark: "#111111"},
	}
}

// Styles are built once from a Theme and the renderer that draws them (its
// colour profile and background decide how colours come out, so two
// dashboards, or a test's golden renderer, never share global state).
type Styles struct {
	Theme    Theme
	Renderer *lipgloss.Renderer
	// Dark is the background the renderer assumes (markdown follows it).
	Dark bool

	Header, HeaderTab, TabOn, Demo, Host         lipgloss.Style
	Status, StatusErr, StatusNote, Mode, ModeTyp lipgloss.Style
	HelpKey, HelpDesc, Busy                      lipgloss.Style
	Title, Label, Value, Subtle, Muted           lipgloss.Style
	Error, Warning, Success, Info                lipgloss.Style
	Card, Selected, TableHead, Marker            lipgloss.Style
	Reasoning, Refusal, FieldErr, Focused, Pane  lipgloss.Style
	PaneFocused                                  lipgloss.Style
}

// New builds the styles of a theme for a renderer (nil: lipgloss's
// default renderer).
func New(t Theme, r *lipgloss.Renderer) Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	n := r.NewStyle
	s := Styles{Theme: t, Renderer: r, Dark: r.HasDarkBackground()}
	s.Header = n().Foreground(t.Text)
	s.HeaderTab = n().Foreground(t.Subtle).Padding(0, 1)
	s.TabOn = n().Foreground(t.Primary).Bold(true).Underline(true).Padding(0, 1)
	s.Demo = n().Foreground(t.BadgeFg).Background(t.Warning).Bold(true).Padding(0, 1)
	s.Host = n().Foreground(t.Muted)
	s.Status = n().Foreground(t.Subtle)
	s.StatusErr = n().Foreground(t.Error).Bold(true)
	s.StatusNote = n().Foreground(t.Info)
	s.Mode = n().Foreground(t.BadgeFg).Background(t.Subtle).Bold(true).Padding(0, 1)
	s.ModeTyp = n().Foreground(t.BadgeFg).Background(t.Accent).Bold(true).Padding(0, 1)
	s.HelpKey = n().Foreground(t.Primary)
	s.HelpDesc = n().Foreground(t.Muted)
	s.Busy = n().Foreground(t.Accent)
	s.Title = n().Foreground(t.Primary).Bold(true)
	s.Label = n().Foreground(t.Subtle)
	s.Value = n().Foreground(t.Text)
	s.Subtle = n().Foreground(t.Subtle)
	s.Muted = n().Foreground(t.Muted)
	s.Error = n().Foreground(t.Error)
	s.Warning = n().Foreground(t.Warning)
	s.Success = n().Foreground(t.Success)
	s.Info = n().Foreground(t.Info)
	s.Card = n().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border).Padding(0, 1)
	s.Selected = n().Foreground(t.SelectionFg).Background(t.SelectionBg)
	s.TableHead = n().Foreground(t.Subtle).Bold(true)
	s.Marker = n().Foreground(t.Primary).Bold(true)
	s.Reasoning = n().Foreground(t.Muted).Italic(true)
	s.Refusal = n().Foreground(t.Warning)
	s.FieldErr = n().Foreground(t.Error)
	s.Focused = n().Foreground(t.Primary).Bold(true)
	s.Pane = n().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border)
	// The focused pane has a thick border: a glyph shows it without colour.
	s.PaneFocused = n().Border(lipgloss.ThickBorder()).BorderForeground(t.Primary)
	return s
}

// Badge renders a word in its role's colour, as a label on a background.
func (s Styles) Badge(word string, role lipgloss.AdaptiveColor) string {
	return s.Renderer.NewStyle().Foreground(s.Theme.BadgeFg).Background(role).Bold(true).Padding(0, 1).Render(word)
}

// Fg renders text in a role's colour.
func (s Styles) Fg(role lipgloss.AdaptiveColor, text string) string {
	return s.Renderer.NewStyle().Foreground(role).Render(text)
}

// StatusRole is the colour of a batch status: the one status badge of the
// app, used by the home table and the batch view alike.
func (s Styles) StatusRole(st api.BatchStatus, failures bool) lipgloss.AdaptiveColor {
	t := s.Theme
	switch st {
	case api.BatchCompleted:
		if failures {
			return t.Warning
		}
		return t.Success
	case api.BatchFailed, api.BatchExpired:
		return t.Error
	case api.BatchCancelled, api.BatchCancelling:
		return t.Muted
	case api.BatchValidating, api.BatchInProgress, api.BatchFinalizing:
		return t.Info
	}
	return t.Warning // unknown: worth a look
}
