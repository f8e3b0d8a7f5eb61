package result_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// randomRecord is a request as the helper may record it: failed or not, any
// number of text events (0, 1, many), with or without reasoning, usage
// counts that may differ from the events, server-reported multi-token
// events.
func randomRecord(rng *rand.Rand, i int) *records.Record {
	ns := func(ms float64) *int64 { v := int64(ms * 1e6); return &v }
	r := &records.Record{V: records.Version, ID: fmt.Sprintf("p%06x-1-%d", rng.IntN(1<<24), i), API: "openai-chat",
		Model: "m", Status: 200, TokenSource: "usage", StartNS: 1764430000000000000 + int64(i)*1e6}
	events := []int{0, 1, 1, 2, 3, 8, 30}[rng.IntN(7)]
	if rng.IntN(8) == 0 {
		r.Error = &records.Error{Kind: []string{"http_5xx", "reset_midstream", "timeout"}[rng.IntN(3)]}
	}
	if events > 0 {
		r.TTFTNS = ns(20 + 400*rng.Float64())
		r.TextNS = []int64{*r.TTFTNS}
		for range events - 1 {
			gap := 5 + 40*rng.Float64()
			if rng.IntN(20) == 0 {
				gap = 600 + 2000*rng.Float64() // a stall
			}
			r.TextNS = append(r.TextNS, *ns(gap))
		}
		if rng.IntN(3) == 0 {
			r.TextTokens = make([]int, events)
			for j := range r.TextTokens {
				r.TextTokens[j] = 1 + rng.IntN(3)
			}
		}
		if rng.IntN(4) == 0 && events > 1 {
			r.TTFTAnswerNS = ns(float64(*r.TTFTNS)/1e6 + 50*rng.Float64())
		}
	} else if r.Error == nil {
		r.Error = &records.Error{Kind: "empty_output"}
	}
	var sum int64
	for _, g := range r.TextNS {
		sum += g
	}
	r.E2ENS = sum + int64(rng.IntN(5e6))
	r.OutputTokens = events
	if rng.IntN(5) == 0 {
		r.OutputTokens = events + rng.IntN(3) - 1 // usage that differs from the events
	}
	if r.OK() && r.OutputTokens >= 2 && r.TTFTNS != nil {
		r.TPOTNS = ns(float64(r.E2ENS-*r.TTFTNS) / 1e6 / float64(r.OutputTokens-1))
	}
	return r
}

// TestGoodputRuleIsOne: over random records, the llm_slo_met the helper hands
// the module (metrics.FromRecord with the Client's slo) and analyze's --slo
// verdict on the same request, read from k6 JSON made of the request's
// samples, agree on every request, for SLOs on every limit a Client can set.
func TestGoodputRuleIsOne(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 7))
	slos := []struct{ client, analyze string }{
		{"llm_ttft:250", "llm_ttft: p(99)<=250"},
		{"llm_tpot:20", "llm_tpot: p(99)<=20"},
		{"llm_ttft_answer:300", "llm_ttft_answer: p(99)<=300"},
		{"llm_e2e:800", "llm_e2e: p(99)<=800"},
		{"llm_itl_max:500", "llm_itl_max: p(99)<=500"},
		{"llm_ttft:300,llm_tpot:25,llm_itl_max:1000,llm_e2e:1500", "llm_ttft: p(99)<=300\nllm_tpot: p(99)<=25\nllm_itl_max: p(99)<=1000\nllm_e2e: p(99)<=1500"},
	}
	for _, sc := range slos {
		slo := &metrics.SLO{}
		for _, l := range strings.Split(sc.client, ",") {
			name, v, _ := strings.Cut(l, ":")
			var f float64
			fmt.Sscan(v, &f)
			slo.Limits = append(slo.Limits, metrics.Limit{Metric: name, Op: "<=", Value: f})
		}
		var recs []*records.Record
		module := map[string]bool{}
		var b strings.Builder
		for _, m := range metrics.Builtin {
			contains := "default"
			if m.Time {
				contains = "time"
			}
			fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q},"metric":%q}`+"\n", m.Name, m.Type, contains, m.Name)
		}
		for i := range 400 {
			rec := randomRecord(rng, i)
			recs = append(recs, rec)
			for _, s := range metrics.FromRecord(rec, &metrics.Options{SLO: slo}) {
				if s.Metric == metrics.SLOMet {
					module[rec.ID] = s.Values[0] == 1
				}
			}
			for _, s := range metrics.FromRecord(rec, &metrics.Options{}) {
				for _, v := range s.Values {
					fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":"2026-03-01T12:00:%02d.%06dZ","value":%v,"tags":{"model":"m"},"metadata":{"llm_request_id":%q}}}`+"\n",
						s.Metric, i/1000, i%1000*1000, v, rec.ID)
				}
			}
		}
		path := filepath.Join(t.TempDir(), "run.json")
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		var checks []thresholds.Check
		for _, line := range strings.Split(sc.analyze, "\n") {
			c, err := thresholds.Parse(line)
			if err != nil {
				t.Fatal(err)
			}
			checks = append(checks, c...)
		}
		r := rundata.NewReader(rundata.Selection{}, []rundata.Input{{Path: path, Label: "run"}}, rundata.Options{Metadata: true})
		rs := &result.SLOChecks{Checks: checks, TypeOf: func(m string) k6json.Type { typ, _, _ := r.TypeOf(m); return typ }}
		join := rundata.NewRequests(rs.Streams())
		if _, err := rundata.Collect(r, rundata.CollectOptions{Requests: join}); err != nil {
			t.Fatal(err)
		}
		if len(join.List) != len(recs) {
			t.Fatalf("%s: analyze joined %d requests, want %d", sc.client, len(join.List), len(recs))
		}
		good := 0
		for i := range join.List {
			q := &join.List[i]
			rec := recs[i]
			if got, want := rs.Met(join, q), module[rec.ID]; got != want {
				t.Errorf("%s: request %s (error %v, %d text events, %d tokens): analyze says met=%v, the module's llm_slo_met=%v",
					sc.client, rec.ID, rec.ErrorKind(), len(rec.TextNS), rec.OutputTokens, got, want)
			}
			if module[rec.ID] {
				good++
			}
		}
		if good == 0 || good == len(recs) {
			t.Errorf("%s: %d of %d requests met the SLO: the random requests do not exercise the rule", sc.client, good, len(recs))
		}
	}
}
