package figures

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/input"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// SweepVersion is the newest version of the capacity sweep's JSON result
// (xk6-llmstream sweep, sweep.ResultVersion) that the figures draw, and
// sweepVersions every version they read: 2, and 3, which adds a server
// sweep's configs (a version-3 file without configs is a version-2 one).
const SweepVersion = 3

var sweepVersions = []int{2, 3}

// Sweep is the part of a capacity sweep's JSON result (sweep.json) that the
// capacity figures draw. analyze reads the file rather than linking the
// sweep, which runs k6 and the helper; a test holds the two in step.
type Sweep struct {
	Version    int          `json:"version"`
	Mode       string       `json:"mode"` // "rate" or "vus"
	Unit       string       `json:"unit"` // of offered
	SLO        []string     `json:"slo"`
	Levels     []SweepLevel `json:"levels"`
	MaxPassing *float64     `json:"max_passing"`
	// Configs are a server sweep's configurations (version 3), each with
	// its levels.
	Configs []SweepConfig `json:"configs"`
}

// SweepConfig is one server configuration of a server sweep.
type SweepConfig struct {
	Index      int          `json:"index"`
	Name       string       `json:"name"`
	Status     string       `json:"status"`
	Reason     string       `json:"reason"`
	Levels     []SweepLevel `json:"levels"`
	MaxPassing *float64     `json:"max_passing"`
}

// SweepLevel is one level of a Sweep.
type SweepLevel struct {
	Offered     float64     `json:"offered"`
	AchievedRPS *float64    `json:"achieved_rps"`
	GoodputRPS  *float64    `json:"goodput_rps"`
	OutputTPS   *float64    `json:"output_tps"`
	Pass        bool        `json:"pass"`
	Latency     []SweepDist `json:"latency"`
	Server      *struct {
		GPU *struct {
			GPUs int `json:"gpus"`
		} `json:"gpu"`
	} `json:"server"`
}

// SweepDist is a latency metric's percentiles on one level.
type SweepDist struct {
	Metric      string `json:"metric"`
	Percentiles []struct {
		Name  string   `json:"name"` // p(99)
		Value *float64 `json:"value"`
	} `json:"percentiles"`
}

// CapacityMetrics are the latency metrics drawn against throughput, and
// CapacityPercentiles their percentiles, one curve each (the sweep's
// LatencyPercentiles).
var (
	CapacityMetrics     = []string{metrics.TTFT, metrics.TPOT}
	CapacityPercentiles = []float64{50, 90, 99}
)

// CapacityFiles are the names, without extension, of the capacity figures,
// each written as SVG and PNG.
var CapacityFiles = []string{"capacity-latency", "capacity-goodput"}

// sweepProbe is what tells a sweep result from k6 output or a records file:
// a JSON object with a version, a mode and levels.
type sweepProbe struct {
	Version *int            `json:"version"`
	Mode    *string         `json:"mode"`
	Levels  json.RawMessage `json:"levels"`
}

// ReadSweep reads path when it holds a capacity sweep's JSON result: ok is
// false when it holds something else, such as k6 output (err is then nil, or
// the error opening the file); a sweep result of another version is an error
// (ok true) naming the versions.
func ReadSweep(path string) (s *Sweep, ok bool, err error) {
	if path == "-" {
		return nil, false, nil
	}
	rc, err := input.Open(path, nil)
	if err != nil {
		return nil, false, err
	}
	defer rc.Close()
	// Only the first JSON value is read: k6 output's first line is a small
	// object without levels, and the rest of it is never read.
	dec := json.NewDecoder(rc)
	var b json.RawMessage
	var p sweepProbe
	if dec.Decode(&b) != nil || json.Unmarshal(b, &p) != nil || p.Version == nil || p.Mode == nil || p.Levels == nil || dec.More() {
		return nil, false, nil
	}
	if !slices.Contains(sweepVersions, *p.Version) {
		return nil, true, fmt.Errorf("%s: a sweep result of version %d; this analyze draws versions %s (run the sweep again with this release)", path, *p.Version, strings.Trim(fmt.Sprint(sweepVersions), "[]"))
	}
	s = &Sweep{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, true, fmt.Errorf("%s: sweep result: %w", path, err)
	}
	return s, true, nil
}

