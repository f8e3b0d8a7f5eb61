// Package numfmt formats the numbers analyze writes in sentences, figure
// labels and tables: values with four significant digits and no exponent, and
// counts with thousands separators. One implementation, so that a plot label,
// a diagnosis sentence and a report table write a value the same way.
package numfmt

import (
	"math"
	"strconv"
)

// Sig4 writes v with four significant digits and no exponent: 1235, 123.5,
// 12.35, 0.01235; values of 1000 and more are rounded to whole numbers. NaN
// and infinities are written as strconv writes them (NaN, +Inf, -Inf).
func Sig4(v float64) string {
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

// Sig4Unit writes v as [Sig4] does, then a space and the unit; without a
// unit, only the number: "1235 ms", "12.35 ms", "0.5".
func Sig4Unit(v float64, unit string) string {
	s := Sig4(v)
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// Thousands writes n with a comma between groups of three digits:
// 12,345,678.
func Thousands(n int64) string {
	if n < 0 {
		// -n overflows for the smallest int64; its digits are those of
		// its absolute value as an unsigned number.
		return "-" + group(strconv.FormatUint(uint64(-(n+1))+1, 10))
	}
	return group(strconv.FormatInt(n, 10))
}

func group(s string) string {
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Percent writes a share as a percentage with two decimals: 0.0329 is
// "3.29%"; NaN (no samples) is "—".
func Percent(share float64) string {
	if math.IsNaN(share) {
		return "—"
	}
	return strconv.FormatFloat(100*share, 'f', 2, 64) + "%"
}
