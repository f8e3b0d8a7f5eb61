package e2e

// The tail-attribution cause tests (issue 18): unlike the package's Ollama
// tests, they need no external server and always run. For each cause the
// mock can inject on purpose, in-process mocks on 127.0.0.1 serve load driven
// through the real helper (helper.Start, POST /v1/stream, the default engine
// client) writing a records file; the records are read back with the
// records reader, converted with tail.FromRecord and attributed with
// tail.Analyze. Each run asserts the stage the mock's code puts the
// cause in (Result.Top) and the attribute that sets the tail apart first
// (Result.Apart()[0]); over all runs, no attribute the cause does not
// inject may be named as setting the tail apart more often than a rate of
// maxFalseNamingRate explains (a one-sided binomial test at level
// falseNamingAlpha over the runs that do not inject it). A run during which the machine stalled
// the load generator itself (the helper's canary, maxRunLag) is run again.
//
// Load comes in groups of requests every groupEvery (at once, but for the
// queue), the first warmupGroups marked warm-up (the records carry it; the attribution
// leaves them out). An injected request is slower by about 30 ms and still
// ends before the next group starts, so the in-flight count at a request's
// start is its place in its group whatever the cause: concurrency confounds
// only the queue, where it is the cause. The tail's share is a little
// smaller than the injected share (see injectedShare). Nothing here
// asserts how long anything took.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
	"gonum.org/v1/gonum/stat/distuv"
)

const (
	groupEvery   = 50 * time.Millisecond
	groupLead    = 60 * time.Millisecond // from the mocks' creation to the first group
	causeGroups  = 30
	groupSize    = 9 // but in the queue cause
	warmupGroups = 2
	// injected is the extra time of an injected request: far above the
	// scheduling noise of a busy machine, and short enough that the request
	// ends before the next group.
	injected = 30 * time.Millisecond
	// injectedShare is the share of the recorded requests a cause that
	// picks requests injects: a little more than the tail above p90, so that
	// the tail is the injected requests but the fastest few. Were the tail
	// larger, it would take in the requests the machine's own stalls made
	// slowest; were it much smaller, the injected ones those stalls made
	// slowest: either way requests that cluster in time and in groups.
	injectedShare = 0.11
	// maxRunLag is the most the helper's canary (helper.Health's
	// LagMaxMS: how late the load generator woke up) may have been late
	// during a run for the run to count: a stall of the machine longer than
	// that could put the requests it delayed into the tail, and the run
	// would measure the machine, not the mock. Such a run is run again, up
	// to maxAttempts times in all.
	maxRunLag   = 20 * time.Millisecond
	maxAttempts = 5
	// maxFalseNamingRate bounds, per attribute, the rate at which an
	// attribute the run's cause does not inject sets the tail apart. The
	// counts of 18 runs are tested against it with a one-sided binomial test
	// at level falseNamingAlpha: the test fails when so many namings would
	// happen with probability below falseNamingAlpha at that rate (6 or more
	// of 18), and an attribution at the bound fails it at most that often.
	maxFalseNamingRate = 0.10
	falseNamingAlpha   = 0.01
)

// causeSeeds are the seeds each cause runs with (the mocks' and the plan's).
var causeSeeds = []uint64{1, 2, 3}

// causeRequest is one planned request: the mock it goes to, its prompt and
// its tags.
type causeRequest struct {
	mock   int
	prompt string
	tags   map[string]string
}

// mockSpec is one mock instance.
type mockSpec struct {
	cfg mockllm.Config
	// tls serves it over TLS; handshake > 0 then delays every handshake by
	// that much and turns keep-alive off, so every request dials anew.
	tls       bool
	handshake time.Duration
}

// causeSetup is what one run of a cause serves and sends.
type causeSetup struct {
	mocks  []mockSpec
	groups [][]causeRequest
	scrape bool // stamp records with mock 0's queue depth (a sampler at its default interval)
	// stagger spaces a group's requests; 0 sends them at once, so that the
	// in-flight count at a request's start is its place in its group.
	stagger time.Duration
}

// cause is one cause the mock injects and what the attribution must say.
type cause struct {
	name  string
	tail  float64 // Options.Tail
	stage string  // the top stage
	attr  string  // the first attribute that sets the tail apart
	value string  // its value, for a categorical attribute
	also  []string
	setup func(rng *rand.Rand, seed uint64) causeSetup
}

