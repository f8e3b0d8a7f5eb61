package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// TestRunFlagTyposStopBeforeAnything: a flag before the script that is
// neither run's nor k6's is a usage error (exit 2) naming the near miss, and
// nothing starts: the fake k6 would record that it ran.
func TestRunFlagTyposStopBeforeAnything(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.js")
	if err := os.WriteFile(script, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(dir, "ran")
	fake := filepath.Join(dir, "k6")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(runner.K6BinEnv, fake)
	t.Setenv(runner.BaseURLEnv, "")
	for args, want := range map[string]string{
		"--recrods r.jsonl " + script:              "unknown flag --recrods (did you mean --records?)",
		"--mock-profil p.json " + script:           "did you mean --mock-profile?",
		"--vsu 3 " + script:                        "did you mean --vus?",
		"--frobnicate " + script:                   "unknown flag --frobnicate: run's own flags",
		filepath.Join(dir, "nope.js"):              "nope.js",
		"--vus 2 " + filepath.Join(dir, "nope.js"): "no such file",
		dir:                 "is a folder",
		"--out json=x.json": "missing the k6 script",
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(append([]string{"run"}, strings.Fields(args)...), nil, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), want) {
			t.Errorf("run %s: exit %d, %q; want exit %d with %q", args, code, stderr.String(), exitUsage, want)
		}
		if strings.Contains(stderr.String(), "mock LLM at") || strings.Contains(stderr.String(), "helper at") {
			t.Errorf("run %s: the mock or helper started before the usage error:\n%s", args, stderr.String())
		}
		if _, err := os.Stat(ran); err == nil {
			t.Fatalf("run %s: k6 ran", args)
		}
	}
}

func TestSuggestFlag(t *testing.T) {
	for name, want := range map[string]string{
		"recrods": "records", "record": "records", "mok": "mock", "ca_file": "ca-file",
		"k6nice": "k6-nice", "duraton": "duration", "xyz": "", "outt": "out", "zzzzzzzz": "",
	} {
		if got := suggestFlag(name); got != want {
			t.Errorf("suggestFlag(%q) = %q, want %q", name, got, want)
		}
	}
}
