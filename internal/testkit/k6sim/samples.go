package k6sim

import (
	"fmt"
	"maps"
	"regexp"
	"sync"
	"time"
)

// MetricType is a k6 metric type, spelled as in k6's JSON output.
type MetricType string

// The k6 metric types.
const (
	Counter MetricType = "counter"
	Gauge   MetricType = "gauge"
	Rate    MetricType = "rate"
	Trend   MetricType = "trend"
)

// MetricInfo is a declared metric.
type MetricInfo struct {
	Name string
	Type MetricType
	// IsTime is true for a Trend declared with isTime (k6's "contains": "time").
	IsTime bool
}

// Sample is one value added to a metric.
type Sample struct {
	Metric string
	Type   MetricType
	IsTime bool
	Value  float64
	// Tags are the sample's tags after k6's merge (see the package doc).
	Tags map[string]string
	// Metadata is exec.vu.metrics.metadata at the time of the sample (nil when empty).
	Metadata map[string]string
	Time     time.Time
	// VU is the VU's idInTest (0 in setup and teardown).
	VU int
}

// metricNameRE is k6's rule for metric names (from its error message: up to 128
// ASCII letters, digits or underscores, starting with a letter or underscore).
var metricNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// registry holds the metrics declared in a run. Declaring a name again with the
// same type is allowed (every VU's init context does it); with another type it
// is an error.
type registry struct {
	mu sync.Mutex
	m  map[string]MetricInfo
}

// builtinMetrics are the k6 metrics the simulator emits; like k6, it knows
// them before the script runs, so thresholds may name them.
var builtinMetrics = []MetricInfo{
	{Name: "checks", Type: Rate},
	{Name: "http_reqs", Type: Counter},
	{Name: "http_req_duration", Type: Trend, IsTime: true},
	{Name: "http_req_failed", Type: Rate},
}

func newRegistry() *registry {
	g := &registry{m: map[string]MetricInfo{}}
	for _, mi := range builtinMetrics {
		g.m[mi.Name] = mi
	}
	return g
}

func (g *registry) declare(name string, typ MetricType, isTime bool) (MetricInfo, error) {
	if !metricNameRE.MatchString(name) {
		return MetricInfo{}, fmt.Errorf("invalid metric name %q: metric names must be up to 128 ASCII letters, digits or underscores, starting with a letter or underscore", name)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if old, ok := g.m[name]; ok {
		if old.Type != typ || old.IsTime != isTime {
			return MetricInfo{}, fmt.Errorf("metric %q is already declared as a %s (isTime %v); cannot declare it as a %s (isTime %v)", name, old.Type, old.IsTime, typ, isTime)
		}
		return old, nil
	}
	mi := MetricInfo{Name: name, Type: typ, IsTime: isTime}
	g.m[name] = mi
	return mi, nil
}

func (g *registry) lookup(name string) (MetricInfo, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	mi, ok := g.m[name]
	return mi, ok
}

func (g *registry) snapshot() map[string]MetricInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.m)
}

// collector keeps every sample of a run.
type collector struct {
	mu      sync.Mutex
	samples []Sample
}

func (c *collector) add(s Sample) {
	c.mu.Lock()
	c.samples = append(c.samples, s)
	c.mu.Unlock()
}

func (c *collector) all() []Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Sample(nil), c.samples...)
}
