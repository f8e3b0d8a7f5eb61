package history

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// bigRecord is a record of many groups, far above PIPE_BUF (4 KiB), so that
// an unlocked O_APPEND write could interleave.
func bigRecord(label string, groups int) Record {
	rec := Record{Schema: Schema, Version: Version, Label: label, Start: day0, End: day0.Add(time.Minute), Inputs: []string{"run.json"}}
	for g := 0; g < groups; g++ {
		grp := Group{Label: fmt.Sprintf("concurrency=%d", g), Labels: map[string]string{"concurrency": strconv.Itoa(g)}}
		tr := Trend{Metric: "llm_ttft", Unit: "ms", Count: 1000}
		for _, p := range []float64{50, 90, 95, 99, 99.9, 99.99} {
			lo, hi := 100+p, 120+p
			tr.Percentiles = append(tr.Percentiles, result.Percentile{Name: fmt.Sprintf("p(%g)", p), P: p, Value: 110 + p,
				CI: result.CI{Low: &lo, High: &hi, LowRank: 1, HighRank: 2, Coverage: 0.95}})
		}
		grp.Trends = append(grp.Trends, tr)
		rec.Groups = append(rec.Groups, grp)
	}
	return rec
}

// checkAll reads the file and checks that it holds every label once.
func checkAll(t *testing.T, path string, labels []string) {
	t.Helper()
	f, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Damage != "" {
		t.Fatalf("damage after parallel appends: %s", f.Damage)
	}
	got := map[string]int{}
	for _, r := range f.Records {
		got[r.Label]++
	}
	for _, l := range labels {
		if got[l] != 1 {
			t.Errorf("record %s is in the file %d times, want once", l, got[l])
		}
	}
	if len(f.Records) != len(labels) {
		t.Errorf("%d records, want %d", len(f.Records), len(labels))
	}
}

func TestAppendParallelWriters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	const writers, each = 8, 25
	if n := len(mustJSON(t, bigRecord("x", 40))); n < 16<<10 {
		t.Fatalf("record of %d bytes: want one well above PIPE_BUF", n)
	}
	var wg sync.WaitGroup
	var labels []string
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			labels = append(labels, fmt.Sprintf("w%d-%d", w, i))
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := Append(path, bigRecord(fmt.Sprintf("w%d-%d", w, i), 40)); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkAll(t, path, labels)
}

// TestAppendProcesses appends from separate processes: this test binary run
// again as a writer (TestHelperAppender).
func TestAppendProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	const procs, each = 4, 15
	var cmds []*exec.Cmd
	var labels []string
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$")
		cmd.Env = append(os.Environ(), "HISTORY_APPEND_FILE="+path, fmt.Sprintf("HISTORY_APPEND_ID=p%d", p), fmt.Sprintf("HISTORY_APPEND_N=%d", each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		for i := 0; i < each; i++ {
			labels = append(labels, fmt.Sprintf("p%d-%d", p, i))
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	checkAll(t, path, labels)
}

func TestHelperAppender(t *testing.T) {
	path := os.Getenv("HISTORY_APPEND_FILE")
	if path == "" {
		t.Skip("run by TestAppendProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("HISTORY_APPEND_N"))
	for i := 0; i < n; i++ {
		if _, err := Append(path, bigRecord(fmt.Sprintf("%s-%d", os.Getenv("HISTORY_APPEND_ID"), i), 40)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAppendRepairsCutLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if _, err := Append(path, bigRecord("one", 2)); err != nil {
		t.Fatal(err)
	}
	cut := mustJSON(t, bigRecord("killed", 2))
	appendBytes(t, path, cut[:len(cut)/2])
	f, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != 1 || !strings.Contains(f.Damage, "last line 2 is cut short") {
		t.Fatalf("cut file: %d records, damage %q; want 1 and line 2 named", len(f.Records), f.Damage)
	}
	note, err := Append(path, bigRecord("two", 2))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "removed a cut last line") {
		t.Errorf("note %q: want the cut line's removal said", note)
	}
	// A whole record missing only its newline is kept.
	appendBytes(t, path, mustJSON(t, bigRecord("three", 1)))
	if _, err := Append(path, bigRecord("four", 1)); err != nil {
		t.Fatal(err)
	}
	checkAll(t, path, []string{"one", "two", "three", "four"})
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	good := string(mustJSON(t, bigRecord("a", 1)))
	newer := strings.Replace(good, `"version":1`, `"version":2`, 1)
	cases := []struct {
		name, text, err string
		lenient         bool
		records         int
	}{
		{"bad line in the middle", good + "\n{oops\n" + good + "\n", "h.jsonl:2: invalid JSON", false, 0},
		{"lenient skips it", good + "\n{oops\n" + good + "\n", "", true, 2},
		{"newer version", good + "\n" + newer + "\n", "h.jsonl:2: record version 2 is newer", false, 0},
		{"not a record", `{"a":1}` + "\n", "h.jsonl:1: not a history record", false, 0},
		{"blank lines", "\n" + good + "\n\n", "", false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Read(strings.NewReader(c.text), "h.jsonl", ReadOptions{Lenient: c.lenient})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || len(f.Records) != c.records {
				t.Fatalf("%v, %d records; want %d", err, len(f.Records), c.records)
			}
			if c.lenient && (len(f.Skipped) != 1 || f.Skipped[0] != 2) {
				t.Errorf("skipped %v, want [2]", f.Skipped)
			}
		})
	}
}

func mustJSON(t *testing.T, r Record) []byte {
	t.Helper()
	b, err := marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
