package k6sim

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

func runScript(t *testing.T, cfg Config) *Result {
	t.Helper()
	if cfg.Sleep == nil {
		cfg.Sleep = func(time.Duration) {}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run(%s): %v", cfg.Script, err)
	}
	return res
}

func consoleLine(res *Result, prefix string) string {
	for _, l := range res.Console {
		if i := strings.Index(l, prefix); i >= 0 {
			return l[i+len(prefix):]
		}
	}
	return ""
}

func TestTagsChecksGroupsMetadata(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/basics.js", VUs: 2, Iterations: 4, Scenarios: []string{"first"}})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 8 {
		t.Errorf("%d iterations, want 4 per VU", res.Iterations)
	}
	perVU := map[int]bool{}
	for _, s := range res.Of("sim_t") {
		perVU[s.VU] = true
		if s.Tags["scenario"] != "first" || s.Tags["phase"] != "one" {
			t.Errorf("scenario tags %v: the scenario tag and scenario tags must override options.tags", s.Tags)
		}
		switch s.Value {
		case 10:
			// options.tags < call tags; metadata set just before the add.
			if s.Tags["testwide"] != "call-wins" || s.Tags["call"] != "x" || s.Tags["group"] != "" {
				t.Errorf("call tags %v", s.Tags)
			}
			if !strings.HasPrefix(s.Metadata["req"], "id-") || len(s.Metadata) != 1 {
				t.Errorf("metadata %v", s.Metadata)
			}
		case 1:
			if s.Tags["group"] != "::outer::inner" || s.Metadata != nil {
				t.Errorf("nested group sample tags %v metadata %v", s.Tags, s.Metadata)
			}
		case 2:
			if s.Tags["env"] != "first" || s.Tags["ok"] != "false" || s.Tags["custom"] != "42" ||
				s.Tags["init"] != "threw: getting VU information in the init context is not supported" {
				t.Errorf("tags %v: scenario env, check result, exec.vu.metrics.tags, init-context exec.vu", s.Tags)
			}
		}
	}
	if len(perVU) != 2 {
		t.Errorf("samples from VUs %v, want 2 VUs", perVU)
	}
	// Module state is per VU: each VU's counter starts at 1.
	var firsts int
	for _, s := range res.Of("sim_c") {
		if s.Value == 1 {
			firsts++
		}
		if s.Tags["label"] != "from-lib" {
			t.Errorf("relative import: label %q", s.Tags["label"])
		}
	}
	if firsts != 2 {
		t.Errorf("%d VUs started their counter at 1, want 2 (one runtime per VU)", firsts)
	}
	checks := res.Of("checks")
	if len(checks) != 16 {
		t.Fatalf("%d checks samples, want 16", len(checks))
	}
	for _, c := range checks {
		want := map[string]float64{"positive": 1, "never": 0}[c.Tags["check"]]
		if c.Value != want || c.Type != Rate {
			t.Errorf("check %s = %v (%s), want %v", c.Tags["check"], c.Value, c.Type, want)
		}
	}
	if mi := res.Metrics["sim_t"]; mi.Type != Trend || !mi.IsTime {
		t.Errorf("sim_t declared as %+v", mi)
	}
	if g := res.Of("sim_g"); len(g) != 8 || g[0].Type != Gauge {
		t.Errorf("gauge samples %+v", g)
	}
	if r := res.Of("sim_r"); len(r) != 8 || r[0].Value != 1 || r[0].Type != Rate {
		t.Errorf("rate samples %+v (true must count as 1)", r)
	}
}

