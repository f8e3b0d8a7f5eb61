package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeK6JSON writes a k6 --out json file with one Trend, llm_ttft, whose
// samples come from gen (called with the sample's index and time since the
// start), tagged model=a or model=b alternately, one every 10 ms, and the
// Rate llm_requests_failed with every 50th request failed.
func writeK6JSON(t *testing.T, path string, n int, gen func(i int, t time.Duration) float64) {
	t.Helper()
	k6Run{n: n, gen: gen, failEvery: 50}.write(t, path)
}

// k6Run describes a generated k6 --out json file: requests first … first+n−1,
// one every 10 ms from a fixed start, tagged model=a or model=b alternately.
type k6Run struct {
	first, n int
	// gen gives request i's llm_ttft at time at since the start.
	gen func(i int, at time.Duration) float64
	// failEvery: every failEvery-th request (i%failEvery == 0) fails with
	// error http_429 in llm_requests_failed.
	failEvery int
	// sloMs > 0 adds the Rate llm_slo_met: 1 when llm_ttft < sloMs.
	sloMs float64
}

func (k k6Run) write(t *testing.T, path string) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"llm_ttft"}` + "\n")
	b.WriteString(`{"type":"Metric","data":{"name":"llm_requests_failed","type":"rate","contains":"default","thresholds":[],"submetrics":null},"metric":"llm_requests_failed"}` + "\n")
	if k.sloMs > 0 {
		b.WriteString(`{"type":"Metric","data":{"name":"llm_slo_met","type":"rate","contains":"default","thresholds":[],"submetrics":null},"metric":"llm_slo_met"}` + "\n")
	}
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	for i := k.first; i < k.first+k.n; i++ {
		at := time.Duration(i) * 10 * time.Millisecond
		model := []string{"a", "b"}[i%2]
		ttft := k.gen(i, at)
		fmt.Fprintf(&b, `{"metric":"llm_ttft","type":"Point","data":{"time":%q,"value":%v,"tags":{"model":%q,"scenario":"s"}}}`+"\n",
			start.Add(at).Format(time.RFC3339Nano), ttft, model)
		failed, kind := 0, ""
		if k.failEvery > 0 && i%k.failEvery == 0 {
			failed, kind = 1, "http_429"
		}
		fmt.Fprintf(&b, `{"metric":"llm_requests_failed","type":"Point","data":{"time":%q,"value":%d,"tags":{"model":%q,"error":%q}}}`+"\n",
			start.Add(at).Format(time.RFC3339Nano), failed, model, kind)
		if k.sloMs > 0 {
			met := 0
			if ttft < k.sloMs {
				met = 1
			}
			fmt.Fprintf(&b, `{"metric":"llm_slo_met","type":"Point","data":{"time":%q,"value":%d,"tags":{"model":%q}}}`+"\n",
				start.Add(at).Format(time.RFC3339Nano), met, model)
		}
	}
	data := b.Bytes()
	if strings.HasSuffix(path, ".gz") {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		if _, err := zw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = z.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lognormalGen draws exp(mu + sigma·Z)·scale from a seeded source.
func lognormalGen(seed uint64, mu, sigma, scale float64) func(int, time.Duration) float64 {
	r := rand.New(rand.NewPCG(seed, 5))
	return func(int, time.Duration) float64 { return scale * math.Exp(mu+sigma*r.NormFloat64()) }
}

func TestPlotCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "run.json")
	writeK6JSON(t, in, 4000, lognormalGen(1, 6, 0.5, 1))

	out := filepath.Join(dir, "ttft.png")
	code, stdout, stderr := run(t, nil, "plot", in, "--by", "model", "--log", "--band", "--marks", "50,99", "--size", "800x500", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != 800 || sz.Y != 500 {
		t.Errorf("PNG is %v, want 800×500", sz)
	}
	for _, want := range []string{"wrote " + out, "llm_ttft (model=a): ", "llm_ttft (model=b): "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}

	// SVG, and the marks at the values the summary reports.
	svg := filepath.Join(dir, "ttft.svg")
	if code, _, stderr := run(t, nil, "plot", in, "--where", "model=a", "-o", svg); code != exitOK {
		t.Fatalf("svg: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := summaryJSON(t, "--where", "model=a", "--metric", "llm_ttft", in)
	for _, p := range s.Metrics[0].Groups[0].Percentiles {
		if p.P == 50 || p.P == 90 || p.P == 99 {
			label := fmt.Sprintf("P%g %s ms", p.P, fourDigits(p.Value))
			if !bytes.Contains(page, []byte(">"+label+"<")) {
				t.Errorf("the SVG has no label %q (summary's %s = %v)", label, p.Name, p.Value)
			}
		}
	}

	// Drift view.
	drift := filepath.Join(dir, "drift.png")
	code, stdout, stderr = run(t, nil, "plot", in, "--drift", "--window", "5s", "-o", drift)
	if code != exitOK {
		t.Fatalf("drift: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(drift); err != nil || !strings.Contains(stdout, "llm_ttft: no drift") {
		t.Errorf("drift: %v; stdout:\n%s", err, stdout)
	}
}

// fourDigits is the plot package's label format (four significant digits).
func fourDigits(v float64) string {
	dec := 0
	if a := math.Abs(v); a > 0 && a < 1000 {
		dec = 3 - int(math.Floor(math.Log10(a)))
	}
	return fmt.Sprintf("%.*f", dec, v)
}

func TestPlotCommandSeveralMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := run(t, nil, "plot", fixV2, "-o", filepath.Join(dir, "ecdf.svg"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, m := range []string{"llm_ttft", "llm_tpot", "llm_itl", "llm_e2e"} {
		p := filepath.Join(dir, "ecdf-"+m+".svg")
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		if !strings.Contains(stdout, "wrote "+p) {
			t.Errorf("stdout does not list %s", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ecdf-llm_requests_failed.svg")); err == nil {
		t.Error("a Rate was plotted as an ECDF")
	}
}

func TestPlotCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", fixV2}, "-o is required"},
		{[]string{"plot", fixV2, "-o", filepath.Join(dir, "x.pdf")}, "use a .png or .svg file name"},
		{[]string{"plot", fixV2, "-o", filepath.Join(dir, "x.png"), "--window", "10s"}, "add --drift"},
		{[]string{"plot", fixV2, "-o", filepath.Join(dir, "x.png"), "--size", "big"}, "--size \"big\""},
		{[]string{"plot", fixV2, "-o", filepath.Join(dir, "x.png"), "--marks", "101"}, "--marks: \"101\""},
		{[]string{"plot", fixV2, "-o", filepath.Join(dir, "x.png"), "--metric", "llm_requests_failed"}, "no Trend samples selected"},
		{[]string{"plot", fixV2, "-o", filepath.Join(dir, "x.png"), "--drift", "--window", "1ns"}, "use a wider one"},
		{[]string{"plot", "-o", filepath.Join(dir, "x.png")}, "no input"},
	} {
		code, _, stderr := run(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[1:], code, stderr, exitUsage, tc.want)
		}
	}
}
