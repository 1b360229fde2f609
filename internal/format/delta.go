package format

import "math"

// SignedInt renders a change: "+12", "-1,024", "0".
func SignedInt(n int) string {
	if n > 0 {
		return "+" + Int(n)
	}
	return Int(n)
}

// SignedCost renders a change of dollars: "+$0.0012", "-$0.30", "$0.00".
func SignedCost(c float64) string {
	if c > 0 && !math.IsInf(c, 0) {
		return "+" + Cost(c)
	}
	return Cost(c)
}

// RoundCost rounds dollars to 1e-10, so that a difference of two amounts
// carries no binary residue (0.0003 - 0.0001 is 0.0002, not
// 0.00019999999999999998).
func RoundCost(c float64) float64 {
	if math.IsNaN(c) || math.IsInf(c, 0) || math.Abs(c) > 1e6 {
		return c
	}
	return math.Round(c*1e10) / 1e10
}
