package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// TestDeadlineGoodputRealK6: a sweep whose --slo is only a deadline
// (deadline.ttft=1s,deadline.perToken=200ms) runs one level of
// scripts/capacity.js with real k6 (K6_BIN, or k6 on PATH; skipped without)
// against the mock answering 20 tokens, 50 ms to the first and 10 ms apart,
// with one 2 s pause in every answer. Each level's helper writes records
// (level-2.records.jsonl) and goodput judges them with metrics.Deadline.Judge:
// with the pause early (pause_at 0.1, before token 3) no request meets its
// deadlines, late (0.9, before token 19) every one does — the same gaps, the
// margins ≥ 570 ms (analyze's TestDeadlineEarlyVsLateStallAgainstMock).
func TestDeadlineGoodputRealK6(t *testing.T) {
	if _, err := runner.FindK6(os.Environ()); err != nil {
		t.Skipf("no real k6: %v", err)
	}
	if testing.Short() {
		t.Skip("-short: two real-k6 levels take about 30 s")
	}
	d, exprs, err := metrics.ParseDeadline([]string{"deadline.ttft=1s,deadline.perToken=200ms"})
	if err != nil || len(exprs) != 0 {
		t.Fatal(err, exprs)
	}
	checks, err := ParseSLO(exprs, 1)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LLM_BASE_URL=", "LLM_RATE=", "LLM_VUS=")
	for _, c := range []struct {
		name string
		at   float64
		good bool
	}{{"early", 0.1, false}, {"late", 0.9, true}} {
		dir := t.TempDir()
		profile := filepath.Join(dir, "pause.json")
		prof := fmt.Sprintf(`{"seed":1,"default":{"prefill":{"base":"50ms","per_input_token":0,"jitter":{"dist":"none"}},`+
			`"itl":{"base":"10ms","jitter":{"dist":"none"}},"output_tokens":20,`+
			`"faults":{"pause":1,"pause_duration":"2s","pause_at":%g}}}`, c.at)
		if err := os.WriteFile(profile, []byte(prof), 0o600); err != nil {
			t.Fatal(err)
		}
		spec := DefaultSpec(Rate, checks)
		spec.Deadline = d
		res, err := Execute(context.Background(), Config{
			Spec: spec, Plan: Fixed{Levels: []float64{2}}, OutDir: dir, Progress: testWriter{t},
			Exec: K6{Mode: Rate, Script: "../../scripts/capacity.js", Duration: "5s", Env: env, MockProfile: profile},
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "level-2.records.jsonl")); err != nil {
			t.Errorf("%s: the level wrote no records: %v", c.name, err)
		}
		if !strings.Contains(strings.Join(res.SLO, " "), "deadline.ttft=1000ms") {
			t.Errorf("%s: sweep.json's slo %q does not name the deadline", c.name, res.SLO)
		}
		lv := res.Levels[0]
		if lv.AchievedRPS == nil || *lv.AchievedRPS <= 0 || lv.GoodputRPS == nil || lv.Throughput == nil {
			t.Fatalf("%s: achieved %v, goodput %v", c.name, lv.AchievedRPS, lv.GoodputRPS)
		}
		ok := lv.Throughput.Counted - lv.Failed
		t.Logf("%s: %d counted, %d good, goodput %.2f req/s", c.name, lv.Throughput.Counted, lv.Throughput.Good, *lv.GoodputRPS)
		if want := map[bool]int64{false: 0, true: ok}[c.good]; lv.Throughput.Good != want || ok < 3 {
			t.Errorf("%s: %d of %d successful requests good, want %d", c.name, lv.Throughput.Good, ok, want)
		}
	}
}

// TestDeadlineNeedsTheLevelsRecords: a level read for a deadline without its
// records file fails, naming the records.
func TestDeadlineNeedsTheLevelsRecords(t *testing.T) {
	t.Parallel()
	if got := RecordsPath("out/level-2.5.json.gz"); got != "out/level-2.5.records.jsonl" {
		t.Errorf("RecordsPath: %s", got)
	}
	spec := DefaultSpec(Rate, nil)
	spec.Deadline = &metrics.Deadline{TTFTMS: 200, PerTokenMS: 50}
	_, err := K6JSON{}.Read("../../testdata/k6/k6v2_llm_synthetic.json.gz", spec.Want())
	if err == nil || !strings.Contains(err.Error(), "records") {
		t.Errorf("read without records: %v, want an error naming them", err)
	}
}
