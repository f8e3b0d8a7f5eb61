package bench

import "time"

// Phase is a part of a stream by which the delivery lag is split. Under load
// the parts behave differently: the first event arrives with the response
// headers, the last ones with the end of the response, and both are where a
// client path's per-request work (connection handling, request and answer
// encoding) lands; mid-stream events show the per-event cost alone.
type Phase int

// The phases. An event can be in more than one: every event is in PhaseAll,
// and a first event that carries text is also the TTFT event; a stream with
// one text event has it in PhaseTTFT and PhaseFinal.
const (
	// PhaseAll is every stamped event.
	PhaseAll Phase = iota
	// PhaseFirst is the stream's first event (for the OpenAI chat dialect the
	// role chunk), which arrives with the response headers.
	PhaseFirst
	// PhaseTTFT is the first event carrying generated text: the one TTFT is
	// measured at.
	PhaseTTFT
	// PhaseMid is every text event after the first one (the last included):
	// the stream in its steady state, and calibrate's mid-stream lag, the
	// same statistic (calibrate.LagP99Interval).
	PhaseMid
	// PhaseFinal is the last text event and every event after it (finish
	// reason, usage).
	PhaseFinal
	// NumPhases is the number of phases.
	NumPhases
)

var phaseNames = [NumPhases]string{"all", "first", "ttft", "mid", "final"}

// String is the phase's short name, as the benchmark's tables print it.
func (p Phase) String() string {
	if p < 0 || p >= NumPhases {
		return "phase?"
	}
	return phaseNames[p]
}

// Lags holds the delivery lag (client read time − the server's write stamp)
// of stamped events, one slice per Phase, and the write stamps of the
// mid-stream events (the lag interval's time blocks, calibrate.LagP99Interval).
type Lags struct {
	By [NumPhases][]time.Duration
	// MidWriteNS[i] is the server's write stamp (Unix ns) of By[PhaseMid][i].
	MidWriteNS []int64
}

// Add adds the lag of every stamped event of one stream: startUnixNS is the
// stream's start as Unix nanoseconds, and each event's At is an offset from
// it. Events without a stamp (ServerNS 0) still count for the phase
// boundaries — the first event is events[0] whether stamped or not — but add
// no lag.
func (l *Lags) Add(startUnixNS int64, events []Event) {
	firstText, lastText := -1, -1
	for i, e := range events {
		if e.Text {
			if firstText < 0 {
				firstText = i
			}
			lastText = i
		}
	}
	for i, e := range events {
		if e.ServerNS == 0 {
			continue
		}
		lag := time.Duration(startUnixNS + int64(e.At) - e.ServerNS)
		l.By[PhaseAll] = append(l.By[PhaseAll], lag)
		if i == 0 {
			l.By[PhaseFirst] = append(l.By[PhaseFirst], lag)
		}
		if i == firstText {
			l.By[PhaseTTFT] = append(l.By[PhaseTTFT], lag)
		}
		if firstText >= 0 && i > firstText && e.Text {
			l.By[PhaseMid] = append(l.By[PhaseMid], lag)
			l.MidWriteNS = append(l.MidWriteNS, e.ServerNS)
		}
		if lastText >= 0 && i >= lastText {
			l.By[PhaseFinal] = append(l.By[PhaseFinal], lag)
		}
	}
}
