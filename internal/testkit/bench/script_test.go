package bench

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/calibrate"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// mockShapeEnv carries the script benchmark's mock shape to the mock child:
// "TTFT,ITL,TOKENS" (e.g. "50ms,20ms,64"), calibrate's mock
// (calibrate.MockConfig) for every model.
const mockShapeEnv = "LLMSTREAM_BENCH_MOCK_SHAPE"

// scriptSettings are BenchmarkScriptLag's knobs.
type scriptSettings struct {
	script      string // absolute
	ttft, itl   time.Duration
	tokens      int
	nice        int
	displayPath string
	// inProcess runs the mock in the benchmark's process, as calibrate runs
	// it (LLMSTREAM_BENCH_MOCK_INPROC=1), to tell that cost apart.
	inProcess bool
}

// parseScriptSettings reads LLMSTREAM_BENCH_SCRIPT (a path relative to the
// repository's root, or absolute; default scripts/ramping-vus.js),
// LLMSTREAM_BENCH_TTFT (default 50ms), LLMSTREAM_BENCH_ITL (20ms),
// LLMSTREAM_BENCH_TOKENS (64: ramping-vus.js's max_tokens) and
// LLMSTREAM_BENCH_K6_NICE (one value; default runner.DefaultK6Nice). root is
// the repository's root.
func parseScriptSettings(getenv func(string) string, root string) (scriptSettings, error) {
	s := scriptSettings{ttft: 50 * time.Millisecond, itl: 20 * time.Millisecond, tokens: 64, nice: runner.DefaultK6Nice}
	s.displayPath = cmp.Or(getenv("LLMSTREAM_BENCH_SCRIPT"), filepath.Join("scripts", "ramping-vus.js"))
	s.script = s.displayPath
	if !filepath.IsAbs(s.script) {
		s.script = filepath.Join(root, s.script)
	}
	if fi, err := os.Stat(s.script); err != nil || fi.IsDir() {
		return s, fmt.Errorf("LLMSTREAM_BENCH_SCRIPT=%q: no such script file %s (a path from the repository's root, or absolute)", s.displayPath, s.script)
	}
	for _, d := range []struct {
		name string
		p    *time.Duration
		zero bool
	}{{"LLMSTREAM_BENCH_TTFT", &s.ttft, true}, {"LLMSTREAM_BENCH_ITL", &s.itl, false}} {
		if v := getenv(d.name); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x < 0 || (x == 0 && !d.zero) {
				return s, fmt.Errorf("%s=%q: want a duration such as 20ms (ITL above 0)", d.name, v)
			}
			*d.p = x
		}
	}
	if v := getenv("LLMSTREAM_BENCH_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("LLMSTREAM_BENCH_TOKENS=%q: want a positive integer", v)
		}
		s.tokens = n
	}
	switch v := getenv("LLMSTREAM_BENCH_MOCK_INPROC"); v {
	case "", "0":
	case "1":
		s.inProcess = true
	default:
		return s, fmt.Errorf("LLMSTREAM_BENCH_MOCK_INPROC=%q: want 1 (the mock in this process) or 0", v)
	}
	if v := getenv("LLMSTREAM_BENCH_K6_NICE"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err == nil {
			err = runner.CheckK6Nice(n)
		}
		if err != nil {
			return s, fmt.Errorf("LLMSTREAM_BENCH_K6_NICE=%q: the script benchmark takes one whole number from 0 to %d", v, runner.MaxK6Nice)
		}
		s.nice = n
	}
	return s, nil
}

// scriptResult is what BenchmarkScriptLag measured: every request of the run
// (warm-up ones included, as calibrate counts them).
type scriptResult struct {
	requests, failed, peak int
	firstErr               string
	lag                    Lags
}

// measureScript measures the helper's records of one script run with the
// benchmark's own method: each stamped event's read time (the record's start
// + the event's offset) minus the mock's stamp in the event (x_mock_ts_ns).
func measureScript(recs []*stream.Record) *scriptResult {
	r := &scriptResult{}
	starts := make([]int64, 0, len(recs))
	ends := make([]int64, 0, len(recs))
	for _, rec := range recs {
		r.requests++
		starts = append(starts, rec.Start.UnixNano())
		ends = append(ends, rec.Start.Add(rec.E2E).UnixNano())
		if rec.Err != nil {
			r.failed++
			if r.firstErr == "" {
				r.firstErr = string(rec.Err.Kind) + ": " + rec.Err.Message
			}
			continue
		}
		events := make([]Event, len(rec.Timeline))
		for i, e := range rec.Timeline {
			events[i] = Event{At: e.At, ServerNS: e.ServerNS, Text: e.Text}
		}
		r.lag.Add(rec.Start.UnixNano(), events)
	}
	r.peak = PeakInFlight(starts, ends)
	return r
}

// PeakInFlight is the most requests in flight at a request's start (started
// at or before it and not ended before it), as calibrate counts its peak
// streams; starts[i] and ends[i] are one request's, in any order.
func PeakInFlight(starts, ends []int64) int {
	s, e := slices.Clone(starts), slices.Clone(ends)
	slices.Sort(s)
	slices.Sort(e)
	peak := 0
	for _, t := range s {
		in := sort.Search(len(s), func(i int) bool { return s[i] > t }) - sort.Search(len(e), func(i int) bool { return e[i] >= t })
		peak = max(peak, in)
	}
	return peak
}

