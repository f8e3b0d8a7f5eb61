package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
)

func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		pos  []string
		by   string
	}{
		{[]string{"a.json", "--by", "model", "b.json"}, []string{"a.json", "b.json"}, "model"},
		{[]string{"--by=model", "-", "c.json"}, []string{"-", "c.json"}, "model"},
		{[]string{"a.json", "--", "--by", "x"}, []string{"a.json", "--by", "x"}, ""},
		{[]string{"--", "-weird.json"}, []string{"-weird.json"}, ""},
		{nil, nil, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var in inputFlags
		in.register(fs)
		pos, err := parseArgs(fs, c.args)
		if err != nil || !slices.Equal(pos, c.pos) || in.by.String() != c.by {
			t.Errorf("%v: %v %q by %q, want %v by %q", c.args, err, pos, in.by.String(), c.pos, c.by)
		}
	}
}

// TestReaderGroups drives the shared reader directly: --where with a missing
// tag, grouping by file and tag, and the time window, on two small inputs.
func TestReaderGroups(t *testing.T) {
	t.Parallel()
	lines := func(pts ...string) []byte {
		var b bytes.Buffer
		b.WriteString(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}` + "\n")
		for _, p := range pts {
			b.WriteString(p + "\n")
		}
		return b.Bytes()
	}
	pt := func(sec, v, tags string) string {
		return `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:` + sec + `Z","value":` + v + `,"tags":` + tags + `}}`
	}
	dir := t.TempDir()
	a := dir + "/a.json"
	b := dir + "/b.json"
	writeFile(t, a, lines(pt("00", "1", `{"model":"x"}`), pt("10", "2", `{"model":"y","error":""}`), pt("20", "3", `{"model":"x","error":"timeout"}`)))
	writeFile(t, b, lines(pt("30", "4", `{"model":"x"}`), pt("40", "5", `null`)))
	sel := selection{where: []whereClause{{"error", ""}}, by: []string{"file", "model"}, byFile: true}
	sel.from = durationFlag{0, true}
	sel.to = durationFlag{15e9, true}
	ins, err := inputsFrom([]string{a, b}, []string{"A", "B"})
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(sel, ins, false, nil, io.Discard)
	got := map[string][]float64{}
	if err := r.each(func(file int, g *group, p *k6json.Point) error {
		got[g.key] = append(got[g.key], p.Value)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// a: values 1 (model x, no error tag) and 2 (model y, error "") pass --where
	// error= and the window [0, 15s); 3 has an error. b: its window starts at its
	// own first sample, so 4 (t=0) and 5 (t=10s, no tags) are in.
	want := map[string][]float64{"file=A,model=x": {1}, "file=A,model=y": {2}, "file=B,model=x": {4}, "file=B,model=": {5}}
	if len(got) != len(want) {
		t.Fatalf("groups %v", got)
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
	if len(r.files) != 2 || r.files[1].Kept != 2 || r.decls["llm_ttft"].Type != k6json.Trend {
		t.Errorf("files %+v", r.files)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
