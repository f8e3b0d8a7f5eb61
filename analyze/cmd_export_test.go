package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v2"
)

// llmdSchema compiles llm-d-benchmark's br_v0_2_json_schema.json (commit
// 8bc9f1dd, analyze/export/testdata/SOURCES.md).
func llmdSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile("export/testdata/br_v0_2_json_schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const loc = "mem:///br_v0_2_json_schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// llmdExample is br_v0_2_example.yaml as a generic document.
func llmdExample(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("export/testdata/br_v0_2_example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[any]any // yaml/v2: its concurrency .inf is no JSON number
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return stringKeys(doc).(map[string]any)
}

// stringKeys turns yaml/v2's maps into map[string]any, recursively.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[any]any:
		out := map[string]any{}
		for k, e := range x {
			out[fmt.Sprint(k)] = stringKeys(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = stringKeys(x[i])
		}
	}
	return v
}

// sameShape reports where got has a key the example has not, below the
// objects both have (an open object of the example — observability's ad-hoc
// entries, native config — is not followed).
func sameShape(t *testing.T, path string, got, want map[string]any) {
	t.Helper()
	open := map[string]bool{"results.observability": true, "scenario.load.native.config": true}
	for k, v := range got {
		w, ok := want[k]
		if !ok {
			t.Errorf("%s.%s: not in the example", path, k)
			continue
		}
		gm, ok1 := v.(map[string]any)
		wm, ok2 := w.(map[string]any)
		_, stats := wm["units"]
		_, seqLen := wm["distribution"]
		if stats || seqLen {
			continue // a Statistics or SequenceLength: any of its fields (the schema checks them)
		}
		if ok1 && ok2 && !open[strings.TrimPrefix(path+"."+k, ".")] {
			sameShape(t, path+"."+k, gm, wm)
		}
	}
}

// unitsOK applies schema_v0_2.py's unit validators (pydantic model
// validators, which the JSON schema does not carry) to the report's
// statistics.
func unitsOK(t *testing.T, rep map[string]any) {
	t.Helper()
	allowed := map[string][]string{
		"requests.input_length": {"count"}, "requests.output_length": {"count"},
		"latency.time_to_first_token": {"ms", "s"}, "latency.request_latency": {"ms", "s"},
		"latency.time_per_output_token": {"ms/token", "s/token"}, "latency.inter_token_latency": {"ms/token", "s/token"},
		"latency.normalized_time_per_output_token": {"ms/token", "s/token"},
		"throughput.input_token_rate":              {"tokens/s"}, "throughput.output_token_rate": {"tokens/s"},
		"throughput.total_token_rate": {"tokens/s"}, "throughput.request_rate": {"queries/s"},
	}
	agg := rep["results"].(map[string]any)["request_performance"].(map[string]any)["aggregate"].(map[string]any)
	for key, units := range allowed {
		sec, field, _ := strings.Cut(key, ".")
		st, ok := agg[sec].(map[string]any)[field].(map[string]any)
		if !ok {
			if sec == "latency" && field != "normalized_time_per_output_token" {
				t.Errorf("aggregate.%s: absent", key)
			}
			continue
		}
		if u, _ := st["units"].(string); !slices.Contains(units, u) {
			t.Errorf("aggregate.%s: units %q, want one of %v", key, u, units)
		}
	}
}

// TestExportLLMDReport is issue 37's bar for the export: analyze export
// --format llm-d-report of a records file, of k6's JSON, and of both, passes
// llm-d-benchmark's JSON schema of report v0.2 (every required field and
// type), its unit validators, and mirrors its example's structure (the same
// top-level keys, no key the example does not have); its TTFT p50 and
// request count are analyze summary's.
func TestExportLLMDReport(t *testing.T) {
	t.Parallel()
	sch := llmdSchema(t)
	example := llmdExample(t)
	const recs = "definitions/testdata/run.records.jsonl"
	for name, inputs := range map[string][]string{
		"records": {recs},
		"k6":      {"../testdata/k6/k6v2_llm_synthetic.json.gz"},
	} {
		args := append([]string{"export", "--format", "llm-d-report", "--description", "test run"}, inputs...)
		code, out, errOut := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: the report does not validate: %v", name, err)
		}
		// The schema is live: without run.uid, or with a unit it does not
		// know, the report fails it.
		for _, bad := range []string{
			strings.Replace(out, `"uid"`, `"id"`, 1),
			strings.Replace(out, `"units": "ms"`, `"units": "msec"`, 1),
		} {
			if bi, err := jsonschema.UnmarshalJSON(strings.NewReader(bad)); err != nil || sch.Validate(bi) == nil {
				t.Errorf("%s: a broken report validates (%v)", name, err)
			}
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		keys := func(m map[string]any) []string {
			var ks []string
			for k := range m {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			return ks
		}
		if !slices.Equal(keys(rep), keys(example)) {
			t.Errorf("%s: top-level keys %v, the example's %v", name, keys(rep), keys(example))
		}
		sameShape(t, "", rep, example)
		unitsOK(t, rep)

		// The numbers are analyze summary's.
		code, sumOut, errOut := run(t, nil, append([]string{"summary", "--format", "json", "--percentiles", "50"}, inputs...)...)
		if code != 0 {
			t.Fatalf("%s: summary exit %d: %s", name, code, errOut)
		}
		var sum struct {
			Metrics []struct {
				Name   string `json:"name"`
				Groups []struct {
					Percentiles []struct{ Value float64 } `json:"percentiles"`
				} `json:"groups"`
			} `json:"metrics"`
			Throughput []struct{ Requests float64 } `json:"throughput"`
		}
		if err := json.Unmarshal([]byte(sumOut), &sum); err != nil {
			t.Fatal(err)
		}
		agg := rep["results"].(map[string]any)["request_performance"].(map[string]any)["aggregate"].(map[string]any)
		for _, m := range sum.Metrics {
			if m.Name == "llm_ttft" {
				got := agg["latency"].(map[string]any)["time_to_first_token"].(map[string]any)["p50"].(float64)
				if want := m.Groups[0].Percentiles[0].Value; math.Abs(got-want) > 1e-9 {
					t.Errorf("%s: TTFT p50 %v ms, summary %v", name, got, want)
				}
			}
		}
		if got := agg["requests"].(map[string]any)["total"].(float64); len(sum.Throughput) != 1 || got != sum.Throughput[0].Requests {
			t.Errorf("%s: %v requests, summary %+v", name, got, sum.Throughput)
		}
	}
}

// TestExportNTPOTFromRecords: the report's NTPOT (inference-perf's e2e / N)
// is worked out from the records by hand: the successful requests of
// run.records.jsonl.
func TestExportNTPOTFromRecords(t *testing.T) {
	t.Parallel()
	recs := readRecords(t, "definitions/testdata/run.records.jsonl")
	var sum float64
	n := 0
	for _, r := range recs {
		if r.OK() && r.OutputTokens > 0 && !r.Warmup && !r.Unanswered {
			sum += float64(r.E2ENS) / 1e6 / float64(r.OutputTokens)
			n++
		}
	}
	code, out, errOut := run(t, nil, "export", "--format", "llm-d-report", "definitions/testdata/run.records.jsonl")
	if code != 0 || n == 0 {
		t.Fatalf("exit %d (%d requests): %s", code, n, errOut)
	}
	var rep struct {
		Results struct {
			RequestPerformance struct {
				Aggregate struct {
					Latency struct {
						NTPOT struct{ Mean float64 } `json:"normalized_time_per_output_token"`
					} `json:"latency"`
				} `json:"aggregate"`
			} `json:"request_performance"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Results.RequestPerformance.Aggregate.Latency.NTPOT.Mean; math.Abs(got-sum/float64(n)) > 1e-3 {
		t.Errorf("NTPOT mean %v ms/token, by hand %v", got, sum/float64(n))
	}
}

// TestExportRefusesBy: a report is one run; --by and an unknown --format
// are usage errors.
func TestExportRefusesBy(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"export", "--format", "llm-d-report", "--by", "model", "definitions/testdata/run.records.jsonl"},
		{"export", "--format", "guidellm", "definitions/testdata/run.records.jsonl"},
	} {
		if code, _, errOut := run(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}
