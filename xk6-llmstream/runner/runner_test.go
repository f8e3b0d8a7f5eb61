package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// The tests run this test binary as a fake "k6": with FAKE_K6=1 in its
// environment, TestMain does what the FAKE_K6_* variables say instead of
// running tests, and records what it saw in $FAKE_K6_RECORD.

const testKey = "sk-test-DO-NOT-LEAK-1234"

func TestMain(m *testing.M) {
	if os.Getenv("FAKE_K6") == "1" {
		os.Exit(fakeK6())
	}
	if mode := os.Getenv(fakeMockEnv); mode != "" {
		os.Exit(fakeMock(mode))
	}
	os.Exit(m.Run())
}

// offlineStreamer stands in for the engine when a test's upstream is not
// loopback: it notes each URL and answers a connect error, contacting nothing.
type offlineStreamer struct {
	mu   sync.Mutex
	urls []string
}

func (s *offlineStreamer) Do(_ context.Context, req *stream.Request) *stream.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = append(s.urls, req.URL)
	return &stream.Record{Err: &stream.Error{Kind: stream.KindConnect, Message: "offline stand-in: not contacted"}}
}

func (s *offlineStreamer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.urls...)
}

// fakeRecord is what the fake k6 saw.
type fakeRecord struct {
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Probes  []probeResult     `json:"probes"`
	Signals []string          `json:"signals"`
	Pid     int               `json:"pid"`
}

type probeResult struct {
	Upstream string `json:"upstream"`
	Status   int    `json:"status"`
	Body     string `json:"body"`
}

func fakeK6() int {
	rec := fakeRecord{Args: os.Args[1:], Env: map[string]string{}, Pid: os.Getpid()}
	for _, k := range []string{HelperEnv, HelperTokenEnv, BaseURLEnv, "LLM_API_KEY", "KEEP_ME"} {
		if v, ok := os.LookupEnv(k); ok {
			rec.Env[k] = v
		}
	}
	save := func() {
		// Write then rename, so that a test polling the record never reads half of it.
		b, _ := json.Marshal(rec)
		path := os.Getenv("FAKE_K6_RECORD")
		if os.WriteFile(path+".tmp", b, 0o600) == nil {
			_ = os.Rename(path+".tmp", path)
		}
	}
	fmt.Fprintln(os.Stdout, "fake k6 stdout")
	fmt.Fprintln(os.Stderr, "fake k6 stderr")
	code, _ := strconv.Atoi(os.Getenv("FAKE_K6_EXIT"))

	// Probe: stream through the helper to each upstream path or URL.
	for _, p := range strings.Fields(os.Getenv("FAKE_K6_PROBE")) {
		// A path is on LLM_BASE_URL and gets time to finish; a URL elsewhere may
		// hang on connect, so it gets little.
		upstream, timeout := p, "500"
		if strings.HasPrefix(p, "/") {
			upstream, timeout = os.Getenv(BaseURLEnv)+p, "30000"
		}
		body := `{"url":"` + upstream + `","api":"openai-chat","timeout_ms":` + timeout + `,"headers":{"Authorization":"Bearer ` +
			os.Getenv("LLM_API_KEY") + `"},"body":{"model":"m","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}}`
		for _, withToken := range []bool{true, false} {
			req, _ := http.NewRequest(http.MethodPost, os.Getenv(HelperEnv)+"/v1/stream", strings.NewReader(body))
			if withToken {
				req.Header.Set("Authorization", "Bearer "+os.Getenv(HelperTokenEnv))
			}
			pr := probeResult{Upstream: upstream}
			if !withToken {
				pr.Upstream = "no-token:" + upstream
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				pr.Body = err.Error()
			} else {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				pr.Status, pr.Body = resp.StatusCode, string(b)
			}
			rec.Probes = append(rec.Probes, pr)
		}
	}

	switch os.Getenv("FAKE_K6_SIGNAL") {
	case "record", "ignore":
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		save()
		_ = os.WriteFile(os.Getenv("FAKE_K6_RECORD")+".ready", nil, 0o600)
		for sig := range ch {
			rec.Signals = append(rec.Signals, sig.String())
			save()
			if os.Getenv("FAKE_K6_SIGNAL") == "record" {
				return code
			}
		}
	}
	save()
	return code
}

