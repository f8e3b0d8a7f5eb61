package calibrate

import (
	"math"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// The mid-stream lag's interval: one rule for calibrate and the delivery-lag
// benchmark (internal/testkit/bench), which both report the p99 of the same
// statistic — read time − write time of every text event of a request but
// the first — with this interval.
const (
	// LagBlock is the stretch of time, by write time, whose events form one
	// cluster: a GC pause, a descheduled process or a busy CPU delays the
	// events of every stream written in the same few milliseconds together,
	// so they are not independent draws. A block much longer than such a
	// stall keeps a stall's events in one cluster; one much shorter than a run
	// leaves enough clusters to bootstrap.
	LagBlock = 100 * time.Millisecond
	// LagConfidence is the interval's confidence level.
	LagConfidence = 0.95
	// lagReps and lagSeed: the bootstrap's resamples and its fixed seed (the
	// same events give the same interval).
	lagReps = 2000
	lagSeed = 1
)

// LagP99Interval is the 95% interval of the p99 (k6's p(99)) of mid-stream
// lags, lagMS[i] the lag of an event written at Unix ns writeNS[i]: a
// bootstrap that resamples whole LagBlock stretches of write time
// (stats.ClusterQuantileInterval). Ends are ±Inf with fewer than
// stats.MinClusters blocks or on bad input (the lengths differ): an interval
// that cannot be computed bounds nothing.
func LagP99Interval(lagMS []float64, writeNS []int64) (lo, hi float64) {
	block := make([]int64, len(writeNS))
	for i, w := range writeNS {
		block[i] = floorDiv(w, int64(LagBlock))
	}
	iv, err := stats.ClusterQuantileInterval(lagMS, block, 99, LagConfidence, lagReps, lagSeed)
	if err != nil {
		return math.Inf(-1), math.Inf(1)
	}
	return iv.Lo, iv.Hi
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
