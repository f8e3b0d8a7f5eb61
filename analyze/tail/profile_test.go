package tail

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
)

// randomRequests are n requests with random stages (some always zero, some
// heavy-tailed), each TTFT the sum of its stages.
func randomRequests(rng *rand.Rand, n int) []Request {
	reqs := make([]Request, n)
	zero := rng.IntN(NumStages) // one stage is zero in every request
	for i := range reqs {
		q := &reqs[i]
		for s := range NumStages {
			if s != zero {
				q.Stages[s] = int64(rng.ExpFloat64() * math.Pow(10, 4+4*rng.Float64()))
			}
			q.TTFT += q.Stages[s]
		}
		q.StartNS, q.EndNS = int64(i)*1e7, int64(i)*1e7+q.TTFT
		q.CachedShare = math.NaN()
	}
	return reqs
}

// TestProfileStagesSumToTTFT: over random inputs, each group's stage means
// sum to its mean TTFT, the median group is exactly the requests with
// p(45) ≤ TTFT ≤ p(55) and the tail group is the tail.
func TestProfileStagesSumToTTFT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	o := DefaultOptions()
	o.Resamples = 50
	for run := range 40 {
		reqs := randomRequests(rng, 200+rng.IntN(3000))
		res, err := Analyze(reqs, o)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Profile
		for name, g := range map[string]Group{"median": p.Median, "tail": p.Tail} {
			var sum float64
			for _, v := range g.StageMeanMS {
				sum += v
			}
			if len(g.StageMeanMS) != NumStages || math.Abs(sum-g.TTFTMeanMS) > 1e-9*g.TTFTMeanMS {
				t.Errorf("run %d, %s: stage means %v sum to %v, want the mean TTFT %v", run, name, g.StageMeanMS, sum, g.TTFTMeanMS)
			}
		}
		if want := bandCount(reqs); p.Median.Requests != want || want == 0 {
			t.Errorf("run %d: %d median requests, want %d (TTFT in p45…p55)", run, p.Median.Requests, want)
		}
		if p.Tail.Requests != res.TailCount || p.BandLo != MedianBandLo || p.BandHi != MedianBandHi {
			t.Errorf("run %d: tail group %d, tail %d; band %v–%v", run, p.Tail.Requests, res.TailCount, p.BandLo, p.BandHi)
		}
		for s, st := range res.Stages {
			if math.Abs(st.TailMeanMS-p.Tail.StageMeanMS[s]) > 1e-9*(1+st.TailMeanMS) {
				t.Errorf("run %d, %s: tail mean %v in the profile, %v in the shares", run, st.Name, p.Tail.StageMeanMS[s], st.TailMeanMS)
			}
		}
	}
}

// bandCount counts the requests with p(45) ≤ TTFT ≤ p(55), independently.
func bandCount(reqs []Request) int {
	v := make([]float64, len(reqs))
	for i := range reqs {
		v[i] = float64(reqs[i].TTFT) / 1e6
	}
	slices.Sort(v)
	lo, _ := stats.Percentile(v, 45)
	hi, _ := stats.Percentile(v, 55)
	n := 0
	for _, x := range v {
		if lo <= x && x <= hi {
			n++
		}
	}
	return n
}

// TestProfileFewRequests: with 8 requests no TTFT lies between p(45) and
// p(55); the band takes the two either side, and the JSON has no NaN.
func TestProfileFewRequests(t *testing.T) {
	t.Parallel()
	reqs := randomRequests(rand.New(rand.NewPCG(1, 2)), 8)
	o := DefaultOptions()
	o.Tail = 75
	res, err := Analyze(reqs, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile.Median.Requests != 2 {
		t.Errorf("%d median requests, want the 2 around the median", res.Profile.Median.Requests)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"profile":{"median_band_lo_percentile":45,"median_band_hi_percentile":55,`) {
		t.Errorf("JSON lacks the profile and its band: %s", b)
	}
}

// TestProfileTables: the text and Markdown forms have the profile's title
// and one row per stage, then the TTFT, with the difference.
func TestProfileTables(t *testing.T) {
	t.Parallel()
	res, err := Analyze(synth(5000, 3, &causes[5]), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var text, md strings.Builder
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	title := "Mean time per stage: median requests (TTFT p45–p55, "
	rows := res.profileRows()
	if len(rows) != NumStages+1 || rows[NumStages][0] != "TTFT" || rows[Wait][0] != "wait" || !strings.HasPrefix(rows[Wait][3], "+") {
		t.Fatalf("rows %v", rows)
	}
	for _, row := range rows {
		if !hasLine(text.String(), strings.Join(row[:], " ")) {
			t.Errorf("text lacks the row %v:\n%s", row, text.String())
		}
		if !strings.Contains(md.String(), "| "+strings.Join(row[:], " | ")+" |") {
			t.Errorf("Markdown lacks the row %v", row)
		}
	}
	if !strings.Contains(text.String(), title) || !strings.Contains(md.String(), title) {
		t.Errorf("no profile title %q", title)
	}
}

// hasLine reports whether a line of text has the words of want.
func hasLine(text, want string) bool {
	for _, line := range strings.Split(text, "\n") {
		if slices.Equal(strings.Fields(line), strings.Fields(want)) {
			return true
		}
	}
	return false
}

// TestProfileExactMeans: a stage the same in every request (send, 0.2 ms)
// has that mean exactly in both groups, and no difference.
func TestProfileExactMeans(t *testing.T) {
	t.Parallel()
	var reqs []Request
	for _, r := range recordstest.SlowInstance(3000) {
		if q, ok := FromRecord(&r); ok {
			reqs = append(reqs, q)
		}
	}
	res, err := Analyze(reqs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if p.Median.StageMeanMS[Send] != 0.2 || p.Tail.StageMeanMS[Send] != 0.2 {
		t.Errorf("send means %v and %v, want 0.2 exactly", p.Median.StageMeanMS[Send], p.Tail.StageMeanMS[Send])
	}
	if row := res.profileRows()[Send]; row != [4]string{"send", "0.2 ms", "0.2 ms", "+0 ms"} {
		t.Errorf("send row %q", row)
	}
}
