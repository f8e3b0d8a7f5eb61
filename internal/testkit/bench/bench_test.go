package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/calibrate"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// The mock's schedule for the side-by-side runs and for the slow streams.
const (
	benchPrefill = 50 * time.Millisecond
	slowPrefill  = 200 * time.Millisecond
	slowITL      = 500 * time.Millisecond
	slowTokens   = 10
	slowStreams  = 2000
	slowPerVU    = 10 // the k6 paths' slow case: slowStreams/slowPerVU VUs of asyncChat streams
	fastModel    = "bench-fast"
	slowModel    = "bench-slow"
	mockChildEnv = "LLMSTREAM_BENCH_MOCK_CHILD"
)

// settings are the benchmark's knobs (environment variables, see doc.go).
type settings struct {
	model   string // the mock's model: its schedule
	prefill time.Duration
	itl     time.Duration
	tokens  int
	rounds  int
	levels  []int
	// stagger is the window over which each round's stream starts are spread
	// (StaggerOffset); 0 starts every slot at once.
	stagger time.Duration
	// slow adds the slow case at the end (LLMSTREAM_BENCH_SLOW=1).
	slow bool
	// k6Nices are k6's priorities below the helper's, each a k6 path of its
	// own (LLMSTREAM_BENCH_K6_NICE, e.g. "0,10"; default runner.DefaultK6Nice,
	// as xk6-llmstream run sets it).
	k6Nices []int
}

// slowSettings are the slow case's: slowStreams streams of slowTokens tokens
// slowITL apart, one measured request per slot, starts spread over half a stream.
func slowSettings() settings {
	s := settings{model: slowModel, prefill: slowPrefill, itl: slowITL, tokens: slowTokens, rounds: 1, levels: []int{slowStreams}}
	s.stagger = s.streamLength() / 2
	return s
}

// streamLength is the mock's schedule from request to the last text event.
func (s settings) streamLength() time.Duration {
	return s.prefill + time.Duration(s.tokens-1)*s.itl
}

func loadSettings(tb testing.TB) settings {
	s, err := parseSettings(os.Getenv)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// parseSettings reads the knobs through getenv (os.Getenv in the benchmark).
func parseSettings(getenv func(string) string) (settings, error) {
	s := settings{model: fastModel, prefill: benchPrefill, itl: 20 * time.Millisecond, tokens: 50, rounds: 3, levels: []int{1, 50, 200}}
	s.slow = getenv("LLMSTREAM_BENCH_SLOW") == "1"
	s.k6Nices = []int{runner.DefaultK6Nice}
	if v := getenv("LLMSTREAM_BENCH_K6_NICE"); v != "" {
		s.k6Nices = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err == nil {
				err = runner.CheckK6Nice(n)
			}
			if err != nil {
				return s, fmt.Errorf("LLMSTREAM_BENCH_K6_NICE=%q: want comma-separated whole numbers from 0 to %d", v, runner.MaxK6Nice)
			}
			s.k6Nices = append(s.k6Nices, n)
		}
	}
	if v := getenv("LLMSTREAM_BENCH_ITL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("LLMSTREAM_BENCH_ITL=%q: want a positive duration such as 20ms", v)
		}
		s.itl = d
	}
	for _, k := range []struct {
		name string
		p    *int
	}{{"LLMSTREAM_BENCH_TOKENS", &s.tokens}, {"LLMSTREAM_BENCH_ROUNDS", &s.rounds}} {
		if v := getenv(k.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return s, fmt.Errorf("%s=%q: want a positive integer", k.name, v)
			}
			*k.p = n
		}
	}
	if v := getenv("LLMSTREAM_BENCH_LEVELS"); v != "" {
		s.levels = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return s, fmt.Errorf("LLMSTREAM_BENCH_LEVELS=%q: want comma-separated positive integers", v)
			}
			s.levels = append(s.levels, n)
		}
	}
	// Default: spread the starts over half a stream, so that requests begin at
	// about the rate a steady load of n back-to-back streams makes (n per stream
	// length) while all n still run at once for the second half of the round.
	s.stagger = s.streamLength() / 2
	if v := getenv("LLMSTREAM_BENCH_STAGGER"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return s, fmt.Errorf("LLMSTREAM_BENCH_STAGGER=%q: want a duration ≥ 0 such as 500ms (0 starts all streams at once)", v)
		}
		s.stagger = d
	}
	// With a window longer than a stream, the first streams of a round would
	// end before the last ones start (never n at once), and the k6 path tells
	// each VU's warm-up from its measured requests by start order.
	if s.stagger > s.streamLength() {
		return s, fmt.Errorf("start stagger %v is longer than a stream (%v: prefill %v + %d×%v ITL): set LLMSTREAM_BENCH_STAGGER no longer than that",
			s.stagger, s.streamLength(), s.prefill, s.tokens-1, s.itl)
	}
	return s, nil
}

