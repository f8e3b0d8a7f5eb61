package sweep

import (
	"math"

	"github.com/llmstream/xk6-llmstream/analyze/model"
	"github.com/llmstream/xk6-llmstream/analyze/result"
)

// throughput is what a level's requests add up to over its window, as the
// saturation tests read it.
type throughput struct {
	window           float64 // seconds
	requests, failed int64
	achieved         float64 // per second; NaN when undefined
}

// measure counts a level's requests with analyze's one rule
// (result.MeasureThroughput: the window runs from the first request's end
// to the last's, the rates count the requests that ended after the first);
// goodput judges every request on the SLO's per-request limits.
func (s Spec) measure(r *Reading) (throughput, result.Throughput) {
	reqs := make([]*model.Request, len(r.Join.List))
	for i := range r.Join.List {
		reqs[i] = &r.Join.List[i]
	}
	slo := &result.SLO{Checks: s.SLO, TypeOf: knownOr}
	m := result.MeasureThroughput(r.Join, reqs, result.ThroughputOptions{Confidence: s.Confidence, SLO: slo})
	t := throughput{window: m.WindowS, requests: m.Requests, failed: m.Failed, achieved: math.NaN()}
	if m.AchievedRPS.Value != nil {
		t.achieved = *m.AchievedRPS.Value
	}
	return t, m
}
