package helper

import (
	"time"

	hist "github.com/llmstream/xk6-llmstream/internal/histogram"
)

// histogram is the helper's histogram of durations, for its health summary
// (many writers, rare readers): the one histogram of the k6 side
// (internal/histogram; quantiles at most 1/32 above the true value).
type histogram struct{ hist.Histogram }

func (h *histogram) add(d time.Duration) { h.Add(d) }