// niceOf reads the nice value from a /proc stat file (-100 when it cannot).
func niceOf(path string) int { return statField(path, 19) }

// statField is field n (1-based, as proc(5) numbers them) of a stat file,
// -100 when it cannot be read.
func statField(path string, n int) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return -100
	}
	// The fields after the command name (in parentheses) start at the 3rd.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < n-2 {
		return -100
	}
	v, err := strconv.Atoi(f[n-3])
	if err != nil {
		return -100
	}
	return v
}

// fakeEnv is an environment that runs this binary as k6.
func fakeEnv(t *testing.T, extra ...string) ([]string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "record.json")
	env := os.Environ()
	for _, kv := range []string{BaseURLEnv + "=", HelperEnv + "=", HelperTokenEnv + "="} {
		k, _, _ := strings.Cut(kv, "=")
		env = setEnv(env, k, "")
	}
	env = setEnv(env, K6BinEnv, self)
	env = setEnv(env, "FAKE_K6", "1")
	env = setEnv(env, "FAKE_K6_RECORD", record)
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		env = setEnv(env, k, v)
	}
	return env, record
}

func readRecord(t *testing.T, path string) fakeRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake k6 left no record: %v", err)
	}
	var r fakeRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// lockedBuffer collects output written by k6's copy goroutines and the runner.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRunWithMock(t *testing.T) {
	before := ownGoroutines()
	for _, exit := range []int{0, 99, 7} {
		env, record := fakeEnv(t, "FAKE_K6_EXIT="+strconv.Itoa(exit), "LLM_API_KEY="+testKey, "KEEP_ME=yes",
			"FAKE_K6_PROBE=/v1/chat/completions http://192.0.2.1:9/v1/chat/completions")
		var stdout, stderr lockedBuffer
		code, err := Run(context.Background(), Config{
			Args:   []string{"script.js", "--vus", "2", "-e", "LLM_API_KEY=" + testKey},
			Env:    env,
			Stdout: &stdout, Stderr: &stderr,
		})
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, stderr.String())
		}
		if code != exit {
			t.Errorf("Run returned code %d, want k6's %d", code, exit)
		}
		r := readRecord(t, record)
		if want := []string{"run", "script.js", "--vus", "2", "-e", "LLM_API_KEY=" + testKey}; fmt.Sprint(r.Args) != fmt.Sprint(want) {
			t.Errorf("k6 args = %q, want %q", r.Args, want)
		}
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(r.Env[HelperEnv]) {
			t.Errorf("%s = %q", HelperEnv, r.Env[HelperEnv])
		}
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r.Env[HelperTokenEnv]) {
			t.Errorf("%s = %q, want 32 hex digits", HelperTokenEnv, r.Env[HelperTokenEnv])
		}
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(r.Env[BaseURLEnv]) {
			t.Errorf("%s = %q, want the mock's URL", BaseURLEnv, r.Env[BaseURLEnv])
		}
		if r.Env["KEEP_ME"] != "yes" || r.Env["LLM_API_KEY"] != testKey {
			t.Errorf("the rest of the environment was not passed on: %v", r.Env)
		}
		// The probes: a stream to the mock through the helper works; without the
		// token the helper refuses; a non-loopback host is off the allow-list.
		if len(r.Probes) != 4 {
			t.Fatalf("probes: %+v", r.Probes)
		}
		if p := r.Probes[0]; p.Status != 200 || !strings.Contains(p.Body, `"ok":true`) || !strings.Contains(p.Body, `"output_tokens":4`) {
			t.Errorf("stream to the mock via the helper: %d %s", p.Status, p.Body)
		}
		if p := r.Probes[1]; p.Status != 401 || !strings.Contains(p.Body, "helper_unauthorized") {
			t.Errorf("without the helper token: %d %s", p.Status, p.Body)
		}
		if p := r.Probes[2]; p.Status != 403 || !strings.Contains(p.Body, "helper_forbidden") {
			t.Errorf("upstream off the allow-list: %d %s", p.Status, p.Body)
		}
		for _, p := range r.Probes {
			if strings.Contains(p.Body, testKey) {
				t.Errorf("helper answer leaks the key: %s", p.Body)
			}
		}
		out := stdout.String() + stderr.String()
		if !strings.Contains(stdout.String(), "fake k6 stdout") || !strings.Contains(stderr.String(), "fake k6 stderr") {
			t.Errorf("k6's output was not passed through: stdout %q stderr %q", stdout.String(), stderr.String())
		}
		if strings.Contains(out, testKey) {
			t.Errorf("runner output leaks the key:\n%s", out)
		}
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			if line != "fake k6 stderr" && !strings.HasPrefix(line, "xk6-llmstream: ") {
				t.Errorf("runner message without the xk6-llmstream: prefix: %q", line)
			}
		}
		for _, want := range []string{"mock LLM at " + r.Env[BaseURLEnv], "helper at " + r.Env[HelperEnv], "served 1 stream(s): 0 failed, 3 refused"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		}
		if exit == 99 && !strings.Contains(stderr.String(), "thresholds failed") {
			t.Errorf("exit 99 not explained:\n%s", stderr.String())
		}
		// Everything is stopped afterwards.
		for _, u := range []string{r.Env[HelperEnv] + "/healthz", r.Env[BaseURLEnv] + "/healthz"} {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
				t.Errorf("%s still answers after Run returned", u)
			}
		}
	}
	http.DefaultClient.CloseIdleConnections()
	waitGoroutines(t, before)
}

