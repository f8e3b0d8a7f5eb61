package bench

import (
	"math"
	"strings"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/calibrate"

	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	s := Summarize(ds)
	// rank p·(n−1): p50 → 49.5 → 50.5 ms; p99 → 98.01 → 99.01 ms; p99.9 → 98.901 → 99.901 ms.
	if s.N != 100 || s.P50 != 50500*time.Microsecond || s.P99 != 99010*time.Microsecond ||
		!near(s.P999, 99901*time.Microsecond) || s.Max != 100*time.Millisecond {
		t.Errorf("Summarize = %+v", s)
	}
	if s.HasP999() {
		t.Error("100 values should not report p99.9")
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("Summarize sorted its input")
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("empty input")
	}
	if one := Summarize([]time.Duration{7}); one.P50 != 7 || one.P99 != 7 || one.P999 != 7 || one.Max != 7 {
		t.Errorf("one value: %+v", one)
	}
}

func TestSummarizeP999(t *testing.T) {
	t.Parallel()
	// 2, 4, …, 4000 µs: p50 at rank 999.5 → 2001 µs; p99 at 1979.01 → 3960.02 µs;
	// p99.9 at 1997.001 → 3996.002 µs.
	ds := make([]time.Duration, 2000)
	for i := range ds {
		ds[i] = time.Duration(2*(i+1)) * time.Microsecond
	}
	s := Summarize(ds)
	if !s.HasP999() || !near(s.P999, 3996002*time.Nanosecond) {
		t.Errorf("p99.9 = %v (reported %v), want 3.996002ms", s.P999, s.HasP999())
	}
	if got, want := s.Tail(), "2.001 / 3.960 / 3.996 / 4.000 (2000)"; got != want {
		t.Errorf("Tail = %q, want %q", got, want)
	}
	// 999 values, 2…1998 µs: p50 at rank 499 → 1000 µs; p99 at 988.02 → 1978.04 µs.
	if got, want := Summarize(ds[:MinNForP999-1]).Tail(), "1.000 / 1.978 / - / 1.998 (999)"; got != want {
		t.Errorf("Tail below MinNForP999 = %q, want %q", got, want)
	}
	if got := Summarize(ds[:MinNForP999]); !got.HasP999() {
		t.Errorf("%d values should report p99.9", MinNForP999)
	}
	if got := (Summary{}).Tail(); got != "- (0)" {
		t.Errorf("empty Tail = %q", got)
	}
}

// near allows the 1 ns that interpolating at a float rank may lose.
func near(got, want time.Duration) bool { return got-want <= 1 && want-got <= 1 }

// SummarizeMid gives the mid-stream p99 calibrate's interval: bounded once
// the events span enough stretches of write time, and the same figures
// calibrate.LagP99Interval gives for the same events.
func TestSummarizeMidInterval(t *testing.T) {
	t.Parallel()
	var l Lags
	start := int64(1_700_000_000_000_000_000)
	var lagMS []float64
	var writes []int64
	for r := range 60 { // 60 streams, 100 ms apart, 10 text events 20 ms apart
		s := start + int64(r)*int64(100*time.Millisecond)
		var events []Event
		for i := range 10 {
			at := 50*time.Millisecond + time.Duration(i)*20*time.Millisecond
			lag := time.Duration((r*7+i*13)%50) * 10 * time.Microsecond
			events = append(events, Event{At: at + lag, ServerNS: s + int64(at), Text: true})
			if i > 0 {
				lagMS = append(lagMS, float64(lag)/1e6)
				writes = append(writes, s+int64(at))
			}
		}
		l.Add(s, events)
	}
	m := SummarizeMid(&l)
	lo, hi := calibrate.LagP99Interval(lagMS, writes)
	if m.N != 60*9 || m.P99Lo != lo || m.P99Hi != hi || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > float64(m.P99)/1e6 || hi < lo {
		t.Errorf("mid %+v, calibrate's interval [%v, %v]", m, lo, hi)
	}
	if !strings.Contains(m.Tail(), m.CI()) || strings.Contains(m.CI(), "∞") {
		t.Errorf("tail %q, interval %q", m.Tail(), m.CI())
	}
}
