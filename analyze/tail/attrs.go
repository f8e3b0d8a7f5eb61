package tail

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Attribute is how one request attribute tells the tail from the body.
type Attribute struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // "numeric" or "categorical"
	// Effect is Cliff's δ (numeric) or the concentration of the value most
	// over-represented in the tail (categorical): its share of the tail
	// minus its share of the body, over the most that can be (1 − the body's
	// share). Each is the share of the largest separation possible: 1 when
	// every tail value is above every body value, or the whole tail has the
	// value; 0 when the tail looks like the body. With its interval.
	Effect   float64 `json:"effect"`
	EffectLo float64 `json:"effect_lo"`
	EffectHi float64 `json:"effect_hi"`
	// SetsApart: the interval excludes 0 and |Effect| ≥ MinEffect.
	SetsApart bool `json:"sets_apart"`
	// Numeric: the medians of the tail and the body.
	TailMedian float64 `json:"tail_median,omitempty"`
	BodyMedian float64 `json:"body_median,omitempty"`
	// Categorical: the most over-represented value and its shares.
	Value     string  `json:"value,omitempty"`
	TailShare float64 `json:"tail_share,omitempty"`
	BodyShare float64 `json:"body_share,omitempty"`
}

// The attributes' names.
const (
	AttrInput      = "input_tokens"
	AttrOutput     = "output_tokens"
	AttrCache      = "cache_hit_share"
	AttrConcurrent = "concurrent_streams"
	AttrModel      = "model"
	AttrInstance   = "instance_id"
	AttrScenario   = "scenario"
	AttrTime       = "time_in_test"
)

// AttrServerQueue is the server's queue depth at the request's start, as
// last scraped (records' server_waiting; absent without a scrape).
const AttrServerQueue = "server_queue_depth"

func attributes(reqs []Request, inTail []bool, tail, body []int, o Options, rng *rand.Rand) []Attribute {
	conc := concurrency(reqs)
	num := []struct {
		name string
		f    func(i int) float64
	}{
		{AttrInput, func(i int) float64 { return float64(reqs[i].InputTokens) }},
		{AttrOutput, func(i int) float64 { return float64(reqs[i].OutputTokens) }},
		{AttrCache, func(i int) float64 { return reqs[i].CachedShare }},
		{AttrConcurrent, func(i int) float64 { return float64(conc[i]) }},
		{AttrServerQueue, func(i int) float64 { return reqs[i].ServerWaiting }},
	}
	sample := bodySample(body, o.BodySample, rng)
	var out []Attribute
	for _, a := range num {
		if at, ok := numeric(a.name, a.f, tail, sample, o, rng); ok {
			out = append(out, at)
		}
	}
	t0, t1 := span(reqs)
	cat := []struct {
		name string
		f    func(i int) string
	}{
		{AttrModel, func(i int) string { return reqs[i].Model }},
		{AttrInstance, func(i int) string { return reqs[i].Instance }},
		{AttrScenario, func(i int) string { return reqs[i].Scenario }},
		{AttrTime, func(i int) string { return tenth(reqs[i].StartNS, t0, t1) }},
	}
	for _, a := range cat {
		if at, ok := categorical(a.name, a.f, inTail, len(tail), len(body), o); ok {
			out = append(out, at)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ei, ej := math.Abs(out[i].Effect), math.Abs(out[j].Effect); ei != ej {
			return ei > ej
		}
		return sure(out[i]) > sure(out[j])
	})
	return out
}

// sure is how far from zero an effect's interval stays: the tie-break of
// equal effects (the surer one first).
func sure(a Attribute) float64 {
	if a.Effect < 0 {
		return -a.EffectHi
	}
	return a.EffectLo
}

// bodySample is up to n of body, chosen at random (all when fewer).
func bodySample(body []int, n int, rng *rand.Rand) []int {
	if n <= 0 || len(body) <= n {
		return body
	}
	s := slices.Clone(body)
	for i := 0; i < n; i++ {
		j := i + rng.IntN(len(s)-i)
		s[i], s[j] = s[j], s[i]
	}
	return s[:n]
}

