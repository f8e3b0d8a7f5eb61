package bench

import (
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSettings(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	def, err := parseSettings(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if def.itl != 20*time.Millisecond || def.stagger != 515*time.Millisecond || def.tokens != 50 || def.rounds != 3 ||
		!slices.Equal(def.levels, []int{1, 50, 200}) || def.slow || def.model != fastModel || !slices.Equal(def.k6Nices, []int{runner.DefaultK6Nice}) {
		t.Errorf("defaults = %+v", def)
	}
	if s, _ := parseSettings(env(map[string]string{"LLMSTREAM_BENCH_K6_NICE": "0, 10"})); !slices.Equal(s.k6Nices, []int{0, 10}) {
		t.Errorf("LLMSTREAM_BENCH_K6_NICE=0,10: %v", s.k6Nices)
	}
	if s, _ := parseSettings(env(map[string]string{"LLMSTREAM_BENCH_SLOW": "1"})); !s.slow {
		t.Error("LLMSTREAM_BENCH_SLOW=1 does not add the slow case")
	}
	if sl := slowSettings(); sl.model != slowModel || sl.streamLength() != slowPrefill+(slowTokens-1)*slowITL || sl.stagger != sl.streamLength()/2 {
		t.Errorf("slow settings = %+v", sl)
	}

	got, err := parseSettings(env(map[string]string{"LLMSTREAM_BENCH_ITL": "5ms", "LLMSTREAM_BENCH_LEVELS": "1, 50"}))
	if err != nil {
		t.Fatal(err)
	}
	// half a stream: (50 ms prefill + 49 × 5 ms) / 2
	if got.stagger != 147500*time.Microsecond || !slices.Equal(got.levels, []int{1, 50}) {
		t.Errorf("stagger should be half the stream length: %+v", got)
	}

	for v, want := range map[string]time.Duration{"0": 0, "0s": 0, "7ms": 7 * time.Millisecond, "1.03s": 1030 * time.Millisecond} {
		got, err := parseSettings(env(map[string]string{"LLMSTREAM_BENCH_STAGGER": v}))
		if err != nil || got.stagger != want {
			t.Errorf("LLMSTREAM_BENCH_STAGGER=%s: %v, %v; want %v", v, got.stagger, err, want)
		}
	}

	for _, tc := range []struct {
		env  map[string]string
		want string // in the error
	}{
		{map[string]string{"LLMSTREAM_BENCH_STAGGER": "-1ms"}, `LLMSTREAM_BENCH_STAGGER="-1ms"`},
		{map[string]string{"LLMSTREAM_BENCH_STAGGER": "20"}, `LLMSTREAM_BENCH_STAGGER="20"`},
		// 50 ms prefill + 49 × 20 ms = 1.03 s.
		{map[string]string{"LLMSTREAM_BENCH_STAGGER": "1.031s"}, "longer than a stream (1.03s"},
		{map[string]string{"LLMSTREAM_BENCH_TOKENS": "1", "LLMSTREAM_BENCH_STAGGER": "51ms"}, "longer than a stream (50ms"},
		{map[string]string{"LLMSTREAM_BENCH_ITL": "0s"}, `LLMSTREAM_BENCH_ITL="0s"`},
		{map[string]string{"LLMSTREAM_BENCH_ROUNDS": "0"}, `LLMSTREAM_BENCH_ROUNDS="0"`},
		{map[string]string{"LLMSTREAM_BENCH_K6_NICE": "20"}, `LLMSTREAM_BENCH_K6_NICE="20"`},
		{map[string]string{"LLMSTREAM_BENCH_TOKENS": "x"}, `LLMSTREAM_BENCH_TOKENS="x"`},
		{map[string]string{"LLMSTREAM_BENCH_LEVELS": "1,,2"}, `LLMSTREAM_BENCH_LEVELS="1,,2"`},
	} {
		_, err := parseSettings(env(tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.env, err, tc.want)
		}
	}
}
