// Package tail (behind `analyze tail`) says where the tail of TTFT comes from, from the
// helper's per-request records (package records): for the requests above a
// percentile of TTFT (P99 by default) it splits their excess over the other
// requests into the stages of TTFT (records.Stages: connect, send, wait,
// first event, first token), and ranks the request attributes that set them
// apart (input and output length, cache-hit share, concurrent streams at
// start, model, instance_id, scenario, time in the test) by effect size with
// an interval, each finding in one plain sentence.
//
// Stage shares: the stages of a request sum to its TTFT exactly, so the
// difference of the mean TTFT of the tail and of the body (the requests at
// or below the percentile) is exactly the sum of the differences of the
// stages' means; each stage's share of that excess is its difference over
// the total, and the shares sum to 100%. The medians of each stage in the
// tail and the body are reported beside them. Each share's interval is a
// bootstrap: the tail's requests are resampled (the body's means, of many
// more requests, are drawn from their normal approximation).
//
// Attributes: a numeric attribute's effect is Cliff's δ = P(tail > body) −
// P(tail < body) ∈ [−1, 1], a categorical one's the concentration of its
// value most over-represented in the tail: (tail share − body share) / (1 −
// body share) ∈ [0, 1], with Newcombe's interval of the difference (package
// compare) scaled alike. Both are the share of the largest separation
// possible, so they rank on one scale. δ's interval
// is a bootstrap of the tail against a fixed body sample. An attribute sets
// the tail apart when its interval excludes zero and |effect| ≥
// Options.MinEffect. Percentiles are package stats' (k6's definition).
//
// Profile: the mean of each stage over the median requests (TTFT between
// p(MedianBandLo) and p(MedianBandHi), 45 and 55) and over the tail; as the
// stages sum to TTFT, a group's stage means sum to its mean TTFT, so a
// stacked bar of them is exactly as long as that mean. Read reads the
// records files.
package tail
