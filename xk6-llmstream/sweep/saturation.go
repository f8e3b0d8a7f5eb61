package sweep

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/shape"
)

// Defaults of the over-saturation tests.
const (
	// DefaultTolerance: an achieved rate below offered × (1 − 5%) is
	// saturation (rate mode).
	DefaultTolerance = 0.05
	// DefaultMaxDropped: k6 dropping more than 1% of the level's iterations
	// (no free VU: requests piled up) is saturation.
	DefaultMaxDropped = 0.01
	// DefaultDriftChange: TTFT's p50 or p99 rising by 20% or more from the
	// first third of the level to the last, with confidence, is saturation.
	DefaultDriftChange = shape.DefaultDriftChange
	// minVUGain: with VUs, a level whose throughput grew by less than half
	// as much as its VUs over the level below is saturation.
	minVUGain = 0.5
)

// saturation lists why a level is over-saturated; below is the highest level
// run below it (nil: none), for the VU test.
func (s Spec) saturation(offered float64, tp throughput, r *Reading, below *Level) []string {
	var why []string
	if s.Mode == Rate && !math.IsNaN(tp.achieved) && tp.achieved < offered*(1-s.Tolerance) {
		why = append(why, fmt.Sprintf("achieved %.4g req/s is below the offered %s req/s by more than %g%%",
			tp.achieved, FormatLevel(offered), s.Tolerance*100))
	}
	if total := r.Dropped + float64(tp.requests); r.Dropped > 0 && r.Dropped > s.MaxDropped*total {
		why = append(why, fmt.Sprintf("k6 dropped %.0f iterations (%.1f%%): no VU was free, requests piled up (raise LLM_MAX_VUS if the server is not the limit)",
			r.Dropped, 100*r.Dropped/total))
	}
	if d := shape.Drift(MetricTTFT, r.Drift, shape.DriftChange(s.DriftChange), shape.Unit("ms")); d.Trend == shape.Worse || d.Trend == shape.Both {
		why = append(why, "TTFT rose within the level: "+driftChanges(d))
	}
	if s.Mode == VUs && below != nil && below.AchievedRPS != nil && *below.AchievedRPS > 0 && !math.IsNaN(tp.achieved) {
		vuGain := offered/below.Offered - 1
		gain := tp.achieved / *below.AchievedRPS - 1
		if gain < minVUGain*vuGain {
			why = append(why, fmt.Sprintf("more VUs, little more throughput: from %s to %s VUs (%+.0f%%) the achieved rate went from %.4g to %.4g req/s (%+.0f%%)",
				FormatLevel(below.Offered), FormatLevel(offered), 100*vuGain, *below.AchievedRPS, tp.achieved, 100*gain))
		}
	}
	return why
}

// driftChanges is the percentiles that rose, "p50 52.1 → 96.3 ms (+85%)".
func driftChanges(d shape.DriftResult) string {
	out := ""
	for _, ch := range d.Changes {
		if ch.Verdict != compare.Worse {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s %.4g → %.4g ms (%+.0f%%)", ch.Stat.Label(), ch.Base, ch.Cand, 100*ch.Rel)
	}
	return out + fmt.Sprintf(" from the first third to the last (%d and %d samples)", d.Early.N, d.Late.N)
}
