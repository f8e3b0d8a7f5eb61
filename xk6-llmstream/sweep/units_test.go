package sweep

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// TestSearchPlan drives Search with an oracle (a level passes when it is at
// most c) for many capacities: the result must be within the resolution below
// c, within the budget, and follow ×2 bracketing then bisection.
func TestSearchPlan(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{0.5, 1, 3.3, 7, 44.4, 63, 64, 100} {
		s := Search{Mode: Rate, Min: 1, Max: 64, Resolution: 0.05, Budget: 14}
		var done []Level
		for {
			lv, ok, why := s.Next(done)
			if !ok {
				t.Logf("c=%g: %v: %s", c, levelsOf(done), why)
				break
			}
			done = append(done, Level{Offered: lv, Pass: lv <= c})
		}
		got := MaxPassing(done)
		switch {
		case c < 1:
			if !math.IsNaN(got) || len(done) != 1 {
				t.Errorf("c=%g: %v, max %g: want one level and none passing", c, levelsOf(done), got)
			}
		case c >= 64:
			if got != 64 {
				t.Errorf("c=%g: max %g, want --max", c, got)
			}
		default:
			if got > c || got < c*(1-0.05)-0.01*c || len(done) > s.Budget {
				t.Errorf("c=%g: %v, max %g: want within 5%% below c", c, levelsOf(done), got)
			}
		}
		for i := 1; i < len(done) && done[i-1].Pass && done[i].Offered > done[i-1].Offered; i++ {
			if done[i].Offered != math.Min(2*done[i-1].Offered, 64) {
				t.Errorf("c=%g: bracketing went %g → %g, want ×2", c, done[i-1].Offered, done[i].Offered)
			}
		}
	}
}

func levelsOf(done []Level) []float64 {
	var out []float64
	for _, l := range done {
		out = append(out, l.Offered)
	}
	return out
}

func TestSearchVUsStopsBetweenNeighbours(t *testing.T) {
	t.Parallel()
	s := Search{Mode: VUs, Min: 1, Max: 64, Resolution: 0.01, Budget: 20}
	var done []Level
	for {
		lv, ok, why := s.Next(done)
		if !ok {
			if !strings.Contains(why, "no level between") {
				t.Errorf("stopped: %s", why)
			}
			break
		}
		if lv != math.Trunc(lv) {
			t.Fatalf("VU level %g is not whole", lv)
		}
		done = append(done, Level{Offered: lv, Pass: lv <= 5})
	}
	if MaxPassing(done) != 5 {
		t.Errorf("%v: max %g, want 5", levelsOf(done), MaxPassing(done))
	}
}

