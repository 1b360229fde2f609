package format

import (
	"testing"
	"time"
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
