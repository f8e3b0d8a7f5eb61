package k6json

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fixtures = "../../testdata/k6/"

// collected is everything a scan handed over, in a comparable form.
type collected struct {
	points []Point
	tags   []string
	decls  []*Metric
}

func scanAll(t *testing.T, s *Scanner, r io.Reader, name string) (collected, FileStats, error) {
	t.Helper()
	var c collected
	s.OnPoint = func(p *Point) error {
		c.points = append(c.points, *p)
		c.tags = append(c.tags, p.Tags.String())
		return nil
	}
	s.OnMetric = func(m *Metric) error { c.decls = append(c.decls, m); return nil }
	st, err := s.Scan(r, name)
	return c, st, err
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	return b
}

// referencePoints decodes every line with encoding/json alone.
func referencePoints(t *testing.T, data []byte) []Point {
	t.Helper()
	dc := newDecoder(nil)
	var out []Point
	for i, line := range bytes.Split(data, []byte("\n")) {
		var r lineResult
		if err := dc.slow(line, false, &r); err != nil {
			if i == len(bytes.Split(data, []byte("\n")))-1 {
				break // a cut last line
			}
			t.Fatalf("line %d: %v", i+1, err)
		}
		if r.kind == linePoint {
			out = append(out, Point{Metric: r.metric.name, Time: time.Unix(0, r.unixNano).UTC(), Value: r.value, Tags: r.tags, Line: int64(i + 1)})
		}
	}
	return out
}

func TestFixturesMatchReferenceDecoder(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"k6v2_llm_synthetic.json.gz", "k6v1_llm_synthetic.json.gz", "k6v2_killed.json.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := gunzip(t, fixtures+name)
			want := referencePoints(t, data)
			got, st, err := scanAll(t, &Scanner{}, bytes.NewReader(data), name)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.points) != len(want) || st.Kept != int64(len(want)) {
				t.Fatalf("got %d points (Kept %d), reference decoder %d", len(got.points), st.Kept, len(want))
			}
			for i := range want {
				g, w := got.points[i], want[i]
				if g.Metric != w.Metric || !g.Time.Equal(w.Time) || math.Float64bits(g.Value) != math.Float64bits(w.Value) ||
					g.Tags.String() != w.Tags.String() || g.Line != w.Line {
					t.Fatalf("point %d: got %+v %s, want %+v %s", i, g, g.Tags, w, w.Tags)
				}
			}
		})
	}
}

func TestFixtureContents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file      string
		start     string
		counts    map[string]int
		failures  int
		kinds     map[string]int
		damaged   bool
		firstZone string
	}{
		{
			file:  "k6v2_llm_synthetic.json.gz",
			start: "2026-11-29T14:50:27.435275183Z",
			// counts from k6's own --summary-export of the same run
			counts:   map[string]int{"llm_ttft": 617, "llm_itl": 23874, "llm_e2e": 617, "llm_tpot": 617, "llm_requests_failed": 638, "iterations": 638},
			failures: 21,
			kinds:    map[string]int{"http_429": 2, "timeout": 9, "reset_midstream": 10},
		},
		{
			file:     "k6v1_llm_synthetic.json.gz",
			start:    "2026-11-29T14:50:38.734479437Z", // written as 11:50:38.734479437-03:00
			counts:   map[string]int{"llm_ttft": 622, "llm_itl": 23615, "llm_e2e": 622, "llm_tpot": 622, "llm_requests_failed": 642, "iterations": 642},
			failures: 20,
		},
		{file: "k6v2_killed.json.gz", start: "2026-11-29T14:50:50.016068177Z", damaged: true,
			counts: map[string]int{"llm_ttft": 443, "llm_requests_failed": 460}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			counts := map[string]int{}
			kinds := map[string]int{}
			failures := 0
			s := &Scanner{OnPoint: func(p *Point) error {
				counts[p.Metric]++
				if p.Metric == "llm_requests_failed" && p.Value != 0 {
					failures++
					k, _ := p.Tags.Get("error")
					kinds[k]++
				}
				if strings.HasPrefix(p.Metric, "llm_") {
					for _, key := range []string{"model", "api", "scenario"} {
						if _, ok := p.Tags.Get(key); !ok {
							t.Fatalf("line %d: %s point without tag %q: %s", p.Line, p.Metric, key, p.Tags)
						}
					}
				}
				if p.Elapsed < -time.Second || p.Elapsed > 5*time.Minute {
					t.Fatalf("line %d: implausible elapsed %v", p.Line, p.Elapsed)
				}
				return nil
			}}
			st, err := s.ScanFile(fixtures+tc.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Start.Format(time.RFC3339Nano); got != tc.start {
				t.Errorf("start %s, want %s", got, tc.start)
			}
			for m, n := range tc.counts {
				if counts[m] != n {
					t.Errorf("%s: %d points, want %d", m, counts[m], n)
				}
			}
			if tc.kinds != nil {
				if failures != tc.failures {
					t.Errorf("failures %d, want %d", failures, tc.failures)
				}
				for k, n := range tc.kinds {
					if kinds[k] != n {
						t.Errorf("error kind %s: %d, want %d (all: %v)", k, kinds[k], n, kinds)
					}
				}
			}
			if (st.Damage != "") != tc.damaged {
				t.Errorf("damage %q, want damaged=%v", st.Damage, tc.damaged)
			}
			if tc.damaged && (!strings.Contains(st.Damage, "cut short") || !strings.Contains(st.Damage, "last line 21751")) {
				t.Errorf("damage message %q does not say what was lost", st.Damage)
			}
		})
	}
}