// BenchmarkScriptLag runs a k6 script as it is — its own options, load and
// itl setting — with real k6 through the benchmark's k6 path: the mock in a
// child process shaped as calibrate shapes it (a fixed TTFT, ITL and answer
// length, no jitter, x_mock_ts_ns stamps), the recorder helper writing
// records as `xk6-llmstream run --records` does, k6 started
// LLMSTREAM_BENCH_K6_NICE (default as run) steps of priority below it, with
// LLM_BASE_URL, LLMSTREAM_HELPER and LLMSTREAM_HELPER_TOKEN set. It prints
// the mid-stream lag (every text event after the first: read − write, the
// statistic calibrate reports) with its p99's 95% interval
// (calibrate.LagP99Interval), the events, requests and peak streams: the
// figure `xk6-llmstream calibrate` should match at the same load, measured
// without calibrate's code (docs/calibrate.md).
//
//	K6_BIN=/path/to/k6 go test ./internal/testkit/bench -run '^$' -bench ScriptLag -benchtime 1x
func BenchmarkScriptLag(b *testing.B) {
	bin, err := runner.FindK6(os.Environ())
	if errors.Is(err, runner.ErrK6NotFound) {
		b.Skipf("the script benchmark runs real k6: set K6_BIN to a k6 binary or put k6 on PATH (%v)", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	s, err := parseScriptSettings(os.Getenv, root)
	if err != nil {
		b.Fatal(err)
	}
	var mockURL, mockWhere string
	if s.inProcess {
		url, stop := startInProcessMock(b, s.ttft, s.itl, s.tokens)
		defer stop()
		mockURL, mockWhere = url, "in this process, writing its request log, as calibrate runs it"
	} else {
		mock := startShapedMockProc(b, s.ttft, s.itl, s.tokens)
		defer mock.stop(b)
		mockURL, mockWhere = mock.url, "child process"
	}
	k := &k6Path{bin: bin, mockURL: mockURL, dir: b.TempDir(), mode: k6Records, name: "script", nice: s.nice,
		rec: &recorder{inner: stream.NewClient()}}
	rw, err := helper.CreateRecords(filepath.Join(k.dir, "records.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	k.rw = rw
	hs, err := helper.Start(helper.DefaultAddr, helper.WithStreamer(k.rec), helper.WithRecords(rw))
	if err != nil {
		b.Fatal(err)
	}
	k.hs = hs
	defer k.close()
	var r *scriptResult
	for range b.N {
		k.rec.take()
		_, _, err := k.exec(s.script, "")
		if err != nil {
			// k6 exits non-zero when a threshold fails: the lag is still
			// measured, the failure reported.
			b.Logf("%v", err)
		}
		r = measureScript(k.rec.take())
	}
	mid := SummarizeMid(&r.lag)
	fmt.Printf("\nscript %s (as is; k6 %d nice steps below the helper) against the mock (%s): TTFT %v, ITL %v, %d tokens, no jitter\n",
		s.displayPath, s.nice, mockWhere, s.ttft, s.itl, s.tokens)
	fmt.Printf("requests %d (%d failed), %d streams at peak\n", r.requests, r.failed, r.peak)
	fmt.Printf("mid-stream lag p50 %s ms, p99 %s ms %s (95%%, bootstrap over %v write-time blocks), p99.9 %s ms, max %s ms (%d events)\n",
		ms(mid.P50), ms(mid.P99), mid.CI(), calibrate.LagBlock, p999(mid.Summary), ms(mid.Max), mid.N)
	b.ReportMetric(float64(mid.P50)/1e6, "mid-lag-p50-ms")
	b.ReportMetric(float64(mid.P99)/1e6, "mid-lag-p99-ms")
	if mid.Bounded() {
		b.ReportMetric(mid.P99Lo, "mid-lag-p99-lo95-ms")
		b.ReportMetric(mid.P99Hi, "mid-lag-p99-hi95-ms")
	}
	b.ReportMetric(float64(mid.N), "events")
	b.ReportMetric(float64(r.requests), "requests")
	b.ReportMetric(float64(r.peak), "peak-streams")
	if r.failed > 0 {
		b.Errorf("%d of %d requests failed; first: %s", r.failed, r.requests, r.firstErr)
	}
	if mid.N == 0 {
		b.Error("no mid-stream event was measured: the script made no successful streamed request of two or more text events")
	}
}

func p999(s Summary) string {
	if !s.HasP999() {
		return "-"
	}
	return ms(s.P999)
}

// startInProcessMock serves calibrate's mock in this process on 127.0.0.1,
// its request log written to a file, as calibrate.Run does.
func startInProcessMock(b *testing.B, ttft, itl time.Duration, tokens int) (url string, stop func()) {
	f, err := os.Create(filepath.Join(b.TempDir(), "mock-log.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	cfg := calibrate.MockConfig(ttft, itl, tokens)
	cfg.Log = bw
	m, err := mockllm.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(m)
	return srv.URL, func() {
		if err := errors.Join(m.Close(), bw.Flush(), f.Close()); err != nil {
			b.Error(err)
		}
		srv.Close()
	}
}
