package k6sim

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/grafana/sobek"
	"github.com/grafana/sobek/ast"
	"github.com/grafana/sobek/parser"
)

// astCache parses each module once per run; every VU builds its own module
// records from the shared AST (a record belongs to one VU's resolver). A
// module is named by its location: an absolute file path or an http(s) URL.
type astCache struct {
	mu sync.Mutex
	m  map[string]astEntry
}

type astEntry struct {
	prog *ast.Program
	err  error
}

func (c *astCache) get(loc string, read func(string) ([]byte, error)) (*ast.Program, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]astEntry{}
	}
	if e, ok := c.m[loc]; ok {
		return e.prog, e.err
	}
	src, err := read(loc)
	if err != nil {
		c.m[loc] = astEntry{err: err}
		return nil, err
	}
	prog, err := sobek.Parse(loc, string(src), parser.IsModule)
	if err != nil {
		err = fmt.Errorf("k6sim: parsing %s: %w", loc, err)
	}
	c.m[loc] = astEntry{prog: prog, err: err}
	return prog, err
}

// maxModuleBytes bounds a module fetched over HTTP.
const maxModuleBytes = 16 << 20

// readModule reads a module's source: a file, or an http(s) URL fetched with
// Config.ModuleClient (resolveLocation has checked its host is a loopback IP).
func (r *run) readModule(loc string) ([]byte, error) {
	if !isRemote(loc) {
		return os.ReadFile(loc)
	}
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.moduleClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", loc, resp.StatusCode)
	}
	src, err := io.ReadAll(io.LimitReader(resp.Body, maxModuleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", loc, err)
	}
	if len(src) > maxModuleBytes {
		return nil, fmt.Errorf("GET %s: the module is larger than the simulator's limit of %d bytes", loc, maxModuleBytes)
	}
	return src, nil
}

// nativeModule is one of k6's built-in modules as a sobek module record. Its
// bindings are computed when read, so values like exec.vu stay current.
type nativeModule struct {
	name     string
	bindings map[string]func() sobek.Value
}

type nativeInstance struct{ m *nativeModule }

func (i *nativeInstance) GetBindingValue(name string) sobek.Value {
	if f, ok := i.m.bindings[name]; ok {
		return f()
	}
	return nil
}

