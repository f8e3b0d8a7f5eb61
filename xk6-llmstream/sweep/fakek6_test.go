package sweep

import (
	"bufio"
	"compress/gzip"
	"container/heap"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The stand-in k6: when the test binary runs with fakeK6Env set, it acts as
// "k6 run": it reads LLM_RATE or LLM_VUS and LLM_DURATION, simulates a server
// of known capacity (fakeSlots slots, each request holding one for
// fakePrefill + (fakeTokens−1)·fakeITL, FIFO, unlimited queue) in virtual
// time, deterministically, and writes what k6's --out json would: Metric
// declarations, then llm_* Points tagged with the level and carrying
// llm_request_id metadata, dropped_iterations when no VU is free.
const (
	fakeK6Env    = "SWEEP_TEST_FAKE_K6"
	fakeSlots    = "FAKE_SLOTS"     // default 4
	fakePrefill  = "FAKE_PREFILL"   // default 20ms
	fakeITL      = "FAKE_ITL"       // default 10ms
	fakeTokens   = "FAKE_TOKENS"    // default 8
	fakeMaxVUs   = "FAKE_MAX_VUS"   // default 1000
	fakeGrace    = "FAKE_GRACE"     // gracefulStop, default 30s
	fakeExitAt   = "FAKE_EXIT_AT"   // "level:code": exit with code at that level
	fakeWaitSig  = "FAKE_WAIT_SIG"  // a file: create it, then wait for SIGINT before writing
	fakeTimesLog = "FAKE_TIMES_LOG" // a file: append "start end" unix ns of each run
	fakeThrow    = "FAKE_THROW"     // iterations starting this long into the level throw before their request
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeK6Env) == "1" {
		os.Exit(fakeK6(os.Args[1:], os.Stderr))
	}
	if os.Getenv(fakeServerEnv) == "1" {
		os.Exit(fakeServer(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeParams is the simulated server and load.
type fakeParams struct {
	rate            float64 // 0: VU mode
	vus             int
	duration, grace time.Duration
	slots, tokens   int
	prefill, itl    time.Duration
	maxVUs          int
	out, level      string
	throwAfter      time.Duration // 0: none throws
}

func (p fakeParams) service() time.Duration { return p.prefill + time.Duration(p.tokens-1)*p.itl }

func envDuration(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			panic(fmt.Sprintf("%s=%q: %v", name, v, err))
		}
		return d
	}
	return def
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			panic(fmt.Sprintf("%s=%q: %v", name, v, err))
		}
		return n
	}
	return def
}

func fakeK6(args []string, stderr io.Writer) int {
	start := time.Now()
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprintln(stderr, "fake k6: want run")
		return 255
	}
	p := fakeParams{
		duration: envDuration("LLM_DURATION", 10*time.Second), grace: envDuration(fakeGrace, 30*time.Second),
		slots: envInt(fakeSlots, 4), tokens: envInt(fakeTokens, 8), prefill: envDuration(fakePrefill, 20*time.Millisecond),
		itl: envDuration(fakeITL, 10*time.Millisecond), maxVUs: envInt(fakeMaxVUs, 1000),
		throwAfter: envDuration(fakeThrow, 0),
	}
	for i := 1; i < len(args)-1; i++ {
		switch args[i] {
		case "--out":
			p.out = strings.TrimPrefix(args[i+1], "json=")
		case "--tag":
			p.level = strings.TrimPrefix(args[i+1], "level=")
		}
	}
	if v := os.Getenv("LLM_RATE"); v != "" {
		p.rate, _ = strconv.ParseFloat(v, 64)
	}
	p.vus = envInt("LLM_VUS", 0)
	if (p.rate > 0) == (p.vus > 0) || p.out == "" {
		fmt.Fprintln(stderr, "fake k6: want one of LLM_RATE and LLM_VUS, and --out json=FILE")
		return 104
	}
	if f := os.Getenv(fakeWaitSig); f != "" {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			return 1
		}
		<-sigs
	}
	if err := writeFakeOutput(p); err != nil {
		fmt.Fprintln(stderr, "fake k6:", err)
		return 1
	}
	if f := os.Getenv(fakeTimesLog); f != "" {
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(fh, "%d %d\n", start.UnixNano(), time.Now().UnixNano())
			fh.Close()
		}
	}
	if lv, code, ok := strings.Cut(os.Getenv(fakeExitAt), ":"); ok && lv == p.level {
		n, _ := strconv.Atoi(code)
		return n
	}
	return 0
}

// fakeRequest is one simulated iteration and its request, in seconds of
// virtual time; threw: the iteration threw before its request (k6 still
// counts it in iterations).
type fakeRequest struct {
	arrival, start, end float64
	failed, threw       bool
}