func TestGzipAndPlainAndStdinAgree(t *testing.T) {
	t.Parallel()
	data := gunzip(t, fixtures+"k6v1_llm_synthetic.json.gz")
	plain := filepath.Join(t.TempDir(), "plain.json")
	if err := os.WriteFile(plain, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var sums []float64
	for _, in := range []struct {
		path  string
		stdin io.Reader
	}{
		{fixtures + "k6v1_llm_synthetic.json.gz", nil},
		{plain, nil},
		{"-", bytes.NewReader(data)},
		{"-", mustOpen(t, fixtures+"k6v1_llm_synthetic.json.gz")},
	} {
		sum := 0.0
		s := &Scanner{Keep: func(m string) bool { return m == "llm_ttft" }, OnPoint: func(p *Point) error {
			if p.Metric != "llm_ttft" {
				t.Fatalf("kept %s", p.Metric)
			}
			sum += p.Value
			return nil
		}}
		st, err := s.ScanFile(in.path, in.stdin)
		if err != nil || st.Kept != 622 || st.Points != 29335 {
			t.Fatalf("%s: kept %d of %d points, err %v", in.path, st.Kept, st.Points, err)
		}
		sums = append(sums, sum)
	}
	for _, s := range sums[1:] {
		if s != sums[0] {
			t.Fatalf("sums differ: %v", sums)
		}
	}
	// k6's own average, from its summary export.
	if avg := sums[0] / 622; math.Abs(avg-600.115592865484)/600.115592865484 > 1e-12 {
		t.Errorf("avg %v", avg)
	}
}

func mustOpen(t *testing.T, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

const (
	declLine = `{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time","thresholds":["p(99)<2000",{"threshold":"p(90)<900","abortOnFail":true}],"submetrics":[{"name":"llm_ttft{model:b}","suffix":"model:b","tags":{"model":"b"}}]},"metric":"llm_ttft"}`
	pointA   = `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:05.5Z","value":10.5,"tags":{"model":"a","api":"x"}}}`
	pointB   = `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:06Z","value":20,"tags":{"api":"x","model":"a"}}}`
)

func TestCorruptMiddleLine(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{declLine, pointA, `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03`, pointB, `not json`, pointB, ""}, "\n")
	_, _, err := scanAll(t, &Scanner{}, strings.NewReader(in), "run.json")
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || le.Input != "run.json" || !strings.HasPrefix(err.Error(), "run.json:3: ") {
		t.Fatalf("want a LineError at run.json:3, got %v", err)
	}

	got, st, err := scanAll(t, &Scanner{Lenient: true}, strings.NewReader(in), "run.json")
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 2 || len(st.SkippedLines) != 2 || st.SkippedLines[0] != 3 || st.SkippedLines[1] != 5 || len(got.points) != 3 {
		t.Fatalf("lenient: skipped %d %v, %d points", st.Skipped, st.SkippedLines, len(got.points))
	}
	if st.Damage != "" {
		t.Errorf("unexpected damage %q", st.Damage)
	}
}

func TestLastLine(t *testing.T) {
	t.Parallel()
	// A whole last line without a newline is kept.
	got, st, err := scanAll(t, &Scanner{}, strings.NewReader(pointA+"\n"+pointB), "x")
	if err != nil || len(got.points) != 2 || st.Damage != "" {
		t.Fatalf("whole last line: %d points, damage %q, err %v", len(got.points), st.Damage, err)
	}
	// A partial last line is damage, not an error; the lines before are kept.
	got, st, err = scanAll(t, &Scanner{}, strings.NewReader(pointA+"\n"+pointB[:40]), "x")
	if err != nil || len(got.points) != 1 || !strings.Contains(st.Damage, "last line 2 is incomplete") {
		t.Fatalf("partial last line: %d points, damage %q, err %v", len(got.points), st.Damage, err)
	}
	// CRLF line ends and blank lines.
	got, _, err = scanAll(t, &Scanner{}, strings.NewReader(pointA+"\r\n\r\n  \n"+pointB+"\r\n"), "x")
	if err != nil || len(got.points) != 2 {
		t.Fatalf("CRLF: %d points, err %v", len(got.points), err)
	}
}

func TestCutGzip(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for i := 0; i < 2000; i++ {
		io.WriteString(zw, pointA+"\n")
	}
	zw.Close()
	cut := b.Bytes()[:b.Len()*2/3]
	zr, err := gzip.NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := scanAll(t, &Scanner{}, zr, "cut.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.points) == 0 || len(got.points) >= 2000 || !strings.Contains(st.Damage, "cut short") {
		t.Fatalf("%d points, damage %q", len(got.points), st.Damage)
	}
}

func TestTagsInterned(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{pointA, pointB, pointA,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:06Z","value":1,"tags":null}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:06Z","value":1}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:06Z","value":1,"tags":{"model":"a","api":"x","n":null,"num":12}}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:06Z","value":1,"tags":{"model":"\u0061","api":"x"}}}`,
	}, "\n")
	s := &Scanner{}
	got, _, err := scanAll(t, s, strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	p := got.points
	if p[0].Tags != p[1].Tags || p[0].Tags != p[2].Tags || p[0].Tags != p[6].Tags {
		t.Errorf("same tags in another order or spelling are not one set: %s %s %s", p[0].Tags, p[1].Tags, p[6].Tags)
	}
	if p[3].Tags.Len() != 0 || p[4].Tags.Len() != 0 || p[3].Tags.ID() != 0 || p[3].Tags != p[4].Tags {
		t.Errorf("null or missing tags are not the empty set: %s %s", p[3].Tags, p[4].Tags)
	}
	if got := p[5].Tags.String(); got != "{api:x,model:a,num:12}" {
		t.Errorf("tags with null and number: %s", got)
	}
	if v, ok := p[0].Tags.Get("model"); !ok || v != "a" || p[0].Tags.ID() != 1 || len(s.TagSets()) != 3 {
		t.Errorf("Get/ID/TagSets: %q %v id %d, %d sets", v, ok, p[0].Tags.ID(), len(s.TagSets()))
	}
	if !p[0].Tags.Contains([]Tag{{"model", "a"}}) || p[0].Tags.Contains([]Tag{{"model", "b"}}) || p[0].Tags.Contains([]Tag{{"error", ""}}) {
		t.Error("Contains")
	}
	if p[0].Elapsed != 0 || p[1].Elapsed != 500*time.Millisecond {
		t.Errorf("elapsed %v %v", p[0].Elapsed, p[1].Elapsed)
	}
}

func TestMetricDeclaration(t *testing.T) {
	t.Parallel()
	got, st, err := scanAll(t, &Scanner{}, strings.NewReader(declLine+"\n"+`{"type":"Metric","data":{"name":"x","contains":"bits"},"metric":"x"}`+"\n"), "x")
	if err != nil || st.Decls != 2 {
		t.Fatal(err, st.Decls)
	}
	m := got.decls[0]
	if m.Name != "llm_ttft" || m.Type != Trend || m.Contains != Time || m.Contains.Unit() != "ms" ||
		strings.Join(m.Thresholds, ";") != "p(99)<2000;p(90)<900" || len(m.Submetrics) != 1 ||
		m.Submetrics[0].Name != "llm_ttft{model:b}" || m.Submetrics[0].Tags[0] != (Tag{"model", "b"}) {
		t.Errorf("declaration %+v", m)
	}
	if x := got.decls[1]; x.Type != TypeUnknown || x.Contains != Default {
		t.Errorf("a missing type and an unknown value type are tolerated (an unknown type is not: TestUnknownMetricType): %+v", x)
	}
}

func TestKeepSkipsOtherMetricsButChecksThem(t *testing.T) {
	t.Parallel()
	skipped := `{"metric":"vus","type":"Point","data":{"time":"garbage","value":"x","tags":{"a":1}}}`
	s := &Scanner{Keep: func(m string) bool { return m == "llm_ttft" }}
	got, st, err := scanAll(t, s, strings.NewReader(skipped+"\n"+pointA+"\n"+`{"metric":"vus","type":"Point","data":{"time":`+"\n"+pointB+"\n"), "x")
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("bad JSON in a skipped metric must still be reported: %v", err)
	}
	if len(got.points) != 1 || st.Points != 2 {
		t.Fatalf("%d kept, %d points", len(got.points), st.Points)
	}
}

func TestUnknownKeysAndTypes(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"type":"Metadata","data":{"k6":"v2"}}`,
		`{"note":"no type"}`,
		`{"metric":"llm_ttft","type":"Point","extra":[1,{"a":null}],"data":{"metadata":{"trace_id":"abc"},"time":"2026-01-02T03:04:05Z","value":1e2,"tags":{}}}`,
		`{"data":{"value":-0.5,"time":"2026-01-02T00:04:05-03:00","tags":{"a":"b"}},"type":"Point","metric":"llm_ttft"}`,
	}, "\n")
	got, st, err := scanAll(t, &Scanner{}, strings.NewReader(in), "x")
	if err != nil || st.Other != 2 || len(got.points) != 2 {
		t.Fatalf("err %v, other %d, points %d", err, st.Other, len(got.points))
	}
	if got.points[0].Value != 100 || got.points[1].Value != -0.5 || !got.points[1].Time.Equal(got.points[0].Time) {
		t.Errorf("points %+v", got.points)
	}
}

