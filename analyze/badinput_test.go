package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input is named precisely, with exit 2 (issue 11 item 6): each case
// failed before (a summary export as "line 1: invalid JSON", a damaged gzip
// as a run cut short at byte 0 with exit 0, an unknown type taken as a
// Trend, an empty --percentiles or a negative width as the default).
func TestBadInputNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(strings.Repeat(`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1,"tags":{}}}`+"\n", 50)))
	zw.Close()
	corrupt := filepath.Join(dir, "corrupt.json.gz")
	os.WriteFile(corrupt, append(z.Bytes()[:10:10], "\xffnot deflate at all"...), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}`+"\n"+
		`{"type":"Metric","data":{"name":"llm_x","type":"summary","contains":"time"},"metric":"llm_x"}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"summary", "../testdata/k6/k6_summary_export_legacy_format.json"}, []string{"k6_summary_export_legacy_format.json is a k6 end-of-test summary", "k6 run --out json=FILE"}},
		{[]string{"check", "--check", "llm_ttft: p(99)<1", "../testdata/k6/k6v2_llm_synthetic_summary.json"}, []string{"end-of-test summary", "--out json=FILE"}},
		{[]string{"summary", corrupt}, []string{"corrupt.json.gz: gzip data damaged at its start"}},
		{[]string{"summary", unknown}, []string{"unknown.json:2:", `unknown metric type "summary"`}},
		{[]string{"summary", "--percentiles", "", fixV2}, []string{"--percentiles was given no value"}},
		{[]string{"summary", "--max-ci-width", "-0.1", fixV2}, []string{"--max-ci-width -0.1"}},
		{[]string{"summary", "--max-failure-rate", "-1", fixV2}, []string{"--max-failure-rate -1"}},
		{[]string{"plot", "--marks", "", "-o", filepath.Join(dir, "x.png"), fixV2}, []string{"--marks was given no value"}},
		{[]string{"plot", "--drift", "--window", "-10s", "-o", filepath.Join(dir, "x.png"), fixV2}, []string{"-window", "≥ 0"}},
		{[]string{"plot", "--size", "-1080x660", "-o", filepath.Join(dir, "x.png"), fixV2}, []string{"--size"}},
		{[]string{"report", "--max-failure-rate", "-1", "-o", filepath.Join(dir, "r"), fixV2}, []string{"--max-failure-rate -1"}},
	} {
		code, _, errs := run(t, nil, c.args...)
		ok := code == exitUsage
		for _, w := range c.want {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
	// A gzip cut later is still read up to the damage (exit 0).
	if code, _, errs := run(t, nil, "summary", fixKilled); code != exitOK || !strings.Contains(errs, "cut short") {
		t.Errorf("killed run: exit %d, stderr %q", code, errs)
	}
}

// An input without samples is refused with exit 2 naming it (issue 26 item
// 2): an empty file, a file of Metric declarations only, and a gzip cut
// within its first line each exited 0 with "No samples of the selected
// metrics" before. Every subcommand that reads k6 output refuses it.
func TestInputWithoutSamplesRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	decls := filepath.Join(dir, "decls.json")
	os.WriteFile(decls, []byte(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}`+"\n"), 0o644)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(readPlain(t, fixV2)))
	zw.Close()
	cut := filepath.Join(dir, "cut.json.gz")
	os.WriteFile(cut, z.Bytes()[:100], 0o644) // the header and part of line 1
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"summary", empty}, "empty.json"},
		{[]string{"summary", "--format", "json", decls}, "decls.json"},
		{[]string{"summary", cut}, "cut.json.gz"},
		{[]string{"summary", fixV2, empty}, "empty.json"},
		{[]string{"check", "--check", "llm_ttft: p(99)<1", empty}, "empty.json"},
		{[]string{"report", "-o", filepath.Join(dir, "r"), cut}, "cut.json.gz"},
	} {
		code, out, errs := run(t, nil, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.name+": no samples") {
			t.Errorf("%v: exit %d, stderr %q, stdout %.200q; want exit 2 and %q", c.args, code, errs, out, c.name+": no samples")
		}
	}
}

// TestSummaryOfANonJSONFileSaysSoFirst: a file that is not JSON at all (a
// README) is named as not k6 --out json output, first, without sending the
// user to --lenient.
func TestSummaryOfANonJSONFileSaysSoFirst(t *testing.T) {
	t.Parallel()
	code, _, stderr := run(t, nil, "summary", "../README.md")
	if code == 0 || !strings.HasPrefix(stderr, "analyze summary: ../README.md is not k6 --out json output") || strings.Contains(stderr, "--lenient") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
