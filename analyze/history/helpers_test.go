package history

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// day0 is the start of the first simulated nightly run.
var day0 = time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)

// mockRun is one simulated run of a scheduled test, written as k6 --out json:
// n requests whose llm_ttft is lognormal (median medianMs, shape sigma),
// scaled by scale, and a failed share of requests in llm_requests_failed.
type mockRun struct {
	seed     uint64
	day      int
	n        int
	medianMs float64
	sigma    float64
	scale    float64
	failRate float64
	models   []string // tag model round robin; nil: no tag
}

func (m mockRun) k6JSON() []byte {
	r := rand.New(rand.NewPCG(m.seed, uint64(m.day)+1))
	var b bytes.Buffer
	b.WriteString(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}` + "\n")
	b.WriteString(`{"type":"Metric","data":{"name":"llm_requests_failed","type":"rate","contains":"default"},"metric":"llm_requests_failed"}` + "\n")
	start := day0.Add(time.Duration(m.day) * 24 * time.Hour)
	buf := make([]byte, 0, 160)
	for i := 0; i < m.n; i++ {
		ts := start.Add(time.Duration(i) * 50 * time.Millisecond).Format(time.RFC3339Nano)
		tags := `{}`
		if len(m.models) > 0 {
			tags = `{"model":"` + m.models[i%len(m.models)] + `"}`
		}
		v := m.scale * m.medianMs * math.Exp(m.sigma*r.NormFloat64())
		buf = append(buf[:0], `{"metric":"llm_ttft","type":"Point","data":{"time":"`...)
		buf = append(buf, ts...)
		buf = append(buf, `","value":`...)
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		buf = append(buf, `,"tags":`...)
		buf = append(buf, tags...)
		buf = append(buf, "}}\n"...)
		b.Write(buf)
		if m.failRate == 0 {
			continue
		}
		failed := 0
		if r.Float64() < m.failRate {
			failed = 1
		}
		fmt.Fprintf(&b, `{"metric":"llm_requests_failed","type":"Point","data":{"time":"%s","value":%d,"tags":%s}}`+"\n", ts, failed, tags)
	}
	return b.Bytes()
}

// record reads the run through analyze's model and summary, as
// `analyze summary --history` does, and makes its record.
func (m mockRun) record(t testing.TB, label string) Record {
	t.Helper()
	sel := rundata.Selection{}
	if len(m.models) > 0 {
		sel.By = []string{"model"}
	}
	r := rundata.NewReader(sel, []rundata.Input{{Path: "-", Label: "run"}}, rundata.Options{Stdin: bytes.NewReader(m.k6JSON())})
	d, err := rundata.Collect(r, rundata.CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := FromSummary(result.Summarize(d, result.DefaultOptions()), label, r.Start(), d.Last())
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// historyOf makes a history file of records, as Read would return it.
func historyOf(recs []Record) *File {
	f := &File{Name: "history.jsonl", Records: recs}
	for i := range recs {
		f.Lines = append(f.Lines, int64(i+1))
	}
	return f
}

// regressions returns the verdicts that flag a regression.
func regressions(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.Status == Regression {
			out = append(out, v)
		}
	}
	return out
}
