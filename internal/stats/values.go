package stats

import "slices"

// chunkLen is the number of values per block of a Values.
const chunkLen = 1 << 14

// Values accumulates float64 samples in blocks of chunkLen, so that keeping n
// samples costs 8·n bytes plus at most one partly filled block, without the
// copying of one ever-growing slice. The first block grows as a slice does, so a
// small group costs little. The zero value is ready to use.
type Values struct {
	chunks [][]float64
	n      int
}

// Add appends a value.
func (v *Values) Add(x float64) {
	switch {
	case len(v.chunks) == 0:
		v.chunks = append(v.chunks, make([]float64, 0, 16))
	case len(v.chunks[len(v.chunks)-1]) == chunkLen:
		v.chunks = append(v.chunks, make([]float64, 0, chunkLen))
	}
	last := &v.chunks[len(v.chunks)-1]
	if len(*last) == cap(*last) && cap(*last) < chunkLen {
		grown := make([]float64, len(*last), min(2*cap(*last), chunkLen))
		copy(grown, *last)
		*last = grown
	}
	*last = append(*last, x)
	v.n++
}

// Len is the number of values added.
func (v *Values) Len() int { return v.n }

// Sorted returns the values in one new slice, sorted ascending, and empties v
// (its blocks are released to the garbage collector as they are copied).
func (v *Values) Sorted() []float64 {
	out := make([]float64, 0, v.n)
	for i, c := range v.chunks {
		out = append(out, c...)
		v.chunks[i] = nil
	}
	v.chunks, v.n = nil, 0
	slices.Sort(out)
	return out
}
