package stats

import (
	"fmt"
	"math"
)

// CheckSorted tells whether x is in ascending order without NaN, as the
// functions that take sorted samples require; the error names the first
// index that is wrong.
func CheckSorted(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) {
			return fmt.Errorf("sample %d is NaN", i)
		}
		if i > 0 && v < x[i-1] {
			return fmt.Errorf("samples are not sorted: sample %d (%g) is less than sample %d (%g)", i, v, i-1, x[i-1])
		}
	}
	return nil
}
