package workload

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// readAll is every request ReadTrace emits from the text, and its stats.
func readAll(t *testing.T, in string, format TraceFormat) ([]TraceRequest, TraceStats) {
	t.Helper()
	var out []TraceRequest
	st, err := ReadTrace(strings.NewReader(in), "t", format, func(q TraceRequest) error { out = append(out, q); return nil }, nil)
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return out, st
}

// TestReadTraceSortsUnsortedTraces: in every trace format, a trace whose
// last line comes first (the header kept first) gives the same requests in the
// same time order as the sorted file, AtMS from the earliest, Bailian's
// sessions resolved as in the sorted file, and stats that count the
// requests out of order (all but the first: the last line, the latest, is
// moved to the front).
func TestReadTraceSortsUnsortedTraces(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file   string
		format TraceFormat
		header bool
	}{
		{"mooncake.jsonl", Mooncake, false},
		{"bailian.jsonl", Bailian, false},
		{"burstgpt.csv", BurstGPT, true},
		{"azure.csv", Azure, true},
	} {
		raw, err := os.ReadFile("testdata/trace/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		body := lines
		var head []string
		if c.header {
			head, body = lines[:1], lines[1:]
		}
		rev := append([]string{body[len(body)-1]}, body[:len(body)-1]...)
		want, wst := readAll(t, string(raw), c.format)
		got, gst := readAll(t, strings.Join(append(slices.Clone(head), rev...), "\n")+"\n", c.format)
		if wst.OutOfOrder != 0 || gst.OutOfOrder != gst.Requests-1 || gst.Requests != len(want) {
			t.Errorf("%s: sorted file %+v, reversed %+v: want 0 and %d of %d out of order", c.file, wst, gst, len(want)-1, len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d requests reversed, %d sorted", c.file, len(got), len(want))
		}
		for i := range want {
			w, g := want[i], got[i]
			w.Line, g.Line = 0, 0
			if w.AtMS != g.AtMS || w.Input != g.Input || w.Output != g.Output || w.Session != g.Session || w.Turn != g.Turn || !slices.Equal(w.HashIDs, g.HashIDs) {
				t.Errorf("%s: request %d reversed %+v, sorted %+v", c.file, i+1, g, w)
			}
		}
	}
}

// TestReadTraceSortIsStable: requests of equal time keep the file's order;
// a late line counts once however far it moves.
func TestReadTraceSortIsStable(t *testing.T) {
	t.Parallel()
	in := `{"timestamp": 20, "input_length": 1, "output_length": 1}
{"timestamp": 10, "input_length": 2, "output_length": 1}
{"timestamp": 10, "input_length": 3, "output_length": 1}
{"timestamp": 30, "input_length": 4, "output_length": 1}
{"timestamp": 20, "input_length": 5, "output_length": 1}
{"timestamp": 0, "input_length": 6, "output_length": 1}
`
	got, st := readAll(t, in, Mooncake)
	var ins []int
	var ats []float64
	for _, q := range got {
		ins, ats = append(ins, q.Input), append(ats, q.AtMS)
	}
	if !slices.Equal(ins, []int{6, 2, 3, 1, 5, 4}) || !slices.Equal(ats, []float64{0, 10, 10, 20, 20, 30}) {
		t.Errorf("order %v at %v, want inputs 6 2 3 1 5 4 at 0 10 10 20 20 30", ins, ats)
	}
	if st.OutOfOrder != 4 || st.Requests != 6 {
		t.Errorf("stats %+v, want 4 of 6 out of order", st)
	}
}