func TestMain(m *testing.M) {
	if os.Getenv(mockChildEnv) != "" {
		os.Exit(mockChild())
	}
	os.Exit(m.Run())
}

// mockChild serves the mock on loopback until its stdin closes. The schedule
// is fixed (no jitter, unlimited slots) so that it is the ground truth.
func mockChild() int {
	itl, err := time.ParseDuration(os.Getenv(mockChildEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mock child:", err)
		return 2
	}
	cfg := mockllm.Config{
		Seed: 1,
		Models: map[string]mockllm.ModelConfig{
			fastModel: {Prefill: mockllm.Prefill{Base: benchPrefill}, ITL: mockllm.ITL{Base: itl}},
			slowModel: {Prefill: mockllm.Prefill{Base: slowPrefill}, ITL: mockllm.ITL{Base: slowITL}},
		},
	}
	if shape := os.Getenv(mockShapeEnv); shape != "" {
		// The script benchmark's mock: calibrate's, for every model.
		var ttft time.Duration
		var tokens int
		f := strings.Split(shape, ",")
		if len(f) == 3 {
			ttft, err = time.ParseDuration(f[0])
			if err == nil {
				tokens, err = strconv.Atoi(f[2])
			}
		}
		if len(f) != 3 || err != nil {
			fmt.Fprintf(os.Stderr, "mock child: %s=%q: want TTFT,ITL,TOKENS\n", mockShapeEnv, shape)
			return 2
		}
		cfg = calibrate.MockConfig(ttft, itl, tokens)
	}
	m, err := mockllm.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mock child:", err)
		return 1
	}
	srv := httptest.NewServer(m)
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	m.Close()
	srv.Close()
	return 0
}

// mockProc is the mock child process.
type mockProc struct {
	url   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func startMockProc(tb testing.TB, itl time.Duration) *mockProc {
	tb.Helper()
	return startMockChild(tb, mockChildEnv+"="+itl.String())
}

// startShapedMockProc starts the mock child as calibrate's mock
// (calibrate.MockConfig): ttft, itl and tokens for every model.
func startShapedMockProc(tb testing.TB, ttft, itl time.Duration, tokens int) *mockProc {
	tb.Helper()
	return startMockChild(tb, mockChildEnv+"="+itl.String(), fmt.Sprintf("%s=%v,%v,%d", mockShapeEnv, ttft, itl, tokens))
}

func startMockChild(tb testing.TB, env ...string) *mockProc {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("mock child printed no URL: %v", err)
	}
	return &mockProc{url: strings.TrimSpace(line), cmd: cmd, stdin: stdin}
}

func (p *mockProc) stop(tb testing.TB) {
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		tb.Errorf("mock child: %v", err)
	}
}

// result is one path's figures at one concurrency level.
type result struct {
	path      string
	streams   int
	requests  int
	errors    int
	firstErr  string
	lag       Lags            // per stamped event: read time − mock write time
	starts    []int64         // per stream: start, Unix ns
	ttftErr   []time.Duration // per request: TTFT − scheduled prefill
	itlErr    []time.Duration // per gap: ITL − scheduled ITL
	tokens    int
	wall      time.Duration
	cpu       time.Duration
	steadyCPU time.Duration // k6 paths: cpu less k6's start-up and warm-up (0: cpu)
	k6Steady  time.Duration // k6 paths: k6's own share of steadyCPU
	cpuDetail string
}

// steady is the CPU the measured requests cost.
func (r *result) steady() time.Duration {
	if r.steadyCPU > 0 {
		return r.steadyCPU
	}
	return r.cpu
}

func (r *result) addError(msg string) {
	r.errors++
	if r.firstErr == "" {
		r.firstErr = msg
	}
}

