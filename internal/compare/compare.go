package compare

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Defaults of a comparison.
const (
	DefaultLevel     = 0.95
	DefaultResamples = 2000
	DefaultSeed      = 1
)

// Verdict says how a candidate compares with its baseline.
type Verdict string

// The verdicts. Lower is better.
const (
	Worse    Verdict = "worse"
	Better   Verdict = "better"
	Mixed    Verdict = "mixed" // some statistics worse, others better
	NoChange Verdict = "no significant change"
	TooFew   Verdict = "too few samples"
)

// Change is how one statistic moved from the baseline to the candidate.
type Change struct {
	Stat       Stat
	Base, Cand float64 // the statistic in each run
	Delta      float64 // Cand − Base
	Rel        float64 // Delta / Base; NaN when Base ≤ 0
	// Lo and Hi bound Delta, RelLo and RelHi bound Rel, at the result's Level.
	Lo, Hi, RelLo, RelHi float64
	// FamilyLo and FamilyHi bound Delta at the Bonferroni level used for the
	// overall verdict.
	FamilyLo, FamilyHi float64
	// Verdict is Worse when Lo > 0, Better when Hi < 0, TooFew when a run
	// has fewer than Stat.MinN samples.
	Verdict Verdict
}

// Result compares one metric (or group) of two runs.
type Result struct {
	Level        float64
	Resamples    int
	Seed         uint64
	NBase, NCand int
	Changes      []Change
	KS           KS
	// Verdict is the overall verdict at family-wise level Level (see the
	// package documentation).
	Verdict Verdict
}

// Option changes how Compare works.
type Option func(*config)

type config struct {
	level     float64
	resamples int
	seed      uint64
	stats     []Stat
}

// Level sets the confidence level of the intervals (default [DefaultLevel]).
func Level(l float64) Option { return func(c *config) { c.level = l } }

// Resamples sets the number of bootstrap replicates (default [DefaultResamples]).
func Resamples(b int) Option { return func(c *config) { c.resamples = b } }

// Seed sets the bootstrap's random seed (default [DefaultSeed]); the same seed
// and data give the same intervals.
func Seed(s uint64) Option { return func(c *config) { c.seed = s } }

// Stats sets the statistics compared (default [DefaultStats]).
func Stats(s ...Stat) Option { return func(c *config) { c.stats = s } }

// ErrEmpty is returned when a run has no samples.
var ErrEmpty = errors.New("compare: no samples")

// Compare compares two sorted samples (ascending, no NaN) of the same metric:
// base is the baseline run, cand the candidate.
func Compare(base, cand []float64, opts ...Option) (Result, error) {
	c := config{level: DefaultLevel, resamples: DefaultResamples, seed: DefaultSeed, stats: DefaultStats}
	for _, o := range opts {
		o(&c)
	}
	if !(c.level > 0 && c.level < 1) {
		return Result{}, fmt.Errorf("compare: confidence level %g is not in (0, 1)", c.level)
	}
	if c.resamples < 100 {
		return Result{}, fmt.Errorf("compare: %d bootstrap resamples are too few (want ≥ 100)", c.resamples)
	}
	if slices.Contains(c.stats, RateStat) {
		return Result{}, errors.New("compare: rate is a Rate's statistic: compare Rates with CompareRates")
	}
	if err := checkSamples(base, cand); err != nil {
		return Result{}, err
	}
	res := Result{Level: c.level, Resamples: c.resamples, Seed: c.seed, NBase: len(base), NCand: len(cand), KS: KSTest(base, cand)}
	alpha := 1 - c.level
	assessable := 0
	for _, s := range c.stats {
		if len(base) >= s.MinN() && len(cand) >= s.MinN() {
			assessable++
		}
	}
	familyAlpha := alpha / float64(max(1, assessable))
	worse, better := false, false
	for _, s := range c.stats {
		ch := Change{Stat: s}
		ch.Base, ch.Cand = value(base, s), value(cand, s)
		ch.Delta = ch.Cand - ch.Base
		ch.Rel = ratio(ch.Delta, ch.Base)
		if len(base) < s.MinN() || len(cand) < s.MinN() {
			ch.Verdict = TooFew
			ch.Lo, ch.Hi, ch.RelLo, ch.RelHi, ch.FamilyLo, ch.FamilyHi = nan, nan, nan, nan, nan, nan
			res.Changes = append(res.Changes, ch)
			continue
		}
		bootstrap(&ch, base, cand, c, alpha, familyAlpha)
		ch.Verdict = verdict(ch.Lo, ch.Hi)
		switch verdict(ch.FamilyLo, ch.FamilyHi) {
		case Worse:
			worse = true
		case Better:
			better = true
		}
		res.Changes = append(res.Changes, ch)
	}
	switch {
	case assessable == 0:
		res.Verdict = TooFew
	case worse && better:
		res.Verdict = Mixed
	case worse:
		res.Verdict = Worse
	case better:
		res.Verdict = Better
	default:
		res.Verdict = NoChange
	}
	return res, nil
}

