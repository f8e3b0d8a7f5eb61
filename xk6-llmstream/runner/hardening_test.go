package runner

import (
	"context"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// A bad LLM_BASE_URL is named without its user info, path or query (issue 11,
// item 4): the old message printed everything up to the '@' of a URL that did
// not parse, password included.
func TestBadBaseURLNeverPrintsUserinfo(t *testing.T) {
	t.Parallel()
	const secret = "s3cretKEY0123456789"
	for _, raw := range []string{
		"http://user:" + secret + "@[::1/v1",
		"http//user:" + secret + "@127.0.0.1/v1",
		"ftp://user:" + secret + "@127.0.0.1/v1",
		"127.0.0.1:8000/" + secret,
		"http:" + secret,
		"http://user:" + secret + "@127.0.0.1:8000/v1\x7f",
	} {
		env, _ := fakeEnv(t, BaseURLEnv+"="+raw)
		_, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env})
		if err == nil {
			t.Errorf("%s=%q accepted", BaseURLEnv, raw)
			continue
		}
		if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), BaseURLEnv) {
			t.Errorf("%s=%q: error %q leaks the secret or does not name %s", BaseURLEnv, raw, err, BaseURLEnv)
		}
	}
}

// lateClock is a canary clock that reads every probe lag later than it was:
// an injected scheduling delay, independent of the machine's speed (the
// probes are written with the real time; the canary reads them with now).
type lateClock struct{ lag time.Duration }

func (c *lateClock) now() time.Time        { return time.Now().Add(c.lag) }
func (c *lateClock) sleep(d time.Duration) { time.Sleep(d) }

// idleCPU are CPU counters that advance at share idle, whatever the machine
// does: the rule's CPU clause then stays quiet on a busy test machine.
func idleCPU(share float64) func() (headroom.CPUTimes, error) {
	var mu sync.Mutex
	var t headroom.CPUTimes
	return func() (headroom.CPUTimes, error) {
		mu.Lock()
		defer mu.Unlock()
		t.Total += 100
		t.Idle += uint64(100 * share)
		return t, nil
	}
}

