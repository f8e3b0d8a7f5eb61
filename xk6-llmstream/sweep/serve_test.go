package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The stand-in server: when the test binary runs with fakeServerEnv set, it
// serves GET /health on 127.0.0.1:--port, after appending a line
// "<pid> <child pid> <args…> FAKE_MODE=<env>" to fakeServerLog and starting
// a child (sleep) in its process group, which the sweep must kill too. With
// --slots equal to FAKE_FAIL_SLOTS it exits with status 3 at once.
const (
	fakeServerEnv = "SWEEP_TEST_FAKE_SERVER"
	fakeServerLog = "FAKE_SERVER_LOG"
	fakeFailSlots = "FAKE_FAIL_SLOTS"
)

func fakeServer(args []string) int {
	port, slots := "", ""
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--port":
			port = args[i+1]
		case "--slots":
			slots = args[i+1]
		}
	}
	child := exec.Command("sleep", "300")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	f, err := os.OpenFile(os.Getenv(fakeServerLog), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	fmt.Fprintf(f, "%d %d %s FAKE_MODE=%s\n", os.Getpid(), child.Process.Pid, strings.Join(args, " "), os.Getenv("FAKE_MODE"))
	f.Close()
	if slots != "" && slots == os.Getenv(fakeFailSlots) {
		fmt.Fprintln(os.Stderr, "fake server: refusing to start with --slots", slots)
		return 3
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	if err := http.ListenAndServe("127.0.0.1:"+port, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 5
	}
	return 0
}

func TestParseGrid(t *testing.T) {
	t.Parallel()
	grid, err := ParseGrid([]string{"slots=2,4", "OLLAMA_NUM_PARALLEL=1,3; --max-num-seqs=8"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range grid {
		names = append(names, p.Name())
	}
	want := []string{
		"slots=2 OLLAMA_NUM_PARALLEL=1 max-num-seqs=8", "slots=2 OLLAMA_NUM_PARALLEL=3 max-num-seqs=8",
		"slots=4 OLLAMA_NUM_PARALLEL=1 max-num-seqs=8", "slots=4 OLLAMA_NUM_PARALLEL=3 max-num-seqs=8",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("grid %q, want %q", names, want)
	}
	if got := grid[1].Args(); !reflect.DeepEqual(got, []string{"--slots", "2", "--max-num-seqs", "8"}) {
		t.Errorf("args %q", got)
	}
	if got := grid[1].Env(); !reflect.DeepEqual(got, []string{"OLLAMA_NUM_PARALLEL=3"}) {
		t.Errorf("env %q", got)
	}
	if g, err := ParseGrid(nil); err != nil || len(g) != 1 || g[0].Name() != "default" {
		t.Errorf("no params: %v %v, want one default configuration", g, err)
	}
	for _, bad := range []string{"slots", "=1", "slots=", "slots=1,,2", "Mixed_Case=1", "slots=1 slots=2", "a=1,2,3,4,5,6,7,8 b=1,2,3,4,5,6,7,8,9"} {
		if _, err := ParseGrid([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		} else if !strings.Contains(err.Error(), "--serve-params") {
			t.Errorf("%q: %v does not name the flag", bad, err)
		}
	}
}

// freePort is a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestServeSweepBookkeeping runs a three-configuration server sweep with the
// stand-in k6 and the stand-in server, whose second configuration exits at
// once: the first and third run every level, each with its own output
// directory and the right flags and environment; the second is failed with
// the server's exit and log; no process of any server's group is left.
func TestServeSweepBookkeeping(t *testing.T) {
	if !serveSupported {
		t.Skip("no process groups here")
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	s := newStandIn(t, map[string]string{"LLM_BASE_URL": "http://127.0.0.1:" + port + "/v1"})
	log := filepath.Join(s.dir, "servers.log")
	grid, err := ParseGrid([]string{"slots=2,4,8", "FAKE_MODE=x"})
	if err != nil {
		t.Fatal(err)
	}
	checks, _ := ParseSLO([]string{"llm_ttft: p(90)<100"}, 0.05)
	cfg := Config{Spec: DefaultSpec(Rate, checks), Plan: Fixed{Levels: []float64{4, 8}}, OutDir: s.dir, Script: "capacity.js",
		Exec: K6{Mode: Rate, Script: "capacity.js", Duration: s.duration(), Env: s.environ()}}
	const key = "sk-serve-sweep-secret-0123456789"
	env := append(os.Environ(), fakeServerEnv+"=1", fakeServerLog+"="+log, fakeFailSlots+"=4", APIKeyEnv+"="+key)
	res, err := ExecuteServe(context.Background(), cfg, Serve{
		Command: fmt.Sprintf("exec %q --api-key %s --port %s", bin, key, port), Grid: grid, Env: env,
		ReadyURL: "http://127.0.0.1:" + port + "/health", ReadyTimeout: time.Minute, StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != ResultVersion || len(res.Levels) != 0 || len(res.Configs) != 3 {
		t.Fatalf("version %d, %d levels, %d configs: want %d, 0, 3", res.Version, len(res.Levels), len(res.Configs), ResultVersion)
	}
	for i, c := range res.Configs {
		t.Logf("config %d %s: %s %s, %d levels, max passing %v", c.Index, c.Name, c.Status, c.Reason, len(c.Levels), fmtPtr(c.MaxPassing))
		if i == 1 {
			if c.Status != ConfigFailed || !strings.Contains(c.Reason, "exit status 3") || !strings.Contains(c.Reason, "refusing to start") || len(c.Levels) != 0 {
				t.Errorf("config 2: %s %q with %d levels, want failed naming exit status 3 and its log", c.Status, c.Reason, len(c.Levels))
			}
			continue
		}
		if c.Status != ConfigDone || len(c.Levels) != 2 || c.ReadyS == nil || c.MaxPassing == nil {
			t.Errorf("config %d: %s %q, %d levels, want done with 2", c.Index, c.Status, c.Reason, len(c.Levels))
		}
		for _, l := range c.Levels {
			if want := filepath.Join(s.dir, fmt.Sprintf("config-%d", i+1)); filepath.Dir(l.File) != want {
				t.Errorf("config %d: level file %s, want under %s", c.Index, l.File, want)
			}
		}
	}
	if b, _ := json.Marshal(res); bytes.Contains(b, []byte(key)) || !bytes.Contains(b, []byte("--api-key")) {
		t.Errorf("the result holds the API key (or no command):\n%s", b)
	}
	a := "--api-key " + key + " --port " + port
	checkServers(t, log, []string{a + " --slots 2 FAKE_MODE=x", a + " --slots 4 FAKE_MODE=x", a + " --slots 8 FAKE_MODE=x"})
}

// checkServers reads the stand-in servers' log: one server a configuration
// with these arguments, and none of their processes (or children) alive.
func checkServers(t *testing.T, log string, want []string) {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("servers started:\n%s\nwant %d", b, len(want))
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if got := strings.Join(f[2:], " "); got != want[i] {
			t.Errorf("server %d: %q, want %q", i+1, got, want[i])
		}
		for _, p := range f[:2] {
			pid, _ := strconv.Atoi(p)
			if state, _, ok := procStat(pid); ok && state != "Z" {
				t.Errorf("server %d: process %d is still there (state %s)", i+1, pid, state)
			}
		}
	}
}

// TestServeSweepInterrupted: a signal during the first configuration's first
// level reaches k6 (which then writes its output), the configuration is
// interrupted with that level kept, the other two are not run, the error
// is an AbortError with code 130, and no server is left.
func TestServeSweepInterrupted(t *testing.T) {
	if !serveSupported {
		t.Skip("no process groups here")
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "waiting")
	s := newStandIn(t, map[string]string{"LLM_BASE_URL": "http://127.0.0.1:" + port + "/v1", fakeWaitSig: marker})
	log := filepath.Join(dir, "servers.log")
	grid, _ := ParseGrid([]string{"slots=2,4,8"})
	checks, _ := ParseSLO([]string{"llm_ttft: p(90)<100"}, 0.05)
	sigs := make(chan os.Signal, 1)
	go func() {
		for {
			if _, err := os.Stat(marker); err == nil {
				sigs <- os.Interrupt
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	cfg := Config{Spec: DefaultSpec(Rate, checks), Plan: Fixed{Levels: []float64{4, 8}}, OutDir: s.dir, Script: "capacity.js", Signals: sigs,
		Exec: K6{Mode: Rate, Script: "capacity.js", Duration: s.duration(), Env: s.environ()}}
	res, err := ExecuteServe(context.Background(), cfg, Serve{
		Command: fmt.Sprintf("exec %q --port %s", bin, port), Grid: grid,
		Env:      append(os.Environ(), fakeServerEnv+"=1", fakeServerLog+"="+log),
		ReadyURL: "http://127.0.0.1:" + port + "/health", ReadyTimeout: time.Minute, StopTimeout: 5 * time.Second})
	var abort *AbortError
	if !errors.As(err, &abort) || abort.Code != 130 || res == nil {
		t.Fatalf("err %v, result %v: want an AbortError with code 130 and the result", err, res != nil)
	}
	got := []string{}
	for _, c := range res.Configs {
		got = append(got, fmt.Sprintf("%s %d", c.Status, len(c.Levels)))
	}
	if want := []string{ConfigInterrupted + " 1", ConfigNotRun + " 0", ConfigNotRun + " 0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("configurations (status, levels) %q, want %q", got, want)
	}
	checkServers(t, log, []string{"--port " + port + " --slots 2 FAKE_MODE="})
}
