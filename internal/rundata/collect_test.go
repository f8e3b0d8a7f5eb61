package rundata

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/records"
)

// fourTypes writes one metric of each k6 type, with a model tag, and an
// undeclared llm_x; the samples are one second apart.
func fourTypes(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	for _, d := range []string{`"llm_ttft","type":"trend","contains":"time"`, `"llm_requests_failed","type":"rate"`,
		`"llm_output_tokens","type":"counter"`, `"llm_vus","type":"gauge"`} {
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%s},"metric":"x"}`+"\n", d)
	}
	pt := func(sec int, metric string, v float64, tags string) {
		fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":"2026-01-01T00:00:%02dZ","value":%v,"tags":%s}}`+"\n", metric, sec, v, tags)
	}
	pt(0, "llm_ttft", 300, `{"model":"a"}`)
	pt(1, "llm_ttft", 100, `{"model":"a"}`)
	pt(2, "llm_ttft", 200, `{"model":"b"}`)
	pt(3, "llm_requests_failed", 0, `{"model":"a"}`)
	pt(4, "llm_requests_failed", 1, `{"model":"a","error":"http_429"}`)
	pt(5, "llm_requests_failed", 1, `{"model":"a","error":"timeout"}`)
	pt(6, "llm_requests_failed", 1, `{"model":"a","error":"http_429"}`)
	pt(7, "llm_output_tokens", 10, `{"model":"a"}`)
	pt(8, "llm_output_tokens", 32, `{"model":"a"}`)
	pt(9, "llm_vus", 4, `{"model":"a"}`)
	pt(10, "llm_vus", 9, `{"model":"a"}`)
	pt(11, "llm_vus", 2, `{"model":"a"}`)
	pt(12, "llm_x", 7, `{"model":"a"}`)
	pt(20, "other", 1, `{}`) // not an llm_* metric: not kept, so it does not extend the span
	path := filepath.Join(t.TempDir(), "run.json")
	writeFile(t, path, b.Bytes())
	return path
}

// TestCollectAccumulators: each metric gets the accumulator of its declared
// type (an undeclared one is a Trend), and each accumulates what its type
// reports.
func TestCollectAccumulators(t *testing.T) {
	t.Parallel()
	path := fourTypes(t)
	r := NewReader(Selection{By: []string{"model"}}, []Input{{Path: path, Label: "run"}}, Options{})
	d, err := Collect(r, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Metrics(), []string{"llm_ttft", "llm_output_tokens", "llm_requests_failed", "llm_vus", "llm_x"}; !slices.Equal(got, want) {
		t.Errorf("metrics %v, want %v (report order)", got, want)
	}
	ttft := d.Series("llm_ttft")
	if len(ttft) != 2 || ttft[0].Group.Key != "model=a" || ttft[1].Group.Key != "model=b" {
		t.Fatalf("llm_ttft series %+v", ttft)
	}
	if s := ttft[0]; s.Trend == nil || !slices.Equal(s.Trend.Sorted(), []float64{100, 300}) || s.Count() != 2 || s.Trend.Samples() != nil {
		t.Errorf("trend %+v", s.Trend)
	}
	rate := d.Series("llm_requests_failed")[0].Rate
	if rate == nil || rate.N != 4 || rate.NonZero != 3 || rate.Value() != 0.75 || rate.Kinds["http_429"] != 2 || rate.Kinds["timeout"] != 1 {
		t.Errorf("rate %+v", rate)
	}
	if c := d.Series("llm_output_tokens")[0].Counter; c == nil || c.N != 2 || c.Sum != 42 {
		t.Errorf("counter %+v", c)
	}
	if g := d.Series("llm_vus")[0].Gauge; g == nil || g.Last != 2 || g.Min != 2 || g.Max != 9 || g.N != 3 {
		t.Errorf("gauge %+v", g)
	}
	if x := d.Series("llm_x")[0]; x.Type != k6json.Trend || x.Trend == nil {
		t.Errorf("undeclared metric: %+v", x)
	}
	// The span runs from the input's first sample to the latest kept one.
	if got := d.Span(); got != 12*time.Second {
		t.Errorf("span %v, want 12s", got)
	}
	if first, last := d.FileSpan(0); first.Second() != 0 || last.Second() != 12 {
		t.Errorf("file span %v – %v", first, last)
	}
}

// TestCollectTimedTypesAlso: a timed read keeps each Trend sample's time,
// Types drops the metrics of other types, and Also sees the points AlsoKeep
// asks for besides the kept ones.
func TestCollectTimedTypesAlso(t *testing.T) {
	t.Parallel()
	path := fourTypes(t)
	r := NewReader(Selection{}, []Input{{Path: path, Label: "run"}}, Options{})
	also := map[string]int{}
	d, err := Collect(r, CollectOptions{Timed: true, Types: []k6json.Type{k6json.Trend},
		AlsoKeep: func(name string) bool { return name == "llm_vus" },
		Also:     func(p *k6json.Point) { also[p.Metric]++ }})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Metrics(); !slices.Equal(got, []string{"llm_ttft", "llm_x"}) {
		t.Errorf("metrics %v: Types keeps only Trends", got)
	}
	s := d.Series("llm_ttft")[0]
	if got := s.Trend.Samples(); len(got) != 3 || got[1].T != time.Second || got[1].V != 100 {
		t.Errorf("samples %+v", got)
	}
	if !slices.Equal(s.Trend.Sorted(), []float64{100, 200, 300}) {
		t.Errorf("sorted %v", s.Trend.Sorted())
	}
	if also["llm_vus"] != 3 || also["llm_ttft"] != 3 || also["llm_output_tokens"] != 0 {
		t.Errorf("Also saw %v", also)
	}
	if v := (&Rate{}).Value(); !math.IsNaN(v) {
		t.Errorf("an empty Rate is %v, want NaN", v)
	}
}

// TestReaderErrors: a corrupt line and a metric not in the inputs are
// InputErrors naming what is wrong.
func TestReaderErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, []byte(`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:00Z","value":1}}`+"\n{oops\n{}\n"))
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{}, bad + ":2: "},
		{Selection{Metrics: []string{"llm_nope"}}, bad + ":2: "},
	} {
		err := NewReader(c.sel, []Input{{Path: bad, Label: "b"}}, Options{}).Each(func(int, *Group, *k6json.Point) error { return nil })
		var ie *InputError
		if !errors.As(err, &ie) || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%+v: %v, want an InputError with %q", c.sel, err, c.want)
		}
	}
	err := NewReader(Selection{Metrics: []string{"llm_nope"}}, []Input{{Path: bad, Label: "b"}}, Options{Lenient: true}).
		Each(func(int, *Group, *k6json.Point) error { return nil })
	var ie *InputError
	if !errors.As(err, &ie) || err.Error() != `metric "llm_nope" is not in the inputs (they have: llm_ttft)` {
		t.Errorf("missing metric: %v", err)
	}
}