// simulate runs the queue: FIFO over p.slots slots, each request holding one
// for p.service(). Arrivals are evenly spaced at p.rate (k6's
// constant-arrival-rate) or come from p.vus closed-loop VUs (constant-vus).
func simulate(p fakeParams) (reqs []fakeRequest, dropped []float64) {
	D, S := p.duration.Seconds(), p.service().Seconds()
	throws := func(at float64) bool { return p.throwAfter > 0 && at >= p.throwAfter.Seconds() }
	free := make(floatHeap, p.slots) // when each slot is free
	serve := func(arrival float64) fakeRequest {
		r := fakeRequest{arrival: arrival, start: max(arrival, free[0])}
		r.end = r.start + S
		free[0] = r.end
		heap.Fix(&free, 0)
		if r.end > D+p.grace.Seconds() { // k6 stops the iteration at the end of gracefulStop
			r.end, r.failed = D+p.grace.Seconds(), true
		}
		return r
	}
	if p.rate > 0 {
		busy := floatHeap{} // end times of requests in flight: their VUs are busy
		for i := 0; float64(i)/p.rate < D; i++ {
			a := float64(i) / p.rate
			for len(busy) > 0 && busy[0] <= a {
				heap.Pop(&busy)
			}
			if len(busy) >= p.maxVUs {
				dropped = append(dropped, a)
				continue
			}
			if throws(a) {
				reqs = append(reqs, fakeRequest{arrival: a, start: a, end: a, threw: true})
				continue
			}
			r := serve(a)
			heap.Push(&busy, r.end)
			reqs = append(reqs, r)
		}
		return reqs, dropped
	}
	ready := make(floatHeap, p.vus) // when each VU starts its next iteration
	for ready[0] < D {
		if throws(ready[0]) { // a thrown iteration takes 10 ms
			reqs = append(reqs, fakeRequest{arrival: ready[0], start: ready[0], end: ready[0] + 0.01, threw: true})
			ready[0] += 0.01
			heap.Fix(&ready, 0)
			continue
		}
		r := serve(ready[0])
		reqs = append(reqs, r)
		ready[0] = r.end
		heap.Fix(&ready, 0)
	}
	return reqs, nil
}

type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fakeT0 is the virtual test's start.
var fakeT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type fakePoint struct {
	t      float64
	metric string
	value  float64
	id     string
}

func writeFakeOutput(p fakeParams) error {
	reqs, dropped := simulate(p)
	var pts []fakePoint
	for t := 0.0; t < p.duration.Seconds(); t++ { // k6 samples vus every second
		pts = append(pts, fakePoint{t: t, metric: "vus", value: 1})
	}
	for _, a := range dropped {
		pts = append(pts, fakePoint{t: a, metric: "dropped_iterations", value: 1})
	}
	for i, r := range reqs {
		if !r.failed { // an iteration interrupted at the end of gracefulStop is not counted
			pts = append(pts, fakePoint{t: r.end, metric: "iterations", value: 1})
		}
		if r.threw {
			continue
		}
		id := fmt.Sprintf("1-%d", i)
		first := r.start + p.prefill.Seconds()
		add := func(m string, v float64) { pts = append(pts, fakePoint{t: r.end, metric: m, value: v, id: id}) }
		tokens := p.tokens
		if r.failed {
			tokens = int(max(0, (r.end-first)/p.itl.Seconds()+1))
			tokens = min(tokens, p.tokens)
		}
		if tokens > 0 {
			add("llm_ttft", (first-r.arrival)*1000)
		}
		if !r.failed {
			add("llm_tpot", p.itl.Seconds()*1000)
		}
		for range max(0, tokens-1) {
			add("llm_itl", p.itl.Seconds()*1000)
		}
		add("llm_e2e", (r.end-r.arrival)*1000)
		add("llm_output_tokens", float64(tokens))
		add("llm_requests_failed", map[bool]float64{true: 1, false: 0}[r.failed])
	}
	slices.SortStableFunc(pts, func(a, b fakePoint) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	return writeK6JSON(p.out, p.level, pts)
}

var fakeDecls = []string{
	`{"type":"Metric","data":{"name":"vus","type":"gauge","contains":"default","thresholds":[],"submetrics":null},"metric":"vus"}`,
	`{"type":"Metric","data":{"name":"iterations","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"iterations"}`,
	`{"type":"Metric","data":{"name":"dropped_iterations","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"dropped_iterations"}`,
	`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"llm_ttft"}`,
	`{"type":"Metric","data":{"name":"llm_tpot","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"llm_tpot"}`,
	`{"type":"Metric","data":{"name":"llm_itl","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"llm_itl"}`,
	`{"type":"Metric","data":{"name":"llm_e2e","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"llm_e2e"}`,
	`{"type":"Metric","data":{"name":"llm_output_tokens","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"llm_output_tokens"}`,
	`{"type":"Metric","data":{"name":"llm_requests_failed","type":"rate","contains":"default","thresholds":[],"submetrics":null},"metric":"llm_requests_failed"}`,
}

// writeK6JSON writes points in k6's --out json shape, gzipped.
func writeK6JSON(path, level string, pts []fakePoint) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := gzip.NewWriter(f)
	bw := bufio.NewWriterSize(zw, 1<<16)
	for _, d := range fakeDecls {
		bw.WriteString(d + "\n")
	}
	for _, pt := range pts {
		ts := fakeT0.Add(time.Duration(pt.t * float64(time.Second))).Format(time.RFC3339Nano)
		tags := `{"level":"` + level + `","scenario":"capacity","model":"mock","api":"openai-chat","status":"200","error":"","token_source":"usage"}`
		meta := ""
		if pt.id != "" {
			meta = `,"metadata":{"llm_request_id":"` + pt.id + `"}`
		}
		fmt.Fprintf(bw, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%s,"tags":%s%s}}`+"\n",
			pt.metric, ts, strconv.FormatFloat(pt.value, 'g', -1, 64), tags, meta)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}
