package mockllm

import (
	"math"
	"math/rand/v2"
	"time"
)

// Purposes of a request's random streams. Each purpose has its own stream, so
// that changing one setting (say, a fault rate) does not reshuffle the draws of
// another (say, the inter-token latencies) of the same request.
const (
	purposeFault uint64 = iota + 1
	purposeLength
	purposePrefill
	purposeDecode
	purposeHandshake // the TLS handshakes delayed (TLSOptions.HandshakeShare)
	purposeFormat    // a structured answer's values and validity (InvalidJSON)
	purposeTool      // which tool a tool-call answer calls, and its arguments
)

// requestRand returns the random source of one purpose of the request with
// arrival sequence number seq under seed. It depends on nothing else.
func requestRand(seed, seq, purpose uint64) *rand.Rand {
	a := splitmix64(seed ^ splitmix64(purpose))
	b := splitmix64(a ^ splitmix64(seq+0x9e3779b97f4a7c15))
	return rand.New(rand.NewPCG(a, b))
}

// splitmix64 is the SplitMix64 finaliser: a bijective scramble of 64 bits, used
// to turn (seed, seq, purpose) into well-spread PCG seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// apply draws one value of the jitter around base. JitterNone draws nothing
// from r; that keeps runs reproducible because a Server's configuration never
// changes.
func (j Jitter) apply(base time.Duration, r *rand.Rand) time.Duration {
	var v float64
	b := float64(base)
	switch j.Dist {
	case JitterLognormal:
		v = b * math.Exp(j.Sigma*r.NormFloat64())
	case JitterNormal:
		v = b + float64(j.Stddev)*r.NormFloat64()
	case JitterUniform:
		v = b + float64(j.Spread)*(2*r.Float64()-1)
	case JitterExponential:
		v = b + float64(j.Mean)*r.ExpFloat64()
	default:
		return base
	}
	return clampDuration(v)
}

// clampDuration converts v nanoseconds to a Duration in [0, 24h].
func clampDuration(v float64) time.Duration {
	switch {
	case !(v > 0): // also NaN
		return 0
	case v > float64(24*time.Hour):
		return 24 * time.Hour
	}
	return time.Duration(math.Round(v))
}

// draw returns one value of the distribution, clamped to [Min, Max] when those
// are set and to [0, maxOutputTokens] always. An unset Count returns def.
func (c Count) draw(r *rand.Rand, def int) int {
	var v float64
	switch c.Dist {
	case "":
		return def
	case CountFixed:
		v = float64(c.Value)
	case CountUniform:
		v = float64(c.Min + r.IntN(c.Max-c.Min+1))
	case CountLognormal:
		v = math.Round(c.Median * math.Exp(c.Sigma*r.NormFloat64()))
	case CountNormal:
		v = math.Round(c.Mean + c.Stddev*r.NormFloat64())
	}
	if c.Min > 0 && v < float64(c.Min) {
		v = float64(c.Min)
	}
	if c.Max > 0 && v > float64(c.Max) {
		v = float64(c.Max)
	}
	if !(v > 0) {
		return 0
	}
	if v > maxOutputTokens {
		return maxOutputTokens
	}
	return int(v)
}
