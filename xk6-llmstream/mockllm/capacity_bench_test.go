package mockllm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The capacity benchmark: how many tokens per second the mock streams here,
// to how many concurrent clients, and how late its events are against their
// schedule — beside a bare net/http handler that writes and flushes the same
// events as fast as it can (the floor: what this machine's HTTP stack does).
// At "max" every event is due at once: the mock then writes overdue events
// together (mock-max), or, like the floor, flushes each one (mock-max-flush1).
//
//	go test ./mockllm -run '^$' -bench Capacity -benchtime 1x
//
// MOCKLLM_BENCH_SECONDS sets each load's duration (default 3).

// capacityLoad is one load of the benchmark.
type capacityLoad struct {
	name    string
	floor   bool          // the bare handler instead of the mock
	streams int           // concurrent client loops
	itl     time.Duration // the mock's inter-token latency (0: as fast as possible)
	tokens  int           // tokens per request
	once    bool          // each client sends one request (slow streams) instead of looping
	// perEvent makes the mock flush every event even when it is overdue, as
	// the floor does (by default the mock writes overdue events together).
	perEvent bool
}

var capacityLoads = []capacityLoad{
	{name: "floor-max", floor: true, streams: 8, tokens: 2000},
	{name: "mock-max", streams: 8, tokens: 2000},
	{name: "mock-max-flush1", streams: 8, tokens: 2000, perEvent: true},
	{name: "mock-1k", streams: 10, itl: 10 * time.Millisecond, tokens: 100},
	{name: "mock-10k", streams: 100, itl: 10 * time.Millisecond, tokens: 100},
	{name: "mock-20k", streams: 200, itl: 10 * time.Millisecond, tokens: 100},
	{name: "mock-5000-slow", streams: 5000, itl: time.Second, tokens: 5, once: true},
}

// capacityResult is what one load measured.
type capacityResult struct {
	load             capacityLoad
	elapsed          time.Duration
	tokens, requests int64
	errors           int64
	firstErr         string
	late             LatencySummary // the mock's own ground truth
	canary           LatencySummary // the machine's: how late a 1 ms nap wakes meanwhile
}

func (r capacityResult) tokensPerSec() float64 { return float64(r.tokens) / r.elapsed.Seconds() }

func BenchmarkCapacity(b *testing.B) {
	secs := 3.0
	if v := os.Getenv("MOCKLLM_BENCH_SECONDS"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			b.Fatalf("MOCKLLM_BENCH_SECONDS=%q: want a positive number", v)
		}
		secs = f
	}
	dur := time.Duration(secs * float64(time.Second))
	var results []capacityResult
	for _, l := range capacityLoads {
		b.Run(l.name, func(b *testing.B) {
			res := runCapacityLoad(b, l, dur)
			b.ReportMetric(res.tokensPerSec(), "tokens/s")
			b.ReportMetric(float64(l.streams), "streams")
			b.ReportMetric(float64(res.errors), "errors")
			if !l.floor {
				b.ReportMetric(float64(res.late.P50.Microseconds()), "late-p50-µs")
				b.ReportMetric(float64(res.late.P99.Microseconds()), "late-p99-µs")
			}
			b.ReportMetric(float64(res.canary.P99.Microseconds()), "canary-p99-µs")
			b.ReportMetric(0, "ns/op")
			if res.errors > 0 {
				b.Logf("%s: %d failed requests, first: %s", l.name, res.errors, res.firstErr)
			}
			results = append(results, res)
		})
	}
	printCapacity(os.Stdout, results)
}

func printCapacity(w io.Writer, results []capacityResult) {
	var floor float64
	for _, r := range results {
		if r.load.floor {
			floor = r.tokensPerSec()
		}
	}
	fmt.Fprintf(w, "\n%-16s %8s %9s %12s %9s %12s %12s %12s %12s %7s\n",
		"load", "streams", "ITL", "tokens/s", "of floor", "late p50", "late p99", "late max", "canary p99", "errors")
	for _, r := range results {
		of, p50, p99, mx := "", "-", "-", "-"
		if floor > 0 {
			of = fmt.Sprintf("%.0f%%", 100*r.tokensPerSec()/floor)
		}
		if !r.load.floor {
			p50, p99, mx = r.late.P50.String(), r.late.P99.String(), r.late.Max.String()
		}
		fmt.Fprintf(w, "%-16s %8d %9v %12.0f %9s %12s %12s %12s %12s %7d\n",
			r.load.name, r.load.streams, r.load.itl, r.tokensPerSec(), of, p50, p99, mx, r.canary.P99, r.errors)
	}
	fmt.Fprintln(w, "late: the mock's event write time − due time (its ground truth), over every event.")
	fmt.Fprintln(w, "canary: the lateness of ticks paced every 100 µs by nanosleep on a locked OS thread of the")
	fmt.Fprintln(w, "same process meanwhile — the machine's own scheduling noise, which no pacing can beat.")
}

