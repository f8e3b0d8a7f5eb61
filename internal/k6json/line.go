package k6json

// A line is decoded twice at most: by the fast path (fast.go, over a cursor,
// cursor.go) for k6's own line shape, and, when the fast path is not sure, by
// the reference decoder (slow.go, encoding/json), whose verdict is final.

// lineKind says what a line was.
type lineKind uint8

const (
	lineBlank   lineKind = iota // only white space
	lineOther                   // a JSON object that is neither Point nor Metric: ignored
	lineMetric                  // a Metric declaration
	linePoint                   // a Point of a kept metric
	lineSkipped                 // a Point of a metric the caller does not keep
)

// metricState is what a Scanner knows about one metric name.
type metricState struct {
	name string
	keep bool
}

// lineResult is a decoded line. For lineSkipped, hasTime says whether unixNano
// holds the point's time (it is only looked for while the input's start is unknown).
type lineResult struct {
	kind     lineKind
	metric   *metricState
	unixNano int64
	hasTime  bool
	value    float64
	tags     *TagSet
	decl     *Metric
	meta     []Tag // the point's metadata, when the decoder keeps it
}

// decoder holds what both line decoders share: interned strings and tag sets,
// and the caller's choice of metrics.
type decoder struct {
	in      *interner
	metrics map[string]*metricState
	keep    func(name string) bool
	tagBuf  []Tag
	// metadata asks for each kept point's metadata object (metadata.go).
	metadata bool
}

func newDecoder(keep func(string) bool) *decoder {
	return &decoder{in: newInterner(), metrics: make(map[string]*metricState), keep: keep}
}

func (dc *decoder) metric(name []byte) *metricState {
	if ms, ok := dc.metrics[string(name)]; ok {
		return ms
	}
	n := dc.in.str(name)
	ms := &metricState{name: n, keep: dc.keep == nil || dc.keep(n)}
	dc.metrics[n] = ms
	return ms
}
