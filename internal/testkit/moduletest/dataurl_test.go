package moduletest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// TestDataURL: dataURL resolves a relative path from the calling script's
// folder (with or without ./), keeps an absolute path or file:// URL, and
// refuses an empty path or a missing import.meta by name.
func TestDataURL(t *testing.T) {
	t.Parallel()
	path := script(t, `
export default function () {
  const out = [
    llmstream.dataURL('./data/a.jsonl', import.meta),
    llmstream.dataURL('data/a.jsonl', import.meta),
    llmstream.dataURL('../b.jsonl', import.meta),
    llmstream.dataURL('/abs/c.jsonl', import.meta),
    llmstream.dataURL('file:///d.jsonl', import.meta),
  ];
  for (const bad of [() => llmstream.dataURL('', import.meta), () => llmstream.dataURL('x.jsonl')]) {
    try { bad(); out.push('no error'); } catch (e) { out.push(String(e)); }
  }
  console.log('URLS ' + JSON.stringify(out));
}
`)
	res := run(t, path, nil, k6sim.Config{}, false)
	var got []string
	for _, line := range res.Console {
		if _, s, ok := strings.Cut(line, "URLS "); ok {
			if err := json.Unmarshal([]byte(s), &got); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := "file://" + filepath.ToSlash(filepath.Dir(path))
	want := []string{dir + "/data/a.jsonl", dir + "/data/a.jsonl", "file://" + filepath.ToSlash(filepath.Dir(filepath.Dir(path))) + "/b.jsonl", "/abs/c.jsonl", "file:///d.jsonl"}
	if len(got) != len(want)+2 {
		t.Fatalf("dataURL gave %q", got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("dataURL #%d = %q, want %q", i, got[i], w)
		}
	}
	if !strings.Contains(got[5], "path must be a data file's path") || !strings.Contains(got[6], "pass your script's import.meta") {
		t.Errorf("dataURL's errors: %q", got[5:])
	}
}
