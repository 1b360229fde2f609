package format

import (
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFormats(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Int(in); got != want {
			t.Errorf("Int(%d) = %s", in, got)
		}
	}
	for in, want := range map[float64]string{0: "$0.00", 0.000123: "$0.00012", 0.0012345: "$0.0012", 0.00000012: "< $0.000001",
		0.5: "$0.5000", 12.345: "$12.35", 1234567.891: "$1,234,567.89", -0.25: "-$0.2500"} {
		if got := Cost(in); got != want {
			t.Errorf("Cost(%v) = %s", in, got)
		}
	}
	now := time.Now()
	if got := Age(now.Add(-90*time.Minute), now); got != "1h ago" {
		t.Errorf("Age = %s", got)
	}
	if got := Age(now.Add(-72*time.Hour), now); got != "3d ago" {
		t.Errorf("Age = %s", got)
	}
	if got := Percent(0.0001); got != "0.01%" {
		t.Errorf("Percent = %s", got)
	}
	if Plural(1, "key", "keys") != "1 key" || Plural(2, "key", "keys") != "2 keys" || Plural(1200, "key", "keys") != "1,200 keys" {
		t.Error("Plural")
	}
	if Age(time.Time{}, now) != "never" {
		t.Error("Age of zero time")
	}
	if CostPtr(nil) != "—" {
		t.Error("CostPtr(nil)")
	}
}

// Numbers from a server never take more than MaxWidth cells.
func TestNumberWidths(t *testing.T) {
	huge := []float64{1e300, -1e300, 1.7976931348623157e308, 1e15, 123456789012345678, 5e-324, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, v := range huge {
		for _, s := range []string{Cost(v), Float(v, 1), Float(v, 3), Float(v, 4), Percent(v), Limit(&v)} {
			if n := utf8.RuneCountInString(s); n > MaxWidth {
				t.Errorf("%v rendered in %d cells: %q", v, n, s)
			}
		}
	}
	neg0 := math.Copysign(0, -1)
	if Cost(neg0) != "$0.00" || Float(neg0, 1) != "0.0" || Percent(neg0) != "0%" {
		t.Errorf("-0: %q %q %q", Cost(neg0), Float(neg0, 1), Percent(neg0))
	}
	if l := 1e300; Limit(&l) != "no practical limit" || Cost(1e300) != "$1.0e+300" {
		t.Errorf("1e300: %q %q", Limit(&l), Cost(1e300))
	}
	if Float(85.25, 1) != "85.2" && Float(85.25, 1) != "85.3" || Percent(0.0001) != "0.01%" || Percent(1) != "100%" {
		t.Errorf("ordinary numbers changed: %q %q %q", Float(85.25, 1), Percent(0.0001), Percent(1))
	}
	if got := Middle(strings.Repeat("a", 100)+"END", 20); utf8.RuneCountInString(got) != 20 || !strings.HasSuffix(got, "END") || !strings.HasPrefix(got, "aaa") {
		t.Errorf("Middle: %q", got)
	}
}

func TestDecimalHasNoFloatResidue(t *testing.T) {
	for v, want := range map[float64]string{5.159486999999999: "5.159487", 0.1 + 0.2: "0.3", 0: "0", math.Copysign(0, -1): "0", 0.00000042: "0.00000042", 1234.5: "1234.5"} {
		if got := Decimal(v); got != want {
			t.Errorf("Decimal(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCutBytesKeepsEveryWholeRune(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"😀😀x", 4, "😀"},
		{"😀😀x", 7, "😀"},
		{"ééx", 4, "éé"},
		{"ab€€", 5, "ab€"},
		{"ab€€", 4, "ab"},
		{"short", 10, "short"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"a\xffbc", 3, "a\xffb"}, // an invalid byte early keeps what follows it
	} {
		if got := CutBytes(c.in, c.n); got != c.want {
			t.Errorf("CutBytes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
