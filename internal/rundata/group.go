package rundata

import (
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
)

// Group is a set of samples reported together: its labels in --by order (the
// input's label under the name "file").
type Group struct {
	ID     int          // its index in the order groups were first seen
	Labels []k6json.Tag // in --by order
	Key    string       // "model=a,scenario=ramp", or "all" for the whole population
	File   int          // the index of the input it was first seen in, which orders the "file" label
}

// LabelMap is the labels as a map.
func (g *Group) LabelMap() map[string]string {
	m := map[string]string{}
	for _, l := range g.Labels {
		m[l.Key] = l.Value
	}
	return m
}

// Name is the group's name in a legend: its labels ("model=a"), or only the
// input's label when the grouping is --by file.
func (g *Group) Name() string {
	if len(g.Labels) == 1 && g.Labels[0].Key == "file" {
		return g.Labels[0].Value
	}
	return g.Key
}

func groupKey(labels []k6json.Tag) string {
	if len(labels) == 0 {
		return "all"
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l.Key + "=" + l.Value
	}
	return strings.Join(parts, ",")
}

// GroupSuffix names a group after a metric name: " (model=a)", or "" for the
// whole population (key "all").
func GroupSuffix(key string) string {
	if key == "" || key == "all" {
		return ""
	}
	return " (" + key + ")"
}