func TestRunExternalEndpoint(t *testing.T) {
	t.Parallel()
	// A TEST-NET address: allowed because it is LLM_BASE_URL's host. The
	// helper streams with an offline stand-in, so nothing is contacted.
	env, record := fakeEnv(t, BaseURLEnv+"=http://192.0.2.1:9/v1",
		"FAKE_K6_PROBE=http://192.0.2.1:9/v1/chat/completions http://192.0.2.2:9/v1/chat/completions")
	var stderr lockedBuffer
	off := &offlineStreamer{}
	code, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr,
		HelperOptions: []helper.Option{helper.WithStreamer(off)}})
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v\n%s", code, err, stderr.String())
	}
	r := readRecord(t, record)
	if r.Env[BaseURLEnv] != "http://192.0.2.1:9/v1" {
		t.Errorf("%s changed to %q", BaseURLEnv, r.Env[BaseURLEnv])
	}
	if strings.Contains(stderr.String(), "mock LLM") {
		t.Errorf("the mock started although %s was set:\n%s", BaseURLEnv, stderr.String())
	}
	if p := r.Probes[0]; p.Status != 502 || !strings.Contains(p.Body, `"ok":false`) {
		t.Errorf("LLM_BASE_URL's host should be allowed (the stand-in's 502 record of a connect error): %d %s", p.Status, p.Body)
	}
	if got := off.seen(); fmt.Sprint(got) != "[http://192.0.2.1:9/v1/chat/completions]" {
		t.Errorf("streamed to %q, want LLM_BASE_URL's host once (the probe without the token and the other host refused)", got)
	}
	if p := r.Probes[2]; p.Status != 403 {
		t.Errorf("another host should be refused: %d %s", p.Status, p.Body)
	}

	// --mock (and --mock-profile) start the mock anyway.
	env, record = fakeEnv(t, BaseURLEnv+"=http://192.0.2.1:9/v1")
	if _, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Mock: true}); err != nil {
		t.Fatal(err)
	}
	if got := readRecord(t, record).Env[BaseURLEnv]; !strings.HasPrefix(got, "http://127.0.0.1:") {
		t.Errorf("with Mock, %s = %q, want the mock's URL", BaseURLEnv, got)
	}
}

func TestRunAllowOption(t *testing.T) {
	t.Parallel()
	env, record := fakeEnv(t, "FAKE_K6_PROBE=http://192.0.2.7:9/v1/chat/completions")
	off := &offlineStreamer{} // nothing outside loopback is contacted
	if _, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Allow: []string{"192.0.2.7"},
		HelperOptions: []helper.Option{helper.WithStreamer(off)}}); err != nil {
		t.Fatal(err)
	}
	if p := readRecord(t, record).Probes[0]; !strings.Contains(p.Body, `"ok":false`) || strings.Contains(p.Body, "helper_forbidden") {
		t.Errorf("--allow host refused: %d %s", p.Status, p.Body)
	}
	if got := off.seen(); len(got) != 1 {
		t.Errorf("streamed to %q, want the --allow host once", got)
	}
}

