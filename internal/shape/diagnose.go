package shape

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/stats"

	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// Thresholds of the diagnosis (see the package documentation).
const (
	DefaultLongTailRatio = 3.0  // P99/P50 above it: a long tail
	DefaultExtremeRatio  = 1.5  // P99.9/P99 above it: a long tail
	DefaultWallWidth     = 0.01 // a cliff's width, relative to its lower end
	DefaultWallShare     = 0.01 // a cliff's share of all samples
	DefaultWallContrast  = 0.5  // a cliff's share of its neighbourhood
	DefaultGapFactor     = 4.0  // a gap's span against its neighbours'
	DefaultDriftChange   = 0.20 // a percentile's change that counts as drift
	minWallSamples       = 10   // a cliff holds at least this many samples
	minDistinct          = 50   // fewer distinct values: quantised, no shape
	minModeSamples       = 400  // the mode test needs this many samples
	samplesPerStep       = 20   // … and this many per quantile step
	maxSteps             = 196  // quantile steps between P1 and P99
	gapMinRange          = 0.1  // a gap spans at least this share of P1–P99
	defaultUnit          = "ms" // k6 Trend values
	minAbove             = 2    // samples wanted above a percentile
	p99, p999            = 99.0, 99.9
)

// Shape is the shape of a distribution's upper part.
type Shape string

// The shapes.
const (
	Tight    Shape = "tight"     // no long tail, no cliff, one mode
	Gradual  Shape = "gradual"   // a long tail rising gradually between P90 and P99
	Cliff    Shape = "cliff"     // values pile up at a limit at or above P90
	TwoModes Shape = "two modes" // a gap with denser values on both sides
	Discrete Shape = "quantised" // too few distinct values to judge the shape
	Unknown  Shape = "unknown"   // too few samples to judge
)

// Wall is where a cliff stands: Share of the samples lie in [Lo, Hi] (sample
// values), Above of them above Hi; At is their median, where the pile is.
type Wall struct {
	At, Lo, Hi    float64
	Share, Above  float64
	Neighbourhood float64 // share of the samples within ten widths around it
}

// Gap is the valley between two modes: Below of the samples lie below Lo,
// Above of them above Hi, and the rest (a small share) between.
type Gap struct {
	Lo, Hi       float64
	Below, Above float64
}

// Diagnosis is the tail diagnosis of one metric (or group).
type Diagnosis struct {
	Metric string
	N      int
	// The percentiles (k6's), NaN when the sample is empty.
	P50, P90, P99, P999 float64
	// The tail ratios, NaN when undefined (P50 or P99 ≤ 0) or not judged
	// (fewer than 200 samples for P99, 2,000 for P99.9).
	RatioP99P50, RatioP999P99 float64
	// The thresholds the ratios were judged against.
	LongTailRatio, ExtremeRatio float64
	// LongTail is true when a judged ratio is above its threshold.
	LongTail bool
	// Spread is (P99 − P90)/(P90 − P50): how far the curve runs between
	// P90 and P99 compared with P50 to P90.
	Spread float64
	Shape  Shape
	Wall   *Wall // when Shape is Cliff
	Gap    *Gap  // when Shape is TwoModes
	// Sentence is the diagnosis in words, starting with the metric name.
	Sentence string
}

// Option changes the thresholds or the unit of a diagnosis.
type Option func(*config)

type config struct {
	longTail, extreme float64
	unit              string
	drift             float64
}

// DriftChange sets the relative change of a percentile that counts as drift
// (default [DefaultDriftChange]).
func DriftChange(r float64) Option { return func(c *config) { c.drift = r } }

// LongTailRatio sets the P99/P50 threshold (default [DefaultLongTailRatio]).
func LongTailRatio(r float64) Option { return func(c *config) { c.longTail = r } }

// ExtremeRatio sets the P99.9/P99 threshold (default [DefaultExtremeRatio]).
func ExtremeRatio(r float64) Option { return func(c *config) { c.extreme = r } }

// Unit sets the unit written after values (default "ms"; empty for none).
func Unit(u string) Option { return func(c *config) { c.unit = u } }

