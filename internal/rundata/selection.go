package rundata

import (
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
)

// Selection says which samples to keep and how to group them.
type Selection struct {
	// Metrics are the names asked for; empty means every llm_* metric present.
	Metrics []string
	// Also are metrics read in addition when present (e.g. llm_requests_failed
	// for the failure rate); they are not an error when absent.
	Also []string
	// Where keeps only samples with these tag values: all must hold.
	Where []Where
	// By are the tag keys to group by; the pseudo-tag "file" groups by input.
	By []string
	// From and To keep samples from From up to (not including) To after
	// each input's first sample, when HasFrom and HasTo are set.
	From, To       time.Duration
	HasFrom, HasTo bool
	// MissingOK: a metric in Metrics that is not in the inputs is not an error.
	MissingOK bool
}

// Where is one --where clause: the tag Key has Value (an empty Value matches a
// missing tag too).
type Where struct{ Key, Value string }

// String is "key=value".
func (w Where) String() string { return w.Key + "=" + w.Value }

// ByFile reports whether the groups are split by input file.
func (s Selection) ByFile() bool { return slices.Contains(s.By, "file") }

// String describes the selection for a report header.
func (s Selection) String() string {
	var parts []string
	if len(s.Metrics) > 0 {
		parts = append(parts, "metrics "+strings.Join(s.Metrics, ","))
	}
	for _, w := range s.Where {
		parts = append(parts, w.String())
	}
	if len(s.By) > 0 {
		parts = append(parts, "by "+strings.Join(s.By, ","))
	}
	if s.HasFrom {
		parts = append(parts, "from "+s.From.String())
	}
	if s.HasTo {
		parts = append(parts, "to "+s.To.String())
	}
	return strings.Join(parts, ", ")
}

// Keeps reports whether points of the named metric are read.
func (s Selection) Keeps(name string) bool {
	if slices.Contains(s.Also, name) {
		return true
	}
	if len(s.Metrics) == 0 {
		return strings.HasPrefix(name, metrics.Prefix)
	}
	return slices.Contains(s.Metrics, name)
}

// Matches reports whether a sample's tags pass every Where clause.
func (s Selection) Matches(tags *k6json.TagSet) bool {
	for _, w := range s.Where {
		v, _ := tags.Get(w.Key)
		if v != w.Value {
			return false
		}
	}
	return true
}

// InWindow reports whether a sample this long after its input's first
// sample is in the From/To window.
func (s Selection) InWindow(elapsed time.Duration) bool {
	return (!s.HasFrom || elapsed >= s.From) && (!s.HasTo || elapsed < s.To)
}

// Filtered names the filters that can leave a metric without samples:
// "--where" and "the --from/--to window", as a message would.
func (s Selection) Filtered() []string {
	var f []string
	if len(s.Where) > 0 {
		f = append(f, "--where")
	}
	if s.HasFrom || s.HasTo {
		f = append(f, "the --from/--to window")
	}
	return f
}
