package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestStartK6LowersEveryThread: when StartK6 returns, every thread of k6 runs
// nice steps below this process and under SCHED_IDLE, and so does every
// thread it starts later; this process's own threads keep their priority.
func TestStartK6LowersEveryThread(t *testing.T) {
	own := ownNice(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env, _ := fakeEnv(t, "FAKE_K6_SIGNAL=ignore") // waits for signals until killed
	cmd := exec.Command(self)
	cmd.Env = env
	waited, note, err := StartK6(cmd, 7, true)
	if err != nil || note != "" {
		t.Fatalf("StartK6: %v %s", err, note)
	}
	defer func() { _ = cmd.Process.Kill(); <-waited }()
	if odd := threadsNotAt(cmd.Process.Pid, own+7, true); odd != "" {
		t.Errorf("right after StartK6: %s", odd)
	}
	time.Sleep(50 * time.Millisecond) // the child's runtime starts more threads meanwhile
	if odd := threadsNotAt(cmd.Process.Pid, own+7, true); odd != "" {
		t.Errorf("later: %s", odd)
	}
	if odd := threadsNotAt(os.Getpid(), own, false); odd != "" {
		t.Errorf("this process: %s", odd)
	}
}

// TestRunLowersK6Priority: Run starts k6 K6Nice steps below its own priority
// and under SCHED_IDLE (0: at it, under the normal policy), and refuses a
// K6Nice out of range.
func TestRunLowersK6Priority(t *testing.T) {
	own := ownNice(t)
	for _, nice := range []int{0, 7} {
		env, record := fakeEnv(t, "FAKE_K6_SIGNAL=record")
		signals := make(chan os.Signal, 1)
		done := make(chan error, 1)
		var stderr lockedBuffer
		go func() {
			_, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, Signals: signals, K6Nice: nice, K6Idle: nice > 0})
			done <- err
		}()
		waitReady(t, record)
		pid := readRecord(t, record).Pid
		var odd string
		for range 200 { // the runner may still be lowering the threads it saw
			if odd = threadsNotAt(pid, own+nice, nice > 0); odd == "" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if odd != "" {
			t.Errorf("K6Nice %d: %s", nice, odd)
		}
		signals <- syscall.SIGTERM
		if err := <-done; err != nil {
			t.Fatalf("Run: %v\n%s", err, stderr.String())
		}
	}
	if _, err := Run(context.Background(), Config{Args: []string{"s.js"}, K6Nice: MaxK6Nice + 1}); err == nil {
		t.Error("K6Nice 20 accepted")
	}
}

func ownNice(t *testing.T) int {
	t.Helper()
	own := niceOf("/proc/self/stat")
	if own == -100 {
		t.Skip("no /proc/self/stat")
	}
	if own > MaxK6Nice-7 {
		t.Skipf("this process already runs at nice %d", own)
	}
	return own
}

// threadsNotAt names a thread of process pid whose nice value is not nice,
// or whose scheduling policy is not SCHED_IDLE (idle) or the normal one
// ("" when there is none).
func threadsNotAt(pid, nice int, idle bool) string {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
	want := 0 // SCHED_OTHER
	if idle {
		want = 5 // SCHED_IDLE
	}
	for _, p := range tasks {
		if n := niceOf(p); n != nice && n != -100 {
			return p + " runs at nice " + strconv.Itoa(n) + ", want " + strconv.Itoa(nice)
		}
		if pol := statField(p, 41); pol != want && pol != -100 {
			return p + " runs under scheduling policy " + strconv.Itoa(pol) + ", want " + strconv.Itoa(want)
		}
	}
	if len(tasks) == 0 {
		return "no thread of process " + strconv.Itoa(pid)
	}
	return ""
}
