package sweep

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// TestRealK6AgainstMock sweeps scripts/capacity.js with real k6 (K6_BIN, or k6
// on PATH; skipped without) against the built-in mock with fixed service
// times — 4 slots, no jitter, a fixed output length — so its capacity is
// slots / (prefill + (tokens−1)·ITL). The search's highest passing rate must
// lie within ±10% of it, and independent reruns must agree: the found rate
// meets the SLO, 15% above it the level does not pass.
func TestRealK6AgainstMock(t *testing.T) {
	if _, err := runner.FindK6(os.Environ()); err != nil {
		t.Skipf("no real k6: %v", err)
	}
	if testing.Short() {
		t.Skip("-short: the real-k6 sweep takes about a minute")
	}
	const (
		slots   = 4
		prefill = 200 * time.Millisecond
		itl     = 20 * time.Millisecond
		tokens  = 9
	)
	c := capacity(slots, prefill, itl, tokens) // 11.1 req/s
	dir := t.TempDir()
	profile := filepath.Join(dir, "fixed.json")
	prof := fmt.Sprintf(`{"seed":1,"slots":%d,"default":{"prefill":{"base":%q,"per_input_token":0,"jitter":{"dist":"none"}},`+
		`"itl":{"base":%q,"jitter":{"dist":"none"}},"output_tokens":%d}}`, slots, prefill, itl, tokens)
	if err := os.WriteFile(profile, []byte(prof), 0o600); err != nil {
		t.Fatal(err)
	}
	// TTFT is the prefill below the capacity; above it the queue adds to it.
	checks, err := ParseSLO([]string{fmt.Sprintf("llm_ttft: p(50)<%d", (prefill + 100*time.Millisecond).Milliseconds())}, 1)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LLM_BASE_URL=", "LLM_RATE=", "LLM_VUS=")
	sweepWith := func(name string, plan Plan) *Result {
		out := filepath.Join(dir, name)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		res, err := Execute(context.Background(), Config{
			Spec: DefaultSpec(Rate, checks), Plan: plan, OutDir: out, Progress: testWriter{t},
			Exec: K6{Mode: Rate, Script: "../../scripts/capacity.js", Duration: "6s", Env: env, MockProfile: profile},
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, l := range res.Levels {
			t.Logf("%s: level %g: achieved %s req/s, TTFT p50 %s ms: %s %v", name, l.Offered, fmtPtr(l.AchievedRPS),
				fmtQuantile(l.dist(MetricTTFT), "p(50)"), l.Verdict, l.Saturation)
		}
		return res
	}
	res := sweepWith("search", Search{Mode: Rate, Min: 2, Max: 32, Resolution: 0.05, Budget: 10})
	if res.MaxPassing == nil || math.Abs(*res.MaxPassing-c) > 0.1*c {
		t.Fatalf("highest passing rate %v, want within ±10%% of the capacity %.2f req/s", res.MaxPassing, c)
	}
	found := *res.MaxPassing
	// The rerun must meet the SLO. Its saturation tests may still fire: at
	// the found rate the server runs at up to 100% of its capacity, where a
	// stall of the shared machine leaves a queue that drains only slowly.
	again := sweepWith("rerun", Fixed{Levels: []float64{found}})
	for _, l := range again.Levels[0].Limits {
		if l.Verdict != result.Pass {
			t.Errorf("rerun at %g req/s: %s: %s (%s), want pass", found, l.Check, l.Verdict, l.Reason)
		}
	}
	above := Rate.Round(found * 1.15)
	if again := sweepWith("above", Fixed{Levels: []float64{above}}); again.Levels[0].Pass {
		t.Errorf("rerun at %g req/s (15%% above): pass, want a failure", above)
	}
}

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(string(b))
	return len(b), nil
}
