package plot

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// mantissaSets are the multiples of each power of ten a log axis may label,
// from the sparsest to the densest.
var mantissaSets = [][]float64{
	{1},
	{1, 3},
	{1, 2, 5},
	{1, 2, 3, 4, 5, 6, 7, 8, 9},
}

// preferredSet is the set tried first: 1, 2, 5 × 10ᵏ.
const preferredSet = 2

// minLogLabels is the fewest labels a log axis has (as every axis), and
// goodLabels the number worth labelling a denser set for.
const (
	minLogLabels = 4
	goodLabels   = 4
)

// maxWiden is how much wider, in decades, the axis may be than the data, to
// start and end at a label.
const maxWiden = 1.5

// labelSpace is the width one value-axis label needs, space included.
const labelSpace = 60 // points

// maxLabels is how many labels fit along an axis of a given length (4 at
// least, 12 at most).
func maxLabels(length vg.Length) int {
	return min(12, max(4, int(length.Points()/labelSpace)))
}

// logAxis is a log value axis: its range, widened to the labelled values
// around the data (when that widens it by half at most), and its ticks. It
// labels 1, 2, 5 × 10ᵏ when that gives 4 to maxLabels labels; sparser sets
// (1, 3 × 10ᵏ, then powers of ten, then every other power, …) when there
// would be more; every 1–9 × 10ᵏ when there would be fewer, if that gives
// more within maxLabels; and, when neither gives 4 (the data span less than
// about half a decade), linear labels at a round step (roundTicks). There are never fewer
// than 4 labels: a sparser set that would give fewer is not taken, even when
// the labels then exceed maxLabels. Unlabelled ticks mark every 1–9 × 10ᵏ.
type logAxis struct {
	lo, hi float64
	set    []float64 // labelled mantissas; nil: linear labels
	every  int       // label every every-th power of ten (thinned powers)
	maxN   int       // room for labels, for the linear labels
}

// newLogAxis chooses the labels for data from lo to hi (0 < lo ≤ hi) on an
// axis with room for at most maxN labels.
func newLogAxis(lo, hi float64, maxN int) logAxis {
	try := func(set []float64, every int) (logAxis, int) {
		a := logAxis{set: set, every: every, lo: lo, hi: hi}
		// Widen only where it adds little: the data keep at least two
		// thirds of the axis.
		if wl, wh := a.widen(lo, hi); hi <= lo || math.Log(wh/wl) <= maxWiden*math.Log(hi/lo) {
			a.lo, a.hi = wl, wh
		}
		return a, len(a.labelValues())
	}
	a, n := try(mantissaSets[preferredSet], 1)
	switch {
	case n > maxN:
		// Sparser until the labels fit, but never below minLogLabels.
		sparser := func(b logAxis, m int) bool {
			if m < minLogLabels {
				return false
			}
			a, n = b, m
			return true
		}
		for i := preferredSet - 1; i >= 0 && n > maxN; i-- {
			if !sparser(try(mantissaSets[i], 1)) {
				return a
			}
		}
		for every := 2; n > maxN; every++ {
			if !sparser(try(mantissaSets[0], every)) {
				return a
			}
		}
	case n < goodLabels:
		dense, m := try(mantissaSets[len(mantissaSets)-1], 1)
		if m <= maxN && m > n {
			a, n = dense, m
		}
		if n < minLogLabels {
			// Linear labels, over the range every 1–9 × 10ᵏ gives
			// (never a single value).
			return logAxis{lo: dense.lo, hi: dense.hi, maxN: maxN}
		}
	}
	return a
}

// labelled reports whether v (a power of ten times m) is labelled.
func (a logAxis) labelled(m float64, e int) bool {
	if a.every > 1 && (m != 1 || e%a.every != 0) {
		return false
	}
	for _, s := range a.set {
		if s == m {
			return true
		}
	}
	return false
}

// values returns m·10ᵉ for every mantissa m of 1–9 and power e between lo
// and hi, with whether each is labelled, in ascending order.
func (a logAxis) values(lo, hi float64, f func(v float64, m float64, e int)) {
	for e := decade(lo) - 1; e <= decade(hi)+1; e++ {
		for m := 1.0; m <= 9; m++ {
			v := m * math.Pow10(e)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				f(v, m, e)
			}
		}
	}
}

