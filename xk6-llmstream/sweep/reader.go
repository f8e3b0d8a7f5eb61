package sweep

import (
	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/model"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

// Reader reads one level's k6 output into what the sweep judges. K6JSON reads
// k6's --out json through analyze/k6json; an implementation over analyze's
// model package can replace it without touching the judging.
type Reader interface {
	Read(path string, want Want) (*Reading, error)
}

// Stream is a metric, or a submetric by tags, whose samples are wanted.
type Stream struct {
	Metric string
	Tags   []k6json.Tag // nil: every sample of the metric
}

// Want says what a Reading must hold.
type Want struct {
	// Streams are the (sub)metrics to collect, in the order of
	// Reading.Streams and of Request.Min and Request.Max.
	Streams []Stream
	// Drift names the metric whose samples are kept with their time, for
	// the within-level drift test.
	Drift string
}

// Reading is one level's samples.
type Reading struct {
	Input string
	// Streams hold each wanted stream's samples as analyze/check evaluates
	// them (a Trend's values sorted; the type from k6's declaration, a Trend
	// when the file declares none). Seconds is left 0: the judging sets the
	// window.
	Streams []check.Data
	// Join holds the requests the level made, joined by their
	// llm_request_id metadata (analyze/model), with the extremes of each
	// wanted stream per request, in the order of Want.Streams.
	Join *model.Requests
	// Drift holds the samples of Want.Drift with their time since the
	// input's first point.
	Drift []tail.Sample
	// Dropped is the sum of k6's dropped_iterations: iterations an
	// arrival-rate executor could not start for want of a free VU.
	Dropped float64
}