// causes are the causes the mock can make, with the stage the mock's code
// puts each in: it sends the response headers before queueing, the role
// chunk when a slot is granted and the first token after the prefill, so
// the queue is first_event and everything that lengthens the prefill
// (prompt length, cache misses, a slow instance, a stall burst) is
// first_token; a slow TLS handshake of a new connection is connect.
var causes = []cause{
	{name: "queue", tail: 80, stage: "first_event", attr: tail.AttrConcurrent,
		// The server's queue is the same cause: it may be named too.
		also: []string{tail.AttrServerQueue}, setup: queueCause},
	{name: "long-prompts", tail: 90, stage: "first_token", attr: tail.AttrInput, setup: longPromptCause},
	{name: "cache-misses", tail: 90, stage: "first_token", attr: tail.AttrCache, setup: cacheMissCause},
	{name: "slow-instance", tail: 90, stage: "first_token", attr: tail.AttrInstance, value: "1", setup: slowInstanceCause},
	{name: "stall-burst", tail: 93, stage: "first_token", attr: tail.AttrTime, value: "5/10", setup: burstCause},
	{name: "slow-connect", tail: 90, stage: "connect", attr: tail.AttrInstance, value: "1", setup: slowConnectCause},
}

// quickModel is the body's model: 2 ms prefill, two tokens 1 ms apart.
func quickModel() mockllm.ModelConfig {
	return mockllm.ModelConfig{
		Prefill:      mockllm.Prefill{Base: 2 * time.Millisecond},
		ITL:          mockllm.ITL{Base: time.Millisecond},
		OutputTokens: mockllm.FixedCount(2),
	}
}

func quickMock(seed uint64) mockllm.Config {
	return mockllm.Config{Seed: seed, Default: quickModel()}
}

// plainGroups plans groups of groupSize requests made by req; exactly
// injectedShare of the recorded ones, at random, are injected. All groups
// have one size, so that whichever requests a cause injects, the in-flight
// counts at their starts are distributed as the others'.
func plainGroups(rng *rand.Rand, req func(rng *rand.Rand, injected bool) causeRequest) [][]causeRequest {
	recorded := (causeGroups - warmupGroups) * groupSize
	inject := make([]bool, recorded)
	for _, i := range rng.Perm(recorded)[:int(injectedShare*float64(recorded)+0.5)] {
		inject[i] = true
	}
	groups := make([][]causeRequest, causeGroups)
	for g := range groups {
		for i := range groupSize {
			k := (g-warmupGroups)*groupSize + i
			groups[g] = append(groups[g], req(rng, k >= 0 && inject[k]))
		}
	}
	return groups
}

// words is a prompt of n random words.
func words(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", rng.IntN(1_000_000))
	}
	return strings.Join(w, " ")
}

// queueCause: 2 slots held about 10 ms each; every third group has 8
// requests, whose last two wait more than 20 ms for a slot, the others 1
// or 2. The tail is at p80: the last two of every big group (18%) and a
// few of the next ones. The sampler scrapes at the default 250 ms.
func queueCause(rng *rand.Rand, seed uint64) causeSetup {
	cfg := quickMock(seed)
	cfg.Slots = 2
	cfg.Default.Prefill.Base = 8 * time.Millisecond
	groups := make([][]causeRequest, causeGroups)
	for g := range groups {
		n := 1 + rng.IntN(2)
		if g >= warmupGroups && g%3 == 2 {
			n = 8
		}
		for range n {
			groups[g] = append(groups[g], causeRequest{prompt: words(rng, 8)})
		}
	}
	return causeSetup{mocks: []mockSpec{{cfg: cfg}}, groups: groups, scrape: true, stagger: time.Millisecond}
}

// longPromptCause: prefill costs 150 µs per input token; the injected
// requests have 200–230 words instead of 5–15.
func longPromptCause(rng *rand.Rand, seed uint64) causeSetup {
	cfg := quickMock(seed)
	cfg.Default.Prefill.PerInputToken = 150 * time.Microsecond
	return causeSetup{mocks: []mockSpec{{cfg: cfg}}, groups: plainGroups(rng, func(rng *rand.Rand, injected bool) causeRequest {
		if injected {
			return causeRequest{prompt: words(rng, 200+rng.IntN(31))}
		}
		return causeRequest{prompt: words(rng, 5+rng.IntN(11))}
	})}
}

// cacheMissCause: every prompt has 200 words and prefill costs 150 µs per
// uncached one; all share a 192-word prefix the prefix cache serves, but
// the injected ones start with their own.
func cacheMissCause(rng *rand.Rand, seed uint64) causeSetup {
	cfg := quickMock(seed)
	cfg.PrefixCache = mockllm.PrefixCache{Blocks: 4096, BlockTokens: 16}
	cfg.Default.Prefill.PerInputToken = 150 * time.Microsecond
	shared := words(rng, 192)
	return causeSetup{mocks: []mockSpec{{cfg: cfg}}, groups: plainGroups(rng, func(rng *rand.Rand, injected bool) causeRequest {
		if injected {
			return causeRequest{prompt: words(rng, 200)}
		}
		return causeRequest{prompt: shared + " " + words(rng, 8)}
	})}
}

