package mockllm

import "math/rand/v2"

// Fault names an injected failure. The values appear in the request log and in
// Stats.Faults.
type Fault string

// The faults. The engine classifies each as the error kind in its comment.
const (
	FaultNone        Fault = ""
	FaultHTTP429     Fault = "http_429"     // http_429
	FaultHTTP5xx     Fault = "http_5xx"     // http_5xx
	FaultDisconnect  Fault = "disconnect"   // reset_midstream
	FaultMalformed   Fault = "malformed"    // malformed
	FaultErrorEvent  Fault = "error_event"  // stream_error
	FaultNotStreamed Fault = "not_streamed" // not_streamed
	// FaultPause is no error: one long pause (Faults.PauseDuration) mid-answer,
	// before the token event where the fault strikes; the stream then goes on.
	// The stall SLO (llm_itl_max) sees it; a TPOT limit averages it away.
	FaultPause Fault = "pause"
	// FaultUnauthorized is not drawn: it answers a missing or wrong key.
	FaultUnauthorized Fault = "http_401" // http_401
	// FaultQueueFull is not drawn: it answers 429 beyond the queue limit.
	FaultQueueFull Fault = "queue_full" // http_429
)

// drawnFaults are the failures drawn by rate, in the order their rates are
// laid end to end on [0, 1); the pause (no failure) comes after them.
var drawnFaults = [...]Fault{FaultHTTP429, FaultHTTP5xx, FaultDisconnect, FaultMalformed, FaultErrorEvent, FaultNotStreamed}

// numDrawn counts every fault drawn by rate: the failures and the pause.
const numDrawn = len(drawnFaults) + 1

// drawn is every fault drawn by rate, in the order of their rates on [0, 1).
var drawn = [numDrawn]Fault(append(drawnFaults[:len(drawnFaults):len(drawnFaults)], FaultPause))

const numFaults = numDrawn + 2

// faultIndex maps a fault to its counter.
func faultIndex(f Fault) int {
	for i, d := range drawn {
		if d == f {
			return i
		}
	}
	switch f {
	case FaultUnauthorized:
		return numDrawn
	case FaultQueueFull:
		return numDrawn + 1
	}
	return -1
}

func faultByIndex(i int) Fault {
	switch {
	case i < numDrawn:
		return drawn[i]
	case i == numDrawn:
		return FaultUnauthorized
	default:
		return FaultQueueFull
	}
}

func (f *Faults) rate(k Fault) float64 {
	switch k {
	case FaultHTTP429:
		return f.HTTP429
	case FaultHTTP5xx:
		return f.HTTP5xx
	case FaultDisconnect:
		return f.Disconnect
	case FaultMalformed:
		return f.Malformed
	case FaultErrorEvent:
		return f.ErrorEvent
	case FaultNotStreamed:
		return f.NotStreamed
	case FaultPause:
		return f.Pause
	}
	return 0
}

// drawFault picks at most one fault with the configured rates, and where in the
// stream a mid-stream fault strikes: as a fraction in [0, 1) of the way through
// the output tokens. It always draws exactly two numbers from r, so the rest of
// the request's draws do not depend on the rates.
func (f *Faults) draw(r *rand.Rand) (Fault, float64) {
	u, at := r.Float64(), r.Float64()
	acc := 0.0
	for _, k := range drawn {
		acc += f.rate(k)
		if u < acc {
			return k, at
		}
	}
	return FaultNone, at
}

// midstream reports whether the fault strikes after the stream began.
func (f Fault) midstream() bool {
	return f == FaultDisconnect || f == FaultMalformed || f == FaultErrorEvent
}
