package moduletest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
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

// metricNameQuote finds a quoted llm_ name in JavaScript: 'llm_…', "llm_…"
// or `llm_…`.
var metricNameQuote = regexp.MustCompile("['\"`]llm_")

// namesFile is the one file of the module that writes metric names (and the
// metadata keys); every other file takes them from it.
const namesFile = "lib/names.js"

// jsNameLiterals lists, per file of the module under dir other than
// namesFile, the lines that quote an llm_ name.
func jsNameLiterals(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".js") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if filepath.ToSlash(rel) == namesFile {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if metricNameQuote.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), i+1, strings.TrimSpace(line)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOneJSFileNamesMetrics: no file of the module but lib/names.js quotes
// an llm_ name, so that TestModuleMetricsAreGos, which compares names.js's
// lists with metrics.Builtin, covers every name the module uses.
func TestOneJSFileNamesMetrics(t *testing.T) {
	t.Parallel()
	const dir = "../../../xk6-llmstream/js"
	if _, err := os.Stat(filepath.Join(dir, namesFile)); err != nil {
		t.Fatal(err)
	}
	for _, l := range jsNameLiterals(t, dir) {
		t.Errorf("%s: an llm_ name outside %s; import it from there", l, namesFile)
	}
	// The check fails on an injected literal.
	tmp := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tmp, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		namesFile:        "export const M = { ttft: 'llm_ttft' };\n",
		"lib/options.js": "const x = 1;\nconst S = { ttft: `llm_ttft` };\n",
	} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := jsNameLiterals(t, tmp); len(got) != 1 || !strings.HasPrefix(got[0], "lib/options.js:2:") {
		t.Errorf("injected literal: got %q, want lib/options.js:2", got)
	}
}