// labelValues are the labelled values within the axis.
func (a logAxis) labelValues() []float64 {
	var out []float64
	a.values(a.lo, a.hi, func(v, m float64, e int) {
		if a.labelled(m, e) {
			out = append(out, v)
		}
	})
	return out
}

// widen moves lo down and hi up to the nearest labelled values, so that the
// axis starts and ends at a label; a range that would collapse (lo = hi at a
// labelled value) is widened to the labelled values on either side.
func (a logAxis) widen(lo, hi float64) (float64, float64) {
	var below, above []float64 // labelled values around lo and hi
	a.values(lo/1000, hi*1000, func(v, m float64, e int) {
		if a.labelled(m, e) {
			if v <= lo*(1+1e-9) {
				below = append(below, v)
			}
			if v >= hi*(1-1e-9) {
				above = append(above, v)
			}
		}
	})
	if len(below) == 0 || len(above) == 0 {
		return lo, hi
	}
	wl, wh := below[len(below)-1], above[0]
	if wl >= wh {
		if len(below) > 1 {
			wl = below[len(below)-2]
		}
		if len(above) > 1 {
			wh = above[1]
		}
	}
	return wl, wh
}

// decade is ⌊log₁₀ v⌋, robust to rounding at exact powers of ten.
func decade(v float64) int {
	return int(math.Floor(math.Log10(v) + 1e-12))
}

// Ticks implements plot.Ticker.
func (a logAxis) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= 0 || lo > hi {
		return nil
	}
	if a.set == nil {
		return roundTicks{maxN: a.maxN}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	dense := math.Log10(hi/lo) <= 6 // beyond, minor ticks only at labels' decades
	a.values(lo, hi, func(v, m float64, e int) {
		t := plot.Tick{Value: v}
		if a.labelled(m, e) {
			t.Label = formatTick(m, e)
		} else if !dense && m != 1 {
			return
		}
		ts = append(ts, t)
	})
	return ts
}

// formatTick writes m·10ᵉ without an exponent or rounding noise: 0.3, 20, 5000.
func formatTick(m float64, e int) string {
	return strconv.FormatFloat(m*math.Pow10(e), 'f', max(0, -e), 64)
}

// Linear axes are labelled at the multiples of a round step, 1, 2 or 5 ×
// 10ᵏ: from minLinearLabels labels up to maxLinearLabels (fewer when the
// axis is short, see maxLabels).
const (
	minLinearLabels = 4
	maxLinearLabels = 8
)

// roundTicks is the Ticker of a linear axis: labels at the multiples of the
// largest 1-2-5 step that gives at least minLinearLabels of them between lo
// and hi (more than maxN rather than fewer than minLinearLabels), written with no more decimals than the step has, and
// unlabelled minor ticks at a fifth of the step (a quarter of a 2 step).
// Other plotters of this package use it for every linear value or time
// axis; widenRound makes such an axis start and end at a label.
type roundTicks struct {
	maxN int // the most labels the axis has room for (maxLabels)
}

// Ticks implements plot.Ticker.
func (r roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	step, m := roundStep(lo, hi, r.maxN)
	minor := step / 5
	if m == 2 {
		minor = step / 4
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ts []plot.Tick
	for i := math.Ceil(lo/minor - 1e-9); i <= math.Floor(hi/minor+1e-9); i++ {
		v := i * minor
		t := plot.Tick{Value: v}
		if k := v / step; math.Abs(k-math.Round(k)) < 1e-6 {
			t.Value = math.Round(k) * step
			t.Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
			if strings.Contains(t.Label, ".") {
				t.Label = strings.TrimRight(strings.TrimRight(t.Label, "0"), ".")
			}
			if t.Label == "-0" {
				t.Label = "0"
			}
		}
		ts = append(ts, t)
	}
	return ts
}

// roundStep is the label step of a linear axis from lo to hi (lo < hi) with
// room for maxN labels, and its mantissa (1, 2 or 5).
func roundStep(lo, hi float64, maxN int) (step float64, mantissa float64) {
	count := func(s float64) int {
		return int(math.Floor(hi/s+1e-9) - math.Ceil(lo/s-1e-9) + 1)
	}
	e := int(math.Floor(math.Log10(hi-lo))) - 2
	step, mantissa = 1, 1
	for ; ; e++ {
		for _, m := range []float64{1, 2, 5} {
			s := m * math.Pow10(e)
			if count(s) < minLinearLabels {
				return step, mantissa
			}
			step, mantissa = s, m
		}
	}
}

// widenRound widens lo–hi to the multiples of its label step around it, so
// that the axis starts and ends at a label; a bound at 0 stays there.
func widenRound(lo, hi float64, maxN int) (float64, float64) {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return lo, hi
	}
	step, _ := roundStep(lo, hi, maxN)
	wl, wh := math.Floor(lo/step+1e-9)*step, math.Ceil(hi/step-1e-9)*step
	// The wider axis may take a larger step: widen once more to it.
	if s2, _ := roundStep(wl, wh, maxN); s2 != step {
		wl, wh = math.Floor(lo/s2+1e-9)*s2, math.Ceil(hi/s2-1e-9)*s2
	}
	return wl, wh
}

