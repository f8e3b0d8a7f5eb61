package deploy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dashboard is the part of a Grafana dashboard JSON the test reads.
type dashboard struct {
	Title      string `json:"title"`
	UID        string `json:"uid"`
	Templating struct {
		List []struct {
			Name string `json:"name"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Type    string `json:"type"`
		Title   string `json:"title"`
		Targets []struct {
			RefID  string `json:"refId"`
			Expr   string `json:"expr"`
			Legend string `json:"legendFormat"`
		} `json:"targets"`
	} `json:"panels"`
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	raw, err := os.ReadFile("grafana/llmstream.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("grafana/llmstream.json: %v", err)
	}
	return d
}

// TestDashboardShape: every query panel has targets, every target says which
// k6 remote-write mode it is for (refId stats_, hist_ or all_), and the
// variables the queries use are defined.
func TestDashboardShape(t *testing.T) {
	d := readDashboard(t)
	vars := map[string]bool{"__rate_interval": true}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	modes := map[string]int{}
	for _, p := range d.Panels {
		switch p.Type {
		case "row", "text":
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no queries", p.Title)
		}
		for _, tg := range p.Targets {
			mode, _, _ := strings.Cut(tg.RefID, "_")
			modes[mode]++
			if mode != "stats" && mode != "hist" && mode != "all" {
				t.Errorf("panel %q target %q: refId must start with stats_, hist_ or all_", p.Title, tg.RefID)
			}
			for _, m := range regexp.MustCompile(`\$(\w+)`).FindAllStringSubmatch(tg.Expr, -1) {
				if !vars[m[1]] {
					t.Errorf("panel %q uses undefined variable $%s", p.Title, m[1])
				}
			}
			if strings.Contains(tg.Expr, "k6_llm_requests_failed_rate") {
				t.Errorf("panel %q reads the 0/1 series of k6_llm_requests_failed_rate; failure ratios come from counts", p.Title)
			}
		}
	}
	if modes["stats"] == 0 || modes["hist"] == 0 {
		t.Errorf("targets by mode %v: want both trend-stats and native-histogram queries", modes)
	}
}

// prometheus is a real Prometheus with its remote-write receiver on loopback.
type prometheus struct{ base string }

func startPrometheus(t *testing.T) prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus on PATH: install Debian's prometheus package (apt-get install prometheus) to run the dashboard against a real Prometheus")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 15s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver", "--enable-feature=native-histograms")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	p := prometheus{base: "http://" + addr}
	for i := 0; ; i++ {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if i == 300 {
			t.Fatalf("prometheus did not become ready: %v\n%s", err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// series is one element of an instant query's result (vector).
type series struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s series) float(t *testing.T) float64 {
	t.Helper()
	str, _ := s.Value[1].(string)
	var f float64
	if _, err := fmt.Sscan(str, &f); err != nil && str != "NaN" {
		t.Fatalf("value %v: %v", s.Value, err)
	}
	if str == "NaN" {
		return math.NaN()
	}
	return f
}

func (p prometheus) query(t *testing.T, q string) []series {
	t.Helper()
	resp, err := http.PostForm(p.base+"/api/v1/query", url.Values{"query": {q}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []series `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if out.Status != "success" {
		t.Fatalf("query %s: %s", q, out.Error)
	}
	return out.Data.Result
}

// feedFromK6 runs the init starter script with real k6 through `xk6-llmstream
// run` against the mock (with faults) and k6's remote-write output, in the given
// mode, tagged testid; it also keeps the JSON output and returns its path.
func feedFromK6(t *testing.T, p prometheus, k6, testid string, nativeHistograms bool) string {
	t.Helper()
	xk6, _ := bins(t)
	dir := t.TempDir()
	if out, err := exec.Command(xk6, "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	profile, err := filepath.Abs("grafana/testdata/mock-profile.json")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results.json")
	cmd := exec.Command(xk6, "run", "--mock-profile", profile, filepath.Join(dir, "script.js"),
		"--quiet", "--no-usage-report", "-e", "LLM_ITERATIONS=60", "-e", "LLM_VUS=4",
		"--tag", "testid="+testid, "--tag", "instance_id=0",
		"--out", "experimental-prometheus-rw", "--out", "json="+results)
	cmd.Env = append(os.Environ(), "K6_BIN="+k6, "LLM_BASE_URL=", "LLM_API_KEY="+testKey,
		"K6_PROMETHEUS_RW_SERVER_URL="+p.base+"/api/v1/write",
		"K6_PROMETHEUS_RW_PUSH_INTERVAL=1s",
		"K6_PROMETHEUS_RW_TREND_STATS=p(50),p(90),p(99),count",
		fmt.Sprintf("K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=%v", nativeHistograms))
	out, err := cmd.CombinedOutput()
	code, runErr := exitCode(err)
	if runErr != nil {
		t.Fatal(runErr)
	}
	// 99: the starter's failure threshold fails on purpose (the mock injects faults).
	if code != 0 && code != 99 {
		t.Fatalf("xk6-llmstream run: exit %d\n%s", code, out)
	}
	if bytes.Contains(out, []byte(testKey)) {
		t.Error("the API key appears in the run's output")
	}
	return results
}

// failuresFromJSON counts the requests of a k6 JSON output by error kind
// (from llm_e2e samples, one per request that got an answer).
func failuresFromJSON(t *testing.T, path string) (map[string]int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byKind, total := map[string]int{}, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type, Metric string
			Data         struct{ Tags map[string]string }
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Type == "Point" && line.Metric == "llm_e2e" {
			total++
			if k := line.Data.Tags["error"]; k != "" {
				byKind[k]++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return byKind, total
}

var legendLabel = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

// TestDashboardOnPrometheus feeds a real Prometheus from real k6 in both
// remote-write modes (without k6: from a Go remote-write sender, trend-stats
// mode only) and runs every panel's query through the HTTP API: each must
// return series carrying the labels its legend names.
func TestDashboardOnPrometheus(t *testing.T) {
	p := startPrometheus(t)
	var byKind map[string]int
	var total int
	modes := map[string]bool{"stats": true, "hist": true}
	if k6, ok := findK6(t); ok {
		results := feedFromK6(t, p, k6, "dash-stats", false)
		feedFromK6(t, p, k6, "dash-hist", true)
		byKind, total = failuresFromJSON(t, results)
	} else {
		t.Log("no k6 (K6_BIN or k6 on PATH): Prometheus is fed by a Go remote-write sender in the shape of k6's trend-stats output; the native-histogram queries are not run")
		byKind, total = feedFromGo(t, p, "dash-stats")
		modes["hist"] = false
	}
	d := readDashboard(t)
	for _, pn := range d.Panels {
		for _, tg := range pn.Targets {
			mode, _, _ := strings.Cut(tg.RefID, "_")
			runModes := []string{mode}
			if mode == "all" {
				runModes = []string{"stats", "hist"}
			}
			for _, m := range runModes {
				if !modes[m] {
					continue
				}
				q := strings.NewReplacer("$testid", "dash-"+m, "$model", ".*", "$__rate_interval", "1m").Replace(tg.Expr)
				res := p.query(t, q)
				if len(res) == 0 {
					t.Errorf("panel %q target %s (%s run): no series for %s", pn.Title, tg.RefID, m, q)
					continue
				}
				for _, s := range res {
					for _, l := range legendLabel.FindAllStringSubmatch(tg.Legend, -1) {
						if s.Metric[l[1]] == "" {
							t.Errorf("panel %q target %s (%s run): series %v lacks label %s", pn.Title, tg.RefID, m, s.Metric, l[1])
						}
					}
					if v := s.float(t); math.IsNaN(v) || v < 0 {
						t.Errorf("panel %q target %s (%s run): value %v", pn.Title, tg.RefID, m, v)
					}
				}
			}
		}
	}

	// The trend-stats failure ratio, read from counts, equals the share of
	// failed requests in what was sent, error kind by error kind.
	if len(byKind) == 0 {
		t.Fatal("no request failed: the failure panel was not exercised")
	}
	var failedExpr string
	for _, pn := range d.Panels {
		for _, tg := range pn.Targets {
			if tg.RefID == "stats_failed" {
				failedExpr = tg.Expr
			}
		}
	}
	got := map[string]float64{}
	for _, s := range p.query(t, strings.NewReplacer("$testid", "dash-stats", "$model", ".*").Replace(failedExpr)) {
		got[s.Metric["error"]] = s.float(t)
	}
	for kind, n := range byKind {
		want := float64(n) / float64(total)
		if math.Abs(got[kind]-want) > 1e-9 {
			t.Errorf("failure ratio of %s: Prometheus %v, sent %d/%d = %v", kind, got[kind], n, total, want)
		}
	}
	if len(got) != len(byKind) {
		t.Errorf("error kinds: Prometheus %v, sent %v", got, byKind)
	}
}
