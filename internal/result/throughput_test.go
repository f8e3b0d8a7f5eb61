package result_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// fakeReq is one request as the test makes it up.
type fakeReq struct {
	id, model     string
	start, end    time.Time
	ttft, e2e     float64 // ms
	output, input int
	failed        bool
}

// writeRun writes k6 JSON for the requests: each request's samples carry
// its id in metadata, and the lines of all requests are interleaved by time.
func writeRun(t *testing.T, reqs []fakeReq) string {
	t.Helper()
	type line struct {
		at time.Time
		s  string
	}
	var lines []line
	point := func(q fakeReq, metric string, at time.Time, v float64) {
		lines = append(lines, line{at, fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":%q,"value":%g,"tags":{"model":%q},"metadata":{"llm_request_id":%q}}}`,
			metric, at.Format(time.RFC3339Nano), v, q.model, q.id)})
	}
	for _, q := range reqs {
		first := q.start.Add(time.Duration(q.ttft * float64(time.Millisecond)))
		point(q, "llm_ttft", first, q.ttft)
		point(q, "llm_input_tokens", first, float64(q.input))
		if !q.failed {
			point(q, "llm_e2e", q.end, q.e2e)
			point(q, "llm_output_tokens", q.end, float64(q.output))
		}
		point(q, "llm_requests_failed", q.end, map[bool]float64{true: 1, false: 0}[q.failed])
	}
	slices.SortStableFunc(lines, func(a, b line) int { return a.at.Compare(b.at) })
	var b strings.Builder
	for _, d := range [][3]string{{"llm_ttft", "trend", "time"}, {"llm_e2e", "trend", "time"}, {"llm_input_tokens", "counter", "default"},
		{"llm_output_tokens", "counter", "default"}, {"llm_requests_failed", "rate", "default"}} {
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q},"metric":%q}`+"\n", d[0], d[1], d[2], d[0])
	}
	for _, l := range lines {
		b.WriteString(l.s + "\n")
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func makeRequests(n int) []fakeReq {
	rng := rand.New(rand.NewPCG(7, 11))
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var reqs []fakeReq
	for i := range n {
		q := fakeReq{id: fmt.Sprintf("1-%d", i), model: []string{"a", "b"}[i%2],
			start: t0.Add(time.Duration(rng.Float64() * float64(20*time.Second))),
			ttft:  50 + 400*rng.Float64(), output: 5 + rng.IntN(60), input: 10 + rng.IntN(200), failed: rng.Float64() < 0.1}
		q.e2e = q.ttft + float64(q.output)*(10+20*rng.Float64())
		q.end = q.start.Add(time.Duration(q.e2e * float64(time.Millisecond)))
		reqs = append(reqs, q)
	}
	return reqs
}

// TestThroughputByHand: every throughput figure of every group equals a
// count by hand over the made-up requests.
func TestThroughputByHand(t *testing.T) {
	t.Parallel()
	reqs := makeRequests(400)
	path := writeRun(t, reqs)
	checks, err := thresholds.Parse("llm_ttft: p(99)<300")
	if err != nil {
		t.Fatal(err)
	}
	r := rundata.NewReader(rundata.Selection{By: []string{"model"}}, []rundata.Input{{Path: path, Label: "run"}}, rundata.Options{Metadata: true})
	slo := &result.SLOChecks{Checks: checks, TypeOf: func(m string) k6json.Type { typ, _, _ := r.TypeOf(m); return typ }}
	join := rundata.NewRequests(slo.Streams())
	d, err := rundata.Collect(r, rundata.CollectOptions{Requests: join})
	if err != nil {
		t.Fatal(err)
	}
	o := result.DefaultOptions()
	o.Throughput = result.ThroughputOptions{Confidence: 0.95, SLO: slo}
	sum := result.Summarize(d, o)
	if len(sum.Throughput) != 2 {
		t.Fatalf("%d throughput groups, want 2", len(sum.Throughput))
	}
	for _, g := range sum.Throughput {
		var mine []fakeReq
		for _, q := range reqs {
			if "model="+q.model == g.Label {
				mine = append(mine, q)
			}
		}
		first, last := mine[0].end, mine[0].end
		for _, q := range mine {
			first, last = minTime(first, q.end), maxTime(last, q.end)
		}
		window := last.Sub(first).Seconds()
		var counted, ok, good, failed int
		var out, total float64
		for _, q := range mine {
			if q.failed {
				failed++
			}
			if !q.end.After(first) {
				continue
			}
			counted++
			if !q.failed {
				ok++
				out += float64(q.output)
				total += float64(q.output + q.input)
				if q.ttft < 300 {
					good++
				}
			}
		}
		approx(t, g.Label+" window", g.WindowS, window)
		if g.Requests != int64(len(mine)) || g.Failed != int64(failed) || g.Counted != int64(counted) || g.Good != int64(good) {
			t.Errorf("%s: requests %d failed %d counted %d good %d; by hand %d %d %d %d", g.Label, g.Requests, g.Failed, g.Counted, g.Good, len(mine), failed, counted, good)
		}
		for _, c := range []struct {
			name string
			got  result.Rate
			want float64
		}{{"req/s", g.RPS, float64(counted) / window}, {"achieved", g.AchievedRPS, float64(ok) / window},
			{"output tok/s", g.OutputTPS, out / window}, {"total tok/s", g.TotalTPS, total / window}, {"goodput", g.GoodputRPS, float64(good) / window}} {
			if c.got.Value == nil || c.got.Low == nil || c.got.High == nil {
				t.Errorf("%s %s: undefined", g.Label, c.name)
				continue
			}
			approx(t, g.Label+" "+c.name, *c.got.Value, c.want)
			if !(*c.got.Low < c.want && c.want < *c.got.High) {
				t.Errorf("%s %s: interval [%g, %g] does not hold %g", g.Label, c.name, *c.got.Low, *c.got.High, c.want)
			}
		}
		checkRequestRates(t, g, mine)
	}
}

// checkRequestRates: the per-request rates' count and median by hand.
func checkRequestRates(t *testing.T, g result.Throughput, mine []fakeReq) {
	t.Helper()
	var outRates, prefill []float64
	for _, q := range mine {
		if !q.failed {
			outRates = append(outRates, float64(q.output)/(q.e2e/1000))
			prefill = append(prefill, float64(q.input)/(q.ttft/1000))
		}
	}
	for _, c := range []struct {
		name string
		d    result.RateDist
		v    []float64
	}{{"output", g.RequestOutputTPS, outRates}, {"prefill", g.RequestPrefillTPS, prefill}} {
		slices.Sort(c.v)
		if c.d.Count != len(c.v) || len(c.d.Percentiles) != len(result.RequestPercentiles) {
			t.Fatalf("%s %s: count %d percentiles %d, want %d", g.Label, c.name, c.d.Count, len(c.d.Percentiles), len(c.v))
		}
		// k6's p(50) of an even count is the mean of the middle two.
		n := len(c.v)
		med := c.v[(n-1)/2] + (c.v[n/2]-c.v[(n-1)/2])*0.5*float64(1-n%2)
		approx(t, g.Label+" "+c.name+" median", c.d.Percentiles[1].Value, med)
	}
}

func approx(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: %g, by hand %g", what, got, want)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestThroughputPerFileAlone: two runs given together give, per file, exactly
// the throughput each gives alone, whether their ids are unique across runs
// (a random prefix) or of an older release that restarted them every run
// ("1-0", "1-1", ... in both files).
func TestThroughputPerFileAlone(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		runA, runB := makeRequests(120), makeRequests(90)
		for i := range runA {
			runA[i].id = fmt.Sprintf("aaaaaaaaaaaa-%s", runA[i].id)
		}
		for i := range runB {
			runB[i].id = fmt.Sprintf("bbbbbbbbbbbb-%s", runB[i].id)
			runB[i].start, runB[i].end = runB[i].start.Add(time.Hour), runB[i].end.Add(time.Hour)
		}
		if legacy {
			for _, run := range [][]fakeReq{runA, runB} {
				for i := range run {
					run[i].id = run[i].id[13:]
				}
			}
		}
		a, b := writeRun(t, runA), writeRun(t, runB)
		measure := func(ins ...rundata.Input) map[string]result.Throughput {
			r := rundata.NewReader(rundata.Selection{By: []string{"file"}}, ins, rundata.Options{Metadata: true})
			join := rundata.NewRequests(nil)
			d, err := rundata.Collect(r, rundata.CollectOptions{Requests: join})
			if err != nil {
				t.Fatal(err)
			}
			o := result.DefaultOptions()
			o.Throughput = result.ThroughputOptions{Confidence: 0.95}
			out := map[string]result.Throughput{}
			for _, g := range result.Summarize(d, o).Throughput {
				out[g.Label] = g
			}
			if got := len(join.LegacyFiles) > 0; got != legacy {
				t.Errorf("legacy ids %v: the join saw legacy files %v", legacy, join.LegacyFiles)
			}
			return out
		}
		both := measure(rundata.Input{Path: a, Label: "a"}, rundata.Input{Path: b, Label: "b"})
		for label, path := range map[string]string{"a": a, "b": b} {
			alone := measure(rundata.Input{Path: path, Label: label})
			var want result.Throughput
			for _, g := range alone {
				want = g
			}
			got := both["file="+label]
			if got.Counted != want.Counted || *got.RPS.Value != *want.RPS.Value || got.WindowS != want.WindowS {
				t.Errorf("legacy %v, file %s: together %d requests at %v req/s over %v s; alone %d at %v over %v",
					legacy, label, got.Counted, *got.RPS.Value, got.WindowS, want.Counted, *want.RPS.Value, want.WindowS)
			}
		}
	}
}