// undeclared is a k6 JSON input without Metric lines (its output was
// filtered): a counter, a rate and a trend, as points only.
func undeclared(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "undeclared.json")
	writeFile(t, path, []byte(strings.Join([]string{
		`{"metric":"llm_output_tokens","type":"Point","data":{"time":"2026-01-01T00:00:00Z","value":10,"tags":{}}}`,
		`{"metric":"llm_output_tokens","type":"Point","data":{"time":"2026-01-01T00:00:01Z","value":5,"tags":{}}}`,
		`{"metric":"llm_requests_failed","type":"Point","data":{"time":"2026-01-01T00:00:02Z","value":1,"tags":{"error":"http_429"}}}`,
		`{"metric":"llm_requests_failed","type":"Point","data":{"time":"2026-01-01T00:00:03Z","value":0,"tags":{}}}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:04Z","value":100,"tags":{}}}`,
	}, "\n")+"\n"))
	return path
}

// declaring is a k6 JSON input declaring the three metrics (llm_output_tokens
// with the given type) before their points.
func declaring(t *testing.T, dir, name, outputType string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	writeFile(t, path, []byte(strings.Join([]string{
		`{"type":"Metric","data":{"name":"llm_output_tokens","type":"` + outputType + `","contains":"default"},"metric":"llm_output_tokens"}`,
		`{"metric":"llm_output_tokens","type":"Point","data":{"time":"2026-01-01T00:00:10Z","value":7,"tags":{}}}`,
		`{"type":"Metric","data":{"name":"llm_requests_failed","type":"rate","contains":"default"},"metric":"llm_requests_failed"}`,
		`{"metric":"llm_requests_failed","type":"Point","data":{"time":"2026-01-01T00:00:11Z","value":1,"tags":{"error":"timeout"}}}`,
		`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:12Z","value":200,"tags":{}}}`,
	}, "\n")+"\n"))
	return path
}

