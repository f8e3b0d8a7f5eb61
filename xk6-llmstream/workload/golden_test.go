package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// goldenFile is testdata/golden/NAME.json, written by
// testdata/oracle/goldens.js with a reference tokenizer.
type goldenFile struct {
	Name    string  `json:"name"`
	Tool    string  `json:"tool"`
	Command string  `json:"command"`
	IDs     [][]int `json:"ids"`
}

// goldenTokenizers pairs each golden file with the tokenizer it checks.
var goldenTokenizers = []struct{ golden, spec string }{
	{"cl100k_base", "cl100k_base"},
	{"o200k_base", "o200k_base"},
	{"qwen3", "testdata/qwen3-tokenizer.json.gz"},
	{"gpt-oss", "testdata/gpt-oss-tokenizer.json.gz"},
	{"deepseek-v3", "testdata/deepseek-v3-tokenizer.json.gz"},
	{"qwen-style", "testdata/qwen-style-tokenizer.json"},
	{"llama2-style", "testdata/llama2-style-tokenizer.json"},
	{"metaspace-style", "testdata/metaspace-style-tokenizer.json"},
}

func readGolden(t *testing.T, path string) goldenFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

func readCorpus(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/tokcorpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []string
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 300 {
		t.Fatalf("corpus has %d strings, want at least 300", len(corpus))
	}
	return corpus
}

// checkGolden encodes every corpus string and compares ids with the golden
// file's; it reports every mismatch.
func checkGolden(t *testing.T, tok Tokenizer, g goldenFile, corpus []string) {
	t.Helper()
	if len(g.IDs) != len(corpus) {
		t.Fatalf("golden %s has %d entries for %d strings: regenerate it", g.Name, len(g.IDs), len(corpus))
	}
	bad := 0
	for i, s := range corpus {
		got, err := tok.Encode(context.Background(), s)
		if err != nil {
			t.Errorf("string %d %.40q: %v", i, s, err)
			bad++
			continue
		}
		if !slices.Equal(got, g.IDs[i]) {
			bad++
			if bad <= 10 {
				t.Errorf("string %d %.60q: got %d ids %v, %s gives %d ids %v", i, s, len(got), head(got), g.Tool, len(g.IDs[i]), head(g.IDs[i]))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d strings differ from %s", g.Name, bad, len(corpus), g.Tool)
	}
}

func head(ids []int) string {
	if len(ids) > 12 {
		return fmt.Sprint(ids[:12]) + "…"
	}
	return fmt.Sprint(ids)
}

// The ids of every corpus string equal the reference implementation's:
// OpenAI's tiktoken for the built-in encodings, Hugging Face tokenizers (the
// Rust library, through its official Node binding) for tokenizer.json files.
func TestTokenizerGoldens(t *testing.T) {
	corpus := readCorpus(t)
	for _, c := range goldenTokenizers {
		t.Run(c.golden, func(t *testing.T) {
			t.Parallel()
			checkGolden(t, loadT(t, c.spec), readGolden(t, filepath.Join("testdata", "golden", c.golden+".json")), corpus)
		})
	}
}

// TestTokenizerGoldensExtra checks more tokenizer.json files whose licences
// keep them out of the repository (Llama 2, Llama 3): set
// WORKLOAD_EXTRA_TOKENIZERS to a directory holding NAME-tokenizer.json.gz and
// golden/NAME.json made by testdata/oracle/goldens.js (GOLDEN_DIR=DIR/golden).
func TestTokenizerGoldensExtra(t *testing.T) {
	dir := os.Getenv("WORKLOAD_EXTRA_TOKENIZERS")
	if dir == "" {
		t.Skip("WORKLOAD_EXTRA_TOKENIZERS is not set: no extra tokenizer.json files to check")
	}
	corpus := readCorpus(t)
	goldens, _ := filepath.Glob(filepath.Join(dir, "golden", "*.json"))
	if len(goldens) == 0 {
		t.Fatalf("no golden files in %s/golden", dir)
	}
	for _, gp := range goldens {
		g := readGolden(t, gp)
		t.Run(g.Name, func(t *testing.T) {
			tok, err := loadHF(filepath.Join(dir, g.Name+"-tokenizer.json.gz"))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tok, g, corpus)
		})
	}
}