// WriteCapacity draws the curves serving teams draw into dir as SVG and
// PNG: latency percentiles (TTFT, TPOT p50/p90/p99) against the achieved
// throughput, one panel per metric family so that each has its own y range,
// and goodput and the achieved rate against the offered load — the SLO
// limits on a drawn percentile dashed, the knee (the highest passing level)
// dotted. A figure without data is left out. It returns the files written.
func WriteCapacity(s *Sweep, dir string) ([]string, error) {
	lat, good := CapacityCurves(s)
	kneeTP, kneeOffered := math.NaN(), math.NaN()
	if s.MaxPassing != nil {
		kneeOffered = *s.MaxPassing
		for _, l := range s.Levels {
			if l.Offered == kneeOffered && l.AchievedRPS != nil {
				kneeTP = *l.AchievedRPS
			}
		}
	}
	var files []string
	draw := []func() (*plot.Figure, error){
		func() (*plot.Figure, error) { return plot.LatencyVsThroughput(LatencyPanels(lat), kneeTP) },
		func() (*plot.Figure, error) { return plot.GoodputVsOffered(good, kneeOffered, s.Unit) },
	}
	for i, fg := range draw {
		f, err := fg()
		if errors.Is(err, plot.ErrNoData) {
			continue
		}
		if err != nil {
			return files, fmt.Errorf("%s: %w", CapacityFiles[i], err)
		}
		for _, ext := range []string{".svg", ".png"} {
			path := filepath.Join(dir, CapacityFiles[i]+ext)
			if err := f.Save(path); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// CapacityCurves are the points of the two figures, one per level with a
// value: latency percentiles by achieved throughput (each with the SLO limit
// on that metric and percentile, NaN without one), and goodput, the achieved
// rate and (for arrival rates) the ideal by offered load.
func CapacityCurves(s *Sweep) (latency, goodput []plot.CapacityCurve) {
	limits := sloLimits(s.SLO)
	for _, m := range CapacityMetrics {
		for _, name := range capacityPctNames() {
			c := plot.CapacityCurve{Name: capacityName(m) + " " + name, Limit: math.NaN()}
			if v, ok := limits[m+" "+name]; ok {
				c.Limit = v
			}
			for _, l := range s.Levels {
				if l.AchievedRPS == nil {
					continue
				}
				if v := l.quantile(m, name); v != nil {
					c.Points = append(c.Points, plot.XYs{{X: *l.AchievedRPS, Y: *v}}...)
				}
			}
			latency = append(latency, c)
		}
	}
	g := plot.CapacityCurve{Name: "goodput", Limit: math.NaN()}
	a := plot.CapacityCurve{Name: "achieved", Limit: math.NaN()}
	top := 0.0
	for _, l := range s.Levels {
		top = math.Max(top, l.Offered)
		if l.GoodputRPS != nil {
			g.Points = append(g.Points, plot.XYs{{X: l.Offered, Y: *l.GoodputRPS}}...)
		}
		if l.AchievedRPS != nil {
			a.Points = append(a.Points, plot.XYs{{X: l.Offered, Y: *l.AchievedRPS}}...)
		}
	}
	goodput = []plot.CapacityCurve{g, a}
	if s.Mode == "rate" && top > 0 {
		goodput = append(goodput, plot.IdealLine(top))
	}
	return latency, goodput
}

// LatencyPanels groups the latency curves (CapacityCurves' order) into one
// panel per metric of CapacityMetrics: TTFT in the thousands of ms and TPOT
// in the tens each get their own y range.
func LatencyPanels(latency []plot.CapacityCurve) []plot.CapacityPanel {
	per := len(CapacityPercentiles)
	var out []plot.CapacityPanel
	for i, m := range CapacityMetrics {
		if (i+1)*per > len(latency) {
			break
		}
		out = append(out, plot.CapacityPanel{Name: capacityName(m), Curves: latency[i*per : (i+1)*per]})
	}
	return out
}

// quantile is the value of a metric's named percentile on the level (nil:
// none).
func (l SweepLevel) quantile(metric, name string) *float64 {
	for _, d := range l.Latency {
		if d.Metric != metric {
			continue
		}
		for _, q := range d.Percentiles {
			if q.Name == name {
				return q.Value
			}
		}
	}
	return nil
}

// sloLimits are the SLO's upper limits on a percentile, by "metric p(N)".
func sloLimits(slo []string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range slo {
		cs, err := thresholds.Parse(s)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if len(c.Tags) == 0 && (c.Expr.Op == "<" || c.Expr.Op == "<=") {
				out[c.Metric+" "+c.Expr.Aggregate.String()] = c.Expr.Limit
			}
		}
	}
	return out
}

// capacityPctNames are CapacityPercentiles as k6 names them: p(99).
func capacityPctNames() []string {
	out := make([]string, len(CapacityPercentiles))
	for i, p := range CapacityPercentiles {
		out[i] = "p(" + strconv.FormatFloat(p, 'g', -1, 64) + ")"
	}
	return out
}

// capacityName is a latency metric's family as the figures name it.
func capacityName(metric string) string {
	return map[string]string{metrics.TTFT: "TTFT", metrics.TPOT: "TPOT"}[metric]
}

// DrawSweep draws a sweep result read from path into dir (made if needed)
// and writes each file's name to w; a result with no value to draw is an
// input error.
func DrawSweep(s *Sweep, path, dir string, w io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(s.Configs) > 0 {
		return DrawConfigs(s, path, dir, w)
	}
	files, err := WriteCapacity(s, dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return rundata.Errorf("%s: no level has a value to draw", path)
	}
	for _, f := range files {
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	return nil
}
