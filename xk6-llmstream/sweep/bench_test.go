package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkLevelOverhead prints the sweep's own time per level with the
// stand-in k6: the gap from one k6 run's exit to the next one's start (the
// runner starting and stopping the helper and the mock, reading and judging
// the level, planning), and the analysis part of it.
//
//	go test ./sweep -run '^$' -bench LevelOverhead -benchtime 1x
func BenchmarkLevelOverhead(b *testing.B) {
	for range b.N {
		times := filepath.Join(b.TempDir(), "times")
		s := newStandIn(b, map[string]string{fakeTimesLog: times, "LLM_DURATION": "20s"})
		checks, _ := ParseSLO([]string{"llm_ttft: p(90)<1000"}, 0.05)
		res, err := Execute(context.Background(), Config{
			Spec: DefaultSpec(Rate, checks), Plan: Fixed{Levels: []float64{5, 10, 15, 20, 25, 30, 35, 40}}, OutDir: s.dir,
			Exec: K6{Mode: Rate, Script: "capacity.js", Duration: "20s", Env: s.environ()},
		})
		if err != nil {
			b.Fatal(err)
		}
		raw, err := os.ReadFile(times)
		if err != nil {
			b.Fatal(err)
		}
		var starts, ends []int64
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			a, z, _ := strings.Cut(line, " ")
			st, _ := strconv.ParseInt(a, 10, 64)
			en, _ := strconv.ParseInt(z, 10, 64)
			starts, ends = append(starts, st), append(ends, en)
		}
		var gap time.Duration
		for i := 1; i < len(starts); i++ {
			gap += time.Duration(starts[i] - ends[i-1])
		}
		var analysis float64
		var samples int64
		for _, l := range res.Levels {
			analysis += l.AnalysisS
			samples += l.Requests
		}
		n := float64(len(starts) - 1)
		b.ReportMetric(gap.Seconds()/n*1000, "ms-between-k6-runs")
		b.ReportMetric(analysis/float64(len(res.Levels))*1000, "ms-analysis/level")
		b.ReportMetric(float64(samples)/float64(len(res.Levels)), "requests/level")
	}
}

// BenchmarkAnalyzeLevel prints the time to read and judge one level of about
// 1 M samples (22,700 requests of 40 tokens: 44 llm_* samples each).
//
//	go test ./sweep -run '^$' -bench AnalyzeLevel -benchtime 3x
func BenchmarkAnalyzeLevel(b *testing.B) {
	out := filepath.Join(b.TempDir(), "level.json.gz")
	p := fakeParams{rate: 100, duration: 227 * time.Second, grace: 30 * time.Second, slots: 100, tokens: 40,
		prefill: 20 * time.Millisecond, itl: 10 * time.Millisecond, maxVUs: 1000, out: out, level: "100"}
	if err := writeFakeOutput(p); err != nil {
		b.Fatal(err)
	}
	checks, _ := ParseSLO([]string{"llm_ttft: p(99)<2000", "llm_tpot: p(90)<50", "llm_itl: p(99)<100"}, 0.01)
	spec := DefaultSpec(Rate, checks)
	b.ReportAllocs()
	b.ResetTimer()
	var samples int
	for range b.N {
		rd, err := K6JSON{}.Read(out, spec.Want())
		if err != nil {
			b.Fatal(err)
		}
		lv := spec.Evaluate(rd, 100, nil)
		if !lv.Pass {
			b.Fatalf("level: %s %v %+v", lv.Verdict, lv.Saturation, lv.Limits)
		}
		samples = 0
		for _, d := range rd.Streams {
			samples += int(d.Count)
		}
	}
	b.ReportMetric(float64(samples), "samples")
}