func TestBadLines(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`[1,2]`,
		`null`,
		`{"type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1}}`,
		`{"metric":"m","type":"Point"}`,
		`{"metric":"m","type":"Point","data":{"value":1}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z"}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":null}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":"1"}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-13-02T03:04:05Z","value":1}}`,
		`{"metric":"m","type":"Point","data":{"time":"0001-01-02T03:04:05Z","value":1}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1e999}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1,"tags":[]}}`,
		`{"metric":"m","type":7}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1}} x`,
	} {
		_, _, err := scanAll(t, &Scanner{}, strings.NewReader(line+"\n"+pointA+"\n"), "bad.json")
		var le *LineError
		if !errors.As(err, &le) || le.Line != 1 {
			t.Errorf("%s: want an error at line 1, got %v", line, err)
		}
	}
}

func TestLongLine(t *testing.T) {
	t.Parallel()
	long := `{"type":"Other","data":"` + strings.Repeat("x", 3<<20) + `"}`
	got, _, err := scanAll(t, &Scanner{}, strings.NewReader(long+"\n"+pointA+"\n"), "x")
	if err != nil || len(got.points) != 1 {
		t.Fatalf("a 3 MiB line: %v", err)
	}
	_, _, err = scanAll(t, &Scanner{MaxLineBytes: 1 << 20}, strings.NewReader(long+"\n"+pointA+"\n"), "x")
	if err == nil || !strings.Contains(err.Error(), "x:1: line longer than") {
		t.Fatalf("want a line-too-long error, got %v", err)
	}
}

func TestCallbackErrorStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("enough")
	n := 0
	s := &Scanner{OnPoint: func(*Point) error { n++; return stop }}
	if _, err := s.Scan(strings.NewReader(pointA+"\n"+pointB+"\n"), "x"); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d points", err, n)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	if _, err := (&Scanner{}).ScanFile(filepath.Join(t.TempDir(), "missing.json"), nil); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := (&Scanner{}).ScanFile(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.gz")
	os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 0}, 0o600)
	if _, err := (&Scanner{}).ScanFile(bad, nil); err == nil || !strings.Contains(err.Error(), "bad.gz") {
		t.Errorf("bad gzip: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.json")
	os.WriteFile(empty, nil, 0o600)
	if st, err := (&Scanner{}).ScanFile(empty, nil); err != nil || st.Lines != 0 {
		t.Errorf("empty file: %v %+v", err, st)
	}
}
