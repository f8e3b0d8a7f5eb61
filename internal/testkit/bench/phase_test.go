package bench

import (
	"slices"
	"testing"
	"time"
)

// ev is an event whose lag, for a stream started at Unix ns 0, is lag
// (ServerNS 1e9 stands for "stamped"; 0 for "no stamp").
func ev(lag time.Duration, text, stamped bool) Event {
	e := Event{At: time.Second + lag, Text: text}
	if stamped {
		e.ServerNS = int64(time.Second)
	}
	return e
}

func TestLagsAdd(t *testing.T) {
	t.Parallel()
	const µs = time.Microsecond
	type want [NumPhases][]time.Duration
	tests := []struct {
		name   string
		events []Event
		want   want
	}{{
		name: "chat stream: role, four texts, finish, usage, [DONE]",
		events: []Event{
			ev(1*µs, false, true), ev(2*µs, true, true), ev(3*µs, true, true), ev(4*µs, true, true),
			ev(5*µs, true, true), ev(6*µs, false, true), ev(7*µs, false, true), ev(8*µs, false, false),
		},
		want: want{
			PhaseAll:   {1 * µs, 2 * µs, 3 * µs, 4 * µs, 5 * µs, 6 * µs, 7 * µs},
			PhaseFirst: {1 * µs},
			PhaseTTFT:  {2 * µs},
			PhaseMid:   {3 * µs, 4 * µs, 5 * µs},
			PhaseFinal: {5 * µs, 6 * µs, 7 * µs},
		},
	}, {
		name:   "first event carries text: first and ttft both",
		events: []Event{ev(1*µs, true, true), ev(2*µs, true, true), ev(3*µs, true, true)},
		want: want{
			PhaseAll:   {1 * µs, 2 * µs, 3 * µs},
			PhaseFirst: {1 * µs},
			PhaseTTFT:  {1 * µs},
			PhaseMid:   {2 * µs, 3 * µs},
			PhaseFinal: {3 * µs},
		},
	}, {
		name:   "one text event: ttft and final, no mid",
		events: []Event{ev(1*µs, false, true), ev(2*µs, true, true), ev(3*µs, false, true)},
		want: want{
			PhaseAll:   {1 * µs, 2 * µs, 3 * µs},
			PhaseFirst: {1 * µs},
			PhaseTTFT:  {2 * µs},
			PhaseFinal: {2 * µs, 3 * µs},
		},
	}, {
		name:   "no text: first only",
		events: []Event{ev(1*µs, false, true), ev(2*µs, false, true)},
		want: want{
			PhaseAll:   {1 * µs, 2 * µs},
			PhaseFirst: {1 * µs},
		},
	}, {
		name:   "unstamped first event still bounds the phases",
		events: []Event{ev(1*µs, false, false), ev(2*µs, true, true), ev(3*µs, true, false), ev(4*µs, true, true)},
		want: want{
			PhaseAll:   {2 * µs, 4 * µs},
			PhaseTTFT:  {2 * µs},
			PhaseMid:   {4 * µs},
			PhaseFinal: {4 * µs},
		},
	}, {
		name: "negative lag (clock offset) is kept, not clipped",
		events: []Event{
			ev(-3*µs, false, true), ev(1*µs, true, true),
		},
		want: want{
			PhaseAll:   {-3 * µs, 1 * µs},
			PhaseFirst: {-3 * µs},
			PhaseTTFT:  {1 * µs},
			PhaseFinal: {1 * µs},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var l Lags
			l.Add(0, tc.events)
			for ph := range NumPhases {
				if !slices.Equal(l.By[ph], tc.want[ph]) {
					t.Errorf("%s = %v, want %v", ph, l.By[ph], tc.want[ph])
				}
			}
			// Every stamped event of the test is stamped at 1 s.
			if len(l.MidWriteNS) != len(l.By[PhaseMid]) || slices.ContainsFunc(l.MidWriteNS, func(w int64) bool { return w != int64(time.Second) }) {
				t.Errorf("mid write stamps %v for %d mid events", l.MidWriteNS, len(l.By[PhaseMid]))
			}
		})
	}
}

// Add accumulates across streams and honours each stream's start.
func TestLagsAddAccumulates(t *testing.T) {
	t.Parallel()
	var l Lags
	start := int64(1_700_000_000_000_000_000)
	l.Add(start, []Event{{At: 50 * time.Millisecond, ServerNS: start + int64(49*time.Millisecond), Text: true}})
	l.Add(start+5, []Event{{At: 10, ServerNS: start + 12, Text: true}})
	if want := []time.Duration{time.Millisecond, 3}; !slices.Equal(l.By[PhaseAll], want) {
		t.Errorf("all = %v, want %v", l.By[PhaseAll], want)
	}
	if len(l.By[PhaseTTFT]) != 2 || len(l.By[PhaseFinal]) != 2 || len(l.By[PhaseMid]) != 0 {
		t.Errorf("phases = %v", l)
	}
}

func TestPhaseString(t *testing.T) {
	t.Parallel()
	want := []string{"all", "first", "ttft", "mid", "final"}
	for ph := range NumPhases {
		if ph.String() != want[ph] {
			t.Errorf("Phase(%d) = %q, want %q", ph, ph, want[ph])
		}
	}
	if NumPhases.String() != "phase?" || Phase(-1).String() != "phase?" {
		t.Error("out-of-range phases should not have a name")
	}
}
