package stats

import "time"

// Sample is one value at a time since the start of the run: the base unit
// the readers (model) store and the diagnoses (shape, sweep) consume.
type Sample struct {
	T time.Duration
	V float64
}