// slowInstanceCause: two instances, the second's prefill 30 ms longer; the
// injected requests go to it.
func slowInstanceCause(rng *rand.Rand, seed uint64) causeSetup {
	slow := quickMock(seed + 100)
	slow.Default.Prefill.Base += injected
	return causeSetup{mocks: []mockSpec{{cfg: quickMock(seed)}, {cfg: slow}}, groups: plainGroups(rng, instanceRequest)}
}

// instanceRequest sends an injected request to instance 1, the others to
// instance 0, tagged.
func instanceRequest(rng *rand.Rand, injected bool) causeRequest {
	m := 0
	if injected {
		m = 1
	}
	return causeRequest{mock: m, prompt: words(rng, 8), tags: map[string]string{"instance_id": fmt.Sprint(m)}}
}

// burstCause: a stall burst (Burst.Delay 30 ms) covers groups 14 and 15
// (7.1% of the recorded requests: the tail is at p93), which lie in the
// fifth tenth of the recorded span (groups 2–29: 1350 ms, tenths of 135 ms)
// with 25 ms to spare; the burst starts 20 ms before group 14 and
// ends 20 ms before group 16.
func burstCause(rng *rand.Rand, seed uint64) causeSetup {
	cfg := quickMock(seed)
	cfg.Burst = mockllm.Burst{Start: groupAt(14) - 20*time.Millisecond, Duration: 2 * groupEvery, Delay: injected}
	groups := plainGroups(rng, func(rng *rand.Rand, _ bool) causeRequest { return causeRequest{prompt: words(rng, 8)} })
	return causeSetup{mocks: []mockSpec{{cfg: cfg}}, groups: groups}
}

// slowConnectCause: two TLS instances; the second delays each handshake by
// 30 ms and keeps no connection alive, so each of its requests (the
// injected ones) sets up a connection that slowly.
func slowConnectCause(rng *rand.Rand, seed uint64) causeSetup {
	return causeSetup{mocks: []mockSpec{{cfg: quickMock(seed), tls: true}, {cfg: quickMock(seed + 100), tls: true, handshake: injected}},
		groups: plainGroups(rng, instanceRequest)}
}

// groupAt is when group g starts, from the mocks' creation.
func groupAt(g int) time.Duration { return groupLead + time.Duration(g)*groupEvery }

// binomialTail is P(X ≥ k) for X ~ Binomial(n, p).
func binomialTail(k, n int, p float64) float64 {
	if k <= 0 {
		return 1
	}
	return distuv.Binomial{N: float64(n), P: p}.Survival(float64(k - 1))
}

// TestTailCausesFromMock runs every cause with every seed, checks what the
// attribution names first, and then how often it names, as setting the
// tail apart, an attribute the run's cause does not inject.
func TestTailCausesFromMock(t *testing.T) {
	falseNamed := map[string][]string{} // attribute → the runs that named it
	injected := map[string]int{}        // attribute → the runs whose cause injects it
	runs := 0
	for _, c := range causes {
		for _, seed := range causeSeeds {
			name := fmt.Sprintf("%s/seed-%d", c.name, seed)
			t.Run(name, func(t *testing.T) {
				res := calmRun(t, c, seed)
				runs++
				injected[c.attr]++
				for _, a := range c.also {
					injected[a]++
				}
				var b strings.Builder
				_ = res.WriteText(&b)
				t.Log(b.String())
				for _, a := range res.Apart() {
					if a.Name != c.attr && !slices.Contains(c.also, a.Name) {
						falseNamed[a.Name] = append(falseNamed[a.Name], name)
					}
				}
				apart := res.Apart()
				if res.Top().Name != c.stage || len(apart) == 0 || apart[0].Name != c.attr || apart[0].Value != c.value {
					t.Errorf("top stage %s, first attribute %s; want stage %s and %s %s\n%s",
						res.Top().Name, firstAttr(apart), c.stage, c.attr, c.value, strings.Join(res.Findings, "\n"))
				}
			})
		}
	}
	t.Run("false-naming", func(t *testing.T) {
		if runs < len(causes)*len(causeSeeds) {
			t.Skip("not every run finished")
		}
		names := make([]string, 0, len(falseNamed))
		for n := range falseNamed {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			k, of := len(falseNamed[n]), runs-injected[n]
			t.Logf("%s named without being injected in %d of %d runs: %v", n, k, of, falseNamed[n])
			if p := binomialTail(k, of, maxFalseNamingRate); p < falseNamingAlpha {
				t.Errorf("%s sets the tail apart in %d of the %d runs that do not inject it: P = %.2g at a rate of %.0f%% (below %g): %v",
					n, k, of, p, 100*maxFalseNamingRate, falseNamingAlpha, falseNamed[n])
			}
		}
	})
}

