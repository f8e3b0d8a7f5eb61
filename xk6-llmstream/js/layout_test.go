package js

import (
	"bytes"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
)

// The size limits of the module's files (issue 27): the entry only re-exports,
// and no file holds more than one concern's worth of code.
const (
	maxEntryLines  = 150
	maxModuleLines = 400
)

// moduleFiles are the module's JavaScript files in Module: the entry and lib/.
func moduleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := fs.WalkDir(Module, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".js") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func lineCount(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// TestModuleFileSizes fails when the entry llmstream.js exceeds 150 lines or
// any other file of the module exceeds 400.
func TestModuleFileSizes(t *testing.T) {
	files := moduleFiles(t)
	if len(files) < 2 {
		t.Fatalf("the module is %v: want the entry and lib/", files)
	}
	for _, f := range files {
		src, err := fs.ReadFile(Module, f)
		if err != nil {
			t.Fatal(err)
		}
		limit := maxModuleLines
		if f == "llmstream.js" {
			limit = maxEntryLines
		}
		if n := lineCount(src); n > limit {
			t.Errorf("xk6-llmstream/js/%s has %d lines, more than %d: split it by concern", f, n, limit)
		}
	}
}

// importRE finds the specifier of a static import or re-export, also one
// whose names span lines (export { a,\n b } from './x.js').
var importRE = regexp.MustCompile(`(?m)^[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s+'([^']+)'|^[ \t]*import\s+'([^']+)'`)

// k6Modules are the k6 modules the module may import by name.
var k6Modules = map[string]bool{"k6": true, "k6/http": true, "k6/metrics": true, "k6/execution": true, "k6/data": true}

// TestModuleImportsAreRelative holds every import of the module's files to
// k6's own modules or a relative path to another file of the module, so it
// loads alike from a path, a file:// URL and an https:// URL; and every file
// under lib/ is reached from the entry (none is left behind or unused).
func TestModuleImportsAreRelative(t *testing.T) {
	files := moduleFiles(t)
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	imports := map[string][]string{}
	for _, f := range files {
		src, err := fs.ReadFile(Module, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range importRE.FindAllSubmatchIndex(src, -1) {
			line := 1 + bytes.Count(src[:loc[0]], []byte("\n"))
			var spec string
			if loc[2] >= 0 {
				spec = string(src[loc[2]:loc[3]])
			} else {
				spec = string(src[loc[4]:loc[5]])
			}
			switch {
			case k6Modules[spec]:
			case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../"):
				target := path.Join(path.Dir(f), spec)
				if !have[target] {
					t.Errorf("xk6-llmstream/js/%s:%d imports %q: no such file in the module (xk6-llmstream/js/%s)", f, line, spec, target)
				}
				imports[f] = append(imports[f], target)
			default:
				t.Errorf("xk6-llmstream/js/%s:%d imports %q: want one of k6's modules or a relative path ('./x.js')", f, line, spec)
			}
		}
	}
	reached := map[string]bool{}
	var visit func(string)
	visit = func(f string) {
		if reached[f] {
			return
		}
		reached[f] = true
		for _, g := range imports[f] {
			visit(g)
		}
	}
	visit("llmstream.js")
	for _, f := range files {
		if !reached[f] {
			t.Errorf("xk6-llmstream/js/%s is not imported, directly or not, by llmstream.js", f)
		}
	}
}
