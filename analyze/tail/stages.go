package tail

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// moments are the mean and the standard error of the mean of each stage.
type moments struct{ mean, se [NumStages]float64 }

// The sums are of whole nanoseconds, exact: a mean is the closest float to
// the true one.
func stageMoments(reqs []Request, idx []int) moments {
	var m moments
	var ns [NumStages]int64
	var sq [NumStages]float64
	for _, i := range idx {
		for s := range NumStages {
			ns[s] += reqs[i].Stages[s]
			v := ms(reqs[i].Stages[s])
			sq[s] += v * v
		}
	}
	n := float64(len(idx))
	for s := range NumStages {
		sum := ms(ns[s])
		m.mean[s] = sum / n
		if n > 1 {
			m.se[s] = math.Sqrt(math.Max(0, (sq[s]-sum*sum/n)/(n-1)) / n)
		}
	}
	return m
}

// median is p(50) of stage s over idx, sorted in buf.
func median(reqs []Request, idx []int, s int, buf []float64) float64 {
	buf = buf[:0]
	for _, i := range idx {
		buf = append(buf, ms(reqs[i].Stages[s]))
	}
	slices.Sort(buf)
	v, _ := stats.Percentile(buf, 50)
	return v
}

// shares are each stage's part of the excess of tail over body.
func shares(tail, body [NumStages]float64) (sh [NumStages]float64, excess float64) {
	for s := range NumStages {
		excess += tail[s] - body[s]
	}
	for s := range NumStages {
		sh[s] = (tail[s] - body[s]) / excess
	}
	return sh, excess
}

// stageShares splits the excess mean TTFT of the tail into the stages, with
// a bootstrap interval of each share.
func stageShares(reqs []Request, tail, body []int, o Options, rng *rand.Rand) ([]Stage, float64) {
	tm, bm := stageMoments(reqs, tail), stageMoments(reqs, body)
	sh, excess := shares(tm.mean, bm.mean)
	reps := make([][]float64, NumStages)
	tv := make([][NumStages]float64, len(tail)) // the tail's stages, close together
	for k, i := range tail {
		for s := range NumStages {
			tv[k][s] = ms(reqs[i].Stages[s])
		}
	}
	for b := 0; b < o.Resamples; b++ {
		var t, bd [NumStages]float64
		for range tv {
			v := &tv[rng.IntN(len(tv))]
			for s := range NumStages {
				t[s] += v[s]
			}
		}
		for s := range NumStages {
			t[s] /= float64(len(tail))
			bd[s] = bm.mean[s] + bm.se[s]*rng.NormFloat64()
		}
		r, _ := shares(t, bd)
		for s := range NumStages {
			reps[s] = append(reps[s], r[s])
		}
	}
	buf := make([]float64, 0, len(body))
	out := make([]Stage, NumStages)
	a := (1 - o.Confidence) / 2 * 100
	for s := range NumStages {
		out[s] = Stage{Name: StageNames[s], TailMeanMS: tm.mean[s], BodyMeanMS: bm.mean[s], Share: sh[s],
			TailMedianMS: median(reqs, tail, s, buf), BodyMedianMS: median(reqs, body, s, buf)}
		slices.Sort(reps[s])
		out[s].ShareLo, _ = stats.Percentile(reps[s], a)
		out[s].ShareHi, _ = stats.Percentile(reps[s], 100-a)
	}
	return out, excess
}