// waitReady waits for the fake k6 to have installed its signal handler.
func waitReady(t *testing.T, record string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(record + ".ready"); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake k6 never got ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		env, record := fakeEnv(t, "FAKE_K6_SIGNAL=record", "FAKE_K6_EXIT=105")
		signals := make(chan os.Signal, 1)
		var stderr lockedBuffer
		done := make(chan struct{})
		var code int
		var err error
		go func() {
			defer close(done)
			code, err = Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Signals: signals, Stderr: &stderr})
		}()
		waitReady(t, record)
		signals <- sig
		<-done
		if err != nil || code != 105 {
			t.Errorf("%v: Run = %d, %v; want k6's 105", sig, code, err)
		}
		if got := readRecord(t, record).Signals; len(got) != 1 || got[0] != sig.String() {
			t.Errorf("k6 received %q, want exactly [%v]", got, sig)
		}
		if !strings.Contains(stderr.String(), "forwarding") {
			t.Errorf("no message about forwarding:\n%s", stderr.String())
		}
	}
}

func TestRunSecondSignalKills(t *testing.T) {
	t.Parallel()
	env, record := fakeEnv(t, "FAKE_K6_SIGNAL=ignore")
	signals := make(chan os.Signal, 2)
	done := make(chan struct{})
	var code int
	var err error
	go func() {
		defer close(done)
		code, err = Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Signals: signals})
	}()
	waitReady(t, record)
	signals <- os.Interrupt
	// Wait until k6 has seen the first one, so the two are not merged.
	deadline := time.Now().Add(30 * time.Second)
	for len(readRecord(t, record).Signals) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("k6 never received the first signal")
		}
		time.Sleep(10 * time.Millisecond)
	}
	signals <- os.Interrupt
	<-done
	if err != nil || code != 128+int(syscall.SIGKILL) {
		t.Errorf("Run = %d, %v; want %d (killed)", code, err, 128+int(syscall.SIGKILL))
	}
}

func TestRunContextCancelStopsK6(t *testing.T) {
	t.Parallel()
	env, record := fakeEnv(t, "FAKE_K6_SIGNAL=record", "FAKE_K6_EXIT=3")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var code int
	var err error
	go func() {
		defer close(done)
		code, err = Run(ctx, Config{Args: []string{"s.js"}, Env: env})
	}()
	waitReady(t, record)
	cancel()
	<-done
	if err != nil || code != 3 {
		t.Errorf("Run = %d, %v; want 3", code, err)
	}
	if got := readRecord(t, record).Signals; len(got) != 1 || got[0] != os.Interrupt.String() {
		t.Errorf("k6 received %q, want [interrupt]", got)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	env, _ := fakeEnv(t)
	for _, tt := range []struct {
		name string
		env  []string
		cfg  Config
		want []string
	}{
		{"no k6", setEnv(setEnv(env, K6BinEnv, ""), "PATH", t.TempDir()), Config{}, []string{"k6 not found", InstallURL, K6BinEnv}},
		{"bad LLM_BASE_URL", setEnv(env, BaseURLEnv, "ftp://x?key="+testKey), Config{}, []string{BaseURLEnv, "ftp://x"}},
		{"missing profile", env, Config{MockProfile: filepath.Join(t.TempDir(), "nope.json")}, []string{"nope.json"}},
		{"bad allow", env, Config{Allow: []string{"*"}}, []string{`"*"`}},
		{"scrape without records", env, Config{Scrape: "mock"}, []string{"--scrape needs --records"}},
		{"scrape mock without a mock", setEnv(env, BaseURLEnv, "http://127.0.0.1:1/v1"),
			Config{Records: filepath.Join(t.TempDir(), "r.jsonl"), Scrape: "mock"}, []string{"--scrape mock", "starts no mock", BaseURLEnv}},
		{"scrape a bad URL", env, Config{Records: filepath.Join(t.TempDir(), "r.jsonl"), Scrape: "http://u:" + testKey + "@127.0.0.1/metrics"},
			[]string{"--scrape", "user info"}},
	} {
		var stderr lockedBuffer
		tt.cfg.Env, tt.cfg.Args, tt.cfg.Stderr = tt.env, []string{"s.js"}, &stderr
		_, err := Run(context.Background(), tt.cfg)
		if err == nil {
			t.Errorf("%s: Run succeeded", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tt.name, err, w)
			}
		}
		if strings.Contains(err.Error(), testKey) || strings.Contains(stderr.String(), testKey) {
			t.Errorf("%s: the key leaks: %v %s", tt.name, err, stderr.String())
		}
	}
}