// TestCollectTypeDeclaredInAnyInput: a metric's type is its declaration in
// any input, whatever the order of the inputs: points read before the
// declaration (in an input without Metric lines) are accumulated as the
// declared type, in the order read; Types filters by the declared type.
func TestCollectTypeDeclaredInAnyInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u, d := undeclared(t, dir), declaring(t, dir, "declared.json", "counter")
	for _, c := range []struct {
		name  string
		paths []string
		by    []string
	}{
		{"undeclared first", []string{u, d}, nil},
		{"declared first", []string{d, u}, nil},
		{"undeclared first, by file", []string{u, d}, []string{"file"}},
	} {
		var ins []Input
		for _, p := range c.paths {
			ins = append(ins, Input{Path: p, Label: filepath.Base(p)})
		}
		data, err := Collect(NewReader(Selection{By: c.by}, ins, Options{}), CollectOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var out Counter
		var failed Rate
		var ttft []float64
		for _, s := range data.Series("llm_output_tokens") {
			if s.Type != k6json.Counter || s.Counter == nil {
				t.Fatalf("%s: llm_output_tokens %s read as %v", c.name, s.Group.Key, s.Type)
			}
			out.N, out.Sum = out.N+s.Counter.N, out.Sum+s.Counter.Sum
		}
		for _, s := range data.Series("llm_requests_failed") {
			if s.Type != k6json.Rate || s.Rate == nil {
				t.Fatalf("%s: llm_requests_failed %s read as %v", c.name, s.Group.Key, s.Type)
			}
			failed.N, failed.NonZero = failed.N+s.Rate.N, failed.NonZero+s.Rate.NonZero
			if s.Group.Key != "file=declared.json" && s.Rate.Kinds["http_429"] != 1 {
				t.Errorf("%s: rate kinds %v, want the undeclared input's http_429", c.name, s.Rate.Kinds)
			}
		}
		for _, s := range data.Series("llm_ttft") {
			ttft = append(ttft, s.Trend.Sorted()...)
		}
		if out.N != 3 || out.Sum != 22 || failed.N != 3 || failed.NonZero != 2 || len(ttft) != 2 {
			t.Errorf("%s: counter %+v, rate %+v, ttft %v", c.name, out, failed, ttft)
		}
	}
	data, err := Collect(NewReader(Selection{}, []Input{{Path: u, Label: "u"}, {Path: d, Label: "d"}}, Options{}),
		CollectOptions{Timed: true, Types: []k6json.Type{k6json.Trend}})
	if err != nil {
		t.Fatal(err)
	}
	if got := data.Metrics(); !slices.Equal(got, []string{"llm_ttft"}) {
		t.Errorf("Types trend: metrics %v, want only llm_ttft (the others are declared a counter and a rate)", got)
	}
	// The undeclared input's kept sample is its llm_ttft at 4 s: its time
	// and the input's span are those of the samples kept.
	if got := data.Series("llm_ttft")[0].Trend.Samples(); len(got) != 2 || got[0].T != 4*time.Second || got[0].V != 100 {
		t.Errorf("timed llm_ttft samples %+v", got)
	}
	if first, last := data.FileSpan(0); first.Second() != 4 || last.Second() != 4 {
		t.Errorf("undeclared input's span %v – %v, want its llm_ttft sample only", first, last)
	}
}

// TestCollectTypeDeclaredByRecords: a k6 JSON input without Metric lines
// read with a records file (which declares the record metrics, and is read
// after k6's inputs): the k6 input's counter points are a Counter.
func TestCollectTypeDeclaredByRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := undeclared(t, dir)
	var buf bytes.Buffer
	w := records.NewWriter(&buf, false, records.Options{})
	w.Submit(&testItem{records.Record{V: records.Version, ID: "1-1", StartNS: 1e18, E2ENS: 2e7,
		OutputTokens: 3, InputTokens: 2, TokenSource: "usage", Model: "m", API: "openai-chat", Status: 200}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "records.jsonl")
	writeFile(t, rec, buf.Bytes())
	data, err := Collect(NewReader(Selection{MissingOK: true}, []Input{{Path: u, Label: "u"}, {Path: rec, Label: "r"}}, Options{}), CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := data.Series("llm_output_tokens")
	if len(s) != 1 || s[0].Counter == nil || s[0].Counter.N != 3 || s[0].Counter.Sum != 18 {
		t.Fatalf("llm_output_tokens: %+v, want a Counter of 3 samples summing to 18", s)
	}
}

// TestCollectTypeConflict: a metric declared with two types in two inputs is
// an InputError naming both.
func TestCollectTypeConflict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := declaring(t, dir, "a.json", "counter"), declaring(t, dir, "b.json", "trend")
	_, err := Collect(NewReader(Selection{}, []Input{{Path: a, Label: "a"}, {Path: b, Label: "b"}}, Options{}), CollectOptions{})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) ||
		!strings.Contains(err.Error(), "llm_output_tokens") {
		t.Fatalf("conflict: %v, want an InputError naming llm_output_tokens, %s and %s", err, a, b)
	}
}
