package rundata

import "time"

// GroupSpan is the time a group's Counter rate per second is taken over.
// With the groups split by input (--by file) it is that input's own span,
// from its first sample to its latest kept sample; otherwise the inputs
// are one population and it is Span, the union's: from the earliest
// input's first sample to the latest kept sample of any input. So inputs
// merged give the rate of their concatenation (in time order), and a run
// compared per file is not diluted by the others' time.
func (d *Data) GroupSpan(g *Group) time.Duration {
	if !d.Reader.Selection().ByFile() || g.File >= len(d.last) {
		return d.Span()
	}
	files := d.Reader.Files()
	if g.File >= len(files) {
		return 0
	}
	first, last := files[g.File].Start, d.last[g.File]
	if first.IsZero() || !last.After(first) {
		return 0
	}
	return last.Sub(first)
}