func TestScenariosLifecycleAndEnv(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/lifecycle.js", VUs: 5, Iterations: 2})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if string(res.SetupData) != `{"token":"from-setup","n":3}` {
		t.Errorf("setup data %s", res.SetupData)
	}
	if got := consoleLine(res, "TEARDOWN "); got != `{"token":"from-setup","n":3}` {
		t.Errorf("teardown saw %q", got)
	}
	var order []string
	perVU := map[string]int{}
	for _, s := range res.Of("seen") {
		if s.Tags["data"] != "from-setup" {
			t.Errorf("iteration data %q", s.Tags["data"])
		}
		if len(order) == 0 || order[len(order)-1] != s.Tags["where"] {
			order = append(order, s.Tags["where"])
		}
		if s.Tags["where"] == "early" {
			perVU[s.Tags["vu"]]++
		} else if s.Tags["sc"] != "late" || s.Tags["scenario"] != "late" {
			t.Errorf("late scenario sample tags %v", s.Tags)
		}
	}
	if !reflect.DeepEqual(order, []string{"early", "late"}) {
		t.Errorf("scenario order %v, want early (no startTime) before late (30s)", order)
	}
	if !reflect.DeepEqual(perVU, map[string]int{"1": 2, "2": 2, "3": 2}) {
		t.Errorf("per-vu-iterations: iterations per VU %v, want 2 for each of 3 VUs", perVU)
	}
	if len(res.Thresholds) != 2 || !res.Thresholds[0].Passed || !res.Thresholds[1].Passed || res.ExitCode != 0 {
		t.Errorf("thresholds %+v exit %d", res.Thresholds, res.ExitCode)
	}
}

func TestInitContextRules(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/initrules.js"})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	var initOut, vuOut []string
	_ = json.Unmarshal([]byte(consoleLine(res, "INIT ")), &initOut)
	_ = json.Unmarshal([]byte(consoleLine(res, "VUOUT ")), &vuOut)
	wantInit := []string{
		"vu: getting VU information in the init context is not supported",
		"http: making HTTP requests in the init context is not supported",
		`name: invalid metric name "bad-name"`,
		`dup: metric "dup" is already declared as a trend (isTime true); cannot declare it as a trend (isTime false)`,
	}
	for i, w := range wantInit {
		if i >= len(initOut) || !strings.HasPrefix(initOut[i], w) {
			t.Errorf("init[%d] = %q, want prefix %q", i, at(initOut, i), w)
		}
	}
	wantVU := []string{
		"metric: metrics must be declared in the init context",
		"open: open() can only be called in the init context",
		"add NaN false",
		"add str false",
		`tag: cannot add tags for "late_ok": invalid value for tag "bad"`,
		"file true",
	}
	for i, w := range wantVU {
		if i >= len(vuOut) || !strings.HasPrefix(vuOut[i], w) {
			t.Errorf("vu[%d] = %q, want prefix %q", i, at(vuOut, i), w)
		}
	}
	warnings := 0
	for _, l := range res.Console {
		if strings.Contains(l, "is an invalid value for metric") {
			warnings++
		}
	}
	if warnings != 2 || len(res.Of("late_ok")) != 0 {
		t.Errorf("%d invalid-value warnings and %d samples, want 2 and 0", warnings, len(res.Of("late_ok")))
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<missing>"
}

func TestAsyncRequestEventLoopAndHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			b, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s %s", r.Method, b, r.Header.Get("X-Test"))
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"x":%q}`, r.URL.Query().Get("x"))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()

	env := map[string]string{"URL": srv.URL, "DEAD": dead}
	res := runScript(t, Config{Script: "testdata/async.js", Env: env})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Of("checks") {
		if c.Value != 1 {
			t.Errorf("check %q failed", c.Tags["check"])
		}
	}
	reqs := res.Of("http_reqs")
	if len(reqs) != 5 {
		t.Fatalf("%d http_reqs samples, want 5", len(reqs))
	}
	var named, failed int
	for _, s := range reqs {
		if s.Tags["name"] == "echo" {
			named++
			if s.Tags["url"] != "echo" || s.Tags["kind"] != "async" || s.Tags["method"] != "POST" {
				t.Errorf("a name tag replaces the url tag: %v", s.Tags)
			}
		}
		if s.Tags["error_code"] != "" {
			failed++
		}
	}
	if named != 1 || failed != 2 {
		t.Errorf("%d named and %d failed requests, want 1 and 2", named, failed)
	}

	env["REJECT"] = "1"
	res = runScript(t, Config{Script: "testdata/async.js", Env: env})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Err, "Uncaught (in promise)") || !strings.Contains(res.Errors[0].Err, "nobody catches me") {
		t.Errorf("errors %v, want one unhandled rejection", res.Errors)
	}
}

func TestAbort(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/abort.js", Iterations: 10})
	if res.ExitCode != ExitScriptAborted || res.Aborted != "enough" {
		t.Errorf("exit %d aborted %q, want 108 and the message", res.ExitCode, res.Aborted)
	}
	if n := len(res.Of("ran")); n != 3 || len(res.Errors) != 0 {
		t.Errorf("%d iterations ran, errors %v; want 3 and none (abort is not an error)", n, res.Errors)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	abs, _ := filepath.Abs("testdata/lib/label.js")
	fileURL := filepath.Join(dir, "fileurl.js")
	if err := os.WriteFile(fileURL, []byte("import { label } from 'file://"+filepath.ToSlash(abs)+"';\nexport default function () { if (label() !== 'from-lib') throw new Error('bad'); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := runScript(t, Config{Script: fileURL}); res.Err() != nil || res.Iterations != 1 {
		t.Errorf("file:// import: %v, %d iterations", res.Err(), res.Iterations)
	}
	for _, c := range []struct {
		script string
		env    map[string]string
		want   string
	}{
		{"testdata/badimport.js", nil, `bare module names other than k6's are not supported`},
		{"testdata/remoteimport.js", nil, "remote modules only from a loopback IP address"},
		{"testdata/syntax.js", nil, "syntax.js"},
		{"testdata/missing.js", nil, "no such file"},
		{"testdata/badthreshold.js", map[string]string{"KEY": "nope", "EXPR": "count>0"}, `no metric "nope" is declared`},
		{"testdata/badthreshold.js", map[string]string{"KEY": "c", "EXPR": "p(99)<1"}, `a counter metric has no "p(99)" aggregation (it has count, rate)`},
		{"testdata/badthreshold.js", map[string]string{"KEY": "c", "EXPR": "count is big"}, `expression "count is big": want AGGREGATE OPERATOR NUMBER`},
		{"testdata/badthreshold.js", map[string]string{"KEY": "c{a", "EXPR": "count>0"}, `threshold key "c{a": submetric "c{a": want name{key:value,...}`},
	} {
		_, err := Run(context.Background(), Config{Script: c.script, Env: c.env})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want it to contain %q", c.script, c.env, err, c.want)
		}
	}
}