// bootstrap fills a statistic's change with its intervals: the change's and
// the relative change's at the confidence level, and the change's at the
// family-wise level familyAlpha.
func bootstrap(ch *Change, base, cand []float64, c config, alpha, familyAlpha float64) {
	s := ch.Stat
	rng := rand.New(rand.NewPCG(c.seed, statSeed(s)))
	rb, rc := newResampler(base, s, rng), newResampler(cand, s, rng)
	deltas := make([]float64, 0, c.resamples)
	rels := make([]float64, 0, c.resamples)
	for range c.resamples {
		xb, xc := rb.draw(), rc.draw()
		deltas = append(deltas, xc-xb)
		if r := ratio(xc-xb, xb); !math.IsNaN(r) {
			rels = append(rels, r)
		}
	}
	slices.Sort(deltas)
	slices.Sort(rels)
	ch.Lo, ch.Hi = quantile(deltas, alpha/2), quantile(deltas, 1-alpha/2)
	ch.RelLo, ch.RelHi = quantile(rels, alpha/2), quantile(rels, 1-alpha/2)
	ch.FamilyLo, ch.FamilyHi = quantile(deltas, familyAlpha/2), quantile(deltas, 1-familyAlpha/2)
}

// checkSamples makes sure both samples are non-empty and sorted.
func checkSamples(base, cand []float64) error {
	for _, s := range []struct {
		name string
		x    []float64
	}{{"baseline", base}, {"candidate", cand}} {
		if len(s.x) == 0 {
			return fmt.Errorf("%w in the %s", ErrEmpty, s.name)
		}
		if err := stats.CheckSorted(s.x); err != nil {
			return fmt.Errorf("compare: %s: %w", s.name, err)
		}
	}
	return nil
}

var nan = math.NaN()

func verdict(lo, hi float64) Verdict {
	switch {
	case lo > 0:
		return Worse
	case hi < 0:
		return Better
	}
	return NoChange
}

// value is the statistic of a sorted sample: k6's percentile (stats.Percentile)
// or the mean.
func value(sorted []float64, s Stat) float64 {
	if pct, ok := s.Percent(); ok {
		v, _ := stats.Percentile(sorted, pct)
		return v
	}
	m, _ := meanSE(sorted)
	return m
}

func ratio(delta, base float64) float64 {
	if base <= 0 || math.IsNaN(base) {
		return math.NaN()
	}
	return delta / base
}

// quantile of sorted replicates, linear between order statistics; NaN when
// there are none.
func quantile(sorted []float64, p float64) float64 {
	v, _ := stats.Percentile(sorted, 100*p)
	return v
}

// statSeed makes each statistic's random stream depend only on its name, so
// adding a statistic does not change the others' intervals.
func statSeed(s Stat) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