func makeConfig(opts []Option) config {
	c := config{longTail: DefaultLongTailRatio, extreme: DefaultExtremeRatio, unit: defaultUnit, drift: DefaultDriftChange}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Diagnose describes the tail of sorted (ascending, no NaN) samples of metric.
func Diagnose(metric string, sorted []float64, opts ...Option) Diagnosis {
	c := makeConfig(opts)
	n := len(sorted)
	d := Diagnosis{Metric: metric, N: n, LongTailRatio: c.longTail, ExtremeRatio: c.extreme,
		P50: math.NaN(), P90: math.NaN(), P99: math.NaN(), P999: math.NaN(),
		RatioP99P50: math.NaN(), RatioP999P99: math.NaN(), Spread: math.NaN(), Shape: Unknown}
	if n == 0 {
		d.Sentence = metric + ": no samples."
		return d
	}
	pct := func(p float64) float64 { v, _ := stats.Percentile(sorted, p); return v }
	d.P50, d.P90, d.P99, d.P999 = pct(50), pct(90), pct(p99), pct(p999)
	need99, need999 := stats.MinSamples(p99, minAbove), stats.MinSamples(p999, minAbove)
	if n >= need99 && d.P50 > 0 {
		d.RatioP99P50 = d.P99 / d.P50
		d.LongTail = d.RatioP99P50 > c.longTail
	}
	if n >= need999 && d.P99 > 0 {
		d.RatioP999P99 = d.P999 / d.P99
		d.LongTail = d.LongTail || d.RatioP999P99 > c.extreme
	}
	if d.P90 > d.P50 {
		d.Spread = (d.P99 - d.P90) / (d.P90 - d.P50)
	}
	if n < need99 {
		d.Sentence = fmt.Sprintf("%s: too few samples (%d) to judge the tail: P99 needs %d, P99.9 %d.", metric, n, need99, need999)
		return d
	}
	d.classify(sorted)
	d.Sentence = d.sentence(c.unit)
	return d
}

// classify sets the shape: quantised, else a cliff, else two modes, else a
// gradual long tail or a tight distribution.
func (d *Diagnosis) classify(sorted []float64) {
	if !distinctAtLeast(sorted, minDistinct) {
		d.Shape = Discrete
		return
	}
	if w := findWall(sorted); w != nil {
		d.Shape, d.Wall = Cliff, w
		return
	}
	if g := findGap(sorted); g != nil {
		d.Shape, d.Gap = TwoModes, g
		return
	}
	if d.LongTail {
		d.Shape = Gradual
		return
	}
	d.Shape = Tight
}

// sentence writes the diagnosis: the verdict first, then the evidence.
func (d *Diagnosis) sentence(unit string) string {
	v := func(x float64) string { return numfmt.Sig4Unit(x, unit) }
	ratios := d.ratioClause()
	var b strings.Builder
	b.WriteString(d.Metric + ": ")
	switch d.Shape {
	case Cliff:
		w := d.Wall
		above := formatShare(w.Above) + " above"
		if w.Above == 0 {
			above = "none above"
		}
		fmt.Fprintf(&b, "cliff at %s — %s of samples lie within %s–%s and %s; the ECDF rises almost vertically there, as at a fixed limit such as a timeout, a rate limit or a queue bound. %s.",
			v(w.At), formatShare(w.Share), numfmt.Sig4(w.Lo), v(w.Hi), above, capitalize(ratios))
	case TwoModes:
		g := d.Gap
		fmt.Fprintf(&b, "two modes — %s of samples lie below %s and %s above %s, with %s between: two populations, e.g. cache hits and misses, two replicas or two code paths. %s.",
			formatShare(g.Below), v(g.Lo), formatShare(g.Above), v(g.Hi), formatShare(max(0, 1-g.Below-g.Above)), capitalize(ratios))
	case Gradual:
		if !(d.RatioP99P50 > d.LongTailRatio) {
			// Only the extreme tail is long: P99.9 far above P99.
			fmt.Fprintf(&b, "long extreme tail — %s: rare samples far above P99 (%s), such as stalls, retries or pauses (GC, batching); below P99 the ECDF has no cliff.",
				ratios, v(d.P99))
			break
		}
		fmt.Fprintf(&b, "long tail — %s; the ECDF rises gradually between P90 (%s) and P99 (%s) with no cliff, typical of queueing, jitter or pauses (GC, batching).",
			ratios, v(d.P90), v(d.P99))
	case Tight:
		fmt.Fprintf(&b, "no long tail — %s; no cliff and a single mode.", ratios)
	case Discrete:
		if d.LongTail {
			b.WriteString("long tail — ")
		} else {
			b.WriteString("no long tail — ")
		}
		fmt.Fprintf(&b, "%s; the values are quantised (fewer than %d distinct), so the shape is not judged.", ratios, minDistinct)
	}
	return b.String()
}

// ratioClause is "P99 is 7.8× P50 (threshold 3×) and P99.9 is 2.1× P99
// (threshold 1.5×)", saying which ratio could not be judged and why.
func (d *Diagnosis) ratioClause() string {
	var a, b string
	switch {
	case !math.IsNaN(d.RatioP99P50):
		r, t := formatRatios(d.RatioP99P50, d.LongTailRatio)
		a = fmt.Sprintf("P99 is %s P50 (threshold %s)", r, t)
	default:
		a = "P99/P50 is undefined (P50 ≤ 0)"
	}
	switch {
	case !math.IsNaN(d.RatioP999P99):
		r, t := formatRatios(d.RatioP999P99, d.ExtremeRatio)
		b = fmt.Sprintf("P99.9 is %s P99 (threshold %s)", r, t)
	case d.N < stats.MinSamples(p999, minAbove):
		b = fmt.Sprintf("P99.9 is not judged (%d samples, needs %d)", d.N, stats.MinSamples(p999, minAbove))
	default:
		b = "P99.9/P99 is undefined (P99 ≤ 0)"
	}
	return a + " and " + b
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// distinctAtLeast tells whether sorted has at least k distinct values.
func distinctAtLeast(sorted []float64, k int) bool {
	c := 0
	for i := range sorted {
		if i == 0 || sorted[i] != sorted[i-1] {
			c++
			if c >= k {
				return true
			}
		}
	}
	return false
}

// findWall looks at or above P90 for the range [v, v·(1+w)] holding the most
// samples and returns it when it is a cliff (see the package documentation).
func findWall(sorted []float64) *Wall {
	n := len(sorted)
	i0 := int(0.9 * float64(n-1))
	lowerBound := func(v float64) int { return sort.SearchFloat64s(sorted, v) }
	upperBound := func(v float64) int { return sort.Search(n, func(i int) bool { return sorted[i] > v }) }
	bestLo, bestHi := -1, -1
	hi := i0
	for i := lowerBound(sorted[i0]); i < n; i++ {
		v := sorted[i]
		if v <= 0 || (i > 0 && sorted[i-1] == v) {
			continue
		}
		top := v * (1 + DefaultWallWidth)
		hi = max(hi, i)
		for hi < n && sorted[hi] <= top {
			hi++
		}
		if bestLo < 0 || hi-i > bestHi-bestLo {
			bestLo, bestHi = i, hi
		}
	}
	if bestLo < 0 {
		return nil
	}
	count := bestHi - bestLo
	v := sorted[bestLo]
	around := upperBound(v*(1+11*DefaultWallWidth)) - lowerBound(v*(1-10*DefaultWallWidth))
	w := &Wall{
		At: sorted[(bestLo+bestHi-1)/2],
		Lo: v, Hi: sorted[bestHi-1],
		Share:         float64(count) / float64(n),
		Above:         float64(n-bestHi) / float64(n),
		Neighbourhood: float64(around) / float64(n),
	}
	if count < minWallSamples || w.Share < DefaultWallShare || float64(count) < DefaultWallContrast*float64(around) {
		return nil
	}
	return w
}

// findGap looks between P1 and P99 for a step of the quantile function much
// wider than its neighbours on both sides (see the package documentation).
func findGap(sorted []float64) *Gap {
	n := len(sorted)
	if n < minModeSamples {
		return nil
	}
	k := min(maxSteps, n/samplesPerStep)
	q := make([]float64, k+1)
	for i := range q {
		q[i], _ = stats.Percentile(sorted, 1+98*float64(i)/float64(k))
	}
	span := q[k] - q[0]
	if span <= 0 {
		return nil
	}
	d := make([]float64, k)
	for i := range d {
		d[i] = q[i+1] - q[i]
	}
	w := max(2, k/25)
	best, bestScore, bestRef := -1, 0.0, 0.0
	for i := w; i+w < k; i++ {
		ref := max(median(d[i-w:i]), median(d[i+1:i+1+w]))
		if d[i] < gapMinRange*span || d[i] < DefaultGapFactor*ref {
			continue
		}
		score := math.Inf(1)
		if ref > 0 {
			score = d[i] / ref
		}
		if best < 0 || score > bestScore {
			best, bestScore, bestRef = i, score, ref
		}
	}
	if best < 0 {
		return nil
	}
	// The valley goes on while the steps beside it are as sparse.
	first, last := best, best
	for first > 0 && d[first-1] >= DefaultGapFactor*bestRef && d[first-1] > 0 {
		first--
	}
	for last+1 < k && d[last+1] >= DefaultGapFactor*bestRef && d[last+1] > 0 {
		last++
	}
	level := func(i int) float64 { return (1 + 98*float64(i)/float64(k)) / 100 }
	return &Gap{Lo: q[first], Hi: q[last+1], Below: level(first), Above: 1 - level(last+1)}
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
