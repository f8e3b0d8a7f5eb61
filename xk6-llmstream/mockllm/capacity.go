package mockllm

import "time"

// Capacity is the queueing model of the mock with fixed service times (no
// jitter, a fixed output length, prefill per input token 0): each request
// holds one of slots decode slots for prefill + (tokens−1)·itl, requests
// wait FIFO for a slot, so the mock serves at most slots / service time
// requests per second; above that the queue grows without bound.
func Capacity(slots int, prefill, itl time.Duration, tokens int) float64 {
	return float64(slots) / (prefill + time.Duration(tokens-1)*itl).Seconds()
}
