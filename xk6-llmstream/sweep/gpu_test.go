package sweep

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// TestGPUTableAndEnergy: the GPU table shows each level's utilization,
// memory, power and SM clock, and the energy per output token is the mean
// power over the output tokens per second (J/token).
func TestGPUTableAndEnergy(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	lv := Level{Index: 1, Offered: 4, OutputTPS: f(200), Server: &ServerSignals{GPU: &GPUSignals{GPUs: 2,
		Util: SignalStat{f(80), f(60)}, MemUsed: SignalStat{f(130000), f(120000)},
		Power: SignalStat{f(1200), f(900)}, Clock: SignalStat{f(1980), f(1800)}}}}
	lv.setEnergy()
	if e := lv.Server.GPU.EnergyPerTokenJ; e == nil || *e != 4.5 {
		t.Fatalf("energy %v, want 900 W / 200 token/s = 4.5 J/token", e)
	}
	noTokens := Level{Index: 2, Offered: 8, Server: &ServerSignals{GPU: &GPUSignals{Power: SignalStat{f(1), f(1)}}}}
	noTokens.setEnergy()
	if noTokens.Server.GPU.EnergyPerTokenJ != nil {
		t.Error("energy without output tokens")
	}
	var b bytes.Buffer
	if err := writeServerTable(&b, &Result{Unit: "req/s", Levels: []Level{lv, noTokens}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"util % peak/mean", "80 / 60", "130000 / 120000", "1200 / 900", "1800", "4.5", "J/output token"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "running peak/mean") {
		t.Errorf("a server table without --scrape:\n%s", out)
	}
}

// TestRealK6GPUTelemetry sweeps scripts/capacity.js with real k6 (K6_BIN,
// or k6 on PATH; skipped without) at 2 and 8 req/s against the mock (4
// slots, fixed service time S = prefill + 8·ITL = 360 ms) with its
// DCGM-like page scraped (Scrape.GPU = ScrapeMock): each level shows
// utilization, power and the energy per output token; utilization follows
// the mock's load (Little's law: rate·S/slots, 18% and 72%, ± the sampling
// of a few scrapes), power follows it by the mock's rule, and the energy is
// the mean power over the level's output tokens per second.
func TestRealK6GPUTelemetry(t *testing.T) {
	if _, err := runner.FindK6(os.Environ()); err != nil {
		t.Skipf("no real k6 (set K6_BIN or put k6 on PATH): %v", err)
	}
	if testing.Short() {
		t.Skip("-short: the real-k6 sweep takes about 20 s")
	}
	const (
		slots   = 4
		prefill = 200 * time.Millisecond
		itl     = 20 * time.Millisecond
		tokens  = 9
	)
	service := prefill + (tokens-1)*itl
	dir := t.TempDir()
	profile := filepath.Join(dir, "fixed.json")
	prof := fmt.Sprintf(`{"seed":1,"slots":%d,"gpus":2,"default":{"prefill":{"base":%q,"per_input_token":0,"jitter":{"dist":"none"}},`+
		`"itl":{"base":%q,"jitter":{"dist":"none"}},"output_tokens":%d}}`, slots, prefill, itl, tokens)
	if err := os.WriteFile(profile, []byte(prof), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LLM_BASE_URL=", "LLM_RATE=", "LLM_VUS=")
	res, err := Execute(context.Background(), Config{
		Spec: DefaultSpec(Rate, nil), Plan: Fixed{Levels: []float64{2, 8}}, OutDir: dir, Progress: testWriter{t},
		Exec:   K6{Mode: Rate, Script: "../../scripts/capacity.js", Duration: "8s", Env: env, MockProfile: profile},
		Scrape: Scrape{GPU: ScrapeMock, Interval: 250 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeServerTable(&b, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b.String())
	var utils []float64
	for _, l := range res.Levels {
		if l.Server == nil || l.Server.GPU == nil {
			t.Fatalf("level %g: no GPU signals (server %+v)", l.Offered, l.Server)
		}
		g := l.Server.GPU
		if g.GPUs != 2 || g.Util.Mean == nil || g.Power.Mean == nil || g.MemUsed.Mean == nil || g.Clock.Mean == nil || g.EnergyPerTokenJ == nil {
			t.Fatalf("level %g: GPU %+v", l.Offered, g)
		}
		busy := l.Offered * service.Seconds() / slots
		if math.Abs(*g.Util.Mean-100*busy) > 20 {
			t.Errorf("level %g: utilization mean %.1f%%, want %.0f%% ± 20 (rate × S / slots)", l.Offered, *g.Util.Mean, 100*busy)
		}
		// The mock's rule, per GPU, summed over 2: idle + (max − idle) × util.
		if want := 2 * (70 + 630**g.Util.Mean/100); math.Abs(*g.Power.Mean-want) > 2*630*0.01+1e-9 {
			t.Errorf("level %g: power mean %.1f W, want %.1f W from the utilization", l.Offered, *g.Power.Mean, want)
		}
		if want := *g.Power.Mean / *l.OutputTPS; math.Abs(*g.EnergyPerTokenJ-want) > 1e-9 {
			t.Errorf("level %g: energy %v J/token, want %v", l.Offered, *g.EnergyPerTokenJ, want)
		}
		utils = append(utils, *g.Util.Mean)
	}
	if len(utils) != 2 || utils[1] <= utils[0] {
		t.Errorf("utilization %v does not grow with the load", utils)
	}
	if !strings.Contains(b.String(), "J/output token") {
		t.Errorf("no GPU table:\n%s", b.String())
	}
}