// TestThresholdSyntaxIsK6s: k6sim reads thresholds with analyze's parser
// (check.ParseExpr), which takes the limit as k6 does (strconv.ParseFloat)
// and the percentile as k6 does (no spaces inside p(…)). k6sim's former regex
// refused ".5", "+1" and "Inf", which k6 accepts, and accepted "p( 99 )",
// which k6 refuses.
func TestThresholdSyntaxIsK6s(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"count>=.5", "rate < +1", "p(99.9)<2e3", "value!=-Inf", "avg<=5.", "med===1"} {
		if _, err := parseThresholdExpr(s); err != nil {
			t.Errorf("%q refused: %v", s, err)
		}
	}
	for _, s := range []string{"p( 99 )<1", "p(101)<1", "p(-1)<1", "count>NaN", "count is big", "mean<1", "count>"} {
		if _, err := parseThresholdExpr(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestThresholdEvaluation(t *testing.T) {
	t.Parallel()
	reg := newRegistry()
	_, _ = reg.declare("t", Trend, true)
	_, _ = reg.declare("r", Rate, false)
	_, _ = reg.declare("c", Counter, false)
	_, _ = reg.declare("empty_t", Trend, true)
	_, _ = reg.declare("empty_r", Rate, false)
	var samples []Sample
	for i := 1; i <= 10; i++ {
		samples = append(samples, Sample{Metric: "t", Value: float64(i), Tags: map[string]string{"odd": fmt.Sprint(i%2 == 1)}})
	}
	samples = append(samples,
		Sample{Metric: "r", Value: 1}, Sample{Metric: "r", Value: 0}, Sample{Metric: "r", Value: 0}, Sample{Metric: "r", Value: 0},
		Sample{Metric: "c", Value: 3}, Sample{Metric: "c", Value: 7})
	th := map[string]ThresholdList{
		"t":              {{Expr: "p(90)<9.2"}, {Expr: "avg==5.5"}, {Expr: "med>=5.5"}, {Expr: "max<10"}, {Expr: "min===1"}},
		"t{odd:true}":    {{Expr: "p(50)==5"}},
		"r":              {{Expr: "rate<0.25"}, {Expr: "rate<=0.25"}},
		"c":              {{Expr: "count==10"}, {Expr: "rate>0"}},
		"empty_t":        {{Expr: "p(99)<1"}, {Expr: "avg>5"}},
		"empty_r":        {{Expr: "rate>0.5"}},
		"c{none:absent}": {{Expr: "count>0"}},
	}
	got := map[string]ThresholdResult{}
	for _, r := range evaluateThresholds(th, reg, samples, time.Second) {
		got[r.Metric+" "+r.Expr] = r
	}
	want := map[string]bool{
		"t p(90)<9.2": true, "t avg==5.5": true, "t med>=5.5": true, "t max<10": false, "t min===1": true,
		"t{odd:true} p(50)==5": true, "r rate<0.25": false, "r rate<=0.25": true,
		"c count==10": true, "c rate>0": true,
		// As k6 does: an empty Trend aggregates to 0, an empty Rate passes, an
		// empty Counter counts 0.
		"empty_t p(99)<1": true, "empty_t avg>5": false, "empty_r rate>0.5": true, "c{none:absent} count>0": false,
	}
	for k, w := range want {
		r, ok := got[k]
		if !ok || r.Passed != w {
			t.Errorf("%s: passed %v (value %v), want %v", k, r.Passed, r.Value, w)
		}
	}
	if v := got["t p(90)<9.2"].Value; math.Abs(v-9.1) > 1e-9 {
		t.Errorf("p(90) of 1..10 = %v, want 9.1 (linear interpolation at 0.9·(n−1))", v)
	}
}

// TestPercentileMatchesK6Summary recomputes the percentiles of a real k6 run's
// llm_ttft samples (and of a submetric) and compares them with the p(N) that
// k6 itself exported for the same run.
func TestPercentileMatchesK6Summary(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../../testdata/k6/k6v2_llm_synthetic.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	reg := newRegistry()
	_, _ = reg.declare("llm_ttft", Trend, true)
	var samples []Sample
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Value float64           `json:"value"`
				Tags  map[string]string `json:"tags"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.Type == "Point" && p.Metric == "llm_ttft" {
			samples = append(samples, Sample{Metric: p.Metric, Value: p.Data.Value, Tags: p.Data.Tags})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../../testdata/k6/k6v2_llm_synthetic_summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Metrics map[string]map[string]any `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"llm_ttft", "llm_ttft{model:model-b}"} {
		th := map[string]ThresholdList{}
		for _, agg := range []string{"p(50)", "p(90)", "p(95)", "p(99)", "p(99.9)", "avg", "min", "max", "med"} {
			th[key] = append(th[key], Threshold{Expr: agg + ">=0"})
		}
		res := evaluateThresholds(th, reg, samples, time.Second)
		if res[0].Samples != int(summary.Metrics[key]["count"].(float64)) {
			t.Fatalf("%s: %d samples, k6 counted %v", key, res[0].Samples, summary.Metrics[key]["count"])
		}
		for _, r := range res {
			agg := strings.TrimSuffix(r.Expr, ">=0")
			want := summary.Metrics[key][agg].(float64)
			if math.Abs(r.Value-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s %s = %v, k6 says %v", key, agg, r.Value, want)
			}
		}
	}
}

func TestDurations(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"": 0, "1m30s": 90 * time.Second, "250ms": 250 * time.Millisecond, "1.5s": 1500 * time.Millisecond,
		"2h": 2 * time.Hour, "10": 10 * time.Second, "100us": 100 * time.Microsecond, "1d": 24 * time.Hour,
	} {
		got, err := parseDuration(in)
		if err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"1x", "s", "1s2", "-1s", "1 s"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) accepted", bad)
		}
	}
}

