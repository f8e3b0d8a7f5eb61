package rundata

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
)

// CompareGroups orders groups for every table, legend and comparison: label
// by label in --by order; the "file" label in the order the inputs were
// given; a tag's values numerically when both are numbers (concurrency 1, 4,
// 8, 16), else in natural order, digit runs as numbers (c4 before c16), else
// as text; numbers before other values, and the empty value (a missing tag)
// last.
func CompareGroups(a, b *Group) int {
	for i := range min(len(a.Labels), len(b.Labels)) {
		la, lb := a.Labels[i], b.Labels[i]
		if la.Key == "file" && lb.Key == "file" {
			if c := a.File - b.File; c != 0 {
				return sign(c)
			}
			continue
		}
		if c := valueCompare(la.Value, lb.Value); c != 0 {
			return c
		}
	}
	if c := len(a.Labels) - len(b.Labels); c != 0 {
		return sign(c)
	}
	return strings.Compare(a.Key, b.Key)
}

// valueCompare orders two tag values (see CompareGroups).
func valueCompare(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	numA, numB := errA == nil && !math.IsNaN(fa), errB == nil && !math.IsNaN(fb)
	switch {
	case numA && numB:
		if fa != fb {
			if fa < fb {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b) // "1" and "1.0"
	case numA:
		return -1
	case numB:
		return 1
	}
	return naturalCompare(a, b)
}

// naturalCompare compares strings by runs: runs of ASCII digits by their
// value (c4 before c16), other runs as text. Equal runs of different spelling
// ("07" and "7") fall back to comparing the whole strings.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		da, db := isDigit(a[i]), isDigit(b[j])
		if da && db {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			na, nb := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			if len(na) != len(nb) {
				return sign(len(na) - len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return sign(int(a[i]) - int(b[j]))
		}
		i++
		j++
	}
	if c := (len(a) - i) - (len(b) - j); c != 0 {
		return sign(c)
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// metricOrder is the order of the llm_* metrics in a report; others follow by name.
var metricOrder = []string{metrics.TTFT, metrics.TTFTAnswer, metrics.TPOT, metrics.ITL, metrics.E2E,
	metrics.OutputTokens, metrics.InputTokens, metrics.RequestsFailed}

// OrderMetrics orders metric names for a report: those asked for first, in
// the order asked; then the llm_* metrics in the order of their definitions;
// then the others by name.
func OrderMetrics(names, asked []string) []string {
	rank := func(n string) int {
		if i := slices.Index(asked, n); i >= 0 {
			return i
		}
		if i := slices.Index(metricOrder, n); i >= 0 {
			return len(asked) + i
		}
		return len(asked) + len(metricOrder)
	}
	out := slices.Clone(names)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}
