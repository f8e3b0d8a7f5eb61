package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// calibrateScript is a short steady load through llmstream.js.
const calibrateScript = `
import { Client } from 'file://%MODULE%';
const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, model: 'cal', warmup: 1 });
export const options = { vus: 6, duration: '4s' };
export default function () {
  llm.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 40 });
}
`

func writeCalibrateScript(t *testing.T) string {
	t.Helper()
	module, err := filepath.Abs("js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cal.js")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(calibrateScript, "%MODULE%", filepath.ToSlash(module))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type calibrateJSON struct {
	Requests    int      `json:"requests"`
	Matched     int      `json:"matched"`
	PeakStreams int      `json:"peak_streams"`
	Events      int      `json:"lag_events"`
	LagP50      float64  `json:"lag_p50_ms"`
	CPUHeadroom *float64 `json:"cpu_headroom"`
	Bottleneck  bool     `json:"bottleneck"`
	Verdict     string   `json:"verdict"`
	K6Exit      int      `json:"k6_exit"`
}

func runCalibrateJSON(t *testing.T, bin, script string) (int, calibrateJSON, string) {
	t.Helper()
	t.Setenv(runner.K6BinEnv, bin)
	var stdout, stderr bytes.Buffer
	// --k6-idle=false: these tests are of calibrate's report, not of k6's
	// scheduling (the runner's tests hold that); under SCHED_IDLE on a machine
	// other processes keep busy, as -count=3 with busy loops does, k6 would get
	// almost no CPU and the test go test's whole ten minutes.
	code := realMain([]string{"calibrate", "--format", "json", "--k6-idle=false", "--ttft", "50ms", "--itl", "10ms", "--output-tokens", "40", script, "--quiet", "--no-color"}, nil, &stdout, &stderr)
	var r calibrateJSON
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("calibrate: exit %d, output is not JSON: %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
	}
	return code, r, stderr.String()
}

// calibrate runs the script against the shaped mock and compares every
// request it made with the mock's ground truth; the verdict is one of its
// two sentences and the exit code follows it. (Whether this shared machine
// is good at this load is not asserted: that is what is measured.)
func TestCalibrateRealK6(t *testing.T) {
	bin := realK6Bins(t)[0]
	code, r, stderr := runCalibrateJSON(t, bin, writeCalibrateScript(t))
	if r.K6Exit != 0 || r.Requests == 0 || r.Matched != r.Requests || r.Events == 0 || r.PeakStreams < 1 || r.PeakStreams > 6 {
		t.Fatalf("report %+v\nstderr:\n%s", r, stderr)
	}
	// Causality: the helper reads an event after the mock wrote it. The two
	// stamps are wall-clock times of two processes (a read is the request's
	// wall-clock start plus monotonic time since), so a clock the machine
	// disciplines while requests run moves them by tenths of a millisecond
	// (-0.17 ms seen on this VM); a bad match is off by a whole ITL (10 ms).
	if r.LagP50 < -0.5 {
		t.Errorf("lag p50 %v ms: events read before they were written (a bad match)", r.LagP50)
	}
	good := strings.HasPrefix(r.Verdict, "at this load (") && strings.Contains(r.Verdict, "good to ±")
	bad := strings.HasPrefix(r.Verdict, "this machine is the bottleneck above ")
	if good == bad || (code == 0) != good {
		t.Errorf("exit %d, verdict %q", code, r.Verdict)
	}
}

// With every CPU kept busy by other work, calibrate says the machine is the
// bottleneck (and exits 1).
func TestCalibrateRealK6BusyMachine(t *testing.T) {
	bin := realK6Bins(t)[0]
	if runtime.GOOS != "linux" {
		t.Skip("the CPU headroom is measured on Linux only")
	}
	script := writeCalibrateScript(t)
	var hogs []*exec.Cmd
	for range runtime.NumCPU() {
		c := exec.Command("yes")
		if err := c.Start(); err != nil { // stdout is /dev/null when unset
			t.Fatal(err)
		}
		hogs = append(hogs, c)
	}
	t.Cleanup(func() {
		for _, c := range hogs {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	code, r, stderr := runCalibrateJSON(t, bin, script)
	if code != 1 || !r.Bottleneck || !strings.HasPrefix(r.Verdict, "this machine is the bottleneck above ") {
		t.Errorf("busy machine: exit %d, report %+v\nstderr:\n%s", code, r, stderr)
	}
	if r.CPUHeadroom == nil || *r.CPUHeadroom >= 0.10 {
		t.Errorf("CPU headroom %v with %d busy loops", r.CPUHeadroom, len(hogs))
	}
}

// --probe without an endpoint is a usage error naming LLM_BASE_URL (before
// anything starts).
func TestCalibrateProbeNeedsAnEndpoint(t *testing.T) {
	t.Setenv(runner.BaseURLEnv, "")
	var stdout, stderr bytes.Buffer
	code := realMain([]string{"calibrate", "--probe", "3", "script.js"}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "--probe needs "+runner.BaseURLEnv) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// calibrate --probe shapes the mock from the endpoint (here a mock with its
// own shape on 127.0.0.1) and says so in the report; a flag given as well
// wins over the probe's figure.
func TestCalibrateProbeRealK6(t *testing.T) {
	bin := realK6Bins(t)[0]
	cmd := exec.Command(os.Args[0], "mock", "--prefill", "20ms", "--prefill-sigma", "0", "--prefill-per-token", "0",
		"--itl", "3ms", "--itl-sigma", "0", "--output-tokens", "9")
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	target, err := bufio.NewReader(out).ReadString('\n') // the mock prints its URL first
	target = strings.TrimSpace(target)
	if err != nil || !strings.HasPrefix(target, "http://127.0.0.1:") {
		t.Fatalf("the endpoint's mock printed %q (%v)", target, err)
	}
	t.Setenv(runner.K6BinEnv, bin)
	t.Setenv(runner.BaseURLEnv, target+"/v1")
	t.Setenv("LLM_MAX_TOKENS", "40")
	var stdout, stderr bytes.Buffer
	code := realMain([]string{"calibrate", "--format", "json", "--probe", "3", "--itl", "10ms", writeCalibrateScript(t), "--quiet", "--no-color"}, nil, &stdout, &stderr)
	var r struct {
		Mock struct {
			TTFTMS       float64 `json:"ttft_ms"`
			ITLMS        float64 `json:"itl_ms"`
			OutputTokens int     `json:"output_tokens"`
			From         string  `json:"from"`
		} `json:"mock"`
		Requests int `json:"requests"`
		K6Exit   int `json:"k6_exit"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, stdout.String(), stderr.String())
	}
	if r.K6Exit != 0 || r.Requests == 0 || r.Mock.OutputTokens != 9 || r.Mock.ITLMS != 10 || r.Mock.TTFTMS < 20 ||
		!strings.HasPrefix(r.Mock.From, "probe of "+target+"/v1/chat/completions: 3 requests") || !strings.HasSuffix(r.Mock.From, "(and flags)") {
		t.Errorf("report %+v\nstderr:\n%s", r, stderr.String())
	}
}
