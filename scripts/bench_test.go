package scripts

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// BenchmarkK6Memory prints real k6's peak RSS with a 100,000-entry dataset
// read by 100 VUs, through Dataset (SharedArray: one copy per process) and
// as a plain array parsed in every VU. Skips without k6.
//
//	go test ./scripts -run '^$' -bench K6Memory -benchtime 1x
func BenchmarkK6Memory(b *testing.B) {
	k6 := k6Binary(b)
	path := filepath.Join(b.TempDir(), "100k.jsonl")
	size := writeBenchDataset(b, path, 100000)
	for _, mode := range []string{"shared", "plain"} {
		b.Run(mode, func(b *testing.B) {
			var rss int64
			for b.Loop() {
				cmd := exec.Command(k6, "run", "--quiet", "--no-usage-report", "-e", "MODE="+mode, "-e", "DATASET="+path, "testdata/memory.js")
				cmd.Env = append(os.Environ(), "K6_NO_USAGE_REPORT=true")
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("k6: %v\n%s", err, tail(string(out), 2000))
				}
				rss = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
			}
			b.ReportMetric(float64(rss)/(1<<20), "MB-peak-rss")
			fmt.Printf("k6 peak RSS, 100,000 entries (%.1f MB of JSONL), 100 VUs, %s: %.0f MB\n", float64(size)/(1<<20), mode, float64(rss)/(1<<20))
		})
	}
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
