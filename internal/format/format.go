// Package format renders numbers, money, times and durations the same way
// in the dashboard and the headless commands.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

// MaxWidth is the most cells a number rendered by this package takes
// (Int of the smallest int64 with its separators, a scientific cost):
// whatever a server sends, a number never pushes a status bar or a column
// off the screen.
const MaxWidth = 26

// Huge is where a cost or a limit stops being written out in full: from
// here Cost uses scientific form ("$1.0e+15") and Limit reads "no
// practical limit".
const Huge = 1e12

// Cost renders dollars with sensible precision: cents from a dollar up,
// four decimals below, two significant digits below a cent ("$0.0012"),
// "< $0.000001" for what is smaller but not zero, scientific form from
// Huge up ("$1.0e+300"), "$?" for what is not a number; -0 is "$0.00".
// It is never wider than MaxWidth.
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
	case c >= Huge:
		return sign + "$" + strconv.FormatFloat(c, 'e', 1, 64)
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

// Limit renders a spending limit: Cost, or "no practical limit" from Huge
// up, "none" when unknown.
func Limit(c *float64) string {
	switch {
	case c == nil:
		return "none"
	case *c >= Huge && !math.IsInf(*c, 0):
		return "no practical limit"
	}
	return Cost(*c)
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

// FreshStep is the step of Freshness below a minute.
const FreshStep = 10 * time.Second

// Freshness is how fresh shown data is, for a status line that must not
// wake an idle program every second: "just now" under 10 s, then in 10 s
// steps ("20s ago") up to a minute, then as Age.
func Freshness(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "never"
	case d > -FreshStep && d < FreshStep:
		return "just now"
	case d > 0 && d < time.Minute:
		return strconv.Itoa(int(d/FreshStep)*int(FreshStep/time.Second)) + "s ago"
	}
	return Age(t, now)
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
// 0.0001 -> 0.01%. What is outside any sense (huge, tiny, not a number)
// is written so that it stays within MaxWidth.
func Percent(r float64) string {
	p := r * 100
	switch {
	case math.IsNaN(p) || math.IsInf(p, 0):
		return "?%"
	case p == 0:
		return "0%"
	case math.Abs(p) >= 1e9 || math.Abs(p) < 1e-6:
		return strconv.FormatFloat(p, 'e', 2, 64) + "%"
	}
	s := strconv.FormatFloat(p, 'f', -1, 64)
	if len(s) > 12 {
		s = strconv.FormatFloat(p, 'g', 6, 64)
	}
	return s + "%"
}

// Float renders v with prec decimals ("85.2"), in scientific form when
// that would be wider than MaxWidth or v is tiny but not zero ("1.0e+300"),
// "?" when it is not a number; -0 is "0".
func Float(v float64, prec int) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case v == 0:
		return strconv.FormatFloat(0, 'f', prec, 64)
	case math.Abs(v) >= 1e15 || prec > 0 && math.Abs(v) < math.Pow(10, -float64(prec))/2:
		return strconv.FormatFloat(v, 'e', max(1, min(prec, 3)), 64)
	}
	return strconv.FormatFloat(v, 'f', min(prec, 8), 64)
}

// CutBytes cuts s to at most n bytes, at the start of a rune (a rune
// that would not fit whole goes; nothing before it does).
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Middle shortens s to at most max runes by cutting out its middle
// ("batch_0123…cdef"), so that a long id keeps both its ends readable.
func Middle(s string, max int) string {
	if max < 3 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// OnOff is the one word for a boolean in every command, form and table.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Decimal is a money amount or a rate for a file a program reads (CSV):
// plain decimal digits, rounded to 10 decimal places so that the residue
// of adding floats ("5.159486999999999") does not show; -0 is 0.
func Decimal(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	r := math.Round(v*1e10) / 1e10
	if math.IsInf(r, 0) || math.Abs(v) >= 1e15 {
		r = v
	}
	return strconv.FormatFloat(r+0, 'f', -1, 64)
}
