package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites golden files (go test -run Inspect -update). Other tests of
// package main may use it too.
var update = flag.Bool("update", false, "rewrite the golden files")

// inspectInputs lists every recording in testdata/sse and the engine's
// hand-written cases.
func inspectInputs(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../testdata/sse/*.sse", "../testdata/sse/*.ndjson", "stream/testdata/cases/*.sse", "stream/testdata/cases/*.ndjson"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found only %d recordings", len(files))
	}
	return files
}

func TestInspectGolden(t *testing.T) {
	t.Parallel()
	for _, path := range inspectInputs(t) {
		base := filepath.Base(path)
		name := strings.TrimSuffix(base, filepath.Ext(base))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if err := runInspect([]string{path}, nil, &out, &errb); err != nil {
				t.Fatalf("runInspect: %v (stderr %q)", err, errb.String())
			}
			if errb.Len() != 0 {
				t.Errorf("diagnostics on stderr: %q", errb.String())
			}
			var v map[string]any
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Fatalf("output is not one JSON object: %v", err)
			}
			for _, k := range []string{"dialect", "events", "text", "reasoning", "tool_calls", "usage", "finish_reason", "error"} {
				if _, ok := v[k]; !ok {
					t.Errorf("output lacks %q", k)
				}
			}
			golden := filepath.Join("testdata", "inspect", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestInspectGolden -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("inspect %s differs from %s:\n--- got\n%s--- want\n%s", path, golden, out.String(), want)
			}
		})
	}
}

// Standard input and a gzipped file give the same answer as the plain file.
func TestInspectStdinAndGzip(t *testing.T) {
	t.Parallel()
	path := "../testdata/sse/openai_chat_role_first_usage_chunk.sse"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var plain, stdin, gz bytes.Buffer
	if err := runInspect([]string{path}, nil, &plain, os.Stderr); err != nil {
		t.Fatal(err)
	}
	if err := runInspect([]string{"-"}, bytes.NewReader(data), &stdin, os.Stderr); err != nil {
		t.Fatal(err)
	}
	gzPath := filepath.Join(t.TempDir(), "body.sse.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	_, _ = zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gzPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runInspect([]string{gzPath}, nil, &gz, os.Stderr); err != nil {
		t.Fatal(err)
	}
	if plain.String() != stdin.String() || plain.String() != gz.String() {
		t.Errorf("file, stdin and .gz differ:\n%s\n%s\n%s", plain.String(), stdin.String(), gz.String())
	}
	var v struct {
		Usage *struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(plain.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Usage == nil || v.Usage.InputTokens != 78 || v.Usage.OutputTokens != 9 || v.Text != "The capital of the UK is London." {
		t.Errorf("decoded %+v", v)
	}
}

func TestInspectDialectOverride(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := runInspect([]string{"--dialect", "openai-chat", "../testdata/sse/anthropic_messages_ping_padded_json.sse"}, nil, &out, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Dialect string `json:"dialect"`
		Error   *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Dialect != "openai-chat" || v.Error == nil || v.Error.Kind != "malformed" || !strings.Contains(v.Error.Message, "Anthropic") {
		t.Errorf("got %s", out.String())
	}
}

// Through realMain, so the exit codes are checked too.
func TestInspectErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.sse")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no file", []string{"inspect"}, exitUsage, "want one FILE"},
		{"two files", []string{"inspect", "a", "b"}, exitUsage, "got 2 arguments"},
		{"unknown dialect", []string{"inspect", "--dialect", "gemini-native", "x.sse"}, exitUsage, `unknown dialect "gemini-native"`},
		{"unknown flag", []string{"inspect", "--bogus", "x.sse"}, exitUsage, "bogus"},
		{"bad cap", []string{"inspect", "--max-line-bytes", "0", "x.sse"}, exitUsage, "must be positive"},
		{"missing file", []string{"inspect", missing}, exitError, missing},
		{"help", []string{"inspect", "-h"}, exitOK, "usage: xk6-llmstream inspect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := realMain(tt.args, strings.NewReader(""), &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.msg) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.msg)
			}
			if out.Len() != 0 {
				t.Errorf("stdout not empty: %q", out.String())
			}
		})
	}
}

// A cap below a recording's longest line turns it into a malformed stream,
// reported in the JSON (exit 0), not as a failure of the command.
func TestInspectLineCap(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := runInspect([]string{"--max-line-bytes", "100", "../testdata/sse/openai_chat_role_first_usage_chunk.sse"}, nil, &out, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"kind": "malformed"`) || !strings.Contains(out.String(), "longer than the cap") {
		t.Errorf("got %s", out.String())
	}
}

// --dialect takes each new dialect's name and decodes its recording as auto
// does; a recording of another dialect fails as malformed.
func TestInspectNewDialects(t *testing.T) {
	t.Parallel()
	for d, file := range map[string]string{
		"openai-responses": "oai-resp-gpt4o-text.sse",
		"gemini":           "gemini-20flash-text.sse",
		"cohere":           "cohere-v2-chat-reasoning.sse",
		"ollama":           "ollama_native_generate_length_handmade.ndjson",
	} {
		var auto, named bytes.Buffer
		path := "../testdata/sse/" + file
		if err := runInspect([]string{path}, nil, &auto, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if err := runInspect([]string{"--dialect", d, path}, nil, &named, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if auto.String() != named.String() || !strings.Contains(named.String(), `"dialect": "`+d+`"`) {
			t.Errorf("--dialect %s on %s:\n%s\nauto:\n%s", d, file, named.String(), auto.String())
		}
		var other bytes.Buffer
		if err := runInspect([]string{"--dialect", d, "../testdata/sse/openai_chat_role_first_usage_chunk.sse"}, nil, &other, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(other.String(), `"kind": "malformed"`) {
			t.Errorf("--dialect %s on an OpenAI chat stream: %s", d, other.String())
		}
	}
}
