package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

func runDatasetT(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := runDataset(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func readEntries(t *testing.T, jsonl string) []workload.Entry {
	t.Helper()
	var es []workload.Entry
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e workload.Entry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		es = append(es, e)
	}
	return es
}

// A synthetic dataset through the command: exact lengths re-tokenised, and the
// same flags and seed give the same bytes, to a file and to stdout alike.
func TestDatasetSynthetic(t *testing.T) {
	t.Parallel()
	args := []string{"--requests", "40", "--turns", "2", "--input-tokens", "normal:mean=80,sd=30",
		"--turn-input-tokens", "20", "--output-tokens", "64", "--tag", "suite=ci", "--seed", "5"}
	out, stderr, err := runDatasetT(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "wrote 40 requests") || strings.Contains(stderr, "\r") {
		t.Errorf("stderr %q: want the summary and no progress bar", stderr)
	}
	tok, err := workload.LoadTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	es := readEntries(t, out)
	if len(es) != 40 {
		t.Fatalf("%d entries", len(es))
	}
	for _, e := range es {
		if n, err := workload.Count(context.Background(), tok, e.Messages[0].Content); err != nil || n != e.InputTokens || n != e.InputTokensTarget {
			t.Fatalf("%s: %d tokens, entry says %d", e.ID, n, e.InputTokens)
		}
		if e.Tags["suite"] != "ci" || e.MaxTokens != 64 || e.Session == "" || e.Turn < 1 || e.Turn > 2 {
			t.Fatalf("entry %+v", e)
		}
	}
	file := filepath.Join(t.TempDir(), "d.jsonl")
	if _, _, err := runDatasetT(t, append(args, "-o", file)...); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(file)
	if err != nil || string(again) != out {
		t.Fatalf("second run differs (%v)", err)
	}
}

// --progress draws the bar on stderr even when it is not a terminal.
func TestDatasetProgress(t *testing.T) {
	t.Parallel()
	_, stderr, err := runDatasetT(t, "--requests", "3", "--input-tokens", "5", "--progress")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "\r[") || !strings.Contains(stderr, "3/3 requests") {
		t.Errorf("stderr %q lacks the progress bar", stderr)
	}
}

func TestDatasetFromFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sg := filepath.Join(dir, "sg.json")
	os.WriteFile(sg, []byte(`[{"id": "c1", "conversations": [{"from": "human", "value": "Why is the sky blue?"}, {"from": "gpt", "value": "Rayleigh scattering."}]},
{"id": "c2", "conversations": []}]`), 0o644)
	out, stderr, err := runDatasetT(t, "--input", sg, "--tokenizer", "o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	es := readEntries(t, out)
	if len(es) != 1 || es[0].ID != "c1" || es[0].Tokenizer != "o200k_base" || !strings.Contains(stderr, "skipped 1") {
		t.Fatalf("entries %+v, stderr %q", es, stderr)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"prompt\": \"a\"}\n{\"prompt\": \"b\"\n"), 0o644)
	if _, _, err := runDatasetT(t, "--input", bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2: bad JSON line") {
		t.Errorf("bad JSONL: %v", err)
	}
	csvFile := filepath.Join(dir, "p.txt")
	os.WriteFile(csvFile, []byte("prompt,output_tokens\nhi,3\nho,x\n"), 0o644)
	if _, _, err := runDatasetT(t, "--input", csvFile, "--format", "csv"); err == nil || !strings.Contains(err.Error(), "p.txt:3:") {
		t.Errorf("bad CSV: %v", err)
	}
}

func TestDatasetUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--input-tokens", "normal:mean=5"},
		{"--output-tokens", "zero"},
		{"--tokenizer", "nope_base"},
		{"--turns", "3", "--requests", "10"},
		{"--prefix-groups", "2"},
		{"--input", "x.txt"},
		{"--input", "x.json", "--turns", "2"},
		{"--tag", "novalue"},
		{"--requests", "-1"},
		{"stray"},
	} {
		_, _, err := runDatasetT(t, args...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
	if _, _, err := runDatasetT(t, "--input", filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing input: %v", err)
	}
}

// A failed build leaves no output file, empty or partial, and no temporary
// file; a successful one replaces the file whole.
func TestDatasetNoPartialOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{nope\n"), 0o644)
	for _, out := range []string{"out.jsonl", "out.jsonl.gz"} {
		if _, _, err := runDatasetT(t, "--input", bad, "-o", filepath.Join(dir, out)); err == nil {
			t.Fatalf("%s: bad input built", out)
		}
	}
	// A synthetic build that fails after the file was opened.
	if _, _, err := runDatasetT(t, "--requests", "2", "--input-tokens", "5", "--prefix-groups", "1", "--prefix-tokens", "3", "--tokenizer", "p50k_nope", "-o", filepath.Join(dir, "neg.jsonl")); err == nil {
		t.Fatal("an unknown tokenizer built")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "bad.jsonl" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte("old contents\n"), 0o644)
	if _, _, err := runDatasetT(t, "--requests", "3", "--input-tokens", "7", "--tokenizer", "workload/testdata/llama2-style-tokenizer.json", "-o", good); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	es := readEntries(t, string(raw))
	if len(es) != 3 || es[0].InputTokens != 7 {
		t.Fatalf("entries %+v", es)
	}
	if st, err := os.Stat(good); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("output mode: %v, %v", st.Mode(), err)
	}
}

