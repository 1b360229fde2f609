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
	for in, want := range map[float64]string{0: "$0", 0.000123: "$0.000123", 0.5: "$0.5000", 12.345: "$12.35"} {
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
	if CostPtr(nil) != "—" {
		t.Error("CostPtr(nil)")
	}
}
