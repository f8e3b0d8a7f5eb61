package plot

import (
	"math"
	"strconv"
)

// formatValue writes v with four significant digits and no exponent, then the
// unit: "1234 ms", "12.35 ms", "0.4821 ms".
func formatValue(v float64, unit string) string {
	s := formatNumber(v)
	if unit == "" {
		return s
	}
	return s + " " + unit
}

func formatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	dec := 0
	if a > 0 && a < 1000 {
		dec = 3 - int(math.Floor(math.Log10(a)))
	}
	return strconv.FormatFloat(v, 'f', min(dec, 12), 64)
}

// groupThousands writes n with thin separators: 12,345,678.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + groupThousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