func (m *nativeModule) names() []string {
	out := make([]string, 0, len(m.bindings))
	for k := range m.bindings {
		if k != "default" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return append(out, "default")
}

// GetExportedNames implements sobek.ModuleRecord.
func (m *nativeModule) GetExportedNames(cb func([]string), _ ...sobek.ModuleRecord) bool {
	cb(m.names())
	return true
}

// ResolveExport implements sobek.ModuleRecord.
func (m *nativeModule) ResolveExport(name string, _ ...sobek.ResolveSetElement) (*sobek.ResolvedBinding, bool) {
	if _, ok := m.bindings[name]; ok {
		return &sobek.ResolvedBinding{Module: m, BindingName: name}, false
	}
	return nil, false
}

// Link implements sobek.ModuleRecord.
func (m *nativeModule) Link() error { return nil }

// Evaluate implements sobek.ModuleRecord.
func (m *nativeModule) Evaluate(rt *sobek.Runtime) *sobek.Promise {
	p, resolve, _ := rt.NewPromise()
	_ = resolve(&nativeInstance{m: m})
	return p
}

// supportedModules lists the built-in modules the simulator provides.
var supportedModules = []string{"k6", "k6/data", "k6/execution", "k6/http", "k6/metrics"}

// resolve is the VU's HostResolveImportedModuleFunc. A specifier resolves
// against the location of the module that imports it (as k6 does), be it a
// file or an http(s) URL.
func (v *vu) resolve(referrer any, specifier string) (sobek.ModuleRecord, error) {
	if m, ok := v.natives[specifier]; ok {
		return m, nil
	}
	if specifier == "k6" || strings.HasPrefix(specifier, "k6/") {
		return nil, fmt.Errorf("k6sim: module %q is not simulated (the simulator provides %s)", specifier, strings.Join(supportedModules, ", "))
	}
	base := v.r.script
	if rec, ok := referrer.(sobek.ModuleRecord); ok {
		if p, ok := v.paths[rec]; ok {
			base = p
		}
	}
	loc, err := resolveLocation(base, specifier)
	if err != nil {
		return nil, err
	}
	if m, ok := v.mods[loc]; ok {
		return m, nil
	}
	prog, err := v.r.asts.get(loc, v.r.readModule)
	if err != nil {
		return nil, fmt.Errorf("k6sim: import %q: %w", specifier, err)
	}
	m, err := sobek.ModuleFromAST(prog, v.resolve)
	if err != nil {
		return nil, fmt.Errorf("k6sim: module %s: %w", loc, err)
	}
	v.mods[loc] = m
	v.paths[m] = loc
	return m, nil
}

// isRemote reports whether a module location is an http(s) URL.
func isRemote(loc string) bool {
	return strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
}

// resolveLocation turns an import specifier into a module location, from the
// location of the importing module (base): a relative specifier ("./x.js",
// "../x.js") or, from a URL, an absolute path resolves against base; an
// absolute path or a file:// URL is a file; an http(s) URL is itself.
//
// k6 v2 refuses http:// imports (only file and https); the simulator loads
// both, from a loopback IP address only, so tests make no DNS lookups and
// reach nothing beyond this machine.
func resolveLocation(base, specifier string) (string, error) {
	relative := strings.HasPrefix(specifier, "./") || strings.HasPrefix(specifier, "../")
	switch {
	case strings.HasPrefix(specifier, "file://"):
		u, err := url.Parse(specifier)
		if err != nil {
			return "", fmt.Errorf("k6sim: import %q: %w", specifier, err)
		}
		return filepath.Clean(filepath.FromSlash(u.Path)), nil
	case isRemote(specifier):
		return checkRemote(specifier, specifier)
	case isRemote(base) && (relative || strings.HasPrefix(specifier, "/")):
		b, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("k6sim: import %q from %s: %w", specifier, base, err)
		}
		ref, err := url.Parse(specifier)
		if err != nil {
			return "", fmt.Errorf("k6sim: import %q from %s: %w", specifier, base, err)
		}
		return checkRemote(specifier, b.ResolveReference(ref).String())
	case relative:
		return filepath.Join(filepath.Dir(base), filepath.FromSlash(specifier)), nil
	case filepath.IsAbs(specifier):
		return filepath.Clean(specifier), nil
	}
	return "", fmt.Errorf("k6sim: import %q: bare module names other than k6's are not supported; use a relative path, file:// or https:// URL", specifier)
}

// checkRemote returns the URL loc when its host is a loopback IP address.
func checkRemote(specifier, loc string) (string, error) {
	u, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("k6sim: import %q: %w", specifier, err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("k6sim: import %q: the simulator loads remote modules only from a loopback IP address such as 127.0.0.1 (no DNS lookups, no network beyond this machine in tests); import a local copy or serve it on 127.0.0.1", specifier)
	}
	return u.String(), nil
}

// load runs the main module's init context and keeps its exports.
func (v *vu) load() error {
	m, err := v.resolve(nil, v.r.script)
	if err != nil {
		return err
	}
	if err := m.Link(); err != nil {
		return fmt.Errorf("k6sim: linking %s: %w", v.r.script, err)
	}
	cm, ok := m.(sobek.CyclicModuleRecord)
	if !ok {
		return errors.New("k6sim: main script is not a source module")
	}
	var p *sobek.Promise
	err = v.guard(func() error {
		p = v.rt.CyclicModuleRecordEvaluate(cm, v.resolve)
		return nil
	})
	if err != nil {
		return fmt.Errorf("k6sim: init context of %s (VU %d): %w", v.r.script, v.id, err)
	}
	if err := v.drain(); err != nil {
		return fmt.Errorf("k6sim: init context of %s (VU %d): %w", v.r.script, v.id, err)
	}
	switch p.State() {
	case sobek.PromiseStateRejected:
		return fmt.Errorf("k6sim: init context of %s (VU %d): %s", v.r.script, v.id, describe(p.Result()))
	case sobek.PromiseStatePending:
		return fmt.Errorf("k6sim: init context of %s (VU %d) never finished (a top-level await that never settles)", v.r.script, v.id)
	}
	v.exports = v.rt.NamespaceObjectFor(m)
	return nil
}

// describe formats a thrown JS value with its stack when it has one.
func describe(val sobek.Value) string {
	if val == nil {
		return "undefined"
	}
	if ex, ok := val.Export().(error); ok {
		return ex.Error()
	}
	if o, ok := val.(*sobek.Object); ok {
		if st := o.Get("stack"); st != nil && !sobek.IsUndefined(st) && st.String() != "" {
			return st.String()
		}
	}
	return val.String()
}
