package figures

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// FrontierFile is the name, without extension, of a server sweep's frontier
// figure, written as SVG and PNG.
const FrontierFile = "frontier"

// ParetoFront marks the points on the Pareto frontier when more is better on
// both axes: those no other point dominates, where a point dominates another
// when it is at least as high on both axes and higher on one. Equal points
// are both on it or both off it.
func ParetoFront(pts plot.XYs) []bool {
	on := make([]bool, len(pts))
	for i, p := range pts {
		on[i] = true
		for j, q := range pts {
			if j != i && q.X >= p.X && q.Y >= p.Y && (q.X > p.X || q.Y > p.Y) {
				on[i] = false
				break
			}
		}
	}
	return on
}

// FrontierPoint is one level of a server sweep on the frontier figure.
type FrontierPoint struct {
	Config, Level int // indexes in Sweep.Configs and its Levels
	// PerUser is the output tokens per second one stream gets, 1000 / the
	// level's TPOT p50 (ms); PerInstance the level's output tokens per
	// second, per GPU when the sweep has DCGM telemetry (--gpu-metrics).
	PerUser, PerInstance float64
	OnFront              bool
}

// FrontierPoints are the points of every configuration's levels that have
// a TPOT p50 and an output throughput, with the frontier marked; perGPU is
// whether PerInstance is per GPU: when every such level counted its GPUs.
func FrontierPoints(s *Sweep) (pts []FrontierPoint, perGPU bool) {
	perGPU = true
	for ci, c := range s.Configs {
		for li, l := range c.Levels {
			tpot := l.quantile(metrics.TPOT, "p(50)")
			if tpot == nil || !(*tpot > 0) || l.OutputTPS == nil {
				continue
			}
			perGPU = perGPU && l.gpus() > 0
			pts = append(pts, FrontierPoint{Config: ci, Level: li, PerUser: 1000 / *tpot, PerInstance: *l.OutputTPS})
		}
	}
	perGPU = perGPU && len(pts) > 0
	xy := make(plot.XYs, len(pts))
	for i := range pts {
		if perGPU {
			pts[i].PerInstance /= float64(s.Configs[pts[i].Config].Levels[pts[i].Level].gpus())
		}
		xy[i].X, xy[i].Y = pts[i].PerUser, pts[i].PerInstance
	}
	for i, on := range ParetoFront(xy) {
		pts[i].OnFront = on
	}
	return pts, perGPU
}

// gpus is the number of GPUs the level's DCGM telemetry counted (0: none).
func (l SweepLevel) gpus() int {
	if l.Server == nil || l.Server.GPU == nil {
		return 0
	}
	return l.Server.GPU.GPUs
}

// DrawConfigs draws a server sweep: the frontier figure of every
// configuration's levels, each configuration's capacity figures in
// dir/config-<n>, and a table on w of each configuration's highest goodput
// under the SLO and whether it reaches the frontier.
func DrawConfigs(s *Sweep, path, dir string, w io.Writer) error {
	pts, perGPU := FrontierPoints(s)
	unit := "instance"
	if perGPU {
		unit = "GPU"
	}
	series := make([]plot.FrontierSeries, len(s.Configs))
	var front plot.XYs
	for i, c := range s.Configs {
		series[i].Name = c.Name
	}
	for _, p := range pts {
		series[p.Config].Points = append(series[p.Config].Points, plot.XYs{{X: p.PerUser, Y: p.PerInstance}}...)
		if p.OnFront {
			front = append(front, plot.XYs{{X: p.PerUser, Y: p.PerInstance}}...)
		}
	}
	var files []string
	f, err := plot.Frontier(series, front, "output tokens/s per user (1000 / TPOT p50)", "output tokens/s per "+unit)
	switch {
	case errors.Is(err, plot.ErrNoData):
	case err != nil:
		return err
	default:
		for _, ext := range []string{".svg", ".png"} {
			p := filepath.Join(dir, FrontierFile+ext)
			if err := f.Save(p); err != nil {
				return err
			}
			files = append(files, p)
		}
	}
	for i, c := range s.Configs {
		sub := filepath.Join(dir, fmt.Sprintf("config-%d", i+1))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		more, err := WriteCapacity(&Sweep{Version: s.Version, Mode: s.Mode, Unit: s.Unit, SLO: s.SLO, Levels: c.Levels, MaxPassing: c.MaxPassing}, sub)
		if err != nil {
			return fmt.Errorf("configuration %d (%s): %w", i+1, c.Name, err)
		}
		files = append(files, more...)
	}
	if len(files) == 0 {
		return rundata.Errorf("%s: no configuration has a level with a value to draw", path)
	}
	for _, f := range files {
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	return writeFrontierTable(w, s, pts, unit)
}

// writeFrontierTable writes one line per configuration: its status, highest
// passing level, its highest goodput among the passing levels up to it (the
// SLO's), the tokens per user and per instance of that level, and whether
// any of its levels is on the frontier.
func writeFrontierTable(w io.Writer, s *Sweep, pts []FrontierPoint, unit string) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "config\tname\tstatus\tmax passing %s\tmax goodput req/s\ttok/s/user\ttok/s/%s\ton frontier\n", s.Unit, unit)
	for ci, c := range s.Configs {
		best := -1
		for li, l := range c.Levels {
			if l.Pass && c.MaxPassing != nil && l.Offered <= *c.MaxPassing && l.GoodputRPS != nil &&
				(best < 0 || *l.GoodputRPS > *c.Levels[best].GoodputRPS) {
				best = li
			}
		}
		good, user, inst, on, n := "-", "-", "-", 0, 0
		for _, p := range pts {
			if p.Config != ci {
				continue
			}
			n++
			if p.OnFront {
				on++
			}
			if p.Level == best {
				user, inst = fmt.Sprintf("%.4g", p.PerUser), fmt.Sprintf("%.4g", p.PerInstance)
			}
		}
		if best >= 0 {
			good = fmt.Sprintf("%.4g", *c.Levels[best].GoodputRPS)
		}
		front := "no"
		if on > 0 {
			front = fmt.Sprintf("yes (%d of %d levels)", on, n)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Index, c.Name, c.Status, fmtOpt(c.MaxPassing), good, user, inst, front)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range s.Configs {
		if c.Reason != "" {
			fmt.Fprintf(w, "configuration %d %s: %s\n", c.Index, c.Status, strings.TrimSpace(c.Reason))
		}
	}
	return nil
}

func fmtOpt(v *float64) string {
	if v == nil || math.IsNaN(*v) {
		return "-"
	}
	return fmt.Sprintf("%.4g", *v)
}
