package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoticeListsEveryThirdPartyFile holds NOTICE against the provenance
// tables: every committed file that testdata/SOURCES.md or the workload's
// SOURCES.md credits to another project is listed in NOTICE with its licence,
// and every path NOTICE lists exists.
func TestNoticeListsEveryThirdPartyFile(t *testing.T) {
	notice := readRepoFile(t, "NOTICE")
	if !strings.Contains(readRepoFile(t, "LICENSE"), "Apache License") {
		t.Fatal("LICENSE is not the Apache License")
	}
	var want []string
	row := regexp.MustCompile("(?m)^\\| `?([A-Za-z0-9_.-]+\\.(?:sse|ndjson))`? \\| ([^|]+)\\|")
	for _, m := range row.FindAllStringSubmatch(readRepoFile(t, "testdata/SOURCES.md"), -1) {
		if strings.TrimSpace(m[2]) != "this project" {
			want = append(want, "testdata/sse/"+m[1])
		}
	}
	tok := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+-tokenizer\\.json\\.gz)` \\| npm")
	for _, m := range tok.FindAllStringSubmatch(readRepoFile(t, "xk6-llmstream/workload/testdata/SOURCES.md"), -1) {
		want = append(want, "xk6-llmstream/workload/testdata/"+m[1])
	}
	models, _ := filepath.Glob("../testdata/models/*")
	for _, m := range models {
		want = append(want, strings.TrimPrefix(filepath.ToSlash(m), "../"))
	}
	want = append(want, "testdata/k6/k6_summary_export_legacy_format.json")
	if len(want) < 20 {
		t.Fatalf("found %d third-party files in the SOURCES tables: the tables' format changed", len(want))
	}
	for _, f := range want {
		if !strings.Contains(notice, "  "+f+"\n") {
			t.Errorf("NOTICE does not list %s (a third-party file by its SOURCES.md)", f)
		}
	}
	listed := regexp.MustCompile(`(?m)^  ((?:testdata|xk6-llmstream)/\S+)$`)
	for _, m := range listed.FindAllStringSubmatch(notice, -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("NOTICE lists %s, which does not exist", m[1])
		}
	}
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