// numeric measures Cliff's δ of the tail against the body sample; a value
// that is NaN is left out. ok is false when either side has no value or the
// attribute does not vary.
func numeric(name string, f func(int) float64, tail, body []int, o Options, rng *rand.Rand) (Attribute, bool) {
	bv := values(f, body)
	tv := values(f, tail)
	if len(bv) == 0 || len(tv) == 0 || (bv[0] == bv[len(bv)-1] && tv[0] == tv[len(tv)-1] && tv[0] == bv[0]) {
		return Attribute{}, false
	}
	// u[k]: P(body < t) + P(body = t)/2 for tail value k; δ = 2·mean(u) − 1.
	u := make([]float64, len(tv))
	var sum float64
	for k, t := range tv {
		lo := sort.SearchFloat64s(bv, t)
		hi := lo
		for hi < len(bv) && bv[hi] == t {
			hi++
		}
		u[k] = (float64(lo) + float64(hi-lo)/2) / float64(len(bv))
		sum += u[k]
	}
	at := Attribute{Name: name, Kind: "numeric", Effect: 2*sum/float64(len(u)) - 1}
	at.TailMedian, _ = stats.Percentile(tv, 50)
	at.BodyMedian, _ = stats.Percentile(bv, 50)
	reps := make([]float64, o.Resamples)
	for b := range reps {
		var s float64
		for range u {
			s += u[rng.IntN(len(u))]
		}
		reps[b] = 2*s/float64(len(u)) - 1
	}
	slices.Sort(reps)
	a := (1 - o.Confidence) / 2 * 100
	at.EffectLo, _ = stats.Percentile(reps, a)
	at.EffectHi, _ = stats.Percentile(reps, 100-a)
	at.SetsApart = apart(at, o)
	return at, true
}

func values(f func(int) float64, idx []int) []float64 {
	v := make([]float64, 0, len(idx))
	for _, i := range idx {
		if x := f(i); !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	slices.Sort(v)
	return v
}

func apart(a Attribute, o Options) bool {
	return (a.EffectLo > 0 || a.EffectHi < 0) && math.Abs(a.Effect) >= o.MinEffect
}

// categorical finds the value most over-represented in the tail. ok is
// false when the attribute has one value only.
func categorical(name string, f func(int) string, inTail []bool, nTail, nBody int, o Options) (Attribute, bool) {
	counts := map[string]*[2]int64{}
	for i, t := range inTail {
		c := counts[f(i)]
		if c == nil {
			c = new([2]int64)
			counts[f(i)] = c
		}
		if t {
			c[0]++
		} else {
			c[1]++
		}
	}
	if len(counts) < 2 || nBody == 0 {
		return Attribute{}, false
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	at := Attribute{Name: name, Kind: "categorical", Effect: math.Inf(-1)}
	for _, k := range keys {
		c := counts[k]
		ts, bs := float64(c[0])/float64(nTail), float64(c[1])/float64(nBody)
		if bs >= 1 {
			continue
		}
		// The excess share over its largest possible value (1 − bs).
		if e := (ts - bs) / (1 - bs); e > at.Effect {
			at.Effect, at.Value, at.TailShare, at.BodyShare = e, k, ts, bs
			lo, hi := compare.NewcombeInterval(
				compare.Proportion{NonZero: c[1], Count: int64(nBody)},
				compare.Proportion{NonZero: c[0], Count: int64(nTail)}, o.Confidence)
			at.EffectLo, at.EffectHi = lo/(1-bs), min(hi/(1-bs), 1) // a share is at most 1
		}
	}
	at.SetsApart = apart(at, o)
	return at, true
}

// concurrency is, for each request, how many other requests were in flight
// when it started (from the records' start and end times).
func concurrency(reqs []Request) []int32 {
	starts := make([]int64, len(reqs))
	ends := make([]int64, len(reqs))
	for i := range reqs {
		starts[i], ends[i] = reqs[i].StartNS, reqs[i].EndNS
	}
	slices.Sort(starts)
	slices.Sort(ends)
	out := make([]int32, len(reqs))
	for i := range reqs {
		s := reqs[i].StartNS
		before, _ := slices.BinarySearch(starts, s) // started strictly before
		ended, _ := slices.BinarySearch(ends, s+1)  // ended at or before s
		out[i] = int32(before - ended)
	}
	return out
}

func span(reqs []Request) (t0, t1 int64) {
	t0, t1 = math.MaxInt64, math.MinInt64
	for i := range reqs {
		t0, t1 = min(t0, reqs[i].StartNS), max(t1, reqs[i].StartNS)
	}
	return t0, t1
}

// tenth names the tenth of the test a start falls in ("1/10" … "10/10").
func tenth(s, t0, t1 int64) string {
	k := 0
	if t1 > t0 {
		k = int(float64(s-t0) / float64(t1-t0) * 10)
	}
	return tenths[min(max(k, 0), 9)]
}

var tenths = [10]string{"1/10", "2/10", "3/10", "4/10", "5/10", "6/10", "7/10", "8/10", "9/10", "10/10"}
