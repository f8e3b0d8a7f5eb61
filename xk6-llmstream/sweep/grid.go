package sweep

import (
	"fmt"
	"regexp"
	"strings"
)

// A server sweep (--serve CMD --serve-params GRID) runs the sweep once per
// server configuration: a point of the grid, the cartesian product of every
// parameter's values, as llm-d-benchmark's design-of-experiments runs every
// treatment of its factors' levels (docs/doe.md) and vLLM's
// `vllm bench sweep serve --serve-params` one server per parameter set
// (v0.32.0, vllm/benchmarks/sweep/serve.py). Here a parameter is an
// environment variable of the server (OLLAMA_NUM_PARALLEL=1,2,4) or a flag
// appended to its command (slots=2,4,8 or --slots=2,4,8: --slots 2).

// ParamKind says how a parameter reaches the server.
type ParamKind string

const (
	// ParamEnv sets an environment variable of the server.
	ParamEnv ParamKind = "env"
	// ParamFlag appends "--name value" to the server's command.
	ParamFlag ParamKind = "flag"
)

// Param is one parameter's value in a configuration.
type Param struct {
	Name  string    `json:"name"` // OLLAMA_NUM_PARALLEL, --slots
	Value string    `json:"value"`
	Kind  ParamKind `json:"kind"`
}

// Point is one server configuration: a value of every parameter.
type Point []Param

// Name is the configuration's name: "name=value" joined by spaces, flags
// without their dashes (slots=2 OLLAMA_NUM_PARALLEL=4).
func (p Point) Name() string {
	parts := make([]string, 0, len(p))
	for _, x := range p {
		parts = append(parts, strings.TrimLeft(x.Name, "-")+"="+x.Value)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

// Env is the configuration's environment variables (NAME=value).
func (p Point) Env() []string {
	var out []string
	for _, x := range p {
		if x.Kind == ParamEnv {
			out = append(out, x.Name+"="+x.Value)
		}
	}
	return out
}

// Args is the configuration's flags, appended to the server's command.
func (p Point) Args() []string {
	var out []string
	for _, x := range p {
		if x.Kind == ParamFlag {
			out = append(out, x.Name, x.Value)
		}
	}
	return out
}

// MaxGridPoints bounds a grid: each point restarts the server and runs a
// whole sweep.
const MaxGridPoints = 64

var (
	envName  = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	flagName = regexp.MustCompile(`^-{0,2}[a-z0-9][a-z0-9_.-]*$`)
	badValue = regexp.MustCompile(`[\x00-\x1f]`)
)

// ParseGrid reads --serve-params: each spec holds one or more parameters
// "NAME=v1,v2,…" separated by spaces or ';'. An upper-case NAME
// (OLLAMA_NUM_PARALLEL) is an environment variable, a lower-case one a flag
// (slots or --slots: "--slots v"; -n: "-n v"). The grid is the cartesian
// product of the parameters' values, the first parameter varying slowest, in
// the order given; no spec at all is one configuration without parameters.
func ParseGrid(specs []string) ([]Point, error) {
	type axis struct {
		name   string
		kind   ParamKind
		values []string
	}
	var axes []axis
	seen := map[string]bool{}
	for _, spec := range specs {
		for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ';' || r == ' ' || r == '\t' }) {
			name, list, ok := strings.Cut(f, "=")
			if !ok || name == "" {
				return nil, fmt.Errorf("--serve-params %q: want NAME=v1,v2 (e.g. OLLAMA_NUM_PARALLEL=1,4 or slots=2,4,8)", f)
			}
			a := axis{name: name, kind: ParamEnv}
			switch {
			case envName.MatchString(name):
			case flagName.MatchString(name):
				a.kind = ParamFlag
				if !strings.HasPrefix(name, "-") {
					a.name = "--" + name
				}
			default:
				return nil, fmt.Errorf("--serve-params %q: %q is neither an environment variable (A-Z, 0-9, _) nor a flag (a-z, 0-9, -, _, .)", f, name)
			}
			if seen[a.name] {
				return nil, fmt.Errorf("--serve-params: %s is given twice", a.name)
			}
			seen[a.name] = true
			for _, v := range strings.Split(list, ",") {
				if v == "" || badValue.MatchString(v) {
					return nil, fmt.Errorf("--serve-params %q: an empty value or a control character in %q", f, list)
				}
				a.values = append(a.values, v)
			}
			axes = append(axes, a)
		}
	}
	grid := []Point{{}}
	for _, a := range axes {
		next := make([]Point, 0, len(grid)*len(a.values))
		for _, p := range grid {
			for _, v := range a.values {
				next = append(next, append(append(Point{}, p...), Param{Name: a.name, Value: v, Kind: a.kind}))
			}
		}
		if len(next) > MaxGridPoints {
			return nil, fmt.Errorf("--serve-params: %d configurations, more than %d", len(next), MaxGridPoints)
		}
		grid = next
	}
	return grid, nil
}
