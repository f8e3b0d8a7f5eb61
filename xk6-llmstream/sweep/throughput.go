package sweep

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// throughput is what a level's requests add up to, as the saturation and
// coverage tests read it.
type throughput struct {
	window           float64 // seconds, of analyze's measured window
	levelS           float64 // seconds of the level (0: unknown)
	requests, failed int64
	// achieved is the successful requests per second, over the window and
	// over the whole level (the lower); NaN when undefined.
	achieved float64
	// lastEndS is the seconds from the level's start to its last request's
	// end (NaN: no request ended).
	lastEndS float64
}

// measure counts a level's requests with analyze's one rule
// (result.MeasureThroughput: the window runs from the first request's end
// to the last's, the rates count the requests that ended after the first);
// goodput judges every request on the SLO's per-request limits.
func (s Spec) measure(r *Reading) (throughput, result.Throughput) {
	reqs := make([]*rundata.Request, len(r.Join.List))
	for i := range r.Join.List {
		reqs[i] = &r.Join.List[i]
	}
	slo := &result.SLOChecks{Checks: s.SLO, Deadline: s.Deadline, TypeOf: knownOr}
	m := result.MeasureThroughput(r.Join, reqs, result.ThroughputOptions{Confidence: s.Confidence, SLO: slo})
	t := throughput{window: m.WindowS, requests: m.Requests, failed: m.Failed, achieved: math.NaN(), lastEndS: math.NaN()}
	t.levelS = s.LevelDuration.Seconds()
	if t.levelS <= 0 {
		t.levelS = r.SpanS()
	}
	// The achieved rate covers the whole level, not only the window of the
	// requests seen: the lower of analyze's rate over that window (a
	// backlog drained after the level does not count) and the successful
	// requests that ended after the level's first sample per second of the
	// level (requests that stopped early do not make a full level's rate).
	var ok int64
	for _, q := range reqs {
		if !q.Ended {
			continue
		}
		if end := q.End.Sub(r.Start).Seconds(); math.IsNaN(t.lastEndS) || end > t.lastEndS {
			t.lastEndS = end
		}
		if !q.Failed && q.End.After(r.Start) {
			ok++
		}
	}
	if t.levelS > 0 {
		t.achieved = float64(ok) / t.levelS
		if m.AchievedRPS.Value != nil {
			t.achieved = min(t.achieved, *m.AchievedRPS.Value)
		}
	}
	return t, m
}

// incomplete lists why a level's requests do not cover it: iterations that
// made no request (k6 counts an iteration that threw), or no request ending
// in the level's last part (the last 5% of it, or two mean gaps between
// requests, whichever is longer).
func (s Spec) incomplete(lv Level, tp throughput) []string {
	var why []string
	if lv.Iterations != nil && lv.IterationErrors > 0 && float64(lv.IterationErrors) > s.MaxDropped*float64(*lv.Iterations) {
		why = append(why, fmt.Sprintf("k6 ran %d iterations but only %d requests ended: %d iterations made no request (they threw? see k6's log)",
			*lv.Iterations, tp.requests, lv.IterationErrors))
	}
	if tp.levelS > 0 {
		gap := math.Inf(1)
		if tp.requests > 0 {
			gap = tp.levelS / float64(tp.requests)
		}
		if slack := max(s.Tolerance*tp.levelS, 2*gap); !math.IsInf(slack, 0) && tp.lastEndS < tp.levelS-slack {
			why = append(why, fmt.Sprintf("the requests stopped %.3g s into the %.3g s level (the last ended then): they do not cover the level",
				tp.lastEndS, tp.levelS))
		} else if tp.requests == 0 {
			why = append(why, "no request ended in the level")
		}
	}
	return why
}
