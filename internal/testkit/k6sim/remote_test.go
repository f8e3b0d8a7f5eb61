package k6sim

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// remoteTree is a module tree served over HTTP: the entry re-exports from a
// folder, which imports from its parent and by an absolute path, as the split
// llmstream.js does (every import relative to the importing module's URL).
var remoteTree = map[string]string{
	"mod/entry.js":     "export { A } from './lib/a.js';\nexport { WHERE } from './lib/where.js';\n",
	"mod/lib/a.js":     "import { B } from '../b.js';\nimport { C } from '/mod/c.js';\nexport const A = 'a' + B + C;\n",
	"mod/lib/where.js": "export const WHERE = import.meta.resolve('../data.json');\n",
	"mod/b.js":         "export const B = 'b';\n",
	"mod/c.js":         "export const C = 'c';\n",
}

// serveTree serves remoteTree and records the paths asked for.
type serveTree struct {
	mu    sync.Mutex
	paths []string
}

func (s *serveTree) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	src, ok := remoteTree[strings.TrimPrefix(r.URL.Path, "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript")
	_, _ = w.Write([]byte(src))
}

func (s *serveTree) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.paths...)
	sort.Strings(out)
	return out
}

// remoteScript writes a main script that imports spec and prints what it got.
func remoteScript(t *testing.T, spec string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "main.js")
	src := "import { A, WHERE } from '" + spec + "';\n" +
		"console.log('got ' + A + ' ' + WHERE);\nexport default function () {}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportFromHTTPURL loads a module tree from an http:// and an https://
// URL on 127.0.0.1: relative and absolute imports resolve against the
// importing module's URL, import.meta.resolve answers URLs, and each file is
// fetched once per run however many VUs load it.
func TestImportFromHTTPURL(t *testing.T) {
	t.Parallel()
	for _, tls := range []bool{false, true} {
		tree := &serveTree{}
		var ts *httptest.Server
		var client *http.Client
		if tls {
			ts = httptest.NewTLSServer(tree)
			client = ts.Client()
		} else {
			ts = httptest.NewServer(tree)
		}
		t.Cleanup(ts.Close)
		res := runScript(t, Config{Script: remoteScript(t, ts.URL+"/mod/entry.js"), VUs: 3, Iterations: 3, ModuleClient: client})
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		if got, want := consoleLine(res, "got "), "abc "+ts.URL+"/mod/data.json"; got != want {
			t.Errorf("tls=%v: printed %q, want %q", tls, got, want)
		}
		want := []string{"/mod/b.js", "/mod/c.js", "/mod/entry.js", "/mod/lib/a.js", "/mod/lib/where.js"}
		if got := tree.asked(); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("tls=%v: fetched %v, want each of %v once", tls, got, want)
		}
	}
}

// TestRemoteImportErrors: a missing file names its URL and status; a host
// that is not a loopback IP address is refused before any lookup or
// connection; a TLS server the client does not trust is an error.
func TestRemoteImportErrors(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(&serveTree{})
	t.Cleanup(ts.Close)
	tlsTS := httptest.NewUnstartedServer(&serveTree{})
	tlsTS.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	tlsTS.StartTLS()
	t.Cleanup(tlsTS.Close)
	for _, c := range []struct{ spec, want string }{
		{ts.URL + "/mod/none.js", ts.URL + "/mod/none.js: HTTP 404"},
		{"https://example.com/lib.js", `"https://example.com/lib.js": the simulator loads remote modules only from a loopback IP address`},
		{"http://localhost:1/lib.js", `"http://localhost:1/lib.js": the simulator loads remote modules only from a loopback IP address`},
		{"http://10.1.2.3/lib.js", "only from a loopback IP address"},
		{"ftp://127.0.0.1/lib.js", "bare module names other than k6's are not supported"},
		{tlsTS.URL + "/mod/entry.js", "certificate"},
	} {
		_, err := Run(context.Background(), Config{Script: remoteScript(t, c.spec)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import %s: error %v, want it to contain %q", c.spec, err, c.want)
		}
	}
}
