package moduletest

import (
	"context"
	"encoding/pem"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/internal/version"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/js"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// importScript streams one request per iteration through the module imported
// from spec and prints what it got.
const importScript = `import { check } from 'k6';
import { Client, Session, VERSION } from 'SPEC';
const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: 'imp', slo: { ttft: '10s' } });
const session = new Session(llm);
export const options = { scenarios: { imp: { executor: 'shared-iterations', vus: 2, iterations: 3 } } };
export default function () {
  const r = session.chat('Explain TTFT in one sentence.');
  check(r, { ok: (x) => x.ok });
  console.log('IMPORTED ' + JSON.stringify({ ok: r.ok, version: VERSION, tokens: r.outputTokens, turnSet: r.turn >= 1 }));
}
`

// writeImportScript writes importScript importing spec into a new folder.
func writeImportScript(t *testing.T, spec func(dir string) string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "import.js")
	if err := os.WriteFile(p, []byte(strings.Replace(importScript, "SPEC", spec(dir), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// relativeSpec is the module's path relative to dir, as a script there imports it.
func relativeSpec(t *testing.T) func(string) string {
	return func(dir string) string {
		rel, err := filepath.Rel(dir, modulePath)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		return rel
	}
}

func fileURLSpec(string) string { return "file://" + filepath.ToSlash(modulePath) }

// moduleServer serves xk6-llmstream/js/ (the entry and lib/) and records what was fetched.
type moduleServer struct {
	files http.Handler
	mu    sync.Mutex
	paths []string
}

func newModuleServer() *moduleServer {
	return &moduleServer{files: http.FileServer(http.Dir(filepath.Dir(modulePath)))}
}

func (s *moduleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	s.files.ServeHTTP(w, r)
}

// checkFetchedModule holds what s served to the module's files: each file of
// js.Module's entry and lib/, fetched once (per process: k6 and k6sim cache).
func (s *moduleServer) checkFetchedModule(t *testing.T) {
	t.Helper()
	var want []string
	err := fs.WalkDir(js.Module, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".js") {
			want = append(want, "/"+p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	got := append([]string(nil), s.paths...)
	s.mu.Unlock()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the server was asked for %v, want each module file once: %v", got, want)
	}
}

// checkImported holds the printed results: every iteration streamed, with
// the module's VERSION.
func checkImported(t *testing.T, lines []string, iterations int) {
	t.Helper()
	n := 0
	for _, l := range lines {
		i := strings.Index(l, "IMPORTED ")
		if i < 0 {
			continue
		}
		n++
		want := `{"ok":true,"version":"` + version.Version + `","tokens":8,"turnSet":true}`
		if got := strings.ReplaceAll(l[i+len("IMPORTED "):], `\"`, `"`); !strings.HasPrefix(got, want) {
			t.Errorf("printed %s, want %s", got, want)
		}
	}
	if n != iterations {
		t.Errorf("%d results printed, want %d: %q", n, iterations, lines)
	}
}

// TestModuleImportsUnderK6Sim runs a script that imports the module by
// relative path, by file:// URL and by http:// URL (xk6-llmstream/js/ served on 127.0.0.1)
// under k6sim, against the real helper and mock: the entry's relative imports
// of lib/ resolve from wherever the entry was loaded.
func TestModuleImportsUnderK6Sim(t *testing.T) {
	t.Parallel()
	mockURL := startMock(t, mockllm.Config{Seed: 3, Default: fixedModel(time.Millisecond, time.Millisecond, 8)})
	hs := startHelper(t)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}
	srv := newModuleServer()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	for _, c := range []struct {
		name string
		spec func(string) string
	}{
		{"path", relativeSpec(t)},
		{"file URL", fileURLSpec},
		{"http URL", func(string) string { return ts.URL + "/llmstream.js" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, writeImportScript(t, c.spec), env, k6sim.Config{VUs: 2, Iterations: 3}, false)
			checkImported(t, res.Console, 3)
			if n := len(res.Of("llm_ttft")); n != 3 {
				t.Errorf("%d llm_ttft samples, want 3", n)
			}
			if n := len(res.Of("llm_slo_met")); n != 3 {
				t.Errorf("%d llm_slo_met samples, want 3", n)
			}
		})
	}
	srv.checkFetchedModule(t)
}

// TestModuleImportsWithRealK6 runs the same script with real k6 importing the
// module by relative path, by file:// URL and by https:// URL from a TLS test
// server on 127.0.0.1, whose certificate k6 trusts through SSL_CERT_FILE (k6
// is a Go program: Go reads extra roots from it on Linux). k6 v2 refuses
// http:// imports; a subtest holds that, so the docs' advice stays true.
func TestModuleImportsWithRealK6(t *testing.T) {
	k6 := findK6(t)
	t.Parallel()
	mockURL := startMock(t, mockllm.Config{Seed: 3, Default: fixedModel(time.Millisecond, time.Millisecond, 8)})
	hs := startHelper(t)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}

	srv := newModuleServer()
	tlsTS := httptest.NewTLSServer(srv)
	t.Cleanup(tlsTS.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsTS.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	tlsEnv := map[string]string{"SSL_CERT_FILE": ca}
	for k, v := range env {
		tlsEnv[k] = v
	}
	for _, c := range []struct {
		name string
		spec func(string) string
		env  map[string]string
	}{
		{"path", relativeSpec(t), env},
		{"file URL", fileURLSpec, env},
		{"https URL", func(string) string { return tlsTS.URL + "/llmstream.js" }, tlsEnv},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			output := runRealK6(t, k6, writeImportScript(t, c.spec), c.env, out)
			if strings.Contains(output, testKey) {
				t.Error("the API key appears in k6's output")
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, p := range readPoints(t, raw) {
				counts[p.Metric]++
			}
			if counts["llm_ttft"] != 3 || counts["llm_slo_met"] != 3 {
				t.Errorf("samples %v, want 3 llm_ttft and 3 llm_slo_met", counts)
			}
		})
	}
	srv.checkFetchedModule(t)

	t.Run("http URL refused by k6", func(t *testing.T) {
		plain := httptest.NewServer(newModuleServer())
		t.Cleanup(plain.Close)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, k6, "run", "--quiet", "--no-usage-report",
			writeImportScript(t, func(string) string { return plain.URL + "/llmstream.js" }))
		cmd.Env = os.Environ()
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		output := string(out)
		if err == nil || !strings.Contains(output, "only supported schemes for imports are file and https") {
			t.Errorf("k6 importing over http://: %v, want a refusal naming the schemes:\n%s", err, output)
		}
	})
}
