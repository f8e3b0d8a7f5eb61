// Package history keeps the runs of a test repeated on a schedule (nightly,
// weekly) in a file that needs no server, and says when the tail moved.
//
//   - A Record is one run: its own time span (from its samples), a label
//     (release, model version, commit), the selection that defines its series
//     (--where, --by), and per group and metric the percentiles with their
//     confidence intervals, counts, and the Rates (failures, goodput) exactly
//     as package result computed them for the summary. FromSummary makes one.
//   - Append adds a record to a JSONL file atomically under an exclusive lock,
//     so two jobs may append at once; Read reads a file back, reporting a bad
//     line by its number and reading a cut last line up to the damage.
//   - SeriesOf splits the records into series (one per group and --where
//     selection), each run in time order; Series.Points gives a percentile's
//     values and intervals per run, ready to draw (analyze/plot.Trend).
//   - Evaluate flags the runs whose percentile is worse than the trailing
//     window beyond a limit, with confidence, and names the shift a step (it
//     started at one run) or a creep (a monotone trend: Mann–Kendall test,
//     Theil–Sen slope).
//
// Nothing here computes a percentile or its interval: they come from the
// summary (stats). A Theil–Sen slope's median is stats.Percentile.
package history