// addStream adds one stream's events (offsets from start) to r.
func (r *result) addStream(startUnixNS int64, events []Event, s settings) {
	r.lag.Add(startUnixNS, events)
	r.starts = append(r.starts, startUnixNS)
	var prev time.Duration
	texts := 0
	for _, e := range events {
		if !e.Text {
			continue
		}
		if texts == 0 {
			r.ttftErr = append(r.ttftErr, e.At-s.prefill)
		} else {
			r.itlErr = append(r.itlErr, e.At-prev-s.itl)
		}
		prev = e.At
		texts++
	}
	r.tokens += texts
	if texts != s.tokens {
		r.addError(fmt.Sprintf("%d text events, want %d", texts, s.tokens))
	}
}

// chatBody is the request every path sends. It asks for the usage chunk
// itself, as the engine does for the helper and k6 paths, so that the mock
// writes the same events for every path.
func chatBody(model string, tokens int) []byte {
	b, _ := json.Marshal(map[string]any{
		"model": model, "max_tokens": tokens, "stream": true,
		"stream_options": map[string]any{"include_usage": true},
		"messages":       []any{map[string]any{"role": "user", "content": "Explain TTFT in one sentence."}},
	})
	return b
}

// round runs fn once in each of n concurrent slots, slot i starting
// StaggerOffset(i, n, stagger) after the round begins, and returns the wall
// and CPU time it took (the wall time includes the stagger window). Go's
// timers wake with about 1 ms resolution when the process is idle, so slots
// less than 1 ms apart start in small groups, not one by one.
func round(n int, stagger time.Duration, fn func()) (wall, cpu time.Duration) {
	cpu0, t0 := processCPU(), time.Now()
	var wg sync.WaitGroup
	for i := range n {
		off := StaggerOffset(i, n, stagger)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if off > 0 {
				time.Sleep(time.Until(t0.Add(off)))
			}
			fn()
		}()
	}
	wg.Wait()
	return time.Since(t0), processCPU() - cpu0
}

// streamer is one path's way to make a request; record adds it to the result.
type streamer func(record bool)

func newClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: conns + 16, MaxIdleConnsPerHost: conns + 16,
		DisableCompression: true, IdleConnTimeout: time.Minute,
	}}
}

// bareStreamer is path (a): the bare client straight to the mock.
func bareStreamer(r *result, c *http.Client, mockURL string, s settings) streamer {
	body := chatBody(s.model, s.tokens)
	var mu sync.Mutex
	return func(record bool) {
		buf := make([]byte, 32<<10)
		st, err := BareStream(context.Background(), c, mockURL+"/v1/chat/completions", body, buf)
		if !record {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		r.requests++
		if err != nil {
			r.addError(err.Error())
			return
		}
		r.addStream(st.Start.UnixNano(), st.Events, s)
	}
}

// addAnswer adds one request made through the helper to r: its error, or the
// stream its timeline describes. The caller holds r's lock.
func (r *result) addAnswer(a *helper.Answer, err error, s settings) {
	r.requests++
	switch {
	case err != nil:
		r.addError(err.Error())
	case !a.OK:
		r.addError(a.Error.Kind + ": " + a.Error.Message)
	default:
		events := make([]Event, len(a.Timeline))
		for i, e := range a.Timeline {
			events[i] = Event{At: time.Duration(e.AtNS), ServerNS: e.ServerNS, Text: e.Text}
		}
		r.addStream(*a.StartUnixNS, events, s)
	}
}

// helperStreamer is path (b): the same request posted to the helper, which
// streams from the mock with the engine; keep_timeline on.
func helperStreamer(r *result, c *http.Client, helperURL, mockURL string, s settings) streamer {
	req, _ := json.Marshal(map[string]any{
		"url": mockURL + "/v1/chat/completions", "api": "openai-chat",
		"body": json.RawMessage(chatBody(s.model, s.tokens)), "keep_timeline": true,
	})
	var mu sync.Mutex
	return func(record bool) {
		resp, err := c.Post(helperURL+helper.StreamPath, "application/json", bytes.NewReader(req))
		var a helper.Answer
		if err == nil {
			if resp.StatusCode != 200 {
				err = fmt.Errorf("helper status %d", resp.StatusCode)
			} else {
				err = json.NewDecoder(resp.Body).Decode(&a)
			}
			resp.Body.Close()
		}
		if !record {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		r.addAnswer(&a, err, s)
	}
}

// BenchmarkDeliveryLag runs paths a and b (and c with K6_BIN) side by side at
// each concurrency level (and the slow case with LLMSTREAM_BENCH_SLOW=1) and
// prints the tables. Rounds of a and b alternate (one request per slot each,
// starts staggered alike), so that whatever else the machine does weighs on
// both alike; the k6 path runs its rounds in one k6 run afterwards, with the
// same start offsets.
func BenchmarkDeliveryLag(b *testing.B) {
	s := loadSettings(b)
	mock := startMockProc(b, s.itl)
	defer mock.stop(b)
	hs, err := helper.Start(helper.DefaultAddr)
	if err != nil {
		b.Fatal(err)
	}
	defer hs.Shutdown(context.Background())
	var k6s []*k6Path
	for _, mode := range []string{k6All, k6Records, k6Floor, k6Plain} {
		for _, nice := range s.k6Nices {
			if k := newK6Path(b, mock.url, mode, nice, len(s.k6Nices) > 1); k != nil {
				k6s = append(k6s, k)
				defer k.close()
			}
		}
	}
	var all []*result
	for _, n := range s.levels {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			all = append(all, runLevel(b, n, 1, s, mock.url, hs.URL(), k6s)...)
		})
	}
	if s.slow {
		slow := slowSettings()
		b.Run(fmt.Sprintf("slow-streams=%d", slowStreams), func(b *testing.B) {
			all = append(all, runLevel(b, slowStreams, slowPerVU, slow, mock.url, hs.URL(), k6s)...)
		})
	}
	printTables(os.Stdout, s, all, len(k6s) == 0)
}

