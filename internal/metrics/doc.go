// Package metrics is the one definition of a request's k6 samples: the
// llm_* metric names and types (builtin.go), the function that turns one
// request's record into its samples (samples.go), the one goodput rule
// (slo.go) and a request's cost (cost.go).
//
// Both halves of the product use it: the helper answers the k6 side with the
// samples FromRecord makes, which llmstream.js adds as they are; analyze's
// records reader makes the same samples from a records file with the same
// function. So a request's samples in k6's JSON output and in analyze cannot
// differ by construction. It imports only the records format.
package metrics
