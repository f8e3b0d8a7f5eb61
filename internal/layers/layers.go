// Package layers holds the project's layering rules — which package may import
// which — and checks an import graph against them. The test in this folder
// lists the module's real graph with `go list` and fails on a forbidden edge,
// as k6's own depguard rules do for k6; docs/architecture.md draws the same
// layers.
//
// Every package of the module belongs to one layer and has a rank inside it.
// A package may import a package of another layer only when its layer allows
// that layer, and a package of its own layer only of a lower rank, so imports
// run one way and two packages of one rank never import each other.
package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is the module path the tables below are relative to.
const Module = "github.com/llmstream/xk6-llmstream"

// Layer names a group of packages with one job.
type Layer string

// The layers, bottom to top.
const (
	Util    Layer = "util"    // small leaves: file locks, redaction, version, endpoint paths
	Core    Layer = "core"    // what both binaries use: records, metrics, reading k6 output, statistics, gates
	Engine  Layer = "engine"  // the k6 side: decoding streams, the helper, the mock, the runner
	Sweep   Layer = "sweep"   // the capacity sweep: runs the engine, judges with the core
	Analyze Layer = "analyze" // analyze's own parts: report, plots, history, tail attribution
	Harness Layer = "harness" // test harnesses (k6sim, moduletest, bench): may use any layer
	Main    Layer = "main"    // the two binaries and the test-only folders; nothing imports them
)

// mayImport lists, for each layer, the other layers its packages may import.
var mayImport = map[Layer][]Layer{
	Util:    nil,
	Core:    {Util},
	Engine:  {Util, Core},
	Sweep:   {Util, Core, Engine},
	Analyze: {Util, Core, Sweep},
	Harness: {Util, Core, Engine, Sweep, Analyze},
	Main:    {Util, Core, Engine, Sweep, Analyze, Harness},
}

// Place is a package's layer and its rank inside the layer.
type Place struct {
	Layer Layer
	Rank  int
}

// Packages places every package of the module (paths relative to Module).
// A package missing here fails the check: a new package is placed on purpose.
var Packages = map[string]Place{
	"internal/endpoints": {Util, 0}, "internal/filelock": {Util, 0}, "internal/input": {Util, 0}, "internal/gemini": {Util, 0}, "internal/histogram": {Util, 0},
	"internal/numfmt": {Util, 0}, "internal/redact": {Util, 0}, "internal/truncate": {Util, 0},
	"internal/version": {Util, 0}, "xk6-llmstream/js": {Util, 0},
	"internal/command": {Util, 1},

	"internal/records": {Core, 0}, "internal/stats": {Core, 0}, "internal/k6json": {Core, 0}, "internal/headroom": {Core, 0},
	"internal/metrics": {Core, 1}, "internal/compare": {Core, 1},
	"internal/rundata": {Core, 2}, "internal/shape": {Core, 2}, "internal/thresholds": {Core, 2},
	"internal/result": {Core, 3},

	"xk6-llmstream/stream": {Engine, 0}, "xk6-llmstream/workload": {Engine, 0}, "xk6-llmstream/serverstats": {Engine, 0},
	"xk6-llmstream/mockllm": {Engine, 1}, "xk6-llmstream/helper": {Engine, 1},
	"xk6-llmstream/runner":    {Engine, 2},
	"xk6-llmstream/calibrate": {Engine, 3},

	"xk6-llmstream/sweep": {Sweep, 0},

	"analyze/cli": {Analyze, 0}, "analyze/plot": {Analyze, 0}, "analyze/definitions": {Analyze, 0}, "analyze/tail": {Analyze, 0},
	"analyze/history": {Analyze, 0},
	"analyze/figures": {Analyze, 1}, "analyze/output": {Analyze, 1},
	"analyze/report": {Analyze, 2},

	"internal/testkit/k6sim": {Harness, 0}, "internal/testkit/recordstest": {Harness, 0},
	"internal/testkit/moduletest": {Harness, 1}, "internal/testkit/bench": {Harness, 1},

	"xk6-llmstream": {Main, 0}, "analyze": {Main, 0},
	"e2e": {Main, 0}, "deploy": {Main, 0}, "docs": {Main, 0}, "scripts": {Main, 0}, "scripts/demo": {Main, 0}, "types": {Main, 0},
	"internal/layers": {Main, 0},
}

// External lists outside import paths (and their subpackages) that only the
// named packages of the module may import.
var External = map[string][]string{
	// Plotting is analyze's: the k6-side binary links none of it.
	"gonum.org/v1/plot": {"analyze/plot", "analyze/figures", "analyze"},
}

// Violation is one forbidden import.
type Violation struct {
	From, To string // paths relative to Module (outside paths in full)
	Why      string
}

func (v Violation) String() string { return v.From + " → " + v.To + ": " + v.Why }

// Check returns every forbidden edge of graph (importer → its imports, full
// import paths), sorted.
func Check(graph map[string][]string) []Violation {
	var out []Violation
	for from, imports := range graph {
		rel, ours := relative(from)
		if !ours {
			continue
		}
		pf, placed := Packages[rel]
		if !placed {
			out = append(out, Violation{rel, "", "package has no place in layers.Packages: place it in a layer"})
			continue
		}
		for _, to := range imports {
			if v, bad := checkEdge(rel, pf, to); bad {
				out = append(out, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func checkEdge(from string, pf Place, to string) (Violation, bool) {
	rel, ours := relative(to)
	if !ours {
		for prefix, allowed := range External {
			if to == prefix || strings.HasPrefix(to, prefix+"/") {
				if !slices.Contains(allowed, from) {
					return Violation{from, to, fmt.Sprintf("only %v may import %s", allowed, prefix)}, true
				}
			}
		}
		return Violation{}, false
	}
	pt, placed := Packages[rel]
	if !placed {
		return Violation{}, false // reported once as an importer
	}
	switch {
	case pt.Layer == Main:
		return Violation{from, rel, "nothing imports a binary or a test-only folder"}, true
	case pt.Layer == pf.Layer && pt.Rank >= pf.Rank:
		return Violation{from, rel, fmt.Sprintf("inside layer %s, rank %d may import only lower ranks (this is rank %d)", pf.Layer, pf.Rank, pt.Rank)}, true
	case pt.Layer != pf.Layer && !slices.Contains(mayImport[pf.Layer], pt.Layer):
		return Violation{from, rel, fmt.Sprintf("layer %s may not import layer %s", pf.Layer, pt.Layer)}, true
	}
	return Violation{}, false
}

func relative(path string) (string, bool) {
	if path == Module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, Module+"/")
	return rel, ok
}
