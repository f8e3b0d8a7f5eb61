package mockllm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"
)

// The timeline tests read the mock's own ground-truth log: what was scheduled
// is a function of the seed and the arrival order; what the queue and the
// batch did is in the scheduled offsets, whatever the machine's speed.

// seededConfig draws from every distribution: lognormal prefill, jittered ITL,
// stalls, variable output length and tokens per event, and a fault.
func seededConfig(seed uint64, log *logBuffer) Config {
	return Config{Seed: seed, Log: log, Default: ModelConfig{
		Prefill:        Prefill{Base: 300 * time.Microsecond, PerInputToken: 10 * time.Microsecond, Jitter: Jitter{Dist: JitterLognormal, Sigma: 0.5}},
		ITL:            ITL{Base: 100 * time.Microsecond, Jitter: Jitter{Dist: JitterNormal, Stddev: 30 * time.Microsecond}},
		Stall:          Stall{Prob: 0.1, Duration: 200 * time.Microsecond, Jitter: Jitter{Dist: JitterExponential, Mean: 100 * time.Microsecond}},
		OutputTokens:   Count{Dist: CountLognormal, Median: 12, Sigma: 0.5, Min: 2, Max: 40},
		TokensPerEvent: TokensPerEvent{Min: 1, Max: 3},
		Faults:         Faults{Malformed: 0.1},
	}}
}

// timeline is the schedule of one request: what must repeat for a seed.
type timeline struct {
	Fault        Fault
	PrefillNS    int64
	OutputTokens int
	Sched        []int64 // event due offsets from the slot grant
	Tokens       []int
	Kinds        []string
}

func timelineOf(r RequestLog) timeline {
	tl := timeline{Fault: r.Fault, PrefillNS: r.PrefillNS, OutputTokens: r.OutputTokens, Tokens: r.EventTokens, Kinds: r.EventKinds}
	for _, d := range r.EventDueNS {
		tl.Sched = append(tl.Sched, d-r.QueueWaitNS)
	}
	return tl
}

const timelineRequests = 40

// runTimeline sends timelineRequests identical requests, with concurrency c,
// and returns each one's timeline by arrival number.
func runTimeline(t *testing.T, seed uint64, c int) map[uint64]timeline {
	t.Helper()
	log := &logBuffer{}
	srv, url := startServer(t, seededConfig(seed, log))
	body := chatBody("m", 0, `"stream_options":{"include_usage":true}`)
	var wg sync.WaitGroup
	next := make(chan struct{})
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				post(t, url+"/v1/chat/completions", body)
			}
		}()
	}
	for i := 0; i < timelineRequests; i++ {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	out := map[uint64]timeline{}
	for seq, r := range log.records(t) {
		out[seq] = timelineOf(r)
	}
	if len(out) != timelineRequests {
		t.Fatalf("%d log lines, want %d", len(out), timelineRequests)
	}
	return out
}

func TestSameSeedSameTimeline(t *testing.T) {
	t.Parallel()
	a := runTimeline(t, 42, 1)
	b := runTimeline(t, 42, 1)
	concurrent := runTimeline(t, 42, 8)
	other := runTimeline(t, 43, 1)
	same := 0
	for seq := uint64(0); seq < timelineRequests; seq++ {
		if !reflect.DeepEqual(a[seq], b[seq]) {
			t.Errorf("seq %d: seed 42 gave two timelines:\n%+v\n%+v", seq, a[seq], b[seq])
		}
		if !reflect.DeepEqual(a[seq], concurrent[seq]) {
			t.Errorf("seq %d: 8 concurrent clients changed the timeline:\n%+v\n%+v", seq, a[seq], concurrent[seq])
		}
		if reflect.DeepEqual(a[seq], other[seq]) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 42 and 43 gave %d identical timelines of %d", same, timelineRequests)
	}
	// The draws are varied: stalls, faults and lengths all happen.
	lengths, faults, kinds := map[int]bool{}, 0, map[string]bool{}
	for _, tl := range a {
		lengths[tl.OutputTokens] = true
		if tl.Fault != "" {
			faults++
		}
		for _, k := range tl.Kinds {
			kinds[k] = true
		}
	}
	if len(lengths) < 5 || faults == 0 || !kinds["malformed"] || !kinds["usage"] {
		t.Errorf("too little variety: lengths %v, %d faults, kinds %v", lengths, faults, kinds)
	}
}

