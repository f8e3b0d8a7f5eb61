package sweep

import (
	"cmp"
	"math"
	"slices"
)

// throughput is what a level's requests add up to over its window.
type throughput struct {
	window                       float64 // seconds
	requests, failed             int64
	rps, achieved, output, goodp float64 // per second; NaN when undefined
}

// measure counts a level's requests. The window runs from the first request's
// end to the last's; the rates count the requests that ended after the first
// (so n requests ending evenly at r per second give exactly r), the
// requests before the first end — warm-up, the first service time — are left
// out by construction. good says whether a request met every SLO limit; nil
// leaves goodput undefined.
func measure(reqs []Request, good func(*Request) bool) throughput {
	t := throughput{rps: math.NaN(), achieved: math.NaN(), output: math.NaN(), goodp: math.NaN()}
	ended := make([]*Request, 0, len(reqs))
	for i := range reqs {
		if reqs[i].Ended {
			ended = append(ended, &reqs[i])
			t.requests++
			if reqs[i].Failed {
				t.failed++
			}
		}
	}
	if len(ended) < 2 {
		return t
	}
	slices.SortFunc(ended, func(a, b *Request) int { return cmp.Compare(a.End, b.End) })
	t.window = (ended[len(ended)-1].End - ended[0].End).Seconds()
	if t.window <= 0 {
		return t
	}
	var all, ok, goodN int
	var tokens float64
	for _, r := range ended[1:] {
		all++
		if !r.Failed {
			ok++
			tokens += r.OutputTokens
		}
		if good != nil && good(r) {
			goodN++
		}
	}
	t.rps = float64(all) / t.window
	t.achieved = float64(ok) / t.window
	t.output = tokens / t.window
	if good != nil {
		t.goodp = float64(goodN) / t.window
	}
	return t
}
