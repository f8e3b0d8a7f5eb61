package k6json

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// genK6 writes about size bytes of NDJSON shaped like k6's --out json of an LLM
// load test (the same metrics, tags and proportions as the fixtures), from a
// seed. It returns the number of llm_itl points written.
func genK6(w io.Writer, size int64, seed uint64) (itl int64, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	models := []string{"model-a", "model-b", "gpt-4o"}
	scenarios := []string{"ramp", "arrival"}
	kinds := []string{"http_429", "timeout", "reset_midstream"}
	decl := func(name, typ, contains string) {
		fmt.Fprintf(bw, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q,"thresholds":[],"submetrics":null},"metric":%q}`+"\n", name, typ, contains, name)
	}
	for _, d := range [][3]string{{"llm_requests_failed", "rate", "default"}, {"llm_itl", "trend", "time"}, {"llm_ttft", "trend", "time"},
		{"llm_tpot", "trend", "time"}, {"llm_e2e", "trend", "time"}, {"llm_output_tokens", "counter", "default"},
		{"iteration_duration", "trend", "time"}, {"iterations", "counter", "default"}} {
		decl(d[0], d[1], d[2])
	}
	t := time.Date(2026, 11, 29, 14, 50, 27, 0, time.UTC)
	var written int64
	var num []byte
	point := func(metric string, v float64, tags string) {
		t = t.Add(time.Duration(1 + rng.IntN(20000)))
		num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
		n, _ := fmt.Fprintf(bw, `{"metric":"%s","type":"Point","data":{"time":"%s","value":%s,"tags":%s}}`+"\n",
			metric, t.Format(time.RFC3339Nano), num, tags)
		written += int64(n)
	}
	logn := func(mu, sigma float64) float64 { return math.Exp(mu + sigma*rng.NormFloat64()) }
	for written < size {
		model := models[rng.IntN(len(models))]
		sc := scenarios[rng.IntN(len(scenarios))]
		tags := fmt.Sprintf(`{"api":"openai-chat","group":"","model":"%s","scenario":"%s"}`, model, sc)
		if rng.Float64() < 0.03 {
			failTags := fmt.Sprintf(`{"api":"openai-chat","error":"%s","group":"","model":"%s","scenario":"%s"}`, kinds[rng.IntN(3)], model, sc)
			point("llm_requests_failed", 1, failTags)
		} else {
			point("llm_requests_failed", 0, tags)
			n := 10 + rng.IntN(60)
			for i := 0; i < n; i++ {
				v := logn(2.7, 0.4)
				if rng.Float64() < 0.001 {
					v += 250
				}
				point("llm_itl", v, tags)
				itl++
			}
			point("llm_ttft", logn(6.2, 0.6), tags)
			point("llm_tpot", logn(2.8, 0.2), tags)
			point("llm_e2e", logn(7.1, 0.4), tags)
			point("llm_output_tokens", float64(n+1), tags)
		}
		it := fmt.Sprintf(`{"group":"","scenario":"%s"}`, sc)
		point("iteration_duration", 50+rng.Float64()*5, it)
		point("iterations", 1, it)
	}
	return itl, bw.Flush()
}
