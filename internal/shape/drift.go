package shape

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/compare"

	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// Trend says how the last third of a run compares with the first.
type Trend string

// The trends.
const (
	Worse    Trend = "worse"  // a percentile rose by DriftChange or more, with confidence
	Better   Trend = "better" // a percentile fell by DriftChange or more (a warm-up)
	Both     Trend = "mixed"  // one rose, another fell
	Stable   Trend = "stable"
	NotJudge Trend = "too few samples"
)

// Period is a part of the run.
type Period struct {
	Start, End time.Duration
	N          int
}

// DriftResult compares the last third of a run's time span with the first.
type DriftResult struct {
	Metric      string
	Early, Late Period
	// Changes are P50 and P99 from Early to Late (compare.Compare; P99 is
	// compare.TooFew with fewer than 200 samples in a third).
	Changes []compare.Change
	// Threshold is the relative change that counts as drift.
	Threshold float64
	Trend     Trend
	Sentence  string
}

// minDriftSamples is the fewest samples in each third for a drift verdict.
const minDriftSamples = compare.MinSamples

// Drift compares the samples in the first third of the run's time span with
// those in the last third. Its options are Unit and DriftChange.
func Drift(metric string, samples []stats.Sample, opts ...Option) DriftResult {
	c := makeConfig(opts)
	r := DriftResult{Metric: metric, Threshold: c.drift, Trend: NotJudge}
	if len(samples) == 0 {
		r.Sentence = metric + ": no samples to judge drift."
		return r
	}
	first, last := samples[0].T, samples[0].T
	for _, s := range samples {
		first, last = min(first, s.T), max(last, s.T)
	}
	span := last - first
	r.Early = Period{Start: first, End: first + span/3}
	r.Late = Period{Start: last - span/3, End: last}
	var early, late []float64
	for _, s := range samples {
		switch {
		case s.T < r.Early.End:
			early = append(early, s.V)
		case s.T >= r.Late.Start:
			late = append(late, s.V)
		}
	}
	r.Early.N, r.Late.N = len(early), len(late)
	if span <= 0 || len(early) < minDriftSamples || len(late) < minDriftSamples {
		r.Sentence = fmt.Sprintf("%s: too few samples to judge drift (%d in the first third of the run, %d in the last; %d needed in each).",
			metric, len(early), len(late), minDriftSamples)
		return r
	}
	slices.Sort(early)
	slices.Sort(late)
	res, err := compare.Compare(early, late, compare.Stats("p50", "p99"))
	if err != nil { // cannot happen: both are sorted and non-empty
		r.Sentence = fmt.Sprintf("%s: drift not judged: %v", metric, err)
		return r
	}
	r.Changes = res.Changes
	up, down := false, false
	for _, ch := range r.Changes {
		switch {
		case ch.Verdict == compare.Worse && ch.Rel >= r.Threshold:
			up = true
		case ch.Verdict == compare.Better && ch.Rel <= -r.Threshold:
			down = true
		}
	}
	switch {
	case up && down:
		r.Trend = Both
	case up:
		r.Trend = Worse
	case down:
		r.Trend = Better
	default:
		r.Trend = Stable
	}
	r.Sentence = r.sentence(c.unit)
	return r
}

func (r *DriftResult) sentence(unit string) string {
	sec := func(d time.Duration) string { return strconv.FormatFloat(math.Round(d.Seconds()*10)/10, 'f', -1, 64) }
	periods := fmt.Sprintf("the first third of the run (%s–%s s, %d samples) to the last third (%s–%s s, %d samples)",
		sec(r.Early.Start), sec(r.Early.End), r.Early.N, sec(r.Late.Start), sec(r.Late.End), r.Late.N)
	var parts []string
	for _, ch := range r.Changes {
		if ch.Verdict == compare.TooFew {
			continue
		}
		p := fmt.Sprintf("%s %s from %s to %s", ch.Stat.Label(), verb(ch.Rel), numfmt.Sig4Unit(ch.Base, unit), numfmt.Sig4Unit(ch.Cand, unit))
		if !math.IsNaN(ch.Rel) {
			p += fmt.Sprintf(", %s (95%% CI %s to %s)", formatChange(ch.Rel), formatChange(ch.RelLo), formatChange(ch.RelHi))
		}
		parts = append(parts, p)
	}
	changes := strings.Join(parts, "; ")
	th := formatShare(r.Threshold)
	switch r.Trend {
	case Worse:
		return fmt.Sprintf("%s: later windows are worse — from %s, %s. If the load was steady, the service degrades over time (a growing queue, memory, throttling); if it ramped up, this is the cost of the load.", r.Metric, periods, changes)
	case Better:
		return fmt.Sprintf("%s: the start of the run is slower — from %s, %s: a warm-up (cold caches, connection set-up, autoscaling); consider --from to leave it out.", r.Metric, periods, changes)
	case Both:
		return fmt.Sprintf("%s: the distribution changes shape over the run — from %s, %s.", r.Metric, periods, changes)
	}
	return fmt.Sprintf("%s: no drift — from %s, no percentile moved by %s or more with confidence (%s).", r.Metric, periods, th, changes)
}

func verb(rel float64) string {
	if rel < 0 {
		return "fell"
	}
	return "rose"
}
