package moduletest

import (
	"encoding/json"
	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// TestModuleMetricsAreGos: the module's metric names, types and time flags
// are metrics.Builtin's, the one list (the module's copy is checked here, as
// are its metadata keys and its endpoint paths against internal/endpoints).
func TestModuleMetricsAreGos(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', slo: { ttft: '1s', deadline: { ttft: '1s', perToken: '50ms' } } });
export default function () {
  const names = Object.values(llmstream.METRICS).concat(Object.values(llmstream.WORKLOAD_METRICS), Object.values(llmstream.CALL_METRICS));
  console.log('NAMES ' + JSON.stringify(names));
  console.log('META ' + JSON.stringify([llmstream.REQUEST_ID_METADATA, llmstream.ENTRY_ID_METADATA]));
  console.log('APIS ' + JSON.stringify(llmstream.APIS));
  console.log('CALLS ' + JSON.stringify(llmstream.CALL_APIS));
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	var names, meta []string
	var apis, calls map[string]string
	for _, line := range res.Console {
		if _, s, ok := strings.Cut(line, "CALLS "); ok {
			_ = json.Unmarshal([]byte(s), &calls)
		}
		if _, s, ok := strings.Cut(line, "NAMES "); ok {
			_ = json.Unmarshal([]byte(s), &names)
		}
		if _, s, ok := strings.Cut(line, "META "); ok {
			_ = json.Unmarshal([]byte(s), &meta)
		}
		if _, s, ok := strings.Cut(line, "APIS "); ok {
			_ = json.Unmarshal([]byte(s), &apis)
		}
	}
	var want []string
	for _, m := range metrics.Builtin {
		want = append(want, m.Name)
		got, ok := res.Metrics[m.Name]
		if !ok {
			t.Errorf("the module does not declare %s", m.Name)
			continue
		}
		if string(got.Type) != string(m.Type) || got.IsTime != m.Time {
			t.Errorf("the module declares %s as %+v, metrics.Builtin as %+v", m.Name, got, m)
		}
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("the module's METRICS and WORKLOAD_METRICS %v, metrics.Builtin %v", names, want)
	}
	if !slices.Equal(meta, []string{metrics.RequestIDMetadata, metrics.EntryIDMetadata}) {
		t.Errorf("the module's metadata keys %v", meta)
	}
	// The module's default endpoint paths are internal/endpoints', the one list.
	want2 := map[string]string{}
	for _, e := range endpoints.Generation {
		want2[e.Dialect] = e.Path
	}
	if !reflect.DeepEqual(apis, want2) {
		t.Errorf("the module's APIS %v, internal/endpoints %v", apis, want2)
	}
	// Each call API's default path is one of internal/endpoints.Calls'.
	for api, path := range calls {
		if !slices.ContainsFunc(endpoints.Calls, func(c endpoints.Call) bool { return c.Dialect == api && c.Path == path }) {
			t.Errorf("the module's CALL_APIS %s %s is not in internal/endpoints.Calls", api, path)
		}
	}
	if len(calls) == 0 {
		t.Error("the module has no CALL_APIS")
	}
}

// TestHopFailureSamplesAreGos: a request the helper never answered gets the
// samples metrics.FromRecord makes of a record with only an error (the
// module's one copy of them, failureSamples, held to Go's).
func TestHopFailureSamplesAreGos(t *testing.T) {
	t.Parallel()
	for _, itl := range []string{"'all'", "'off'"} {
		path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', itl: `+itl+`, slo: { ttft: '1s' }, prices: { input: 1, output: 2 } });
export default function () { llm.chat('x'); }
`)
		res := run(t, path, map[string]string{"LLMSTREAM_HELPER": "http://127.0.0.1:1"}, k6sim.Config{}, false)
		o := &metrics.Options{ITL: metrics.ITLAll, SLO: &metrics.SLO{Limits: []metrics.Limit{{Metric: metrics.TTFT, Op: "<=", Value: 1000}}},
			Prices: &metrics.Prices{Input: 1, Output: 2, CachedInput: 1}}
		if itl == "'off'" {
			o.ITL = metrics.ITLOff
		}
		want := map[string][]float64{}
		for _, s := range metrics.FromRecord(&records.Record{Error: &records.Error{Kind: "helper"}}, o) {
			want[s.Metric] = s.Values
		}
		got := map[string][]float64{}
		for _, s := range res.Samples {
			if strings.HasPrefix(s.Metric, "llm_") {
				got[s.Metric] = append(got[s.Metric], s.Value)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("itl %s: the module's samples of an unanswered request %v, metrics.FromRecord's %v", itl, got, want)
		}
	}
}