// --image-sizes: each request's user message carries generated PNGs of the
// sizes in turn (decoded here to their size), the same seed gives the same
// bytes; a bad size, --as-prompt or --input with it are usage errors naming
// the flag.
func TestDatasetImagePrompts(t *testing.T) {
	t.Parallel()
	args := []string{"--requests", "3", "--input-tokens", "8", "--output-tokens", "4", "--image-sizes", "64x32,16x16", "--images-per-request", "2"}
	out, _, err := runDatasetT(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := runDatasetT(t, args...)
	if out != again {
		t.Error("the same flags gave different files")
	}
	sizes := [][2]int{{64, 32}, {16, 16}, {64, 32}}
	for i, e := range readEntries(t, out) {
		ims := e.Messages[0].Images
		if len(ims) != 2 || ims[0].URL == ims[1].URL {
			t.Fatalf("entry %d: %d images (distinct: %v), want 2 distinct", i, len(ims), len(ims) == 2 && ims[0].URL != ims[1].URL)
		}
		for _, im := range ims {
			b64, ok := strings.CutPrefix(im.URL, "data:image/png;base64,")
			raw, derr := base64.StdEncoding.DecodeString(b64)
			cfg, perr := png.DecodeConfig(bytes.NewReader(raw))
			if !ok || derr != nil || perr != nil || cfg.Width != sizes[i][0] || cfg.Height != sizes[i][1] ||
				im.Width != sizes[i][0] || im.Height != sizes[i][1] {
				t.Errorf("entry %d: image %dx%d (%v %v), want %v", i, cfg.Width, cfg.Height, derr, perr, sizes[i])
			}
		}
	}
	for _, bad := range [][]string{
		{"--image-sizes", "64"},
		{"--image-sizes", "0x10"},
		{"--image-sizes", "9000x10"},
		{"--image-sizes", "8x8", "--as-prompt"},
		{"--image-sizes", "8x8", "--input", "x.jsonl"},
	} {
		_, _, err := runDatasetT(t, bad...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "image") {
			t.Errorf("%q: got %v, want a usage error about the images", bad, err)
		}
	}
}

// TestDatasetCacheBust: --cache-bust puts the salt's marker at the start of
// every prompt with input_tokens recounted exactly, the groups' shared
// prefixes still shared (prefix_tokens grows by the marker's cost); --cache-bust
// random gives a file that differs from the same --seed's other builds, a
// given salt the same file each time, and a bad salt is refused.
func TestDatasetCacheBust(t *testing.T) {
	t.Parallel()
	args := []string{"--requests", "8", "--prefix-groups", "2", "--prefix-tokens", "40", "--input-tokens", "60", "--output-tokens", "4"}
	plain, _, err := runDatasetT(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	salted, stderr, err := runDatasetT(t, append(args, "--cache-bust", "run-7")...)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := runDatasetT(t, append(args, "--cache-bust", "run-7")...)
	r1, stderrR, _ := runDatasetT(t, append(args, "--cache-bust", "random")...)
	r2, _, _ := runDatasetT(t, append(args, "--cache-bust", "random")...)
	if salted != again || r1 == r2 || r1 == plain || !strings.Contains(stderr, "cache-bust salt run-7") || !strings.Contains(stderrR, "cache-bust salt ") {
		t.Errorf("a given salt must repeat, random ones differ: same %v, random differ %v; stderr %q", salted == again, r1 != r2, stderr)
	}
	tok, err := workload.LoadTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	ps, ss := readEntries(t, plain), readEntries(t, salted)
	for i, e := range ss {
		text := e.Messages[0].Content
		n, err := workload.Count(context.Background(), tok, text)
		if err != nil {
			t.Fatal(err)
		}
		d := e.InputTokens - ps[i].InputTokens
		if !strings.HasPrefix(text, "[cache-bust run-7]\n") || n != e.InputTokens || d <= 0 ||
			e.PrefixTokens != ps[i].PrefixTokens+d || e.InputTokensTarget != ps[i].InputTokensTarget+d {
			t.Errorf("%s: starts %q, %d tokens counted, entry says %d (plain %d), prefix %d (plain %d)", e.ID, text[:20], n, e.InputTokens, ps[i].InputTokens, e.PrefixTokens, ps[i].PrefixTokens)
		}
	}
	if _, _, err := runDatasetT(t, append(args, "--cache-bust", "two words")...); err == nil || !strings.Contains(err.Error(), "--cache-bust") {
		t.Errorf("bad salt: %v", err)
	}
}
