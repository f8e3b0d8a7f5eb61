// Package deploy_test checks the deployment files in this folder: the
// k6-operator manifests, the Grafana dashboard on a real Prometheus, and the
// scale-out over k6 execution segments that both rely on. The binaries are built
// from this checkout once and run as a user would run them.
package deploy_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// testKey is passed as LLM_API_KEY; it must never show up in any output.
const testKey = "sk-test-DO-NOT-LEAK-5678"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// TestMain removes the built binaries after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// bins builds xk6-llmstream and analyze from this checkout (once) and returns
// their paths.
func bins(t *testing.T) (xk6, analyze string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "deploy-bins-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./xk6-llmstream", "./analyze")
		cmd.Dir = ".."
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + out.String())
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	return filepath.Join(binDir, "xk6-llmstream"+exe), filepath.Join(binDir, "analyze"+exe)
}

// k6Binary finds real k6: K6_BIN, else k6 on PATH; it skips the test without one.
func k6Binary(t *testing.T) string {
	t.Helper()
	p, ok := findK6(t)
	if !ok {
		t.Skip("no k6: set K6_BIN=/path/to/k6 or put k6 on PATH to run this test with real k6")
	}
	return p
}

// findK6 is k6Binary without the skip.
func findK6(t *testing.T) (string, bool) {
	t.Helper()
	if p := os.Getenv("K6_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("K6_BIN=%s: %v", p, err)
		}
		return p, true
	}
	if p, err := exec.LookPath("k6"); err == nil {
		return p, true
	}
	return "", false
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// exitCode turns the error of a finished exec.Cmd into its exit code (an error
// only when the command did not run).
func exitCode(err error) (int, error) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}