func TestQueueWaitGrowsWithConcurrency(t *testing.T) {
	t.Parallel()
	// One slot, and each stream holds it for at least S = prefill + 4 ITLs.
	const n = 5
	prefill, itl := 20*time.Millisecond, 5*time.Millisecond
	service := prefill + 4*itl
	log := &logBuffer{}
	srv, url := startServer(t, Config{Slots: 1, Log: log, Default: ModelConfig{
		Prefill: Prefill{Base: prefill}, ITL: ITL{Base: itl}, OutputTokens: FixedCount(5),
	}})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			post(t, url+"/v1/chat/completions", chatBody("m", 0, ""))
		}()
	}
	wg.Wait()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	var recs []RequestLog
	for _, r := range log.records(t) {
		recs = append(recs, r)
	}
	if len(recs) != n {
		t.Fatalf("%d log lines, want %d", len(recs), n)
	}
	grant := func(r RequestLog) int64 { return r.ArrivalNS + r.QueueWaitNS }
	sort.Slice(recs, func(i, j int) bool { return grant(recs[i]) < grant(recs[j]) })
	first, last := recs[0].ArrivalNS, recs[0].ArrivalNS
	for _, r := range recs {
		first, last = min(first, r.ArrivalNS), max(last, r.ArrivalNS)
	}
	spread := last - first
	for k, r := range recs {
		ttft := r.QueueWaitNS + r.PrefillNS // the ground-truth TTFT: due offset of the first token
		if got := r.EventDueNS[1]; got != ttft || r.EventKinds[1] != "text" {
			t.Errorf("request %d: first token due at %v, want queue wait + prefill = %v", k, time.Duration(got), time.Duration(ttft))
		}
		if k == 0 {
			continue
		}
		// The slot passes on only after the previous stream's last event.
		prev := recs[k-1]
		if gap := grant(r) - grant(prev); gap < int64(service) {
			t.Errorf("request %d got the slot %v after request %d, less than the service time %v", k, time.Duration(gap), k-1, service)
		}
		// So the k-th waits about k service times (less the arrival spread);
		// the upper bound is loose on purpose (shared, noisy CPUs).
		lo, hi := int64(k)*int64(service)-spread, int64(k)*int64(service+time.Second)
		if r.QueueWaitNS < lo || r.QueueWaitNS > hi {
			t.Errorf("request %d waited %v, want between %v and %v", k, time.Duration(r.QueueWaitNS), time.Duration(lo), time.Duration(hi))
		}
	}
}

