package k6sim

import (
	"errors"
	"fmt"
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

// astCache parses each file once per run; every VU builds its own module
// records from the shared AST (a record belongs to one VU's resolver).
type astCache struct {
	mu sync.Mutex
	m  map[string]astEntry
}

type astEntry struct {
	prog *ast.Program
	err  error
}

func (c *astCache) get(path string) (*ast.Program, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]astEntry{}
	}
	if e, ok := c.m[path]; ok {
		return e.prog, e.err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		c.m[path] = astEntry{err: err}
		return nil, err
	}
	prog, err := sobek.Parse(path, string(src), parser.IsModule)
	if err != nil {
		err = fmt.Errorf("k6sim: parsing %s: %w", path, err)
	}
	c.m[path] = astEntry{prog: prog, err: err}
	return prog, err
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

// resolve is the VU's HostResolveImportedModuleFunc.
func (v *vu) resolve(referrer any, specifier string) (sobek.ModuleRecord, error) {
	if m, ok := v.natives[specifier]; ok {
		return m, nil
	}
	if specifier == "k6" || strings.HasPrefix(specifier, "k6/") {
		return nil, fmt.Errorf("k6sim: module %q is not simulated (the simulator provides %s)", specifier, strings.Join(supportedModules, ", "))
	}
	base := filepath.Dir(v.r.script)
	if rec, ok := referrer.(sobek.ModuleRecord); ok {
		if p, ok := v.paths[rec]; ok {
			base = filepath.Dir(p)
		}
	}
	path, err := resolvePath(base, specifier)
	if err != nil {
		return nil, err
	}
	if m, ok := v.mods[path]; ok {
		return m, nil
	}
	prog, err := v.r.asts.get(path)
	if err != nil {
		return nil, fmt.Errorf("k6sim: import %q: %w", specifier, err)
	}
	m, err := sobek.ModuleFromAST(prog, v.resolve)
	if err != nil {
		return nil, fmt.Errorf("k6sim: module %s: %w", path, err)
	}
	v.mods[path] = m
	v.paths[m] = path
	return m, nil
}

// resolvePath turns an import specifier into an absolute file path: relative
// ("./x.js", "../x.js") to the importing module's folder, absolute, or file://.
func resolvePath(base, specifier string) (string, error) {
	switch {
	case strings.HasPrefix(specifier, "file://"):
		u, err := url.Parse(specifier)
		if err != nil {
			return "", fmt.Errorf("k6sim: import %q: %w", specifier, err)
		}
		return filepath.Clean(u.Path), nil
	case strings.HasPrefix(specifier, "http://"), strings.HasPrefix(specifier, "https://"):
		return "", fmt.Errorf("k6sim: import %q: remote modules are not loaded by the simulator (no network in tests); import a local copy", specifier)
	case strings.HasPrefix(specifier, "./"), strings.HasPrefix(specifier, "../"):
		return filepath.Join(base, filepath.FromSlash(specifier)), nil
	case filepath.IsAbs(specifier):
		return filepath.Clean(specifier), nil
	}
	return "", fmt.Errorf("k6sim: import %q: bare module names other than k6's are not supported; use a relative path, file:// or https:// URL", specifier)
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
