package figures

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/sweep"
)

func ptr(v float64) *float64 { return &v }

// sweepLevel is a level of the sweep's own result type, as it writes it.
func sweepLevel(offered, achieved, ttftP99, tpotP99 float64) sweep.Level {
	q := func(p99 float64) []sweep.Quantile {
		if p99 == 0 {
			return nil
		}
		return []sweep.Quantile{{Name: "p(50)", Value: ptr(p99 / 2)}, {Name: "p(90)", Value: ptr(p99 * 0.8)}, {Name: "p(99)", Value: ptr(p99)}}
	}
	l := sweep.Level{Offered: offered, AchievedRPS: ptr(achieved), GoodputRPS: ptr(achieved * 0.9),
		Latency: []sweep.Dist{{Metric: sweep.MetricTTFT, Percentiles: q(ttftP99)}}}
	if tpotP99 > 0 {
		l.Latency = append(l.Latency, sweep.Dist{Metric: sweep.MetricTPOT, Percentiles: q(tpotP99)})
	}
	return l
}

// writeSweep writes res as the sweep writes sweep.json and reads it back.
func writeSweep(t *testing.T, res *sweep.Result) (string, *Sweep) {
	t.Helper()
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sweep.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ok, err := ReadSweep(path)
	if !ok || err != nil {
		t.Fatalf("ReadSweep(sweep.json): ok %v, err %v", ok, err)
	}
	return path, s
}

// TestSweepInStep: what the figures read is what the sweep writes — its
// version, its latency percentiles, and every value drawn.
func TestSweepInStep(t *testing.T) {
	t.Parallel()
	if sweep.ResultVersion != SweepVersion {
		t.Errorf("sweep writes version %d, figures draw version %d", sweep.ResultVersion, SweepVersion)
	}
	if !slices.Equal(sweep.LatencyPercentiles, CapacityPercentiles) {
		t.Errorf("sweep percentiles %v, figures draw %v", sweep.LatencyPercentiles, CapacityPercentiles)
	}
	res := &sweep.Result{Version: sweep.ResultVersion, Mode: sweep.Rate.String(), Unit: "req/s", MaxPassing: ptr(4),
		Levels: []sweep.Level{sweepLevel(2, 2, 200, 30), sweepLevel(4, 3.5, 260, 40)}}
	_, s := writeSweep(t, res)
	if s.Mode != "rate" || s.Unit != "req/s" || *s.MaxPassing != 4 || len(s.Levels) != 2 {
		t.Fatalf("read %+v", s)
	}
	for i, l := range res.Levels {
		got := s.Levels[i]
		if got.Offered != l.Offered || *got.AchievedRPS != *l.AchievedRPS || *got.GoodputRPS != *l.GoodputRPS {
			t.Errorf("level %d: read %+v", i, got)
		}
		for _, d := range l.Latency {
			for _, q := range d.Percentiles {
				if v := got.quantile(d.Metric, q.Name); v == nil || *v != *q.Value {
					t.Errorf("level %d %s %s: read %v, want %g", i, d.Metric, q.Name, v, *q.Value)
				}
			}
		}
	}
}