func TestDecodeSlowdownWithActiveStreams(t *testing.T) {
	t.Parallel()
	// ITL 2 ms, slowdown 0.5: a gap scheduled while two streams decode is
	// 2 ms × (1 + 0.5 × (2 − 1)) = 3 ms, exactly. Stream "long" decodes until
	// its client leaves; stream "short" runs entirely while it decodes.
	itl := 2 * time.Millisecond
	long := ModelConfig{ITL: ITL{Base: itl}, DecodeSlowdown: 0.5, OutputTokens: FixedCount(100000)}
	short := long
	short.OutputTokens = FixedCount(30)
	log := &logBuffer{}
	srv, url := startServer(t, Config{Log: log, Models: map[string]ModelConfig{"long": long, "short": short}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result)
	go func() { done <- postCtx(t, ctx, testClient, url+"/v1/chat/completions", chatBody("long", 0, "")) }()
	waitFor(t, "the long stream to decode", func() bool { return srv.Stats().Active == 1 })
	post(t, url+"/v1/chat/completions", chatBody("short", 0, ""))
	cancel()
	<-done
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range log.records(t) {
		gaps := map[time.Duration]int{}
		var prev int64 = -1
		for i, k := range r.EventKinds {
			if k != "text" {
				continue
			}
			if prev >= 0 {
				gaps[time.Duration(r.EventDueNS[i]-prev)]++
			}
			prev = r.EventDueNS[i]
		}
		switch r.Model {
		case "short":
			if len(gaps) != 1 || gaps[3*time.Millisecond] != 29 {
				t.Errorf("short stream gaps %v, want 29 × 3ms", gaps)
			}
		case "long":
			for g := range gaps {
				if g != itl && g != 3*time.Millisecond {
					t.Errorf("long stream gaps %v, want only 2ms and 3ms", gaps)
					break
				}
			}
		}
	}
}

func TestStallsAtTheirRate(t *testing.T) {
	t.Parallel()
	// ITL 0, stalls of exactly 1 µs with probability 0.2: every scheduled gap
	// is 0 or 1 µs, and the 1 µs ones are a binomial count.
	const tokens = 2001
	log := &logBuffer{}
	srv, url := startServer(t, Config{Log: log, Default: ModelConfig{
		Stall: Stall{Prob: 0.2, Duration: time.Microsecond}, OutputTokens: FixedCount(tokens),
	}})
	post(t, url+"/v1/completions", `{"model":"m","stream":true,"prompt":"x"}`)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	r := log.records(t)[0]
	stalls := 0
	for i := 1; i < tokens; i++ {
		switch gap := r.EventDueNS[i] - r.EventDueNS[i-1]; gap {
		case 0:
		case 1000:
			stalls++
		default:
			t.Fatalf("gap %d ns", gap)
		}
	}
	checkBinomial(t, "stalls", stalls, tokens-1, 0.2)
}

func TestLognormalPrefillHasItsMedianAndSpread(t *testing.T) {
	t.Parallel()
	// The jitter draws themselves: lognormal with σ = 0.5 around 100 ms has
	// median 100 ms and log-standard-deviation 0.5 (checked on 4,000 draws,
	// far inside the tolerance).
	j := Jitter{Dist: JitterLognormal, Sigma: 0.5}
	var logs []float64
	for seq := uint64(0); seq < 4000; seq++ {
		d := j.apply(100*time.Millisecond, requestRand(1, seq, purposePrefill))
		logs = append(logs, math.Log(float64(d)/float64(100*time.Millisecond)))
	}
	sort.Float64s(logs)
	median := logs[len(logs)/2]
	mean, ss := 0.0, 0.0
	for _, l := range logs {
		mean += l
	}
	mean /= float64(len(logs))
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	sd := math.Sqrt(ss / float64(len(logs)-1))
	if math.Abs(median) > 0.05 || math.Abs(sd-0.5) > 0.05 {
		t.Errorf("log-median %.3f (want 0), log-sd %.3f (want 0.5)", median, sd)
	}
}

func TestPrefillScalesWithInputTokens(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	srv, url := startServer(t, Config{Log: log, Default: ModelConfig{
		Prefill: Prefill{Base: time.Millisecond, PerInputToken: 100 * time.Microsecond, Max: 3 * time.Millisecond}, OutputTokens: FixedCount(1),
	}})
	for _, words := range []int{0, 5, 100} {
		prompt := ""
		for i := 0; i < words; i++ {
			prompt += "w "
		}
		post(t, url+"/v1/completions", fmt.Sprintf(`{"model":"m","stream":true,"prompt":%q}`, prompt))
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	recs := log.records(t)
	for seq, want := range []time.Duration{time.Millisecond, 1500 * time.Microsecond, 3 * time.Millisecond} {
		if got := time.Duration(recs[uint64(seq)].PrefillNS); got != want {
			t.Errorf("seq %d: prefill %v, want %v", seq, got, want)
		}
	}
}

func TestPoolIsFIFOAndCancellable(t *testing.T) {
	t.Parallel()
	p := newPool(1, 3)
	ctx := context.Background()
	if err := p.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	var ws []*waiter
	for i := 0; i < 3; i++ {
		w, err := p.enqueue()
		if err != nil || w == nil {
			t.Fatalf("enqueue %d: %v, %v", i, w, err)
		}
		ws = append(ws, w)
	}
	if _, err := p.enqueue(); err != errQueueFull {
		t.Fatalf("4th waiter: %v, want errQueueFull", err)
	}
	// The second waiter gives up; the slot goes to the first, then the third.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.wait(cctx, ws[1]); err == nil {
		t.Fatal("canceled wait returned nil")
	}
	p.release()
	if err := p.wait(ctx, ws[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ws[2].ready:
		t.Fatal("the third waiter got a slot while the first holds it")
	default:
	}
	p.release()
	if err := p.wait(ctx, ws[2]); err != nil {
		t.Fatal(err)
	}
	// A waiter granted the slot just as it gives up passes it on.
	w, _ := p.enqueue()
	p.release() // grants w
	if err := p.wait(cctx, w); err == nil {
		// select may pick either ready channel; both outcomes must leave the
		// slot accounted for.
		p.release()
	}
	if p.active.Load() != 0 || p.waiting.Load() != 0 {
		t.Errorf("active %d, waiting %d; want 0, 0", p.active.Load(), p.waiting.Load())
	}
}

func TestClientGoneFreesTheSlot(t *testing.T) {
	t.Parallel()
	srv, url := startServer(t, Config{Slots: 1, Default: ModelConfig{ITL: ITL{Base: time.Hour}, OutputTokens: FixedCount(3)}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result)
	for i := 0; i < 2; i++ {
		go func() { done <- postCtx(t, ctx, testClient, url+"/v1/chat/completions", chatBody("m", 0, "")) }()
	}
	waitFor(t, "one stream decoding and one waiting", func() bool {
		st := srv.Stats()
		return st.Active == 1 && st.Waiting == 1
	})
	cancel()
	<-done
	<-done
	waitFor(t, "the slot and the queue to empty", func() bool {
		st := srv.Stats()
		return st.Active == 0 && st.Waiting == 0 && st.ClientGone == 2
	})
	r := post(t, url+"/v1/chat/completions", `{"model":"m","stream":true,"max_tokens":1,"messages":[]}`)
	if r.status != http.StatusOK || r.readErr != nil {
		t.Errorf("after the clients left: %d %v", r.status, r.readErr)
	}
}
