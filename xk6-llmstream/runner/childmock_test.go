package runner

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// fakeMockEnv makes this test binary a stand-in for `xk6-llmstream mock`:
// "serve" serves the mock of --profile on --addr with its request log in
// --log until interrupted; "silent" prints no URL and exits 1.
const fakeMockEnv = "RUNNER_TEST_FAKE_MOCK"

func fakeMock(mode string) int {
	fs := flag.NewFlagSet("mock", flag.ExitOnError)
	addr := fs.String("addr", "", "")
	profile := fs.String("profile", "", "")
	logPath := fs.String("log", "", "")
	_ = fs.Parse(os.Args[1:])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	if mode == "silent" {
		fmt.Fprintln(os.Stderr, "mock: cannot listen on "+*addr)
		return 1
	}
	cfg, err := mockllm.LoadConfig(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	f, err := os.Create(*logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	w := bufio.NewWriter(f)
	cfg.Log = w
	m, err := mockllm.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	go func() { _ = http.Serve(ln, m) }()
	fmt.Println("http://" + ln.Addr().String())
	<-stop
	if err := m.Close(); err != nil || w.Flush() != nil || f.Close() != nil {
		return 3
	}
	return 0
}

func fakeMockCmd(mode string) func(args ...string) *exec.Cmd {
	return func(args ...string) *exec.Cmd {
		c := exec.Command(os.Args[0], args...)
		c.Env = append(os.Environ(), fakeMockEnv+"="+mode)
		return c
	}
}

// With MockCmd, Run serves the mock in a process of its own: k6 gets its URL,
// streams through the helper to it, and once Run returns the mock has ended
// and its request log (MockLog) holds the request in full.
func TestRunServesTheMockInAChildProcess(t *testing.T) {
	if !childMockSupported {
		t.Skip("this system cannot interrupt a child process: the mock stays in the runner's process")
	}
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile.json")
	if err := os.WriteFile(profile, []byte(`{"default": {"prefill": {"base": "1ms", "jitter": null}, "itl": {"base": "1ms", "jitter": null}, "output_tokens": 3}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "mock-log.jsonl")
	env, record := fakeEnv(t, "FAKE_K6_PROBE=/v1/chat/completions")
	var out lockedBuffer
	code, err := Run(context.Background(), Config{Args: []string{"script.js"}, Env: env, Stdout: &out, Stderr: &out,
		Mock: true, MockProfile: profile, MockLog: logPath, MockCmd: fakeMockCmd("serve")})
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v\n%s", code, err, out.String())
	}
	rec := readRecord(t, record)
	if len(rec.Probes) == 0 || !strings.Contains(rec.Probes[0].Body, `"ok":true`) {
		t.Fatalf("the stream through the helper to the child mock: %+v", rec.Probes)
	}
	if !strings.Contains(out.String(), "a process of its own") {
		t.Errorf("the runner does not say where the mock runs:\n%s", out.String())
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"outcome":"ok"`) {
		t.Errorf("the child mock's log: %q", log)
	}
}

// A child that prints no URL is an error that says so, with its stderr.
func TestChildMockWithoutURL(t *testing.T) {
	if !childMockSupported {
		t.Skip("this system cannot interrupt a child process: the mock stays in the runner's process")
	}
	_, err := startMock("", filepath.Join(t.TempDir(), "log"), fakeMockCmd("silent"))
	if err == nil || !strings.Contains(err.Error(), "did not print its URL") || !strings.Contains(err.Error(), "cannot listen on 127.0.0.1:0") {
		t.Fatalf("err = %v", err)
	}
}
