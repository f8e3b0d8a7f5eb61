package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptsUseModuleDataURL: the scripts resolve their data files with
// the module's dataURL, the one copy; none writes its own resolver.
func TestScriptsUseModuleDataURL(t *testing.T) {
	files, err := filepath.Glob("*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	users := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Contains(s, "const dataURL") || strings.Contains(s, "import.meta.resolve(") {
			t.Errorf("%s resolves paths itself: import dataURL from llmstream.js and call dataURL(path, import.meta)", f)
		}
		if strings.Contains(s, "dataURL(") {
			users++
			if !strings.Contains(s, ", import.meta)") {
				t.Errorf("%s calls dataURL without its import.meta", f)
			}
		}
	}
	if users < 7 {
		t.Errorf("%d scripts call dataURL, want the 7 that read a dataset", users)
	}
}
