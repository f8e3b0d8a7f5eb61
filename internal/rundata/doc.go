// Package model is what analyze knows about a load test once it has read k6's
// JSON output: which samples were asked for, how they fall into groups, and
// what each group's samples add up to.
//
// The pipeline, in the order a command uses it:
//
//   - A [Selection] says which metrics to read, which tag values to keep
//     (--where), how to group (--by) and which time window to keep (--from,
//     --to).
//   - A [Reader] streams the selected samples of one or more [Input] files
//     (NDJSON, .gz, cut short by a killed k6) and puts each in its [Group].
//   - [Collect] reads the inputs once and accumulates every metric of every
//     group in a [Series]: one accumulator per k6 metric type — [Trend]
//     (the values, optionally with their times), [Rate], [Counter] and [Gauge].
//     Accumulate, then close: a Trend's Sorted sorts once.
//   - [Data] holds the series with the facts about the inputs (the span of
//     the samples, each input's first and last sample), and lists them in
//     report order: metrics by [OrderMetrics], groups by [CompareGroups].
//
// The model computes no statistics beyond the accumulation: package result
// turns Data into the summary, the check results and the comparison that
// every writer renders.
package rundata