// timeStep is a step of a calendar axis and the format of its labels.
type timeStep struct {
	seconds float64 // 0: months
	months  int
	format  string
}

// timeSteps are the steps a calendar axis (Unix seconds, UTC) may be
// labelled at, finest first; each format shows the step, so no two labels
// are the same.
var timeSteps = func() []timeStep {
	var out []timeStep
	for _, s := range []float64{1, 2, 5, 10, 15, 30} {
		out = append(out, timeStep{seconds: s, format: "01-02 15:04:05"})
	}
	for _, m := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720} {
		out = append(out, timeStep{seconds: 60 * m, format: "01-02 15:04"})
	}
	for _, d := range []float64{1, 2, 3, 4, 5, 7, 10, 14} {
		out = append(out, timeStep{seconds: 86400 * d, format: "2006-01-02"})
	}
	for _, m := range []int{1, 2, 3, 6, 12, 24, 60, 120} {
		out = append(out, timeStep{months: m, format: "2006-01"})
	}
	return out
}()

// timeTicks is the Ticker of a calendar axis in Unix seconds: labels at the
// finest step of timeSteps that gives from minLinearLabels to
// maxLinearLabels labels which fit side by side along the axis; failing
// that, the largest step that gives minLinearLabels (the finest when none
// does). Each label is unique; unlabelled minor ticks mark the next finer
// step.
type timeTicks struct {
	length vg.Length // the axis' length
}

// timeLabelWidth is the room one label of a format takes on the axis, a
// gap included (9-point labels: at most 5.2 points a character).
func timeLabelWidth(format string) vg.Length {
	return vg.Points(5.2*float64(len(format)) + 14)
}

// values are the multiples of step between lo and hi: whole seconds from
// the epoch, or the first of every months-th month.
func (s timeStep) values(lo, hi float64) []float64 {
	var out []float64
	if s.months == 0 {
		for v := math.Ceil(lo/s.seconds-1e-9) * s.seconds; v <= hi+1e-9; v += s.seconds {
			out = append(out, v)
		}
		return out
	}
	t := time.Unix(int64(math.Floor(lo)), 0).UTC()
	m := (t.Year()*12 + int(t.Month()) - 1) / s.months * s.months
	for ; ; m += s.months {
		v := float64(time.Date(m/12, time.Month(m%12+1), 1, 0, 0, 0, 0, time.UTC).Unix())
		if v > hi+1e-9 {
			return out
		}
		if v >= lo-1e-9 {
			out = append(out, v)
		}
	}
}

// count is the number of values between lo and hi, without listing the
// many of a fine step.
func (s timeStep) count(lo, hi float64) int {
	if s.months == 0 {
		return int(math.Floor(hi/s.seconds+1e-9) - math.Ceil(lo/s.seconds-1e-9) + 1)
	}
	if (hi-lo)/86400 > 31*float64(s.months)*20 {
		return 20 // many
	}
	return len(s.values(lo, hi))
}

// Ticks implements plot.Ticker.
func (tt timeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	k, fit := 0, -1
	for i, s := range timeSteps {
		n := s.count(lo, hi)
		if n >= minLinearLabels {
			k = i
			if fit < 0 && n <= maxLinearLabels && vg.Length(n)*timeLabelWidth(s.format) <= tt.length {
				fit = i
			}
		}
	}
	if fit >= 0 {
		k = fit
	}
	var ts []plot.Tick
	labelled := timeSteps[k].values(lo, hi)
	if k > 0 {
		for _, v := range timeSteps[k-1].values(lo, hi) {
			if !slices.Contains(labelled, v) {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	for _, v := range labelled {
		label := time.Unix(int64(v), 0).UTC().Format(timeSteps[k].format)
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}
