package result

import (
	"fmt"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// LimitedByLoadGenerator applies the one rule of the load-generator warning
// (headroom.Judge, which run and the sweep apply too, to the same samples) to
// the p50 of llm_client_lag in milliseconds over n samples and the p50 of
// llm_client_cpu_idle (nil: none). why says which bound was passed, or why
// there is no verdict.
func LimitedByLoadGenerator(lagP50 float64, n int64, idleP50 *float64) (limited bool, why string) {
	return headroom.Judge(headroom.Signals{ClientLagP50MS: lagP50, Samples: int(n), CPUIdle: idleP50})
}

// clientHealth fills the summary's client health, one entry per group with
// a client lag or zero-gap series. When the load generator limits the
// results (the rule has a verdict: enough lag samples) and alert is set
// (llm_client_lag is selected), it also warns and alerts; otherwise the
// verdict is the health entry's alone.
func (rep *Summary) clientHealth(d *rundata.Data, alert bool) {
	groups := map[string]*Health{}
	var order []string
	get := func(s *rundata.Series) *Health {
		h := groups[s.Group.Key]
		if h == nil {
			h = &Health{Label: s.Group.Key, Labels: s.Group.LabelMap()}
			groups[s.Group.Key] = h
			order = append(order, s.Group.Key)
		}
		return h
	}
	for _, s := range d.Series(metrics.ClientLag) {
		if s.Trend != nil && s.Count() > 0 {
			h := get(s)
			h.LagCount = s.Count()
			h.LagP50, h.LagP99 = F64(p(s, 50)), F64(p(s, 99))
		}
	}
	for _, s := range d.Series(metrics.ClientCPUIdle) {
		if s.Trend != nil && s.Count() > 0 {
			get(s).CPUIdleP50 = F64(p(s, 50))
		}
	}
	zeros := map[string]float64{} // the Counter form's zero gaps, by group
	for _, s := range d.Series(metrics.ITLZeroGaps) {
		switch {
		case s.Counter != nil:
			get(s)
			zeros[s.Group.Key] = s.Counter.Sum
		case s.Rate != nil && s.Count() > 0: // the Rate form: the share itself
			h := get(s)
			h.ZeroGapShare, h.Gaps = F64(s.Rate.Value()), s.Count()
		}
	}
	for _, s := range d.Series(metrics.ITL) {
		h := groups[s.Group.Key]
		if h == nil || s.Trend == nil || s.Count() == 0 {
			continue
		}
		h.ITLP50 = F64(p(s, 50))
		if h.ZeroGapShare == nil { // the Counter form, or no zero gap at all
			h.ZeroGapShare, h.Gaps = F64(zeros[s.Group.Key]/float64(s.Count())), s.Count()
		}
	}
	for _, k := range order {
		h := groups[k]
		if h.LagP50 != nil {
			var why string
			h.Limited, why = LimitedByLoadGenerator(*h.LagP50, h.LagCount, h.CPUIdleP50)
			switch {
			case h.Limited:
				h.Warning = headroom.Line(why)
				if alert {
					w := fmt.Sprintf("%s%s: %s", metrics.ClientLag, rundata.GroupSuffix(k), h.Warning)
					rep.Warnings, rep.Alerts = append(rep.Warnings, w), append(rep.Alerts, w)
				}
			case why != "":
				h.NoVerdict = why
			}
		}
		rep.Health = append(rep.Health, *h)
	}
}

// p is k6's p(N) of a Trend series.
func p(s *rundata.Series, n float64) float64 {
	v, _ := stats.Percentile(s.Trend.Sorted(), n)
	return v
}

// cacheHits fills the share of input tokens served from the cache, per
// group that has both counters.
func (rep *Summary) cacheHits(d *rundata.Data) {
	inputs := map[string]*rundata.Series{}
	for _, s := range d.Series(metrics.InputTokens) {
		inputs[s.Group.Key] = s
	}
	for _, s := range d.Series(metrics.CachedInputTokens) {
		in := inputs[s.Group.Key]
		if s.Counter == nil || in == nil || in.Counter == nil {
			continue
		}
		c := CacheHit{Label: s.Group.Key, Labels: s.Group.LabelMap(), Cached: s.Counter.Sum, Input: in.Counter.Sum}
		if c.Input > 0 {
			c.Share = F64(c.Cached / c.Input)
		}
		rep.CacheHits = append(rep.CacheHits, c)
	}
}

// Health is the client path's health in one group: how late the client
// itself was, and the share of ITL gaps that were exactly 0.
type Health struct {
	Label  string            `json:"label"`
	Labels map[string]string `json:"labels"`
	// LagP50 and LagP99 are k6's p(50) and p(99) of llm_client_lag (ms),
	// over LagCount samples; the rule judges LagP50.
	LagP50   *float64 `json:"lag_p50,omitempty"`
	LagP99   *float64 `json:"lag_p99"`
	LagCount int64    `json:"lag_count"`
	// CPUIdleP50 is k6's p(50) of llm_client_cpu_idle (0..1), the rule's
	// CPU clause; absent when the run has none (not Linux, or a file
	// written before it). Added within v1.
	CPUIdleP50 *float64 `json:"cpu_idle_p50,omitempty"`
	// ZeroGapShare is the share of the Gaps llm_itl gaps that were exactly 0:
	// llm_itl_zero_gaps' sum over llm_itl's count (or, in files written
	// before it became a Counter, its rate).
	ZeroGapShare *float64 `json:"zero_gap_share"`
	Gaps         int64    `json:"gaps"`
	// ITLP50 is the group's llm_itl p(50) (ms), when it was read.
	ITLP50 *float64 `json:"itl_p50"`
	// Limited is LimitedByLoadGenerator's verdict; Warning says why.
	// NoVerdict, when set, says why the rule gave none (too few lag
	// samples): Limited is then false, and the health is not known to be
	// ok either. Added within v1.
	Limited   bool   `json:"limited"`
	Warning   string `json:"warning,omitempty"`
	NoVerdict string `json:"no_verdict,omitempty"`
}

// CacheHit is the share of a group's input tokens served from the prompt
// cache: llm_cached_input_tokens / llm_input_tokens (null without input).
type CacheHit struct {
	Label  string            `json:"label"`
	Labels map[string]string `json:"labels"`
	Cached float64           `json:"cached_input_tokens"`
	Input  float64           `json:"input_tokens"`
	Share  *float64          `json:"share"`
}