func TestMaxPassingIgnoresPassesAboveAFailure(t *testing.T) {
	t.Parallel()
	done := []Level{{Offered: 2, Pass: true}, {Offered: 4, Pass: false, Verdict: result.Inconclusive}, {Offered: 8, Pass: true}}
	if got := MaxPassing(done); got != 2 {
		t.Errorf("max passing %g, want 2", got)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	seq := func(n int, f func(i int) float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = f(i)
		}
		sort.Float64s(x)
		return x
	}
	flat := seq(1000, func(i int) float64 { return 100 + float64(i%100) }) // 100..199
	cases := []struct {
		check string
		data  thresholds.Data
		want  result.Verdict
	}{
		{"llm_ttft: p(99)<250", thresholds.Data{Type: k6json.Trend, Sorted: flat, Count: 1000}, result.Pass},
		{"llm_ttft: p(99)<199", thresholds.Data{Type: k6json.Trend, Sorted: flat, Count: 1000}, result.Inconclusive},
		{"llm_ttft: p(50)<120", thresholds.Data{Type: k6json.Trend, Sorted: flat, Count: 1000}, result.Fail},
		{"llm_ttft: p(99)<250", thresholds.Data{Type: k6json.Trend, Sorted: flat[:50], Count: 50}, result.Inconclusive}, // no upper bound from 50 samples
		{"llm_ttft: p(50)>90", thresholds.Data{Type: k6json.Trend, Sorted: flat, Count: 1000}, result.Pass},
		{"llm_ttft: med<=150", thresholds.Data{Type: k6json.Trend, Sorted: flat, Count: 1000}, result.Inconclusive},
		{"llm_ttft: avg<200", thresholds.Data{Type: k6json.Trend, Sorted: flat, Count: 1000}, result.Pass},
		{"llm_ttft: p(99)<250", thresholds.Data{Type: k6json.Trend}, result.Fail}, // no data fails closed
		{"llm_requests_failed: rate<0.01", thresholds.Data{Type: k6json.Rate, Count: 1000, NonZero: 0}, result.Pass},
		{"llm_requests_failed: rate<0.01", thresholds.Data{Type: k6json.Rate, Count: 100, NonZero: 0}, result.Inconclusive},
		{"llm_requests_failed: rate<0.01", thresholds.Data{Type: k6json.Rate, Count: 1000, NonZero: 50}, result.Fail},
		{"llm_slo_met: rate>0.9", thresholds.Data{Type: k6json.Rate, Count: 1000, NonZero: 990}, result.Pass},
	}
	for _, tc := range cases {
		cs, err := thresholds.Parse(tc.check)
		if err != nil {
			t.Fatal(err)
		}
		if got := judge(cs[0], tc.data, 0.95); got.Verdict != tc.want {
			t.Errorf("%s on %d samples: %s (%s), want %s", tc.check, tc.data.Count, got.Verdict, got.Reason, tc.want)
		}
		// analyze check's rule (result.Judge) is the same rule.
		if got := result.Judge(cs[0], tc.data, 0.95); string(got.Verdict) != string(tc.want) {
			t.Errorf("result.Judge: %s on %d samples: %s (%s), want %s", tc.check, tc.data.Count, got.Verdict, got.Reason, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	bad := []struct {
		err  error
		want string
	}{
		{second(ParseLevels("4,2", Rate)), "increasing"},
		{second(ParseLevels("1.5", VUs)), "whole"},
		{second(ParseLevels("0", Rate)), "positive"},
		{second(ParseResolution("150%")), "between 0 and 1"},
		{second(ParseSLO([]string{"llm_requests_failed: p(99)<1"}, 0.01)), "does not apply"},
		{second(ParseSLO([]string{"llm_ttft p99"}, 0.01)), "METRIC: EXPRESSION"},
		{Search{Mode: Rate, Min: 8, Max: 4, Resolution: 0.05, Budget: 4}.Validate(), "below --min"},
	}
	for _, b := range bad {
		if b.err == nil || !strings.Contains(b.err.Error(), b.want) {
			t.Errorf("error %v, want one saying %q", b.err, b.want)
		}
	}
	if r, err := ParseResolution("5%"); err != nil || r != 0.05 {
		t.Errorf("5%%: %v %v", r, err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestThroughputByHand checks a level's figures against an independent count
// of the raw samples: a saturated level whose queue outlasts the graceful stop
// (so some requests fail) with an SLO some requests miss.
func TestThroughputByHand(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "level.json.gz")
	p := fakeParams{rate: 60, duration: 5 * time.Second, grace: time.Second, slots: 4, tokens: 8,
		prefill: 20 * time.Millisecond, itl: 10 * time.Millisecond, maxVUs: 1000, out: out, level: "60"}
	if err := writeFakeOutput(p); err != nil {
		t.Fatal(err)
	}
	checks, err := ParseSLO([]string{"llm_ttft: p(90)<500"}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	spec := DefaultSpec(Rate, checks)
	spec.LevelDuration = p.duration
	rd, err := K6JSON{}.Read(out, spec.Want())
	if err != nil {
		t.Fatal(err)
	}
	lv := spec.Evaluate(rd, 60, nil)

	// By hand: every request's end, failure, tokens and TTFT from the raw lines.
	type req struct {
		end          time.Time
		failed, ttft float64
		tokens       float64
		hasTTFT      bool
	}
	reqs := map[string]*req{}
	f, _ := os.Open(out)
	defer f.Close()
	zr, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		var line struct {
			Type, Metric string
			Data         struct {
				Time     time.Time
				Value    float64
				Metadata map[string]string
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		id := line.Data.Metadata["llm_request_id"]
		if line.Type != "Point" || id == "" {
			continue
		}
		r := reqs[id]
		if r == nil {
			r = &req{}
			reqs[id] = r
		}
		switch line.Metric {
		case "llm_requests_failed":
			r.end, r.failed = line.Data.Time, line.Data.Value
		case "llm_output_tokens":
			r.tokens += line.Data.Value
		case "llm_ttft":
			r.ttft, r.hasTTFT = line.Data.Value, true
		}
	}
	var all []*req
	for _, r := range reqs {
		all = append(all, r)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].end.Before(all[j].end) })
	window := all[len(all)-1].end.Sub(all[0].end).Seconds()
	var n, ok, okAll, good, failed float64
	var tokens float64
	for i, r := range all {
		failed += r.failed
		if r.failed == 0 {
			okAll++
		}
		if i == 0 {
			continue
		}
		n++
		if r.failed == 0 {
			ok++
			tokens += r.tokens
			if r.hasTTFT && r.ttft < 500 {
				good++
			}
		}
	}
	if failed == 0 || good == ok {
		t.Fatalf("the level should have failures (%g) and requests over the TTFT limit (good %g of %g)", failed, good, ok)
	}
	near := func(name string, got *float64, want float64) {
		if got == nil || math.Abs(*got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s %v, by hand %g", name, got, want)
		}
	}
	near("window", &lv.WindowS, window)
	near("rps", lv.RPS, n/window)
	near("achieved", lv.AchievedRPS, math.Min(ok/window, okAll/p.duration.Seconds())) // the lower of the window's and the whole level's
	near("output tok/s", lv.OutputTPS, tokens/window)
	near("goodput", lv.GoodputRPS, good/window)
	near("failure rate", lv.FailureRate, failed/float64(len(all)))
	if lv.Requests != int64(len(all)) || lv.Verdict != result.Saturated {
		t.Errorf("requests %d (by hand %d), verdict %s", lv.Requests, len(all), lv.Verdict)
	}
}