func TestFailIsAnIterationError(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/fail.js", Iterations: 3})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Err, "boom at 1") || res.Errors[0].Iteration != 1 {
		t.Errorf("errors %v, want one from iteration 1 with the fail() message", res.Errors)
	}
	if n := len(res.Of("after_fail")); n != 2 || res.Iterations != 2 {
		t.Errorf("%d samples, %d clean iterations; want 2 and 2 (the run goes on after a failed iteration)", n, res.Iterations)
	}
}

// TestGoroutinesReturnToBaseline: every goroutine a run starts (VUs, async
// requests, idle connections of its own transport) is gone when Run returns.
func TestGoroutinesReturnToBaseline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, `{"x":"1"}`)
	}))
	before := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		runScript(t, Config{Script: "testdata/async.js", VUs: 4, Iterations: 8, Env: map[string]string{"URL": srv.URL, "DEAD": "http://127.0.0.1:1"}})
	}
	srv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the runs, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestTimersAndSharedArray: setTimeout fires in delay order on the event loop,
// clearTimeout cancels, the iteration waits for its timers; a SharedArray is
// built by one VU only, read by all, and its elements are frozen.
func TestTimersAndSharedArray(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/timers.js", VUs: 3, Iterations: 1})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Of("checks") {
		if c.Value != 1 {
			t.Errorf("check %q failed", c.Tags["check"])
		}
	}
	if res.Iterations != 3 {
		t.Errorf("%d iterations, want 3", res.Iterations)
	}
	var builds []string
	for _, l := range res.Console {
		if i := strings.Index(l, "built vu="); i >= 0 {
			builds = append(builds, l[i:])
		}
	}
	sort.Strings(builds)
	if strings.Join(builds, ";") != "built vu=1 1;built vu=2 0;built vu=3 0" {
		t.Errorf("builds %v, want only VU 1 to run the SharedArray function", builds)
	}
	res = runScript(t, Config{Script: "testdata/timers.js", Env: map[string]string{"BOOM": "1"}})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Err, "late boom") {
		t.Errorf("errors %v, want the timer callback's exception", res.Errors)
	}
}

