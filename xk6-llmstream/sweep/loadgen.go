package sweep

import (
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// LoadGen is the load-generator rule (headroom.Judge, the one run and
// analyze apply) on one level's llm_client_lag and llm_client_cpu_idle
// samples.
type LoadGen struct {
	Samples      int      `json:"client_lag_samples"`
	ClientLagP50 *float64 `json:"client_lag_p50_ms"`
	CPUIdleP50   *float64 `json:"cpu_idle_p50"`
	// Limited: the level's timings may be limited by the load generator;
	// Why says which bound was passed, or why there is no verdict.
	Limited bool   `json:"limited"`
	Why     string `json:"why,omitempty"`
}

// loadGen judges sorted llm_client_lag samples (ms) and sorted
// llm_client_cpu_idle samples.
func loadGen(lags, idles []float64) LoadGen {
	g := LoadGen{Samples: len(lags), ClientLagP50: median(lags), CPUIdleP50: median(idles)}
	p50 := 0.0
	if g.ClientLagP50 != nil {
		p50 = *g.ClientLagP50
	}
	g.Limited, g.Why = result.LimitedByLoadGenerator(p50, int64(len(lags)), g.CPUIdleP50)
	return g
}

// median is k6's p(50) of sorted values; nil when there are none.
func median(sorted []float64) *float64 {
	if len(sorted) == 0 {
		return nil
	}
	v, _ := stats.Percentile(sorted, 50)
	return &v
}
