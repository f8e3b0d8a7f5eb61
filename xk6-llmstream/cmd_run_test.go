package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

func TestParseRunArgs(t *testing.T) {
	// def is f with the default k6 nice, which every row but the --k6-nice ones has.
	def := func(f runFlags) runFlags { f.k6Nice, f.k6Idle = runner.DefaultK6Nice, true; return f }
	for _, tt := range []struct {
		args    []string
		want    runFlags
		k6      []string
		wantErr string
	}{
		{[]string{"s.js"}, def(runFlags{}), []string{"s.js"}, ""},
		{[]string{"--mock", "s.js", "--vus", "2"}, def(runFlags{mock: true}), []string{"s.js", "--vus", "2"}, ""},
		{[]string{"-mock=false", "s.js"}, def(runFlags{}), []string{"s.js"}, ""},
		{[]string{"--mock-profile", "p.json", "--allow=a.example,b.example", "--allow", "c.example", "--verbose", "s.js", "--mock"},
			def(runFlags{mockProfile: "p.json", allow: []string{"a.example,b.example", "c.example"}, verbose: true}), []string{"s.js", "--mock"}, ""},
		// A k6 flag before the script: it and the rest go to k6.
		{[]string{"--mock", "--vus", "10", "s.js"}, def(runFlags{mock: true}), []string{"--vus", "10", "s.js"}, ""},
		{[]string{"--", "--mock", "s.js"}, def(runFlags{}), []string{"--mock", "s.js"}, ""},
		{[]string{"-", "--vus", "1"}, def(runFlags{}), []string{"-", "--vus", "1"}, ""},
		{[]string{"--mock-profile"}, def(runFlags{}), nil, "--mock-profile needs a value"},
		{[]string{"--mock=maybe", "s.js"}, def(runFlags{}), nil, `"maybe"`},
		{[]string{"--help"}, def(runFlags{help: true}), nil, ""},
		{[]string{"--k6-nice", "0", "s.js"}, runFlags{k6Idle: true}, []string{"s.js"}, ""},
		{[]string{"--k6-nice=19", "s.js"}, runFlags{k6Nice: 19, k6Idle: true}, []string{"s.js"}, ""},
		{[]string{"--k6-idle=false", "s.js"}, runFlags{k6Nice: runner.DefaultK6Nice}, []string{"s.js"}, ""},
		{[]string{"--k6-idle=maybe", "s.js"}, runFlags{}, nil, `--k6-idle: want true or false`},
		{[]string{"--k6-nice", "20", "s.js"}, runFlags{}, nil, `--k6-nice "20": want a whole number from 0 to 19`},
		{[]string{"--k6-nice=-1", "s.js"}, runFlags{}, nil, `--k6-nice "-1"`},
		{[]string{"--k6-nice", "x", "s.js"}, runFlags{}, nil, `--k6-nice "x"`},
		{[]string{"--records", "r.jsonl", "--scrape=mock", "s.js"}, def(runFlags{records: "r.jsonl", scrape: "mock"}), []string{"s.js"}, ""},
		{[]string{"--scrape"}, def(runFlags{}), nil, "--scrape needs a value"},
		{[]string{"--records", "r.jsonl", "--records-overwrite", "s.js"}, def(runFlags{records: "r.jsonl", recOverride: true}), []string{"s.js"}, ""},
		{[]string{"--ca-file=ca.pem", "s.js"}, def(runFlags{caFile: "ca.pem"}), []string{"s.js"}, ""},
		{[]string{"--ca-file"}, def(runFlags{}), nil, "--ca-file needs a value"},
		// k6 flags and run's flags mix before the script; k6's keep their order and values.
		{[]string{"--vus", "10", "--records", "r.jsonl", "-e", "A=1", "--quiet", "s.js", "--records", "x"},
			def(runFlags{records: "r.jsonl"}), []string{"--vus", "10", "-e", "A=1", "--quiet", "s.js", "--records", "x"}, ""},
		{[]string{"--out=json=x.json", "s.js"}, def(runFlags{}), []string{"--out=json=x.json", "s.js"}, ""},
		{[]string{"--recrods", "r.jsonl", "s.js"}, def(runFlags{}), nil, "did you mean --records?"},
		{[]string{"--vus"}, def(runFlags{}), nil, "k6 flag --vus needs a value"},
	} {
		f, k6, err := parseRunArgs(tt.args)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseRunArgs(%q) error %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || fmt.Sprint(f) != fmt.Sprint(tt.want) || fmt.Sprint(k6) != fmt.Sprint(tt.k6) {
			t.Errorf("parseRunArgs(%q) = %+v, %q, %v; want %+v, %q", tt.args, f, k6, err, tt.want, tt.k6)
		}
	}
}

func TestRunCommandUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"run"}, nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "missing the k6 script") {
		t.Errorf("run without a script: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := realMain([]string{"run", "--allow", "*", "s.js"}, nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("run --allow '*': exit %d, %q", code, stderr.String())
	}
	for args, want := range map[string]string{
		"--scrape mock s.js": "--scrape needs --records",
		"--records r.jsonl --scrape ftp://127.0.0.1/metrics s.js": `--scrape: scheme "ftp"`,
		"--records r.jsonl --scrape 127.0.0.1:9/metrics s.js":     "--scrape: not a URL",
	} {
		stderr.Reset()
		if code := realMain(append([]string{"run"}, strings.Fields(args)...), nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), want) {
			t.Errorf("run %s: exit %d, %q; want a usage error with %q", args, code, stderr.String(), want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	stderr.Reset()
	if code := realMain([]string{"run", "--ca-file", missing, "s.js"}, nil, &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "--ca-file: ") || !strings.Contains(stderr.String(), missing) {
		t.Errorf("run --ca-file %s: exit %d, %q; want a usage error naming the flag and the file", missing, code, stderr.String())
	}
	stderr.Reset()
	if code := realMain([]string{"run", "-h"}, nil, &stdout, &stderr); code != exitOK || !strings.Contains(stderr.String(), "--mock-profile") {
		t.Errorf("run -h: exit %d, %q", code, stderr.String())
	}
}

// A shell script stands in for k6: it records its arguments and environment
// and exits with $FAKE_EXIT. The exit code must come out of realMain.
func TestRunCommandExitCodeAndEnv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake k6 is a shell script")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "k6")
	script := "#!/bin/sh\n" +
		"printf '%s\\n' \"$@\" > \"$FAKE_OUT.args\"\n" +
		"printf '%s\\n%s\\n%s\\n' \"$LLMSTREAM_HELPER\" \"$LLMSTREAM_HELPER_TOKEN\" \"$LLM_BASE_URL\" > \"$FAKE_OUT.env\"\n" +
		"echo fake-k6-ran\n" +
		"exit $FAKE_EXIT\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	t.Chdir(dir) // run checks that script.js exists before it starts anything
	if err := os.WriteFile("script.js", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, exit := range []int{0, 99, 107} {
		t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		t.Setenv(runner.K6BinEnv, "")
		t.Setenv(runner.BaseURLEnv, "")
		t.Setenv("FAKE_OUT", out)
		t.Setenv("FAKE_EXIT", fmt.Sprint(exit))
		var stdout, stderr bytes.Buffer
		code := realMain([]string{"run", "--mock", "script.js", "-e", "LLM_API_KEY=" + testKey, "--quiet"}, nil, &stdout, &stderr)
		if code != exit {
			t.Errorf("exit %d, want k6's %d; stderr:\n%s", code, exit, stderr.String())
		}
		if !strings.Contains(stdout.String(), "fake-k6-ran") {
			t.Errorf("k6's stdout not passed through: %q", stdout.String())
		}
		args, _ := os.ReadFile(out + ".args")
		if want := "run\nscript.js\n-e\nLLM_API_KEY=" + testKey + "\n--quiet\n"; string(args) != want {
			t.Errorf("k6 args:\n%s\nwant:\n%s", args, want)
		}
		env, _ := os.ReadFile(out + ".env")
		lines := strings.Split(string(env), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "http://127.0.0.1:") || len(lines[1]) != 32 || !strings.HasPrefix(lines[2], "http://127.0.0.1:") {
			t.Errorf("k6 env: %q", env)
		}
		if strings.Contains(stdout.String()+stderr.String(), testKey) {
			t.Errorf("output leaks the key:\n%s%s", stdout.String(), stderr.String())
		}
	}
}

// Real k6: set K6_BIN (or put k6 on PATH) to run these. They run a small script
// that streams from the mock through the helper with plain k6/http.
const realK6Script = `
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  vus: 2,
  iterations: 6,
  thresholds: { checks: ['rate==1'] },
};

export default function () {
  const body = JSON.stringify({
    url: __ENV.LLM_BASE_URL + '/v1/chat/completions',
    api: 'openai-chat',
    headers: { Authorization: 'Bearer ' + __ENV.LLM_API_KEY },
    body: { model: 'mock', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
  });
  const res = http.post(__ENV.LLMSTREAM_HELPER + '/v1/stream', body, {
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + __ENV.LLMSTREAM_HELPER_TOKEN },
    tags: { name: 'llmstream-helper' },
  });
  check(res, {
    'helper answered 200': (r) => r.status === 200,
    'stream ok': (r) => r.json('ok') === true && r.json('output_tokens') === 5,
    'key not echoed': (r) => r.body.indexOf(__ENV.LLM_API_KEY) < 0,
    'fail on purpose': () => __ENV.FAIL !== '1',
  });
}
`

// realK6Bins lists the k6 binaries to test with: $K6_BIN, else k6 on PATH.
func realK6Bins(t *testing.T) []string {
	t.Helper()
	if bin := os.Getenv(runner.K6BinEnv); bin != "" {
		return []string{bin}
	}
	if path, err := exec.LookPath("k6"); err == nil {
		return []string{path}
	}
	t.Skip("no k6: set K6_BIN to a k6 binary (v1.x or v2.x) or put k6 on PATH to run the real-k6 tests")
	return nil
}

func TestRunCommandRealK6(t *testing.T) {
	for _, bin := range realK6Bins(t) {
		dir := t.TempDir()
		script := filepath.Join(dir, "stream.js")
		if err := os.WriteFile(script, []byte(realK6Script), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			fail string
			code int
		}{{"0", 0}, {"1", 99}} {
			results := filepath.Join(dir, "results-"+tt.fail+".json.gz")
			t.Setenv(runner.K6BinEnv, bin)
			t.Setenv(runner.BaseURLEnv, "")
			t.Setenv("LLM_API_KEY", testKey)
			t.Setenv("FAIL", tt.fail)
			var stdout, stderr bytes.Buffer
			code := realMain([]string{"run", script, "--quiet", "--no-color", "--out", "json=" + results}, nil, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("%s FAIL=%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", bin, tt.fail, code, tt.code, stdout.String(), stderr.String())
			}
			all := stdout.String() + stderr.String()
			if strings.Contains(all, testKey) {
				t.Errorf("%s: output leaks the key", bin)
			}
			checks := readChecks(t, results)
			if checks["helper answered 200"] != 6 || checks["stream ok"] != 6 || checks["key not echoed"] != 6 {
				t.Errorf("%s FAIL=%s: passed checks %v, want 6 of each", bin, tt.fail, checks)
			}
			if raw, _ := os.ReadFile(results); bytes.Contains(raw, []byte(testKey)) {
				t.Errorf("%s: results file leaks the key", bin)
			}
		}
	}
}

// readChecks counts passed checks by name in a k6 --out json file (.gz).
func readChecks(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
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
			t.Fatalf("%s: %v", path, err)
		}
		if p.Type == "Point" && p.Metric == "checks" && p.Data.Value == 1 {
			counts[p.Data.Tags["check"]]++
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	return counts
}

// The runner forwards an interrupt to real k6, which stops gracefully.
func TestRunCommandRealK6Interrupt(t *testing.T) {
	bins := realK6Bins(t)
	if runtime.GOOS == "windows" {
		t.Skip("interrupts are not forwarded on Windows")
	}
	for _, bin := range bins {
		dir := t.TempDir()
		script := filepath.Join(dir, "long.js")
		if err := os.WriteFile(script, []byte(`
import { sleep } from 'k6';
import exec from 'k6/execution';
export const options = { vus: 1, duration: '5m' };
export default function () {
  if (exec.scenario.iterationInTest === 0) console.log('READY');
  sleep(0.1);
}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(runner.K6BinEnv, bin)
		t.Setenv(runner.BaseURLEnv, "")
		pr, pw := io.Pipe()
		signals := make(chan os.Signal, 1)
		done := make(chan error, 1)
		go func() {
			err := runK6(context.Background(), []string{script, "--no-color"}, nil, io.Discard, pw, signals, nil)
			pw.Close()
			done <- err
		}()
		sc := bufio.NewScanner(pr)
		var log strings.Builder
		ready := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !ready && strings.Contains(sc.Text(), "READY") {
				ready = true
				signals <- os.Interrupt
			}
		}
		err := <-done
		t.Logf("%s: %v\n%s", bin, err, log.String())
		if !ready {
			t.Fatalf("%s: k6 never became ready:\n%s", bin, log.String())
		}
		var ec exitCodeError
		// k6 exits 105 ("externally aborted") or 0 on an interrupt, depending on the version.
		if err != nil && (!errors.As(err, &ec) || ec.code != 105) {
			t.Errorf("%s: interrupted run returned %v\n%s", bin, err, log.String())
		}
		if !strings.Contains(log.String(), "forwarding interrupt to k6") {
			t.Errorf("%s: no forwarding message:\n%s", bin, log.String())
		}
	}
}