// TestCapacityCurves: one point per level on every curve, the SLO limit on
// the curve of its metric and percentile only, the ideal line for arrival
// rates only, and the files written.
func TestCapacityCurves(t *testing.T) {
	t.Parallel()
	res := &sweep.Result{Version: sweep.ResultVersion, Mode: "rate", Unit: "req/s", SLO: []string{"llm_ttft: p(99)<500", "llm_requests_failed: rate<0.05"},
		Levels: []sweep.Level{sweepLevel(2, 2, 200, 0), sweepLevel(4, 4, 230, 0), sweepLevel(8, 6.5, 900, 0)}, MaxPassing: ptr(4)}
	_, s := writeSweep(t, res)
	lat, good := CapacityCurves(s)
	if len(lat) != 6 {
		t.Fatalf("%d latency curves, want 6", len(lat))
	}
	for _, c := range lat {
		want := 3
		if strings.HasPrefix(c.Name, "TPOT") {
			want = 0
		}
		if len(c.Points) != want {
			t.Errorf("%s: %d points, want %d", c.Name, len(c.Points), want)
		}
		if (c.Name == "TTFT p(99)") != !math.IsNaN(c.Limit) || c.Name == "TTFT p(99)" && c.Limit != 500 {
			t.Errorf("%s: limit %g", c.Name, c.Limit)
		}
	}
	if len(good) != 3 || len(good[0].Points) != 3 || good[0].Points[2].Y != *res.Levels[2].GoodputRPS || good[1].Points[2].X != 8 {
		t.Errorf("goodput curves %+v", good)
	}
	s.Mode = "vus"
	if _, good := CapacityCurves(s); len(good) != 2 {
		t.Errorf("vus: %d goodput curves, want 2 (no ideal line)", len(good))
	}
	dir := t.TempDir()
	files, err := WriteCapacity(s, dir)
	if err != nil || len(files) != 4 {
		t.Fatalf("files %v, err %v", files, err)
	}
	for _, name := range CapacityFiles {
		for _, ext := range []string{".svg", ".png"} {
			if st, err := os.Stat(filepath.Join(dir, name+ext)); err != nil || st.Size() == 0 {
				t.Errorf("%s%s: %v", name, ext, err)
			}
		}
	}
}

// TestLatencyPanels: the latency curves go into one panel per metric family,
// TTFT's and TPOT's apart, each panel holding its own metric's curves only.
func TestLatencyPanels(t *testing.T) {
	t.Parallel()
	_, s := writeSweep(t, &sweep.Result{Version: sweep.ResultVersion, Mode: "rate", Unit: "req/s",
		Levels: []sweep.Level{sweepLevel(2, 2, 2600, 40)}})
	lat, _ := CapacityCurves(s)
	panels := LatencyPanels(lat)
	if len(panels) != 2 || panels[0].Name != "TTFT" || panels[1].Name != "TPOT" {
		t.Fatalf("panels %+v, want TTFT then TPOT", panels)
	}
	for _, p := range panels {
		for _, c := range p.Curves {
			if c.Name[:4] != p.Name || len(c.Points) != 1 {
				t.Errorf("panel %s holds curve %s with %d points", p.Name, c.Name, len(c.Points))
			}
		}
	}
}

// TestReadSweepTellsApart: k6 output and a records-like header are not a
// sweep result; a sweep result of another version is an error naming both
// versions.
func TestReadSweepTellsApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"k6.json":      `{"type":"Metric","data":{"name":"llm_ttft","type":"trend"},"metric":"llm_ttft"}` + "\n" + `{"type":"Point","metric":"llm_ttft","data":{"value":1}}` + "\n",
		"records.json": `{"version":1,"kind":"header"}` + "\n" + `{"version":1}` + "\n",
		"two.json":     `{"version":2,"mode":"rate","levels":[]}` + "\n" + `{"version":2,"mode":"rate","levels":[]}` + "\n",
		"empty.json":   "",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if s, ok, err := ReadSweep(p); ok || s != nil || err != nil {
			t.Errorf("%s: ok %v, err %v; want not a sweep result", name, ok, err)
		}
	}
	p := filepath.Join(dir, "v9.json")
	if err := os.WriteFile(p, []byte(`{"version":9,"mode":"rate","levels":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ok, err := ReadSweep(p)
	if !ok || err == nil || !strings.Contains(err.Error(), "version 9") || !strings.Contains(err.Error(), "versions 2 3") || !strings.Contains(err.Error(), p) {
		t.Errorf("v9: ok %v, err %v; want an error naming the file and the versions", ok, err)
	}
	// An older file (version 2, before configs) still reads.
	p = filepath.Join(dir, "v2.json")
	if err := os.WriteFile(p, []byte(`{"version":2,"mode":"rate","levels":[{"offered":2}],"max_passing":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, ok, err := ReadSweep(p); !ok || err != nil || len(s.Levels) != 1 || s.Configs != nil {
		t.Errorf("v2: %+v, ok %v, err %v; want read, without configs", s, ok, err)
	}
}
