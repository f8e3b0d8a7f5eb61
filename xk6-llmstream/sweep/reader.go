package sweep

import (
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
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
	// Requests are the requests the level made, joined by their
	// llm_request_id metadata, in no particular order. A
	// llm_requests_failed sample without the metadata is a request of its
	// own with no other samples (Untracked counts them).
	Requests  []Request
	Untracked int64
	// Drift holds the samples of Want.Drift with their time since the
	// input's first point.
	Drift []tail.Sample
	// Dropped is the sum of k6's dropped_iterations: iterations an
	// arrival-rate executor could not start for want of a free VU.
	Dropped float64
}

// Request is what one request's samples say.
type Request struct {
	// End is the time of its llm_requests_failed sample (when the request
	// ended) since the input's first point; Ended is false when it has none.
	End    time.Duration
	Ended  bool
	Failed bool
	// OutputTokens is the sum of its llm_output_tokens samples.
	OutputTokens float64
	// Min and Max are its smallest and largest sample of each wanted
	// stream (NaN: none).
	Min, Max []float64
}
