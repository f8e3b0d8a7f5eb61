package rundata

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
)

// TestReaderGroups drives the reader directly: --where with a missing
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
	sel := Selection{Where: []Where{{"error", ""}}, By: []string{"file", "model"}, HasFrom: true, To: 15e9, HasTo: true}
	ins := []Input{{Path: a, Label: "A"}, {Path: b, Label: "B"}}
	r := NewReader(sel, ins, Options{})
	got := map[string][]float64{}
	if err := r.Each(func(file int, g *Group, p *k6json.Point) error {
		got[g.Key] = append(got[g.Key], p.Value)
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
	if m, ok := r.Declaration("llm_ttft"); len(r.Files()) != 2 || r.Files()[1].Kept != 2 || !ok || m.Type != k6json.Trend {
		t.Errorf("files %+v", r.Files())
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReaderThresholdsOfEveryDeclaration: a metric's declaration holds the
// thresholds of every declaration in every input, each once, in the order
// read (a later input, or a later line, may add some); the type is the first
// declaration's that has one.
func TestReaderThresholdsOfEveryDeclaration(t *testing.T) {
	t.Parallel()
	decl := func(typ, thresholds string) string {
		return `{"type":"Metric","data":{"name":"llm_ttft"` + typ + `,"thresholds":` + thresholds + `},"metric":"llm_ttft"}` + "\n"
	}
	pt := `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:00Z","value":1,"tags":{}}}` + "\n"
	dir := t.TempDir()
	a, b, c := dir+"/a.json", dir+"/b.json", dir+"/c.json"
	writeFile(t, a, []byte(pt+decl(``, `["p(99)<100","p(99)<100"]`)))
	writeFile(t, b, []byte(decl(`,"type":"trend","contains":"time"`, `["avg<10","p(99)<100"]`)+pt))
	writeFile(t, c, []byte(decl(`,"type":"trend","contains":"time"`, `["max<50"]`)+pt))
	r := NewReader(Selection{}, []Input{{Path: a, Label: "a"}, {Path: b, Label: "b"}, {Path: c, Label: "c"}}, Options{})
	if err := r.Each(func(int, *Group, *k6json.Point) error { return nil }); err != nil {
		t.Fatal(err)
	}
	m, ok := r.Declaration("llm_ttft")
	if want := []string{"p(99)<100", "avg<10", "max<50"}; !ok || m.Type != k6json.Trend || m.Contains != k6json.Time || !slices.Equal(m.Thresholds, want) {
		t.Errorf("declaration %+v, want a time trend with thresholds %q", m, want)
	}
}