// runLevel runs n streams at once on every path: bare and helper in
// alternating rounds, then each k6 path with n/perVU VUs of perVU streams.
func runLevel(b *testing.B, n, perVU int, s settings, mockURL, helperURL string, k6s []*k6Path) []*result {
	bare := &result{path: "bare", streams: n, cpuDetail: "client"}
	viaHelper := &result{path: "helper", streams: n, cpuDetail: "load generator + helper"}
	bc, hc := newClient(n), newClient(n)
	defer bc.CloseIdleConnections()
	defer hc.CloseIdleConnections()
	paths := []struct {
		r  *result
		fn streamer
	}{
		{bare, bareStreamer(bare, bc, mockURL, s)},
		{viaHelper, helperStreamer(viaHelper, hc, helperURL, mockURL, s)},
	}
	for _, p := range paths { // warm-up: connections, not measured
		round(n, s.stagger, func() { p.fn(false) })
	}
	runtime.GC()
	for range s.rounds {
		for _, p := range paths {
			wall, cpu := round(n, s.stagger, func() { p.fn(true) })
			p.r.wall += wall
			p.r.cpu += cpu
		}
	}
	level := []*result{bare, viaHelper}
	for _, k := range k6s {
		level = append(level, k.run(b, k6Load{vus: n / perVU, perVU: perVU, s: s}))
	}
	for _, r := range level {
		report(b, r)
	}
	for _, r := range level[1:] {
		for _, ph := range []Phase{PhaseAll, PhaseMid} {
			if bl := Summarize(bare.lag.By[ph]); bl.P99 > 0 {
				b.ReportMetric(float64(Summarize(r.lag.By[ph]).P99)/float64(bl.P99), fmt.Sprintf("%s/bare-%s-p99", r.path, ph))
			}
		}
	}
	return level
}

func report(b *testing.B, r *result) {
	lag := Summarize(r.lag.By[PhaseAll])
	b.ReportMetric(float64(lag.P50)/1e6, r.path+"-lag-p50-ms")
	b.ReportMetric(float64(lag.P99)/1e6, r.path+"-lag-p99-ms")
	if lag.HasP999() {
		b.ReportMetric(float64(lag.P999)/1e6, r.path+"-lag-p99.9-ms")
	}
	b.ReportMetric(float64(lag.Max)/1e6, r.path+"-lag-max-ms")
	if mid := SummarizeMid(&r.lag); mid.N > 0 {
		b.ReportMetric(float64(mid.P99)/1e6, r.path+"-mid-lag-p99-ms")
		if mid.Bounded() {
			b.ReportMetric(mid.P99Lo, r.path+"-mid-lag-p99-lo95-ms")
			b.ReportMetric(mid.P99Hi, r.path+"-mid-lag-p99-hi95-ms")
		}
	}
	if r.wall > 0 {
		b.ReportMetric(float64(r.tokens)/r.wall.Seconds(), r.path+"-tokens/s")
	}
	b.ReportMetric(r.cpu.Seconds(), r.path+"-cpu-s")
	if r.errors > 0 {
		b.Errorf("%s at %d streams: %d of %d requests failed; first: %s", r.path, r.streams, r.errors, r.requests, r.firstErr)
	}
}

