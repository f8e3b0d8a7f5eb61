package tail

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"strconv"
)

// cause is one reason for a tail, injected into synthetic requests with a
// known stage and attribute.
type cause struct {
	name  string
	stage string // the stage it slows
	attr  string // the attribute that sets its requests apart
	value string // for a categorical attribute: the value
	// also are attributes the cause moves as a consequence (a stall piles up
	// streams, so concurrency at start rises with it; a queue forms in the
	// moments arrivals bunch up): naming them is right.
	also   []string
	inject func(q *Request, g *gen)
}

type gen struct {
	rng      *rand.Rand
	conc     int
	frac     float64 // the request's start as a share of the test
	prefill  float64 // ms per uncached input token
	input    func() int
	cacheHit func() float64
}

var causes = []cause{
	{name: "slow connect", stage: "connect", attr: AttrInstance, value: "3", inject: func(q *Request, g *gen) {
		if q.Instance == "3" && q.Stages[Connect] > 0 {
			q.Stages[Connect] += msNS(300 * g.lognormal(0.2))
		}
	}},
	{name: "queue", stage: "wait", attr: AttrConcurrent, also: []string{AttrTime}, inject: func(q *Request, g *gen) {
		if g.conc > 280 {
			q.Stages[Wait] += msNS(5 * float64(g.conc-280))
		}
	}},
	{name: "long prompts", stage: "first_event", attr: AttrInput, also: []string{AttrCache}, inject: nil},
	{name: "cache misses", stage: "first_event", attr: AttrCache, inject: nil},
	{name: "slow instance", stage: "first_event", attr: AttrInstance, value: "3", also: prefillAttrs, inject: func(q *Request, g *gen) {
		if q.Instance == "3" {
			q.Stages[FirstEvent] *= 4
		}
	}},
	{name: "stall burst", stage: "wait", attr: AttrTime, value: "7/10", also: []string{AttrConcurrent}, inject: func(q *Request, g *gen) {
		if g.frac >= 0.62 && g.frac < 0.66 {
			q.Stages[Wait] += msNS(1000 * g.lognormal(0.1))
		}
	}},
}

// prefillAttrs drive the prefill time in every run (it is input × (1 −
// cache hit) × a per-token time): when a cause slows prefill, the tail also
// holds the longest prompts and the fewest cache hits, rightly.
var prefillAttrs = []string{AttrInput, AttrCache}

func msNS(v float64) int64 { return int64(v * 1e6) }

func (g *gen) lognormal(sigma float64) float64 { return math.Exp(sigma * g.rng.NormFloat64()) }

type ends []int64

func (h ends) Len() int           { return len(h) }
func (h ends) Less(i, j int) bool { return h[i] < h[j] }
func (h ends) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ends) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *ends) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

// synth makes n requests arriving as a Poisson process of 50 per second,
// with noise in every stage and every attribute, and the cause c (nil: no
// cause). Stages sum to TTFT.
func synth(n int, seed uint64, c *cause) []Request {
	g := &gen{rng: rand.New(rand.NewPCG(seed, 99)), prefill: 0.05}
	g.input = func() int { return int(500 * g.lognormal(0.5)) }
	g.cacheHit = func() float64 { return 0.5 * g.rng.Float64() }
	switch {
	case c != nil && c.name == "long prompts":
		g.input = func() int { return int(500 * g.lognormal(1.1)) }
	case c != nil && c.name == "cache misses":
		g.input = func() int { return 1800 + g.rng.IntN(400) }
		g.cacheHit = func() float64 {
			if g.rng.Float64() < 0.03 {
				return 0
			}
			return 0.95
		}
	}
	duration := float64(n) / 50 * 1e9
	h := &ends{}
	out := make([]Request, n)
	t := int64(1_700_000_000e9)
	t0 := t
	for i := range out {
		t += int64(g.rng.ExpFloat64() / 50 * 1e9)
		for h.Len() > 0 && (*h)[0] <= t {
			heap.Pop(h)
		}
		g.conc, g.frac = h.Len(), float64(t-t0)/duration
		q := g.request(t)
		if c != nil && c.inject != nil {
			c.inject(&q, g)
		}
		for _, s := range q.Stages {
			q.TTFT += s
		}
		q.EndNS = t + q.TTFT + int64(q.OutputTokens)*msNS(20)
		heap.Push(h, q.EndNS)
		out[i] = q
	}
	return out
}

func (g *gen) request(t int64) Request {
	q := Request{StartNS: t, InputTokens: g.input(), OutputTokens: 50 + g.rng.IntN(450),
		Model: "m" + strconv.Itoa(g.rng.IntN(2)), Instance: strconv.Itoa(g.rng.IntN(4)),
		Scenario: []string{"chat", "rag"}[g.rng.IntN(2)]}
	hit := g.cacheHit()
	q.CachedShare = hit
	if g.rng.Float64() < 0.05 {
		q.Stages[Connect] = msNS(3 * g.lognormal(0.3))
	}
	q.Stages[Send] = msNS(0.2 * g.lognormal(0.3))
	q.Stages[Wait] = msNS(20 * g.lognormal(0.3))
	q.Stages[FirstEvent] = msNS(float64(q.InputTokens) * (1 - hit) * g.prefill * g.lognormal(0.2))
	q.Stages[FirstToken] = msNS(1 * g.lognormal(0.3))
	return q
}