func firstAttr(apart []tail.Attribute) string {
	if len(apart) == 0 {
		return "(none)"
	}
	return apart[0].Name + " " + apart[0].Value
}

// calmRun runs c until a run's load generator did not stall (maxRunLag),
// and skips the test when none of maxAttempts runs is calm.
func calmRun(t *testing.T, c cause, seed uint64) *tail.Result {
	var lags []time.Duration
	for range maxAttempts {
		res, lag := runCause(t, c, seed)
		if lag <= maxRunLag {
			return res
		}
		lags = append(lags, lag)
		t.Logf("the load generator stalled %v (more than %v): running again", lag, maxRunLag)
	}
	t.Skipf("the machine stalled the load generator in all %d runs (%v, more than %v): the tail would be the machine's", maxAttempts, lags, maxRunLag)
	return nil
}

// runCause serves one run of c and attributes its records; lag is the
// helper canary's worst lateness while streams ran.
func runCause(t *testing.T, c cause, seed uint64) (res *tail.Result, lag time.Duration) {
	su := c.setup(rand.New(rand.NewPCG(seed, 18)), seed)
	path := filepath.Join(t.TempDir(), "records.jsonl")
	rw, err := helper.CreateRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	urls, trust, start := startCauseMocks(t, su.mocks)
	opts := []helper.Option{helper.WithRecords(rw)}
	if trust != nil {
		opts = append(opts, trust)
	}
	if su.scrape {
		s, err := serverstats.StartSampler(urls[0]+"/metrics", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Stop()
		opts = append(opts, helper.WithServerSampler(s))
	}
	hs, err := helper.Start("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	driveGroups(t, hs.URL(), urls, su, start)
	// A connection the client dialed but never used would hold the
	// helper's Shutdown for 5 s (net/http treats it as active until then).
	http.DefaultClient.CloseIdleConnections()
	if h := hs.Handler().Health(); h.LagMaxMS != nil {
		lag = time.Duration(*h.LagMaxMS * float64(time.Millisecond))
	}
	if err := hs.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := helper.CloseRecords(rw); err != nil {
		t.Fatal(err)
	}
	o := tail.DefaultOptions()
	o.Tail = c.tail
	res, err = tail.Analyze(readCauseRecords(t, path, su), o)
	if err != nil {
		t.Fatal(err)
	}
	return res, lag
}

// startCauseMocks serves the mocks on 127.0.0.1 and returns their URLs,
// the helper's option trusting their certificates (nil without TLS) and the
// first mock's creation time, from which its Burst and the groups are timed.
// A TLS mock serves the mock's own certificate (mockllm.NewTLS), written to
// a file the helper loads as --ca-file does.
func startCauseMocks(t *testing.T, specs []mockSpec) (urls []string, trust helper.Option, start time.Time) {
	var certs []byte
	for i, sp := range specs {
		m, err := mockllm.New(sp.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			start = time.Now()
		}
		ts := httptest.NewUnstartedServer(m)
		if sp.tls {
			cfg, certPEM, err := mockllm.NewTLS(mockllm.TLSOptions{HandshakeDelay: sp.handshake})
			if err != nil {
				t.Fatal(err)
			}
			certs = append(certs, certPEM...)
			ts.TLS = cfg
			ts.Config.SetKeepAlivesEnabled(sp.handshake == 0)
			ts.StartTLS()
		} else {
			ts.Start()
		}
		t.Cleanup(func() {
			m.Close()
			ts.Close()
		})
		urls = append(urls, ts.URL)
	}
	if certs != nil {
		trust = trustCerts(t, certs)
	}
	return urls, trust, start
}

// trustCerts is helper.WithRootCAs of the PEM certificates, loaded from a
// file with helper.LoadCAFile (the helper's --ca-file).
func trustCerts(t *testing.T, certs []byte) helper.Option {
	path := filepath.Join(t.TempDir(), "mocks.pem")
	if err := os.WriteFile(path, certs, 0o644); err != nil {
		t.Fatal(err)
	}
	pool, err := helper.LoadCAFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return helper.WithRootCAs(pool)
}

// driveGroups sends each group's requests through the helper, group g from
// start+groupAt(g), su.stagger apart, and waits for every answer.
func driveGroups(t *testing.T, helperURL string, urls []string, su causeSetup, start time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for g, reqs := range su.groups {
		for i, r := range reqs {
			time.Sleep(time.Until(start.Add(groupAt(g) + time.Duration(i)*su.stagger)))
			body := fmt.Sprintf(`{"model":"m","max_tokens":2,"messages":[{"role":"user","content":%q}]}`, r.prompt)
			req := helper.StreamRequest{URL: urls[r.mock] + "/v1/chat/completions", API: "openai-chat",
				Body: []byte(body), Tags: r.tags, Warmup: g < warmupGroups}
			wg.Go(func() {
				a, err := postStream(ctx, helperURL, req)
				if err == nil && !a.OK {
					err = fmt.Errorf("request failed: %+v", a.Error)
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			})
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// readCauseRecords reads the records file back and converts its records;
// every recorded request must be there, warm-up ones left out.
func readCauseRecords(t *testing.T, path string, su causeSetup) []tail.Request {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var reqs []tail.Request
	all := 0
	st, err := records.Scan(f, func(r *records.Record) error {
		all++
		if q, ok := tail.FromRecord(r); ok {
			reqs = append(reqs, q)
		} else if !r.Warmup {
			return fmt.Errorf("record %d: no TTFT or stages (error %+v)", all, r.Error)
		}
		return nil
	})
	if err != nil || st.Trailer == nil {
		t.Fatalf("records: %v (trailer %v)", err, st.Trailer)
	}
	want := 0
	for _, g := range su.groups {
		want += len(g)
	}
	if all != want {
		t.Fatalf("%d records for %d requests", all, want)
	}
	return reqs
}

// TestTailServerQueueDepthFromRecords: records whose slow requests started
// while the scraped server queue was long (and at the same in-flight count
// as the others: the queue came from load this client did not send) are
// attributed to server_queue_depth; records without server_waiting leave
// the attribute out.
func TestTailServerQueueDepthFromRecords(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 18))
	build := func(scraped bool) []tail.Request {
		var reqs []tail.Request
		for i := range 400 {
			slow := i%10 == 0
			ttft := int64(4e6 + rng.IntN(1e6))
			waiting := float64(rng.IntN(2))
			if slow {
				ttft += 30e6
				waiting = float64(6 + rng.IntN(4))
			}
			r := records.Record{V: records.Version, Status: 200, StartNS: int64(i) * 10e6, E2ENS: ttft + 2e6,
				TTFTNS: &ttft, Stages: &records.Stages{FirstEventNS: ttft - 2e6, FirstTokenNS: 2e6}, InputTokens: 8}
			if scraped {
				r.ServerWaiting = &waiting
			}
			q, ok := tail.FromRecord(&r)
			if !ok {
				t.Fatalf("record %d not converted", i)
			}
			reqs = append(reqs, q)
		}
		return reqs
	}
	o := tail.DefaultOptions()
	o.Tail = 90
	res, err := tail.Analyze(build(true), o)
	if err != nil {
		t.Fatal(err)
	}
	if apart := res.Apart(); len(apart) == 0 || apart[0].Name != tail.AttrServerQueue || apart[0].Effect < 0.9 {
		t.Errorf("first attribute %s; want %s\n%s", firstAttr(apart), tail.AttrServerQueue, strings.Join(res.Findings, "\n"))
	}
	if text := strings.Join(res.Findings, "\n"); !strings.Contains(text, "server queue depth at start") {
		t.Errorf("the findings do not say it in words:\n%s", text)
	}
	if res, err = tail.Analyze(build(false), o); err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Attributes {
		if a.Name == tail.AttrServerQueue {
			t.Errorf("without server_waiting the attribute is still there: %+v", a)
		}
	}
}

// TestBinomialTail: the false-naming test's bound for 18 runs at 10% is 6.
func TestBinomialTail(t *testing.T) {
	if p := binomialTail(0, 18, 0.1); p != 1 {
		t.Errorf("P(X ≥ 0) = %v", p)
	}
	if p5, p6 := binomialTail(5, 18, 0.1), binomialTail(6, 18, 0.1); !(p5 > falseNamingAlpha && p6 < falseNamingAlpha) {
		t.Errorf("P(X ≥ 5) = %.4f, P(X ≥ 6) = %.4f for 18 runs at 10%%: want the bound between them", p5, p6)
	}
	if p, want := binomialTail(1, 18, 0.1), 1-math.Pow(0.9, 18); math.Abs(p-want) > 1e-12 {
		t.Errorf("P(X ≥ 1) = %g, want 1 − 0.9^18 = %g", p, want)
	}
}
