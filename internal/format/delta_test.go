package format

import "testing"

func TestDeltas(t *testing.T) {
	for n, want := range map[int]string{12: "+12", -1024: "-1,024", 0: "0"} {
		if got := SignedInt(n); got != want {
			t.Errorf("SignedInt(%d) = %q, want %q", n, got, want)
		}
	}
	for c, want := range map[float64]string{0.0012: "+$0.0012", -0.3: "-$0.3000", 0: "$0.00", 1234.5: "+$1,234.50"} {
		if got := SignedCost(c); got != want {
			t.Errorf("SignedCost(%v) = %q, want %q", c, got, want)
		}
	}
	if got := RoundCost(0.0003 - 0.0001); got != 0.0002 {
		t.Errorf("RoundCost left residue: %v", got)
	}
}
