package numfmt

import (
	"math"
	"testing"
)

func TestSig4(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{1234.5678, "ms", "1235 ms"}, {123.456, "ms", "123.5 ms"}, {12.3456, "ms", "12.35 ms"},
		{1.23456, "ms", "1.235 ms"}, {0.0123456, "ms", "0.01235 ms"}, {0, "ms", "0 ms"},
		{-45.678, "ms", "-45.68 ms"}, {98765432, "ms", "98765432 ms"},
		{0.5, "", "0.5000"}, {1e-20, "", "0.000000000000"}, {math.Inf(1), "ms", "+Inf ms"},
	} {
		if got := Sig4Unit(tc.v, tc.unit); got != tc.want {
			t.Errorf("Sig4Unit(%g, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {12345678, "12,345,678"}, {-1234, "-1,234"},
		{math.MinInt64, "-9,223,372,036,854,775,808"}, {math.MaxInt64, "9,223,372,036,854,775,807"},
	} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestPercent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		want string
	}{{21.0 / 638, "3.29%"}, {0, "0.00%"}, {1, "100.00%"}, {0.05, "5.00%"}, {math.NaN(), "—"}} {
		if got := Percent(tc.v); got != tc.want {
			t.Errorf("Percent(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