// phaseOrder is the order in which the phase table lists the phases.
var phaseOrder = []Phase{PhaseFirst, PhaseTTFT, PhaseMid, PhaseFinal, PhaseAll}

func printTables(w io.Writer, s settings, all []*result, noK6 bool) {
	starts := "all slots start at once (lockstep)"
	if s.stagger > 0 {
		starts = fmt.Sprintf("slot i of n starts i·%v/n after its round begins (staggered; LLMSTREAM_BENCH_STAGGER=0 for lockstep)", s.stagger)
	}
	fmt.Fprintf(w, "\nDelivery lag = client read time − mock write stamp (x_mock_ts_ns). Mock (child process): prefill %v, ITL %v, %d tokens/stream, no jitter; %d measured requests per stream slot after 1 warm-up; bare and helper rounds alternate; %s.\n",
		benchPrefill, s.itl, s.tokens, s.rounds, starts)
	if s.slow {
		sl := slowSettings()
		fmt.Fprintf(w, "The slow case (%d streams): prefill %v, %d tokens %v apart, %d measured request per slot after 1 warm-up, starts spread over %v; the k6 paths run %d VUs of %d asyncChat streams each.\n",
			slowStreams, sl.prefill, sl.tokens, sl.itl, sl.rounds, sl.stagger, slowStreams/slowPerVU, slowPerVU)
	}
	fmt.Fprintf(w, "k6 runs %v steps of CPU priority (nice) below the helper (xk6-llmstream run: %d; LLMSTREAM_BENCH_K6_NICE; with several, a path's name ends in its nice value).\n", s.k6Nices, runner.DefaultK6Nice)
	fmt.Fprintf(w, "Percentiles interpolate at rank p·(n−1) as k6 does; p99.9 is shown from n ≥ %d. CPU is this process's (client side; the mock runs apart), plus k6's own for the k6 path; \"steady\" leaves out k6's start-up and warm-up (the CPU of a second k6 run of the warm-up alone), which a long test amortises. \"starts in 1 ms\" is the most measured streams a path started within any 1 ms. GOMAXPROCS=%d.\n\n", MinNForP999, runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "streams\tpath\trequests\terrors\tlag p50 / p99 / p99.9 / max ms (n events)\tTTFT err p50 / p99 / max ms\tITL err p50 / p99 / max ms\ttokens/s\tCPU s\tCPU µs/token\tsteady µs/token\tCPU = \tstarts in 1 ms\t")
	for _, r := range all {
		perTok, steadyTok, tps := 0.0, 0.0, 0.0
		if r.tokens > 0 {
			perTok = float64(r.cpu.Microseconds()) / float64(r.tokens)
			steadyTok = float64(r.steady().Microseconds()) / float64(r.tokens)
		}
		if r.wall > 0 {
			tps = float64(r.tokens) / r.wall.Seconds()
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t%.0f\t%.2f\t%.1f\t%.1f\t%s\t%d\t\n",
			r.streams, r.path, r.requests, r.errors, Summarize(r.lag.By[PhaseAll]).Tail(), Summarize(r.ttftErr), Summarize(r.itlErr),
			tps, r.cpu.Seconds(), perTok, steadyTok, r.cpuDetail, MaxStartsWithin(r.starts, time.Millisecond))
	}
	tw.Flush()

	// Lag by phase, the paths side by side.
	type key struct {
		streams int
		path    string
	}
	var (
		paths  []string
		levels []int
		byKey  = map[key]*result{}
	)
	for _, r := range all {
		if !slices.Contains(paths, r.path) {
			paths = append(paths, r.path)
		}
		if !slices.Contains(levels, r.streams) {
			levels = append(levels, r.streams)
		}
		byKey[key{r.streams, r.path}] = r
	}
	fmt.Fprintf(w, "\nLag by phase, ms: p50 / p99 / p99.9 / max (n events). first = the first event (arrives with the headers); ttft = the first text event; mid = every text event after the first (calibrate's mid-stream lag), its p99 with the 95%% interval calibrate gives it (a bootstrap over %v stretches of write time, calibrate.LagP99Interval); final = the last text event and all after it (finish, usage).\n\n", calibrate.LagBlock)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "streams\tphase\t")
	for _, p := range paths {
		fmt.Fprintf(tw, "%s\t", p)
	}
	fmt.Fprintln(tw)
	for _, n := range levels {
		for _, ph := range phaseOrder {
			fmt.Fprintf(tw, "%d\t%s\t", n, ph)
			for _, p := range paths {
				cell := "-"
				if r := byKey[key{n, p}]; r != nil {
					cell = Summarize(r.lag.By[ph]).Tail()
					if ph == PhaseMid {
						cell = SummarizeMid(&r.lag).Tail()
					}
				}
				fmt.Fprintf(tw, "%s\t", cell)
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)

	for _, n := range levels {
		bare := byKey[key{n, "bare"}]
		for _, p := range paths {
			r := byKey[key{n, p}]
			if p == "bare" || r == nil || bare == nil {
				continue
			}
			ba, ra := Summarize(bare.lag.By[PhaseAll]), Summarize(r.lag.By[PhaseAll])
			bm, rm := Summarize(bare.lag.By[PhaseMid]), Summarize(r.lag.By[PhaseMid])
			fmt.Fprintf(w, "%d streams: %s/bare lag p99 ratio: all %.2f (%s vs %s ms), mid-stream %.2f (%s vs %s ms); all p50 ratio %.2f; CPU per token ratio %.2f, steady %.2f\n",
				n, p, ratio(ra.P99, ba.P99), ms(ra.P99), ms(ba.P99), ratio(rm.P99, bm.P99), ms(rm.P99), ms(bm.P99), ratio(ra.P50, ba.P50),
				fratio(perToken(r.cpu, r), perToken(bare.cpu, bare)), fratio(perToken(r.steady(), r), perToken(bare.steady(), bare)))
		}
	}
	fmt.Fprintln(w, "\nSteady CPU per measured request (the client side: this process, plus k6 on the k6 paths), k6's own share of it, and the requests one CPU-second sustains at that cost:")
	for _, n := range levels {
		for _, p := range paths {
			r := byKey[key{n, p}]
			if r == nil || r.requests == 0 {
				continue
			}
			perReq := float64(r.steady().Microseconds()) / float64(r.requests)
			k6 := ""
			if r.k6Steady > 0 {
				k6 = fmt.Sprintf(", of which k6 %.0f µs", float64(r.k6Steady.Microseconds())/float64(r.requests))
			}
			fmt.Fprintf(w, "%d streams: %s: %.0f µs per request%s; %.0f requests per CPU-second\n", n, p, perReq, k6, 1e6/perReq)
		}
	}
	printK6Cost(w, levels, func(n int, p string) *result { return byKey[key{n, p}] })
	if noK6 {
		fmt.Fprintln(w, "(k6 path skipped: set K6_BIN to a k6 binary to run llmstream.js through real k6 side by side)")
	}
}

// printK6Cost prints, per level, k6's own steady CPU per request on each k6
// path against the plain post's (k6Plain: the same request, the same pace and
// concurrency, no module, no helper), and each k6 path's ITL error p99 against
// the bare client's: what the module and the hop cost k6, and what that does
// to accuracy.
func printK6Cost(w io.Writer, levels []int, get func(n int, path string) *result) {
	for _, n := range levels {
		plain, bare := get(n, k6Plain), get(n, "bare")
		if plain == nil || plain.requests == 0 || plain.k6Steady <= 0 {
			continue
		}
		base := float64(plain.k6Steady.Microseconds()) / float64(plain.requests)
		line := fmt.Sprintf("%d streams: k6 CPU per request: %s %.0f µs", n, k6Plain, base)
		for _, p := range []string{k6Floor, k6Records, k6All} {
			if r := get(n, p); r != nil && r.requests > 0 && r.k6Steady > 0 {
				per := float64(r.k6Steady.Microseconds()) / float64(r.requests)
				line += fmt.Sprintf("; %s %.0f µs (%.2f×)", p, per, per/base)
			}
		}
		fmt.Fprintln(w, line)
		if bare == nil || len(bare.itlErr) == 0 {
			continue
		}
		be := Summarize(bare.itlErr).P99
		for _, p := range []string{k6Records, k6All} {
			if r := get(n, p); r != nil && len(r.itlErr) > 0 {
				re := Summarize(r.itlErr).P99
				fmt.Fprintf(w, "%d streams: ITL error p99 (excess over the mock's schedule): %s %s ms, bare %s ms (%.2f×)\n", n, p, ms(re), ms(be), ratio(re, be))
			}
		}
	}
}

// perToken is cpu per measured token of r, in µs.
func perToken(cpu time.Duration, r *result) float64 {
	if r.tokens == 0 {
		return 0
	}
	return float64(cpu.Microseconds()) / float64(r.tokens)
}

func fratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// BenchmarkSlowStreams runs 2,000 concurrent slow streams through the helper
// (prefill 200 ms, 10 tokens 500 ms apart: about 4.7 s each) and fails if any
// of them fails.
func BenchmarkSlowStreams(b *testing.B) {
	mock := startMockProc(b, 20*time.Millisecond)
	defer mock.stop(b)
	hs, err := helper.Start(helper.DefaultAddr)
	if err != nil {
		b.Fatal(err)
	}
	defer hs.Shutdown(context.Background())
	s := settings{prefill: slowPrefill, itl: slowITL, tokens: slowTokens}
	r := &result{path: "helper", streams: slowStreams}
	c := newClient(slowStreams)
	defer c.CloseIdleConnections()
	req, _ := json.Marshal(map[string]any{
		"url": mock.url + "/v1/chat/completions", "api": "openai-chat",
		"body": json.RawMessage(chatBody(slowModel, slowTokens)), "keep_timeline": true,
	})
	var (
		mu         sync.Mutex
		wg         sync.WaitGroup
		peakActive int64
		peakHeap   uint64
	)
	// runtime/metrics reads without stopping the world (ReadMemStats would
	// disturb the streams being measured).
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/sched/goroutines:goroutines"}}
	var peakGoroutines uint64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				if a := hs.Handler().Stats().Active; a > peakActive {
					peakActive = a
				}
				metrics.Read(heap)
				peakHeap = max(peakHeap, heap[0].Value.Uint64())
				peakGoroutines = max(peakGoroutines, heap[1].Value.Uint64())
			}
		}
	}()
	runtime.GC()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, t0 := processCPU(), time.Now()
	for range slowStreams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Post(hs.URL()+helper.StreamPath, "application/json", bytes.NewReader(req))
			var a helper.Answer
			if err == nil {
				err = json.NewDecoder(resp.Body).Decode(&a)
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			r.addAnswer(&a, err, s)
		}()
	}
	wg.Wait()
	r.wall, r.cpu = time.Since(t0), processCPU()-cpu0
	close(stopSampling)
	<-sampled
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	totalAlloc := ms1.TotalAlloc - ms0.TotalAlloc
	r.cpuDetail = "load generator + helper"
	report(b, r)
	b.ReportMetric(float64(peakActive), "peak-active-streams")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	fmt.Printf("\n%d concurrent slow streams through the helper (prefill %v, %d tokens %v apart): %d requests, %d errors, peak %d streams active in the helper at once\n",
		slowStreams, slowPrefill, slowTokens, slowITL, r.requests, r.errors, peakActive)
	fmt.Printf("  all streams start at once; lag p50 / p99 / p99.9 / max ms (n): all %s, mid-stream %s, first event %s, final %s\n",
		Summarize(r.lag.By[PhaseAll]).Tail(), SummarizeMid(&r.lag).Tail(), Summarize(r.lag.By[PhaseFirst]).Tail(), Summarize(r.lag.By[PhaseFinal]).Tail())
	fmt.Printf("  TTFT err p50 / p99 / max %s ms, ITL err %s ms, wall %.2f s, CPU %.2f s\n",
		Summarize(r.ttftErr), Summarize(r.itlErr), r.wall.Seconds(), r.cpu.Seconds())
	fmt.Printf("  this process (load generator + helper, 2 connections per stream): peak heap objects %.1f MiB (%.0f KiB per stream), peak goroutines %d, allocated %.1f MiB in all\n",
		float64(peakHeap)/(1<<20), float64(peakHeap)/1024/slowStreams, peakGoroutines, float64(totalAlloc)/(1<<20))
}
