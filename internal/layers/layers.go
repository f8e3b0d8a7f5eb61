// Package layers holds the project's layering rules — which package may import
// which — and checks an import graph against them. The test in this folder
// lists the module's real graph with `go list` and fails on a forbidden edge,
// as k6's own depguard rules do for k6; docs/architecture.md draws the same
// layers.
//
// A package's side follows from where it lives, by path prefix, as the design
// card draws the repository: xk6-llmstream/ is the k6 side, analyze/ the
// analyze side, internal/ the shared core under both, internal/testkit/ the
// kits tests use. The sides import the core and never each other; the core
// imports neither side; a test kit is imported by tests only (the graph holds
// non-test imports, so any edge into a kit is a violation). Inside a side,
// each package has a rank, and imports run to lower ranks only, so two
// packages of one rank never import each other.
package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is the module path the tables below are relative to.
const Module = "github.com/llmstream/xk6-llmstream"

// Side names the part of the repository a package belongs to.
type Side string

// The sides.
const (
	Core    Side = "core"          // internal/: what both binaries use, and the small utilities
	K6      Side = "xk6-llmstream" // xk6-llmstream/: the k6 side (engine, helper, mock, runner, sweep, the JS module)
	Analyze Side = "analyze"       // analyze/: what reads results
	Testkit Side = "testkit"       // internal/testkit/: harnesses for tests; imported by tests only
	Tests   Side = "tests"         // test-only folders (e2e, deploy, docs, scripts, types, this one)
)

// prefixes maps a path prefix to its side; the longest matching prefix wins.
var prefixes = []struct {
	prefix string
	side   Side
}{
	{"internal/testkit/", Testkit},
	{"internal/layers", Tests},
	{"internal/", Core},
	{"xk6-llmstream", K6},
	{"analyze", Analyze},
	{"e2e", Tests}, {"deploy", Tests}, {"docs", Tests}, {"scripts", Tests}, {"types", Tests},
}

// SideOf returns the side a module-relative package path belongs to.
func SideOf(rel string) (Side, bool) {
	best, side := -1, Side("")
	for _, p := range prefixes {
		if (rel == strings.TrimSuffix(p.prefix, "/") || strings.HasPrefix(rel, strings.TrimSuffix(p.prefix, "/")+"/")) && len(p.prefix) > best {
			best, side = len(p.prefix), p.side
		}
	}
	return side, best >= 0
}

// mayImport lists, for each side, the other sides its packages may import.
var mayImport = map[Side][]Side{
	Core:    nil,
	K6:      {Core},
	Analyze: {Core},
	Testkit: {Core, K6, Analyze},
	Tests:   {Core, K6, Analyze, Testkit},
}

// Binaries are the two package mains: nothing imports them.
var Binaries = []string{"xk6-llmstream", "analyze"}

// Ranks orders the packages inside each side. A package may import a package
// of its own side only of a lower rank. A package missing here fails the
// check: a new package is placed on purpose. (Test kits and test-only folders
// need no rank: nothing but tests imports them, or nothing at all.)
var Ranks = map[string]int{
	// core: utilities (leaves), then the core proper
	"internal/endpoints": 0, "internal/escape": 0, "internal/filelock": 0, "internal/input": 0, "internal/gemini": 0, "internal/histogram": 0,
	"internal/numfmt": 0, "internal/redact": 0, "internal/truncate": 0, "internal/version": 0, "internal/atomicfile": 0,
	"internal/records": 1, "internal/stats": 1, "internal/k6json": 1, "internal/headroom": 1, "internal/command": 1,
	"internal/metrics": 2, "internal/compare": 2,
	"internal/rundata": 3, "internal/shape": 3, "internal/thresholds": 3,
	"internal/result": 4,

	// the k6 side
	"xk6-llmstream/js": 0, "xk6-llmstream/stream": 0, "xk6-llmstream/workload": 0, "xk6-llmstream/serverstats": 0,
	"xk6-llmstream/mockllm": 1, "xk6-llmstream/helper": 1,
	"xk6-llmstream/runner":    2,
	"xk6-llmstream/calibrate": 3,
	"xk6-llmstream/sweep":     4,
	"xk6-llmstream":           9,

	// the analyze side
	"analyze/cli": 0, "analyze/plot": 0, "analyze/definitions": 0, "analyze/tail": 0, "analyze/history": 0, "analyze/export": 0,
	"analyze/figures": 1, "analyze/output": 1,
	"analyze/report": 2,
	"analyze":        9,
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
		if why := unplaced(rel); why != "" {
			out = append(out, Violation{rel, "", why})
			continue
		}
		for _, to := range imports {
			if v, bad := checkEdge(rel, to); bad {
				out = append(out, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// unplaced says why a package has no place, or "" when it has one.
func unplaced(rel string) string {
	side, ok := SideOf(rel)
	if !ok {
		return "package is under no side's prefix: move it under xk6-llmstream/, analyze/ or internal/"
	}
	if _, ranked := Ranks[rel]; !ranked && side != Testkit && side != Tests {
		return "package has no rank in layers.Ranks: place it in its side"
	}
	return ""
}

func checkEdge(from, to string) (Violation, bool) {
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
	if unplaced(rel) != "" {
		return Violation{}, false // reported once as an importer
	}
	sf, _ := SideOf(from)
	st, _ := SideOf(rel)
	switch {
	case slices.Contains(Binaries, rel) || st == Tests:
		return Violation{from, rel, "nothing imports a binary or a test-only folder"}, true
	case st == Testkit && sf != Testkit && sf != Tests:
		return Violation{from, rel, "a test kit is imported by tests only"}, true
	case st != sf && !slices.Contains(mayImport[sf], st):
		return Violation{from, rel, fmt.Sprintf("side %s may not import side %s", sf, st)}, true
	case st == sf && sf != Testkit && sf != Tests && Ranks[rel] >= Ranks[from]:
		return Violation{from, rel, fmt.Sprintf("inside side %s, rank %d may import only lower ranks (this is rank %d)", sf, Ranks[from], Ranks[rel])}, true
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
