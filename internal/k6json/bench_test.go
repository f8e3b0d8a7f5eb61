package k6json

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// BenchmarkScanInMemory measures the reader alone on 64 MB of generated k6
// output held in memory, keeping the values of llm_itl.
func BenchmarkScanInMemory(b *testing.B) {
	var buf bytes.Buffer
	itl, err := genK6(&buf, 64<<20, 1)
	if err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var vals stats.Values
		s := &Scanner{Keep: func(m string) bool { return m == "llm_itl" }, OnPoint: func(p *Point) error {
			vals.Add(p.Value)
			return nil
		}}
		if _, err := s.Scan(bytes.NewReader(data), "mem"); err != nil {
			b.Fatal(err)
		}
		if int64(vals.Len()) != itl {
			b.Fatalf("kept %d, want %d", vals.Len(), itl)
		}
	}
}

// benchSize is the size of the generated file of BenchmarkLargeFile, from
// ANALYZE_BENCH_SIZE (e.g. 2GB, 512MB; default 64MB so a CI-style run stays small).
func benchSize(b *testing.B) int64 {
	s := strings.ToUpper(strings.TrimSpace(os.Getenv("ANALYZE_BENCH_SIZE")))
	if s == "" {
		return 64 << 20
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		b.Fatalf("ANALYZE_BENCH_SIZE=%q: want a size such as 2GB or 512MB", os.Getenv("ANALYZE_BENCH_SIZE"))
	}
	return int64(n * float64(mult))
}

// BenchmarkLargeFile generates a k6 --out json file of ANALYZE_BENCH_SIZE bytes
// under the temporary directory (from a fixed seed; deleted afterwards), then
// reports, for one read of it keeping the values of llm_itl (the most frequent
// metric) in a stats.Values:
//
//   - analyze: throughput (MB/s), heap bytes per kept sample while reading and
//     after sorting, and the process's peak RSS;
//
//   - analyze-gz: the same on a gzip copy of the file (throughput counts
//     uncompressed bytes); only for files up to 1 GB, to bound the run;
//
//   - jq: `jq -r 'select(.type=="Point" and .metric=="llm_itl") | .data.value'`
//     on the same file, when jq is on PATH: the comparable pass.
//
//     ANALYZE_BENCH_SIZE=2GB go test ./k6json -run '^$' -bench LargeFile -benchtime 1x
func BenchmarkLargeFile(b *testing.B) {
	size := benchSize(b)
	dir, err := os.MkdirTemp("", "k6json-bench-*")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "results.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	itl, err := genK6(f, size, 42)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.Logf("generated %s: %d MB, %d llm_itl samples, in %v", path, fi.Size()>>20, itl, time.Since(start).Round(time.Millisecond))

	b.Run("analyze", func(b *testing.B) { benchRead(b, path, fi.Size(), itl) })
	if size <= 1<<30 {
		gz := path + ".gz"
		if err := gzipFile(path, gz); err != nil {
			b.Fatal(err)
		}
		b.Run("analyze-gz", func(b *testing.B) { benchRead(b, gz, fi.Size(), itl) })
		os.Remove(gz)
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		b.Log("jq is not installed: no comparison")
		return
	}
	b.Run("jq", func(b *testing.B) {
		b.SetBytes(fi.Size())
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(jq, "-r", `select(.type=="Point" and .metric=="llm_itl") | .data.value`, path)
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			n, err := countLines(out)
			if werr := cmd.Wait(); err == nil {
				err = werr
			}
			if err != nil {
				b.Fatal(err)
			}
			if n != itl {
				b.Fatalf("jq printed %d values, want %d", n, itl)
			}
		}
	})
}

func benchRead(b *testing.B, path string, size, itl int64) {
	b.SetBytes(size)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var vals stats.Values
		s := &Scanner{Keep: func(m string) bool { return m == "llm_itl" }, OnPoint: func(p *Point) error {
			vals.Add(p.Value)
			return nil
		}}
		st, err := s.ScanFile(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if int64(vals.Len()) != itl || st.Damage != "" {
			b.Fatalf("kept %d, want %d (damage %q)", vals.Len(), itl, st.Damage)
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(itl), "heap-B/kept")
		sorted := vals.Sorted()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(len(sorted)), "sorted-B/kept")
		runtime.KeepAlive(s)
		runtime.KeepAlive(sorted)
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			b.ReportMetric(float64(ru.Maxrss)/1024, "maxRSS-MB")
		}
		b.ReportMetric(float64(itl), "kept")
		b.StartTimer()
	}
}

func gzipFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if _, err := io.Copy(zw, in); err != nil {
		out.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func countLines(r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var n int64
	buf := make([]byte, 1<<20)
	for {
		k, err := br.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte("\n")))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("reading jq's output: %w", err)
		}
	}
}
