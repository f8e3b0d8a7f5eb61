package k6sim

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/grafana/sobek"
)

// setImportMeta gives every module import.meta.resolve(specifier), as k6 v0.54+
// does: the URL that an import of specifier from that module would load
// (file:// for a file, the http(s) URL for a remote module), without reading
// it. open() reads file:// URLs (see openPath).
func (v *vu) setImportMeta() {
	v.rt.SetFinalImportMeta(func(meta *sobek.Object, m sobek.ModuleRecord) {
		base := v.r.script
		if p, ok := v.paths[m]; ok {
			base = p
		}
		_ = meta.Set("resolve", func(call sobek.FunctionCall) sobek.Value {
			spec := call.Argument(0).String()
			loc, err := resolveLocation(base, spec)
			if err != nil {
				panic(v.rt.NewGoError(fmt.Errorf("import.meta.resolve(%q): %w", spec, err)))
			}
			if isRemote(loc) {
				return v.rt.ToValue(loc)
			}
			return v.rt.ToValue(fileURL(loc))
		})
	})
}

// fileURL is the file:// URL of an absolute path.
func fileURL(p string) string {
	slash := filepath.ToSlash(p)
	if !strings.HasPrefix(slash, "/") {
		slash = "/" + slash // a Windows drive letter
	}
	return (&url.URL{Scheme: "file", Path: slash}).String()
}

// openPath is the file open(name) reads: a file:// URL's path, an absolute path,
// or a path relative to the main script's folder (k6's rule for open()).
func (v *vu) openPath(name string) (string, error) {
	if strings.HasPrefix(name, "file://") {
		u, err := url.Parse(name)
		if err != nil {
			return "", err
		}
		return filepath.FromSlash(u.Path), nil
	}
	if filepath.IsAbs(name) {
		return name, nil
	}
	return filepath.Join(filepath.Dir(v.r.script), name), nil
}
