package tail

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// The band of TTFT percentiles whose requests are the "median requests" of
// the stage profile: those with p(MedianBandLo) ≤ TTFT ≤ p(MedianBandHi).
const (
	MedianBandLo = 45
	MedianBandHi = 55
)

// Profile is the mean time of each stage in two groups of requests, the
// median requests and the tail: a stacked bar of a group's stage means is
// exactly as long as its mean TTFT (the stages of a request sum to its TTFT).
type Profile struct {
	BandLo   float64 `json:"median_band_lo_percentile"` // MedianBandLo
	BandHi   float64 `json:"median_band_hi_percentile"` // MedianBandHi
	BandLoMS float64 `json:"median_band_lo_ms"`         // p(BandLo) of TTFT
	BandHiMS float64 `json:"median_band_hi_ms"`         // p(BandHi) of TTFT
	Median   Group   `json:"median"`                    // the requests in the band
	Tail     Group   `json:"tail"`                      // the tail's requests (TTFT > threshold)
}

// Group is the size, the mean TTFT and the mean of each stage of a group of
// requests; the stage means sum to the mean TTFT.
type Group struct {
	Requests    int       `json:"requests"`
	TTFTMeanMS  float64   `json:"ttft_mean_ms"`
	StageMeanMS []float64 `json:"stage_mean_ms"` // in stage order (StageNames)
}

// profile measures the median band's and the tail's stage means; sorted is
// every request's TTFT in ms, sorted.
func profile(reqs []Request, sorted []float64, tail []int) Profile {
	p := Profile{BandLo: MedianBandLo, BandHi: MedianBandHi}
	p.BandLoMS, _ = stats.Percentile(sorted, MedianBandLo)
	p.BandHiMS, _ = stats.Percentile(sorted, MedianBandHi)
	band := within(reqs, p.BandLoMS, p.BandHiMS)
	if len(band) == 0 {
		// Fewer than about ten requests: no TTFT lies between the two
		// percentiles; the band is widened to the requests either side.
		n := float64(len(sorted) - 1)
		p.BandLoMS = sorted[int(math.Floor(n*MedianBandLo/100))]
		p.BandHiMS = sorted[int(math.Ceil(n*MedianBandHi/100))]
		band = within(reqs, p.BandLoMS, p.BandHiMS)
	}
	p.Median, p.Tail = groupOf(reqs, band), groupOf(reqs, tail)
	return p
}

// within are the requests whose TTFT in ms lies in [lo, hi].
func within(reqs []Request, lo, hi float64) []int {
	var out []int
	for i := range reqs {
		if v := ms(reqs[i].TTFT); lo <= v && v <= hi {
			out = append(out, i)
		}
	}
	return out
}

func groupOf(reqs []Request, idx []int) Group {
	g := Group{Requests: len(idx), StageMeanMS: make([]float64, NumStages)}
	m := stageMoments(reqs, idx)
	var ns int64 // whole nanoseconds: exact
	for _, i := range idx {
		ns += reqs[i].TTFT
	}
	g.TTFTMeanMS = ms(ns) / float64(len(idx))
	copy(g.StageMeanMS, m.mean[:])
	return g
}

// profileTitle says which two groups the stage profile compares.
func (r *Result) profileTitle() string {
	p := r.Profile
	return fmt.Sprintf("Mean time per stage: median requests (TTFT p%s–p%s, %s–%s, n=%d) vs tail requests (> p%s, n=%d)",
		pct(p.BandLo), pct(p.BandHi), msText(p.BandLoMS), msText(p.BandHiMS), p.Median.Requests, pct(r.Tail), p.Tail.Requests)
}

// profileRows are the stage profile's rows, the TTFT last: name, the median
// requests' and the tail's mean (ms) and their difference.
func (r *Result) profileRows() [][4]string {
	p := r.Profile
	row := func(name string, m, t float64) [4]string {
		return [4]string{name, msText(m), msText(t), signedMS(t - m)}
	}
	var out [][4]string
	for s := range NumStages {
		out = append(out, row(StageNames[s], p.Median.StageMeanMS[s], p.Tail.StageMeanMS[s]))
	}
	return append(out, row("TTFT", p.Median.TTFTMeanMS, p.Tail.TTFTMeanMS))
}

// writeProfileText writes the stage profile as a text table.
func (r *Result) writeProfileText(b *strings.Builder) {
	fmt.Fprintf(b, "\n%s\n%-12s %16s %16s %12s\n", r.profileTitle(), "stage", "median requests", "tail requests", "difference")
	for _, row := range r.profileRows() {
		fmt.Fprintf(b, "%-12s %16s %16s %12s\n", row[0], row[1], row[2], row[3])
	}
}

// writeProfileMarkdown writes the stage profile as a Markdown table.
func (r *Result) writeProfileMarkdown(b *strings.Builder) {
	fmt.Fprintf(b, "\n%s:\n\n| stage | median requests | tail requests | difference |\n|---|---:|---:|---:|\n", r.profileTitle())
	for _, row := range r.profileRows() {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
	}
}

// signedMS is a difference in ms with its sign, to the nanosecond (the
// records' resolution).
func signedMS(d float64) string {
	d = math.Round(d*1e6) / 1e6
	if d < 0 {
		return "-" + msText(-d)
	}
	return "+" + msText(d)
}
