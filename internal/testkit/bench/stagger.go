package bench

import (
	"slices"
	"time"
)

// StaggerOffset is how long after a round begins stream slot i of n starts
// its request: the n slots are spread uniformly over window, slot 0 at once
// and slot i at i·window/n. A window of 0 (or less) starts every slot at once
// (lockstep); i is taken modulo n. The offsets are deterministic, so every client path compared
// runs the same start pattern.
func StaggerOffset(i, n int, window time.Duration) time.Duration {
	if window <= 0 || n <= 0 || i <= 0 {
		return 0
	}
	return time.Duration(int64(window) * int64(i%n) / int64(n))
}

// StaggerOffsets returns StaggerOffset(i, n, window) for every slot i of n.
func StaggerOffsets(n int, window time.Duration) []time.Duration {
	offs := make([]time.Duration, n)
	for i := range offs {
		offs[i] = StaggerOffset(i, n, window)
	}
	return offs
}

// MaxStartsWithin is the largest number of the given start times (Unix ns,
// in any order) that fall within any one span of the given width (both ends
// included): how many streams a client path really started at once. In
// lockstep it is the number of stream slots; staggered, far fewer.
func MaxStartsWithin(startsNS []int64, width time.Duration) int {
	s := slices.Clone(startsNS)
	slices.Sort(s)
	best, lo := 0, 0
	for hi := range s {
		for s[hi]-s[lo] > int64(width) {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}
