// Package shape describes a latency distribution's shape in words: how long its tail
// is (P99/P50 and P99.9/P99 against thresholds), what shape the ECDF has
// between P90 and the top (a cliff, two modes, a long gradual rise, or a tight
// distribution), and whether the run drifts (percentiles per time window, and
// the last third of the run against the first).
//
// Percentiles are k6's (stats), so the numbers in a sentence are the
// ones in the tables and the plots.
//
// # Rules
//
// Long tail: P99/P50 above [DefaultLongTailRatio] (3×) or P99.9/P99 above
// [DefaultExtremeRatio] (1.5×). P99 is judged from 200 samples, P99.9 from
// 2,000 (two samples above the percentile, as analyze's tables warn).
//
// Cliff: at or above P90, a range of values no wider than [DefaultWallWidth]
// (1%) of its lower end holds at least [DefaultWallShare] (1%) of all samples
// (and at least 10), and at least [DefaultWallContrast] (half) of the samples
// within ten such widths below and above it. The ECDF rises almost vertically
// there: values pile up at a limit (a timeout, a rate limit, a queue bound, a
// retry delay), the way capped values do. A smooth density puts about 1/21 of
// that neighbourhood in the range, far below half.
//
// Two modes: the quantile function from P1 to P99 is cut into steps of equal
// probability (at most 196, at least 20 samples each; needs 400 samples); a
// step whose value span is at least [DefaultGapFactor] (4) times the median
// span of the steps on either side (8 on each, about 4% of the samples) and at
// least a tenth of the P1–P99 range is a gap: a valley of density with denser
// values on both sides. The valley extends over the neighbouring steps that
// are as sparse. A long tail never qualifies, as its steps keep widening to
// the right.
//
// Otherwise a long tail rises gradually between P90 and P99 (queueing, jitter,
// GC pauses), and a short one is tight. Samples with fewer than 50 distinct
// values (quantised) are not given a shape.
//
// Drift: the samples of the first and the last third of the run's time span
// are compared with compare (bootstrap intervals); a percentile drifts
// when it moved by at least [DefaultDriftChange] (20%) and its interval
// excludes no change.
package shape
