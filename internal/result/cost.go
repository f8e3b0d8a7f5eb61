package result

import (
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Cost is the cost of a run's requests, in the currency of the Client's
// prices: in all (the run, or every input together) and per group.
type Cost struct {
	// Total is the sum of llm_cost over Requests samples (one per request).
	Total      float64  `json:"total"`
	Requests   int64    `json:"requests"`
	PerRequest *float64 `json:"per_request"` // Total / Requests; null without requests
	// Groups are the same per group, in group order.
	Groups []GroupCost `json:"groups"`
}

// GroupCost is the cost of one group's requests.
type GroupCost struct {
	Label      string            `json:"label"`
	Labels     map[string]string `json:"labels"`
	Total      float64           `json:"total"`
	Requests   int64             `json:"requests"`
	PerRequest *float64          `json:"per_request"`
}

// costs fills the summary's cost when the inputs have llm_cost samples.
func (rep *Summary) costs(d *rundata.Data) {
	c := &Cost{Groups: []GroupCost{}}
	for _, s := range d.Series(metrics.Cost) {
		if s.Counter == nil || s.Counter.N == 0 {
			continue
		}
		g := GroupCost{Label: s.Group.Key, Labels: s.Group.LabelMap(), Total: s.Counter.Sum, Requests: s.Counter.N}
		g.PerRequest = perRequest(g.Total, g.Requests)
		c.Groups = append(c.Groups, g)
		c.Total += g.Total
		c.Requests += g.Requests
	}
	if len(c.Groups) == 0 {
		return
	}
	c.PerRequest = perRequest(c.Total, c.Requests)
	rep.Cost = c
}

func perRequest(total float64, n int64) *float64 {
	if n <= 0 {
		return nil
	}
	return F64(total / float64(n))
}
