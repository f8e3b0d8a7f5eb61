package k6json

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A k6 end-of-test summary (--summary-export, handleSummary) is named as
// such, pretty-printed or on one line, lenient or not; before, it was "line
// 1: invalid JSON" (or, on one line, an input without samples).
func TestSummaryFileIsNamed(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"k6_summary_export_legacy_format.json", "k6v2_llm_synthetic_summary.json", "k6v1_llm_synthetic_summary.json"} {
		pretty, err := os.ReadFile(fixtures + name)
		if err != nil {
			t.Fatal(err)
		}
		var obj any
		if err := json.Unmarshal(pretty, &obj); err != nil {
			t.Fatal(err)
		}
		oneLine, _ := json.Marshal(obj) // as JSON.stringify(data) in a handleSummary
		for form, data := range map[string][]byte{"pretty": pretty, "one line": oneLine} {
			for _, lenient := range []bool{false, true} {
				_, _, err := scanAll(t, &Scanner{Lenient: lenient}, bytes.NewReader(data), name)
				var se *SummaryFileError
				if !errors.As(err, &se) || se.Input != name || !strings.Contains(err.Error(), "--out json=FILE") {
					t.Errorf("%s (%s, lenient %v): want a SummaryFileError naming --out json, got %v", name, form, lenient, err)
				}
			}
		}
	}
}

// Sample output whose tags mention root_group is still sample output.
func TestRootGroupTagIsNotSummary(t *testing.T) {
	t.Parallel()
	line := `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1,"tags":{"group":"\"root_group\""}}}`
	got, _, err := scanAll(t, &Scanner{}, strings.NewReader(line+"\n"), "x")
	if err != nil || len(got.points) != 1 {
		t.Fatalf("points %d, err %v", len(got.points), err)
	}
}

// A gzip file whose compressed data is damaged at its start is an error; a
// gzip cut later is still read up to the damage (TestCutGzip).
func TestGzipDamagedAtStart(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, strings.Repeat(pointA+"\n", 100))
	zw.Close()
	hdr := b.Bytes()[:10] // the gzip header, then nothing
	garbage := append(append([]byte{}, hdr...), []byte("\xff\xff\xff garbage, not deflate")...)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"header-only.json.gz": hdr, "garbage.json.gz": garbage} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := (&Scanner{}).ScanFile(path, nil)
		if err == nil || !strings.Contains(err.Error(), "damaged at its start") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: want an error naming the file, got %v (damage %q)", name, err, st.Damage)
		}
	}
}

// A declaration with a type k6 does not have is a line error naming the type.
func TestUnknownMetricType(t *testing.T) {
	t.Parallel()
	decl := `{"type":"Metric","data":{"name":"llm_x","type":"histogram","contains":"time"},"metric":"llm_x"}`
	_, _, err := scanAll(t, &Scanner{}, strings.NewReader(pointA+"\n"+decl+"\n"), "run.json")
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), `llm_x: unknown metric type "histogram"`) {
		t.Fatalf("want run.json:2 naming the type, got %v", err)
	}
}
