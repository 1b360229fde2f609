package ui

import "github.com/charmbracelet/lipgloss"

// Theme names colour roles; every colour the UI draws comes from one. The
// adaptive pairs are the only place light and dark terminals differ.
type Theme struct {
	Primary, Accent, Text, Subtle, Muted lipgloss.AdaptiveColor
	Success, Warning, Error, Info        lipgloss.AdaptiveColor
	Border, SelectionBg, SelectionFg     lipgloss.AdaptiveColor
	BadgeFg                              lipgloss.AdaptiveColor
}

// DefaultTheme is gwdash's theme.
func DefaultTheme() Theme {
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

// Styles are built once from a Theme.
type Styles struct {
	Theme                           Theme
	App, Header, HeaderTab, TabOn   lipgloss.Style
	Demo, Host                      lipgloss.Style
	Status, StatusErr, StatusNote   lipgloss.Style
	StatusKey, StatusDesc, Busy     lipgloss.Style
	Title, Label, Value, Subtle     lipgloss.Style
	Muted, Error, Warning, Success  lipgloss.Style
	Info, Card, Selected, TableHead lipgloss.Style
	Reasoning, Refusal, Input       lipgloss.Style
	FieldErr, Focused               lipgloss.Style
}

// NewStyles builds the styles of a theme.
func NewStyles(t Theme) Styles {
	s := Styles{Theme: t}
	s.App = lipgloss.NewStyle()
	s.Header = lipgloss.NewStyle().Foreground(t.Text)
	s.HeaderTab = lipgloss.NewStyle().Foreground(t.Subtle).Padding(0, 1)
	s.TabOn = lipgloss.NewStyle().Foreground(t.Primary).Bold(true).Underline(true).Padding(0, 1)
	s.Demo = lipgloss.NewStyle().Foreground(t.BadgeFg).Background(t.Warning).Bold(true).Padding(0, 1)
	s.Host = lipgloss.NewStyle().Foreground(t.Muted)
	s.Status = lipgloss.NewStyle().Foreground(t.Subtle)
	s.StatusErr = lipgloss.NewStyle().Foreground(t.Error).Bold(true)
	s.StatusNote = lipgloss.NewStyle().Foreground(t.Info)
	s.StatusKey = lipgloss.NewStyle().Foreground(t.Primary)
	s.StatusDesc = lipgloss.NewStyle().Foreground(t.Muted)
	s.Busy = lipgloss.NewStyle().Foreground(t.Accent)
	s.Title = lipgloss.NewStyle().Foreground(t.Primary).Bold(true)
	s.Label = lipgloss.NewStyle().Foreground(t.Subtle)
	s.Value = lipgloss.NewStyle().Foreground(t.Text)
	s.Subtle = lipgloss.NewStyle().Foreground(t.Subtle)
	s.Muted = lipgloss.NewStyle().Foreground(t.Muted)
	s.Error = lipgloss.NewStyle().Foreground(t.Error)
	s.Warning = lipgloss.NewStyle().Foreground(t.Warning)
	s.Success = lipgloss.NewStyle().Foreground(t.Success)
	s.Info = lipgloss.NewStyle().Foreground(t.Info)
	s.Card = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border).Padding(0, 1)
	s.Selected = lipgloss.NewStyle().Foreground(t.SelectionFg).Background(t.SelectionBg)
	s.TableHead = lipgloss.NewStyle().Foreground(t.Subtle).Bold(true)
	s.Reasoning = lipgloss.NewStyle().Foreground(t.Muted).Italic(true)
	s.Refusal = lipgloss.NewStyle().Foreground(t.Warning)
	s.Input = lipgloss.NewStyle().Foreground(t.Text)
	s.FieldErr = lipgloss.NewStyle().Foreground(t.Error)
	s.Focused = lipgloss.NewStyle().Foreground(t.Primary).Bold(true)
	return s
}

// badge renders a status word in its role's colour.
func (s Styles) badge(word string, role lipgloss.AdaptiveColor) string {
	return lipgloss.NewStyle().Foreground(s.Theme.BadgeFg).Background(role).Bold(true).Padding(0, 1).Render(word)
}
