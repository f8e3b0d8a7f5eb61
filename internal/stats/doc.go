// Package stats computes the statistics analyze reports, on sorted samples:
//
//   - Percentile: k6's p(N), bit for bit: linear interpolation between the order
//     statistics around rank (N/100)·(n−1) (0-based), computed with the same
//     float64 operations k6 uses, so that analyze's figures equal the ones in k6's
//     end-of-test summary and thresholds for the same samples;
//   - NearestRank: the ⌈(N/100)·n⌉-th smallest value (1-based; the smallest for
//     N=0), the textbook "nearest rank" a user checks by hand; the rank is computed
//     exactly from N's decimal form, without floating-point rounding;
//   - QuantileInterval: a distribution-free confidence interval for a quantile
//     from two order statistics, with binomial ranks (exact, no normal
//     approximation);
//   - Summarize: count, min, mean, max and a set of percentiles with all of the
//     above and the warnings a reader needs.
//
// A percentile of an empty sample is undefined: the functions report it with an
// ok of false (k6 prints 0 for it).
//
// gonum's stat.Quantile uses another definition of the rank and gives other
// values than k6 for the same data; it is not used here.
package stats