func TestFindK6(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "k6")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "notexec")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		t.Skip("executable bits are a Unix notion")
	}
	if got, err := FindK6([]string{"PATH=" + dir}); err != nil || got != exe {
		t.Errorf("FindK6 on PATH = %q, %v; want %q", got, err, exe)
	}
	if got, err := FindK6([]string{"PATH=/nonexistent", K6BinEnv + "=" + exe}); err != nil || got != exe {
		t.Errorf("FindK6 with K6_BIN = %q, %v; want %q", got, err, exe)
	}
	for _, bin := range []string{filepath.Join(dir, "missing"), plain, dir} {
		_, err := FindK6([]string{"PATH=" + dir, K6BinEnv + "=" + bin})
		if !errors.Is(err, ErrK6NotFound) || !strings.Contains(err.Error(), bin) || !strings.Contains(err.Error(), InstallURL) {
			t.Errorf("FindK6 with K6_BIN=%s: %v", bin, err)
		}
	}
	_, err := FindK6([]string{"PATH=/nonexistent"})
	if !errors.Is(err, ErrK6NotFound) || !strings.Contains(err.Error(), InstallURL) || !strings.Contains(err.Error(), K6BinEnv) {
		t.Errorf("FindK6 without k6: %v", err)
	}
}

func TestEnvHelpers(t *testing.T) {
	t.Parallel()
	env := []string{"A=1", "B=2", "A=3", "C"}
	if got := LookupEnv(env, "A"); got != "3" {
		t.Errorf("lookupEnv A = %q, want the last value", got)
	}
	got := setEnv(env, "A", "x")
	if fmt.Sprint(got) != "[B=2 C A=x]" {
		t.Errorf("setEnv = %v", got)
	}
}

// ownGoroutines counts the goroutines but regexp2's shared clock, which the
// tokenizers' regex bound starts and which ends on its own a few seconds after
// the last match (workload.regexMatchTimeout): it is not a goroutine a run left.
func ownGoroutines() int {
	buf := make([]byte, 1<<20)
	stacks := "\n" + string(buf[:runtime.Stack(buf, true)])
	return strings.Count(stacks, "\ngoroutine ") - strings.Count(stacks, "regexp2.runClock()")
}

// waitGoroutines waits (bounded) for the goroutine count to come back to base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for ownGoroutines() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, want ≤ %d:\n%s", ownGoroutines(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunScrapeMock: with Records and Scrape "mock", the helper's records
// carry the queue depth and running requests of the run's own mock, and the
// runner says what it scraped.
func TestRunScrapeMock(t *testing.T) {
	t.Parallel()
	env, _ := fakeEnv(t, "FAKE_K6_PROBE=/v1/chat/completions /v1/chat/completions /v1/chat/completions")
	path := filepath.Join(t.TempDir(), "records.jsonl")
	var stderr lockedBuffer
	code, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, Records: path, Scrape: "mock"})
	if err != nil || code != 0 {
		t.Fatalf("Run: %d, %v\n%s", code, err, stderr.String())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first scrape goes out before the helper starts; the fake k6 is a
	// process started after it.
	if n := strings.Count(string(raw), `"server_waiting":0,"server_running":0`); n == 0 {
		t.Errorf("no record carries the mock's queue depth:\n%s", raw)
	}
	if !regexp.MustCompile(`scraping http://127\.0\.0\.1:\d+/metrics every 250ms`).MatchString(stderr.String()) ||
		!regexp.MustCompile(`scrapes: [1-9]\d* ok, 0 failed`).MatchString(stderr.String()) {
		t.Errorf("the runner does not say what it scraped:\n%s", stderr.String())
	}
}
