// Package result computes what analyze says about a load test, once, from
// the series package model collected: the summary of every metric and group
// (percentiles with intervals, tail diagnosis, rates, sums, warnings), the
// results of k6-style checks, and the comparison of a baseline with a
// candidate. Every writer — text, Markdown, JSON and JUnit in package output,
// the HTML page in package report — renders these results, so they cannot
// disagree.
//
// The types here are the JSON schema of the results (docs/analyze-summary.md,
// docs/analyze-compare.md); each document carries a versioned "schema" field.
//
// A program that evaluates SLOs on a run does what the analyze command does:
//
//	r := model.NewReader(sel, inputs, model.Options{Warn: os.Stderr})
//	ev := result.NewEvaluator(checks)
//	d, err := model.Collect(r, model.CollectOptions{AlsoKeep: ev.Wants, Also: ev.Add})
//	sum := result.Summarize(d, result.DefaultOptions())
//	rep, err := ev.Evaluate(r, checks)
package result
