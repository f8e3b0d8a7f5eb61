// Package compare tests whether a candidate run's latency distribution differs
// from a baseline's: for each statistic (p50, p90, p95, p99, p99.9, avg) the
// change (candidate − base, and relative to base) with a bootstrap confidence
// interval, a two-sample Kolmogorov–Smirnov test, a verdict, and regression
// limits for CI gates. It also compares k6 Rates (the share of failed
// requests, of requests meeting an SLO): CompareRates gives the change in the
// rate with Newcombe's hybrid score interval, and a limit such as rate=+1pp
// bounds it in percentage points.
//
// Lower values are better (latency): "worse" means the candidate's statistic is
// higher. For a Rate, RateLowerIsBetter tells from its name which way is worse.
//
// # Confidence intervals
//
// Percentiles are k6's (linear interpolation at rank p·(n−1)). Their intervals
// come from the percentile bootstrap, drawn exactly and cheaply: in a resample
// of n values from the sorted sample x, the j-th smallest value is x at index
// ⌊U·n⌋ where U is the j-th smallest of n independent uniforms, which has the
// Beta(j, n−j+1) distribution; the next order statistic is U + (1−U)·B with
// B ~ Beta(1, n−j). So each bootstrap replicate of an interpolated percentile
// costs two random draws whatever n is, and 2,000 replicates (fixed seed:
// reproducible output) take microseconds for millions of samples. The mean's
// replicates are drawn from its normal approximation, mean + s/√n·Z. The
// interval of the change is the (α/2, 1−α/2) quantile range of the replicated
// differences (and of their ratios for the relative change).
//
// A percentile is compared only when each run has enough samples for at least
// two of them to lie above it (n ≥ 2/(1−p): 200 for p99, 2,000 for p99.9), and
// at least [MinSamples] in any case; otherwise its verdict is "too few samples".
//
// # Verdicts
//
// A statistic is worse (better) when its whole interval of the change lies
// above (below) zero. The overall verdict of a metric counts a statistic only
// when its change holds at the Bonferroni level 1 − α/m for the m statistics
// compared, so the chance of any false "worse" or "better" across all of them
// is at most α: worse, better, mixed (some of each), or no significant change.
// The Kolmogorov–Smirnov test is reported beside it: it sees a change of shape
// anywhere in the distribution but is weak in the tails, where the percentile
// intervals are not.
package compare
