package headroom

import (
	"fmt"
	"time"
)

// The bounds of a degraded replay (open-loop load sent late): the send lag —
// how long after its scheduled time a request of replay() or arrivals() was
// sent — has a p99 above MaxSendLagP99 (AIPerf's bound for its own trace
// replay) or a median above MaxSendLagP50 (inference-perf's). The p99 catches
// a backlog in the trace's bursts (too few in-flight slots, a saturated load
// generator); the median catches a scheduler that is late all the time. Below
// both, the offered load has the trace's shape to within what a k6 timer on a
// millisecond clock can do; the scheduled-time metrics (llm_ttft_scheduled,
// llm_e2e_scheduled) carry each request's own lag either way.
const (
	MaxSendLagP99 = 500 * time.Millisecond
	MaxSendLagP50 = 10 * time.Millisecond
)

// JudgeSendLag applies the bounds to a send lag median and p99 (k6's p(N))
// in milliseconds over n requests. why says which bound was passed; with no
// request there is no verdict.
func JudgeSendLag(p50MS, p99MS float64, n int) (degraded bool, why string) {
	switch {
	case n == 0:
		return false, "no send lag: no request had a scheduled time"
	case p99MS > ms(MaxSendLagP99):
		return true, fmt.Sprintf("send lag p99 %s ms (%d requests) is above %s ms", fmtMS(p99MS), n, fmtMS(ms(MaxSendLagP99)))
	case p50MS > ms(MaxSendLagP50):
		return true, fmt.Sprintf("send lag median %s ms (%d requests) is above %s ms", fmtMS(p50MS), n, fmtMS(ms(MaxSendLagP50)))
	}
	return false, ""
}
