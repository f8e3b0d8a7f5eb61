package scripts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// BenchmarkK6Memory prints real k6's peak RSS with a 100,000-entry dataset
// read by 100 VUs, through Dataset (SharedArray: one copy per process) and
// as a plain array parsed in every VU's init context — the latter also with
// 10 VUs, since at 100 VUs it may pass the cap (k6 is then stopped and the
// RSS reported as "at least"). Skips without k6.
//
//	go test ./scripts -run '^$' -bench K6Memory -benchtime 1x
func BenchmarkK6Memory(b *testing.B) {
	k6 := k6Binary(b)
	path := filepath.Join(b.TempDir(), "100k.jsonl")
	size := writeBenchDataset(b, path, 100000)
	for _, c := range []struct {
		mode string
		vus  int
	}{{"shared", 100}, {"plain", 10}, {"plain", 100}} {
		b.Run(fmt.Sprintf("%s/vus%d", c.mode, c.vus), func(b *testing.B) {
			var m k6Memory
			for b.Loop() {
				m = runK6Memory(b, k6, c.mode, path, c.vus)
			}
			b.ReportMetric(float64(m.peak)/(1<<20), "MB-peak-rss")
			at := ""
			if m.capped {
				at = "at least "
			}
			fmt.Printf("k6 peak RSS, 100,000 entries (%.1f MB of JSONL), %d VUs, %s: %s%.0f MB\n",
				float64(size)/(1<<20), c.vus, c.mode, at, float64(m.peak)/(1<<20))
		})
	}
}

// k6MemoryCap and k6TimeCap bound one k6 run of the benchmark.
const (
	k6MemoryCap = 6 << 30
	k6TimeCap   = 4 * time.Minute
)

type k6Memory struct {
	peak   int64 // bytes
	capped bool  // stopped at k6MemoryCap or k6TimeCap
}

// runK6Memory runs testdata/memory.js and returns k6's peak RSS, polling
// /proc so that a run past the caps is stopped instead of exhausting memory.
func runK6Memory(b *testing.B, k6, mode, path string, vus int) k6Memory {
	b.Helper()
	cmd := exec.Command(k6, "run", "--quiet", "--no-usage-report", "-e", "MODE="+mode, "-e", "DATASET="+path,
		"-e", fmt.Sprintf("VUS=%d", vus), "testdata/memory.js")
	cmd.Env = append(os.Environ(), "K6_NO_USAGE_REPORT=true")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var m k6Memory
	deadline := time.Now().Add(k6TimeCap)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil && !m.capped {
				b.Fatalf("k6: %v\n%s", err, tail(out.String(), 2000))
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				m.peak = max(m.peak, ru.Maxrss*1024)
			}
			return m
		case <-tick.C:
			m.peak = max(m.peak, procRSS(cmd.Process.Pid))
			if !m.capped && (m.peak > k6MemoryCap || time.Now().After(deadline)) {
				m.capped = true
				_ = cmd.Process.Kill()
			}
		}
	}
}

// procRSS is a process's resident set size from /proc, in bytes (0 if unknown).
func procRSS(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// writeBenchDataset writes n entries of about 150 bytes each and returns the
// file's size.
func writeBenchDataset(b *testing.B, path string, n int) int64 {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		e := workload.Entry{V: workload.Version, ID: fmt.Sprintf("syn-%06d", i+1), MaxTokens: 64, OutputTokens: 64, InputTokens: 16, Tokenizer: "cl100k_base",
			Messages: []workload.Message{{Role: "user", Content: fmt.Sprintf("request %d: tell me something about the number %d", i, i*7)}}}
		if err := writeJSONLine(w, e); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

func writeJSONLine(w *bufio.Writer, e workload.Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
