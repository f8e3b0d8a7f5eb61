package sweep

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestCapacityCurves: one point per level on every curve, the SLO limit on
// the curve of its metric and percentile only, and the files written.
func TestCapacityCurves(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	lv := func(offered, achieved, p99 float64) Level {
		return Level{Offered: offered, AchievedRPS: f(achieved), GoodputRPS: f(achieved * 0.9), Latency: []Dist{
			{Metric: MetricTTFT, Percentiles: []Quantile{{Name: "p(50)", Value: f(p99 / 2)}, {Name: "p(90)", Value: f(p99 * 0.8)}, {Name: "p(99)", Value: f(p99)}}}}}
	}
	res := &Result{Mode: "rate", Unit: "req/s", SLO: []string{"llm_ttft: p(99)<500", "llm_requests_failed: rate<0.05"},
		Levels: []Level{lv(2, 2, 200), lv(4, 4, 230), lv(8, 6.5, 900)}, MaxPassing: f(4)}
	lat, good := CapacityCurves(res)
	for _, c := range lat {
		want := 3
		if c.Name[:4] == "TPOT" {
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
	dir := t.TempDir()
	files, err := WriteCurves(res, dir)
	if err != nil || len(files) != 4 {
		t.Fatalf("files %v, err %v", files, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "capacity-latency.svg")); err != nil {
		t.Error(err)
	}
}

// TestLatencyPanels: the latency curves go into one panel per metric family,
// TTFT's and TPOT's apart, each panel holding its own metric's curves only.
func TestLatencyPanels(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	res := &Result{Mode: "rate", Unit: "req/s", Levels: []Level{{Offered: 2, AchievedRPS: f(2), Latency: []Dist{
		{Metric: MetricTTFT, Percentiles: []Quantile{{Name: "p(50)", Value: f(900)}, {Name: "p(99)", Value: f(2600)}}},
		{Metric: MetricTPOT, Percentiles: []Quantile{{Name: "p(50)", Value: f(20)}, {Name: "p(99)", Value: f(40)}}}}}}}
	lat, _ := CapacityCurves(res)
	panels := LatencyPanels(lat)
	if len(panels) != 2 || panels[0].Name != "TTFT" || panels[1].Name != "TPOT" {
		t.Fatalf("panels %+v, want TTFT then TPOT", panels)
	}
	for _, p := range panels {
		for _, c := range p.Curves {
			if c.Name[:4] != p.Name {
				t.Errorf("panel %s holds curve %s", p.Name, c.Name)
			}
		}
	}
}
