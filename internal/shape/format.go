package shape

import (
	"math"
	"strconv"
)

// formatRatio writes a ratio with two significant digits: "7.8×", "12×".
func formatRatio(r float64) string {
	if r >= 10 {
		return strconv.FormatFloat(r, 'f', 0, 64) + "×"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "×"
}

// formatRatios writes a ratio and its threshold, with two decimals when one
// would make them look equal although the ratio is above (or below) it.
func formatRatios(r, threshold float64) (string, string) {
	a, b := formatRatio(r), formatRatio(threshold)
	if a == b && r != threshold && r < 10 {
		return strconv.FormatFloat(r, 'f', 2, 64) + "×", strconv.FormatFloat(threshold, 'f', 2, 64) + "×"
	}
	return a, b
}

// formatShare writes a fraction as a percentage with two significant digits
// at most: "2.3%", "25%", "0.41%".
func formatShare(f float64) string {
	p := 100 * f
	switch {
	case p >= 10:
		return strconv.FormatFloat(p, 'f', 0, 64) + "%"
	case p >= 1:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 2, 64) + "%"
}

// formatChange writes a relative change with its sign: "+62%", "−5%".
func formatChange(r float64) string {
	s := strconv.FormatFloat(math.Abs(100*r), 'f', 0, 64) + "%"
	if r < 0 {
		return "−" + s
	}
	return "+" + s
}
