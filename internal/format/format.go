// Package format renders numbers, money, times and durations the same way
// in the dashboard and the headless commands.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Int renders n with thousands separators: 1234567 -> 1,234,567.
func Int(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Cost renders dollars with sensible precision: cents from a dollar up,
// four decimals below, two significant digits below a cent ("$0.0012"),
// and "< $0.000001" for what is smaller but not zero.
func Cost(c float64) string {
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return "$?"
	}
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	switch {
	case c == 0:
		return "$0.00"
	case c < 0.000001:
		return sign + "< $0.000001"
	case c < 0.01:
		// two significant digits: 0.0012, 0.00034
		digits := int(math.Ceil(-math.Log10(c))) + 1
		return sign + "$" + strconv.FormatFloat(c, 'f', min(digits, 7), 64)
	case c < 1:
		return sign + "$" + strconv.FormatFloat(c, 'f', 4, 64)
	}
	return sign + "$" + Int64Comma(strconv.FormatFloat(c, 'f', 2, 64))
}

// Int64Comma puts thousands separators into the integer part of a decimal
// string: "1234567.89" -> "1,234,567.89".
func Int64Comma(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Plural renders a count with its noun: "1 key", "3 keys".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Int(n) + " " + many
}

// CostPtr is Cost, or "—" when unknown.
func CostPtr(c *float64) string {
	if c == nil {
		return "—"
	}
	return Cost(*c)
}

// Age renders how long ago t was: "12s ago", "3m ago", "5h ago", "2d ago".
func Age(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	if d > -time.Second && d < time.Second {
		return "just now"
	}
	if d < 0 {
		return "in " + Duration(-d)
	}
	return Duration(d) + " ago"
}

// Duration renders a duration coarsely: 850ms, 12s, 3m, 5h, 2d.
func Duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d.Milliseconds())) + "ms"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// Seconds renders a duration in seconds with two decimals: 0.21s.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// LocalTime renders t in local time.
func LocalTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

// Percent renders a rate in [0,1] as a percentage without noise: 1 -> 100%,
// 0.0001 -> 0.01%.
func Percent(r float64) string {
	return strconv.FormatFloat(r*100, 'f', -1, 64) + "%"
}

// OnOff is the one word for a boolean in every command, form and table.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
