package result

import (
	"fmt"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// SendLag is one group's send lag of open-loop load and the degraded-replay
// verdict (loadgen.JudgeSendLag, the rule the runner's warning
// applies too).
type SendLag struct {
	Label  string            `json:"label"`
	Labels map[string]string `json:"labels"`
	Count  int64             `json:"count"`
	P50    *float64          `json:"p50"`
	P99    *float64          `json:"p99"`
	Max    *float64          `json:"max"`
	// Degraded is true when the load was sent late beyond the bounds;
	// Warning says which.
	Degraded bool   `json:"degraded"`
	Warning  string `json:"warning,omitempty"`
}

// sendLag fills the summary's send lag per group of llm_arrival_lateness and
// warns when a replay was degraded.
func (rep *Summary) sendLag(d *rundata.Data) {
	for _, s := range d.Series(metrics.ArrivalLateness) {
		if s.Trend == nil || s.Count() == 0 {
			continue
		}
		sorted := s.Trend.Sorted()
		g := SendLag{Label: s.Group.Key, Labels: s.Group.LabelMap(), Count: s.Count(),
			P50: F64(p(s, 50)), P99: F64(p(s, 99)), Max: F64(sorted[len(sorted)-1])}
		var why string
		if g.Degraded, why = headroom.JudgeSendLag(*g.P50, *g.P99, int(g.Count)); g.Degraded {
			g.Warning = "the replay was degraded: " + why
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s%s: %s", metrics.ArrivalLateness, rundata.GroupSuffix(s.Group.Key), g.Warning))
		}
		rep.SendLag = append(rep.SendLag, g)
	}
}