// import.meta.resolve resolves from the module it is written in and returns a
// file:// URL that open() reads, from any module, as k6 does.
func TestImportMetaResolveAndOpenURL(t *testing.T) {
	t.Parallel()
	res := runScript(t, Config{Script: "testdata/importmeta.js"})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("testdata/data/three.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := "file://" + filepath.ToSlash(abs)
	var urls []string
	if err := json.Unmarshal([]byte(consoleLine(res, "urls ")), &urls); err != nil {
		t.Fatalf("urls line %q: %v (console %q)", consoleLine(res, "urls "), err, res.Console)
	}
	if !reflect.DeepEqual(urls, []string{want, want, want}) {
		t.Errorf("import.meta.resolve gave %q, want %q three times", urls, want)
	}
	if got := consoleLine(res, "lines "); got != "3" {
		t.Errorf("open(file URL) read %q lines, want 3", got)
	}
	if got := consoleLine(res, "bare "); !strings.Contains(got, `"data/three.jsonl"`) || !strings.Contains(got, "bare") {
		t.Errorf("a bare name: %q, want an error naming it", got)
	}
	if got := consoleLine(res, "missing "); !strings.Contains(got, "none.jsonl") || !strings.Contains(got, "no such file") {
		t.Errorf("a missing file: %q, want an error naming it", got)
	}
}
