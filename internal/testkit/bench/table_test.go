package bench

import (
	"strings"
	"testing"
	"time"
)

// The tables put the paths side by side per phase and give the p99 ratios
// for all events and for mid-stream events.
func TestPrintTables(t *testing.T) {
	t.Parallel()
	s := settings{prefill: benchPrefill, itl: 20 * time.Millisecond, tokens: 3, rounds: 1, stagger: 20 * time.Millisecond}
	const µs = time.Microsecond
	stream := func(first, mid, final time.Duration) []Event {
		return []Event{ev(first, false, true), ev(first, true, true), ev(mid, true, true), ev(mid, true, true), ev(final, false, true)}
	}
	bare := &result{path: "bare", streams: 2, requests: 2, tokens: 100, wall: time.Second, cpu: time.Second}
	viaHelper := &result{path: "helper", streams: 2, requests: 2, tokens: 100, wall: time.Second, cpu: 2 * time.Second}
	k6 := &result{path: k6Records, streams: 2, requests: 2, tokens: 100, wall: time.Second, cpu: 4 * time.Second, steadyCPU: 3 * time.Second}
	for range 2 {
		bare.lag.Add(0, stream(100*µs, 100*µs, 100*µs))
		viaHelper.lag.Add(0, stream(900*µs, 150*µs, 900*µs))
		k6.lag.Add(0, stream(200*µs, 200*µs, 200*µs))
	}
	var out strings.Builder
	printTables(&out, s, []*result{bare, viaHelper, k6}, true)
	text := out.String()
	for _, want := range []string{
		"staggered; LLMSTREAM_BENCH_STAGGER=0 for lockstep",
		"2 streams: helper/bare lag p99 ratio: all 9.00 (0.900 vs 0.100 ms), mid-stream 1.50 (0.150 vs 0.100 ms); all p50 ratio 9.00; CPU per token ratio 2.00, steady 2.00",
		"2 streams: k6-records/bare lag p99 ratio: all 2.00 (0.200 vs 0.100 ms), mid-stream 2.00 (0.200 vs 0.100 ms); all p50 ratio 2.00; CPU per token ratio 4.00, steady 3.00",
		"(k6 path skipped",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// One row per phase, the bare and helper cells side by side (compared
	// field by field: the padding is the tabwriter's).
	rows := map[string]string{
		"first": "0.100 / 0.100 / - / 0.100 (2) 0.900 / 0.900 / - / 0.900 (2) 0.200 / 0.200 / - / 0.200 (2)",
		// Every event at one write stamp: one stretch of time, too few to
		// bound the p99.
		"mid":   "0.100 / 0.100 [−∞, ∞] / - / 0.100 (4) 0.150 / 0.150 [−∞, ∞] / - / 0.150 (4) 0.200 / 0.200 [−∞, ∞] / - / 0.200 (4)",
		"final": "0.100 / 0.100 / - / 0.100 (4) 0.525 / 0.900 / - / 0.900 (4) 0.200 / 0.200 / - / 0.200 (4)",
	}
	for phase, cells := range rows {
		found := false
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) > 2 && f[0] == "2" && f[1] == phase {
				found = true
				if got := strings.Join(f[2:], " "); got != cells {
					t.Errorf("%s row = %q, want %q", phase, got, cells)
				}
			}
		}
		if !found {
			t.Errorf("no %s row:\n%s", phase, text)
		}
	}

	out.Reset()
	s.stagger = 0
	printTables(&out, s, []*result{bare}, false)
	if !strings.Contains(out.String(), "lockstep") || strings.Contains(out.String(), "ratio") || strings.Contains(out.String(), "slow case") {
		t.Errorf("lockstep, bare only:\n%s", out.String())
	}
	out.Reset()
	s.slow = true
	printTables(&out, s, []*result{bare}, false)
	if !strings.Contains(out.String(), "The slow case (2000 streams): prefill 200ms, 10 tokens 500ms apart") || !strings.Contains(out.String(), "200 VUs of 10 asyncChat streams") {
		t.Errorf("slow case not described:\n%s", out.String())
	}
}

// TestPrintK6Cost: k6's CPU per request on each path against the plain
// post's, and the ITL error p99 against the bare client's.
func TestPrintK6Cost(t *testing.T) {
	t.Parallel()
	rs := map[string]*result{
		k6Plain:   {path: k6Plain, requests: 4, k6Steady: 800 * time.Microsecond},
		k6Floor:   {path: k6Floor, requests: 4, k6Steady: 1600 * time.Microsecond},
		k6Records: {path: k6Records, requests: 4, k6Steady: 2000 * time.Microsecond, itlErr: []time.Duration{300 * time.Microsecond}},
		"bare":    {path: "bare", requests: 4, itlErr: []time.Duration{100 * time.Microsecond}},
	}
	var b strings.Builder
	printK6Cost(&b, []int{50}, func(n int, p string) *result { return rs[p] })
	want := "50 streams: k6 CPU per request: k6-plain 200 µs; k6-floor 400 µs (2.00×); k6-records 500 µs (2.50×)\n" +
		"50 streams: ITL error p99 (excess over the mock's schedule): k6-records 0.300 ms, bare 0.100 ms (3.00×)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	delete(rs, k6Plain)
	if printK6Cost(&b, []int{50}, func(n int, p string) *result { return rs[p] }); b.Len() != 0 {
		t.Errorf("without the plain path it printed %q", b.String())
	}
}