func TestRunWarnsWhenLimitedByTheLoadGenerator(t *testing.T) {
	t.Parallel()
	clk := &lateClock{lag: 3 * time.Millisecond}
	// The warning needs loadgen.MinSamples llm_client_lag samples; a request
	// that ends before the canary's first tick has none (the canary ticks
	// only while streams run), so a few more requests than that are sent. A
	// fast mock keeps them short.
	profile := filepath.Join(t.TempDir(), "fast.json")
	if err := os.WriteFile(profile, []byte(`{"seed": 1, "slots": 8, "default": {"prefill": {"base": "1ms", "jitter": {"dist": "none"}},
	  "itl": {"base": "1ms", "jitter": {"dist": "none"}}, "output_tokens": 2}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env, _ := fakeEnv(t, "FAKE_K6_PROBE="+strings.Repeat("/v1/chat/completions ", headroom.MinSamples+20))
	var stderr lockedBuffer
	_, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, MockProfile: profile,
		HelperOptions: []helper.Option{helper.WithClock(clk.now, clk.sleep), helper.WithCPUCounters(idleCPU(0.9))}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), LimitedWarning) || !strings.Contains(stderr.String(), "above 0.15 ms (") {
		t.Errorf("no warning about the load generator with a 3 ms injected lag:\n%s", stderr.String())
	}
}

func TestReportHealth(t *testing.T) {
	t.Parallel()
	share, quiet, busy, p50, p99, low := 0.165, 0.84, 0.04, 2.0, 7.5, 0.05
	// judged sets the verdict as the helper's Health does.
	judged := func(h helper.Health) helper.Health {
		s := headroom.Signals{Samples: int(h.LagSamples), CPUIdle: h.CPUIdleP50}
		if h.LagP50MS != nil {
			s.ClientLagP50MS = *h.LagP50MS
		}
		h.Limited, h.Reason = headroom.Judge(s)
		return h
	}
	for _, tc := range []struct {
		h     helper.Health
		first string // the first line, "" for no warning
		more  string
	}{
		{helper.Health{CPUIdleP50: &quiet}, "", ""},
		{helper.Health{LagSamples: 900, LagP50MS: &low, LagP99MS: &p99, CPUIdleP50: &quiet}, "", ""},
		{helper.Health{LagSamples: 900, LagP50MS: &p50, LagP99MS: &p99, ITLGaps: 1000, ITLZeroShare: &share},
			LimitedWarning + ": client lag p50 2 ms over 900 requests is above 0.15 ms (" + headroom.Doc + ")",
			"llm_client_lag over 900 requests: p50 2 ms, p99 7.5 ms; 16.5% of 1000 ITL gaps were 0."},
		{helper.Health{LagSamples: 900, LagP50MS: &low, LagP99MS: &p99, CPUIdleP50: &busy},
			LimitedWarning + ": the CPUs were 4% idle while the median request ran",
			"p50 0.05 ms, p99 7.5 ms; CPUs 4% idle while the median request ran."},
	} {
		var lines []string
		h := judged(tc.h)
		reportHealth(h, func(f string, a ...any) { lines = append(lines, strings.TrimSpace(fmt.Sprintf(f, a...))) })
		if tc.first == "" {
			if len(lines) != 0 {
				t.Errorf("reportHealth(%+v) said %q, want nothing", h, lines)
			}
			continue
		}
		if len(lines) != 2 || !strings.HasPrefix(lines[0], tc.first) || !strings.HasSuffix(lines[0], "("+headroom.Doc+")") ||
			!strings.Contains(lines[1], tc.more) || len([]rune(lines[0])) > 200 {
			t.Errorf("reportHealth(%+v) said %q, want %q… then …%q…", h, lines, tc.first, tc.more)
		}
	}
}

// TestRunScrapeFollowsTheAllowList: run's --scrape is held to the run's
// allow-list as the helper's is (a TEST-NET address is refused before any
// scrape: nothing outside loopback is contacted).
func TestRunScrapeFollowsTheAllowList(t *testing.T) {
	t.Parallel()
	env, _ := fakeEnv(t)
	var stderr lockedBuffer
	_, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, Mock: true,
		Records: filepath.Join(t.TempDir(), "r.jsonl"), Scrape: "http://192.0.2.1:9/metrics"})
	if err == nil || !strings.Contains(err.Error(), "192.0.2.1") {
		t.Fatalf("run --scrape off the allow-list: %v, want a refusal naming the host\n%s", err, stderr.String())
	}
}

func TestReportSendLag(t *testing.T) {
	t.Parallel()
	p50, p99, maxLag := 1.0, 640.0, 900.0
	for _, tc := range []struct {
		h    helper.Health
		want string
	}{
		{helper.Health{}, ""},
		{helper.Health{SendLagSamples: 1000, SendLagP50MS: &p50, SendLagP99MS: &p50, SendLagMaxMS: &p50},
			"send lag of 1000 scheduled requests: p50 1 ms, p99 1 ms, max 1 ms"},
		{helper.Health{SendLagSamples: 1000, SendLagP50MS: &p50, SendLagP99MS: &p99, SendLagMaxMS: &maxLag,
			Degraded: true, DegradedReason: "send lag p99 640 ms (1000 requests) is above 500 ms"},
			DegradedWarning + ": send lag p99 640 ms (1000 requests) is above 500 ms (send lag of 1000 scheduled requests: p50 1 ms, p99 640 ms, max 900 ms)"},
	} {
		var got strings.Builder
		reportSendLag(tc.h, func(f string, a ...any) { got.WriteString(strings.TrimSpace(fmt.Sprintf(f, a...))) })
		if !strings.HasPrefix(got.String(), tc.want) || (tc.want == "") != (got.Len() == 0) {
			t.Errorf("reportSendLag said %q, want %q…", got.String(), tc.want)
		}
	}
}
