package ui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/gwdash/gwdash/ui/styles"
)

// The theme lives in the leaf package ui/styles (colour roles and the
// Styles built from them); these names keep ui's code short.
type (
	Theme  = styles.Theme
	Styles = styles.Styles
)

// DefaultTheme is gwdash's theme.
func DefaultTheme() Theme { return styles.Default() }

// NewStyles builds the styles of a theme for a renderer (nil: lipgloss's
// default renderer).
func NewStyles(t Theme, r *lipgloss.Renderer) Styles { return styles.New(t, r) }