// canary paces a tick every 100 µs on its own OS thread until stop closes,
// by schedule as the mock paces events (tick k is due at start + k × 100 µs;
// a late wake-up makes every tick it overslept late), and records each tick's
// lateness: the machine's own scheduling noise during a load, weighted in time
// as paced events are.
func canary(stop <-chan struct{}, h *histogram, done *sync.WaitGroup) {
	defer done.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const tick = 100 * time.Microsecond
	start := time.Now()
	next := time.Duration(tick)
	for {
		select {
		case <-stop:
			return
		default:
		}
		if d := next - time.Since(start); d > 0 {
			nap(d)
		}
		now := time.Since(start)
		for ; next <= now; next += tick {
			h.add(int64(now - next))
		}
	}
}

// runCapacityLoad serves one load for dur and measures it.
func runCapacityLoad(b *testing.B, l capacityLoad, dur time.Duration) capacityResult {
	var handler http.Handler
	var srv *Server
	var floorTokens atomic.Int64
	if l.floor {
		handler = floorHandler(&floorTokens)
	} else {
		var err error
		srv, err = New(Config{Seed: 1, Default: ModelConfig{ITL: ITL{Base: l.itl}}})
		if err != nil {
			b.Fatal(err)
		}
		srv.noCoalesce = l.perEvent
		handler = srv
	}
	ts := httptest.NewServer(handler)
	defer ts.Close()
	if srv != nil {
		defer srv.Close()
	}

	tr := &http.Transport{
		MaxIdleConns:        l.streams,
		MaxIdleConnsPerHost: l.streams,
		DisableCompression:  true,
		ReadBufferSize:      32 << 10,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	body := fmt.Sprintf(`{"model":"bench","stream":true,"max_tokens":%d,"messages":[{"role":"user","content":"count to many"}]}`, l.tokens)

	res := capacityResult{load: l}
	var errs, reqs atomic.Int64
	var firstErr sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var canaryH histogram
	var canaryWG sync.WaitGroup
	stopCanary := make(chan struct{})
	canaryWG.Add(1)
	go canary(stopCanary, &canaryH, &canaryWG)
	var wg sync.WaitGroup
	start := time.Now()
	// Start the streams one by one, spread over one ITL (the dials of
	// thousands of streams over a second), as independent users would be:
	// streams started together would have every event due at the same
	// instants, a burst no real load has.
	spread := max(l.itl, time.Second*time.Duration(min(l.streams/1000, 1)))
	for i := 0; i < l.streams; i++ {
		if wait := time.Until(start.Add(time.Duration(i) * spread / time.Duration(l.streams))); wait > 0 {
			time.Sleep(wait)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// Slow streams run to their end; looping loads stop at the deadline.
				rctx := ctx
				if l.once {
					rctx = context.Background()
				}
				err := streamOnce(rctx, client, ts.URL+"/v1/chat/completions", body)
				if ctx.Err() != nil && !l.once {
					return // cut by the end of the load: not an error
				}
				reqs.Add(1)
				if err != nil {
					errs.Add(1)
					firstErr.Do(func() { res.firstErr = err.Error() })
				}
				if l.once || ctx.Err() != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	close(stopCanary)
	canaryWG.Wait()
	res.canary = canaryH.summary()
	res.requests, res.errors = reqs.Load(), errs.Load()
	if srv != nil {
		st := srv.Stats()
		res.tokens, res.late = st.Tokens, st.Lateness
	} else {
		res.tokens = floorTokens.Load()
	}
	return res
}

// streamOnce posts one streamed request and reads the answer to its end,
// discarding it. A stream must end with [DONE].
func streamOnce(ctx context.Context, c *http.Client, url, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	var tail [16]byte
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if n >= len(tail) {
				copy(tail[:], buf[n-len(tail):n])
			} else {
				copy(tail[:], append(tail[n:], buf[:n]...))
			}
		}
		if err == io.EOF {
			if !strings.HasSuffix(string(tail[:]), "[DONE]\n\n") {
				return fmt.Errorf("stream ended without [DONE]")
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// floorHandler writes the events the mock would send for a request (a chat
// chunk of the same size, with a stamp) as fast as it can, flushing each one:
// the cost of net/http itself.
func floorHandler(tokens *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MaxTokens int `json:"max_tokens"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || req.MaxTokens <= 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		event := []byte(`data: {"id":"chatcmpl-mock-0","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],"x_mock_ts_ns":1700000000000000000}` + "\n\n")
		for i := 0; i < req.MaxTokens; i++ {
			if _, err := w.Write(event); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			tokens.Add(1)
		}
		_, _ = w.Write([]byte("data: [DONE]\n\n"))
	})
}
