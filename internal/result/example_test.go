package result_test

import (
	"fmt"
	"io"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// A program that gates a run on SLOs does what analyze does: open the
// inputs with a selection, collect, summarize, and evaluate the checks — in
// one pass over the inputs.
func Example() {
	sel := rundata.Selection{Metrics: []string{"llm_ttft"}, Also: []string{metrics.RequestsFailed}, By: []string{"model"}}
	in := []rundata.Input{{Path: "../../testdata/k6/k6v2_llm_synthetic.json.gz", Label: "run"}}
	r := rundata.NewReader(sel, in, rundata.Options{Warn: io.Discard})

	checks, err := thresholds.Parse("llm_ttft: p(99)<5000")
	if err != nil {
		panic(err)
	}
	ev := result.NewEvaluator(checks)
	d, err := rundata.Collect(r, rundata.CollectOptions{AlsoKeep: ev.Wants, Also: ev.Add})
	if err != nil {
		panic(err)
	}
	sum := result.Summarize(d, result.DefaultOptions())
	for _, g := range sum.Metric("llm_ttft").Groups {
		p99 := g.Percentiles[3]
		fmt.Printf("%s %s: %.1f ms over %d samples\n", g.Label, p99.Name, p99.Value, g.Count)
	}
	for _, g := range sum.Metric(metrics.RequestsFailed).Groups {
		fmt.Printf("%s failed: %.4f\n", g.Label, *g.Rate)
	}
	rep, err := ev.Evaluate(r, checks)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: observed %.1f, passed %v\n", rep.Checks[0].Check, *rep.Checks[0].Observed, rep.Checks[0].Passed)
	// Output:
	// model=model-a p(99): 1622.3 ms over 325 samples
	// model=model-b p(99): 1982.4 ms over 292 samples
	// model=model-a failed: 0.0240
	// model=model-b failed: 0.0426
	// llm_ttft: p(99)<5000: observed 1788.1, passed true
}
