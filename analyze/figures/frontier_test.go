package figures

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/sweep"
)

// dominated is whether some other point of pts is at least as high on both
// axes and higher on one than pts[i].
func dominated(pts plot.XYs, i int) bool {
	for j, q := range pts {
		if j != i && q.X >= pts[i].X && q.Y >= pts[i].Y && (q.X > pts[i].X || q.Y > pts[i].Y) {
			return true
		}
	}
	return false
}

// TestParetoFrontProperty: over random point sets (small integer grids, so
// that ties on an axis and equal points are common), no frontier point is
// dominated, every point off it is, and the frontier is never empty.
func TestParetoFrontProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(39, 1))
	for round := 0; round < 2000; round++ {
		n := 1 + r.IntN(12)
		pts := make(plot.XYs, n)
		for i := range pts {
			pts[i].X, pts[i].Y = float64(r.IntN(6)), float64(r.IntN(6))
		}
		on := ParetoFront(pts)
		if len(on) != n || !slices.Contains(on, true) {
			t.Fatalf("%v: front %v", pts, on)
		}
		for i := range pts {
			if on[i] == dominated(pts, i) {
				t.Fatalf("%v: point %d %v on the front %v, dominated %v", pts, i, pts[i], on[i], dominated(pts, i))
			}
		}
	}
	// Known answer: (1,5) and (4,4) and (5,1) are on it; (1,1), (3,3) and
	// (4,1) are beaten.
	pts := plot.XYs{{X: 1, Y: 5}, {X: 1, Y: 1}, {X: 3, Y: 3}, {X: 4, Y: 4}, {X: 5, Y: 1}, {X: 4, Y: 1}}
	if got, want := ParetoFront(pts), []bool{true, false, false, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("front %v, want %v", got, want)
	}
}

// serveLevel is a level with TPOT p50 tpot ms and out output tokens/s.
func serveLevel(offered, tpot, out float64, pass bool, gpus int) sweep.Level {
	l := sweepLevel(offered, offered, 200, 2*tpot)
	l.OutputTPS, l.Pass = ptr(out), pass
	if gpus > 0 {
		l.Server = &sweep.ServerSignals{GPU: &sweep.GPUSignals{GPUs: gpus}}
	}
	return l
}

// TestDrawConfigs: a server sweep of three configurations, the second
// failed, draws the frontier and each configuration's capacity figures,
// and its table gives each configuration's highest goodput under the SLO
// and whether it reaches the frontier; with DCGM telemetry the throughput
// is per GPU.
func TestDrawConfigs(t *testing.T) {
	t.Parallel()
	for _, gpus := range []int{0, 2} {
		res := &sweep.Result{Version: sweep.ResultVersion, Mode: "rate", Unit: "req/s", SLO: []string{"llm_tpot: p(50)<45"}, Levels: []sweep.Level{},
			Configs: []sweep.ConfigResult{
				{Index: 1, Name: "slots=2", Status: sweep.ConfigDone, MaxPassing: ptr(4),
					Levels: []sweep.Level{serveLevel(2, 20, 100, true, gpus), serveLevel(4, 20, 180, true, gpus)}},
				{Index: 2, Name: "slots=4", Status: sweep.ConfigFailed, Reason: "the server exited (signal: killed)",
					Levels: []sweep.Level{serveLevel(2, 25, 150, true, gpus)}},
				{Index: 3, Name: "slots=8", Status: sweep.ConfigDone, MaxPassing: ptr(8),
					Levels: []sweep.Level{serveLevel(4, 30, 200, true, gpus), serveLevel(8, 40, 400, true, gpus), serveLevel(16, 90, 500, false, gpus)}},
			}}
		path, s := writeSweep(t, res)
		if len(s.Configs) != 3 || s.Configs[2].Levels[1].gpus() != gpus {
			t.Fatalf("read %+v", s.Configs)
		}
		dir := t.TempDir()
		var out bytes.Buffer
		if err := DrawSweep(s, path, dir, &out); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", out.String())
		for _, f := range []string{"frontier.png", "frontier.svg", "config-1/capacity-goodput.png", "config-3/capacity-latency.svg"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
		unit, div := "instance", 1.0
		if gpus > 0 {
			unit, div = "GPU", 2
		}
		rows := map[string]string{}
		for _, l := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[1], "slots=") {
				rows[f[1]] = strings.Join(f[2:], " ")
			}
		}
		want := map[string]string{
			"slots=2": "done 4 3.6 50 " + fmtOpt(ptr(180/div)) + " yes (1 of 2 levels)",
			"slots=4": "failed - - - - no",
			"slots=8": "done 8 7.2 25 " + fmtOpt(ptr(400/div)) + " yes (3 of 3 levels)",
		}
		if !strings.Contains(out.String(), "tok/s/"+unit) || !maps(rows, want) {
			t.Errorf("gpus %d: table rows %q, want %q (unit %s)", gpus, rows, want, unit)
		}
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
