package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shareGPTFile makes a ShareGPT-format file of n two-turn conversations of
// exact-length text (question about q tokens, answer about a tokens).
func shareGPTFile(b *testing.B, tok Tokenizer, n, q, a int) []byte {
	b.Helper()
	gen, err := NewTextGen(context.Background(), tok)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i := range n {
		qt, err1 := gen.Text(context.Background(), rng, "", q/2+rng.IntN(q))
		at, err2 := gen.Text(context.Background(), rng, "", a/2+rng.IntN(a))
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		conv, _ := json.MarshalIndent(map[string]any{"id": fmt.Sprint(i), "conversations": []map[string]string{
			{"from": "human", "value": qt}, {"from": "gpt", "value": at}}}, "  ", "  ")
		if i > 0 {
			buf.WriteString(",\n")
		}
		buf.WriteString("  ")
		buf.Write(conv)
	}
	buf.WriteString("\n]\n")
	return buf.Bytes()
}

// BenchmarkBuildShareGPT: dataset build throughput in MB/s of ShareGPT input
// (read, count prompt and answer tokens, write JSONL).
func BenchmarkBuildShareGPT(b *testing.B) {
	for _, spec := range testTokenizers {
		b.Run(spec, func(b *testing.B) {
			tok := loadT(b, spec)
			in := shareGPTFile(b, tok, 400, 200, 300)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s := &ShareGPT{R: bytes.NewReader(in), Name: "bench.json"}
				w := NewWriter(io.Discard)
				st, err := Builder{Tok: tok, Name: "bench.json"}.Build(context.Background(), s.Read, w.Write)
				if err != nil || st.Entries != 400 {
					b.Fatal(st, err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTokenize: tokenizer throughput, reported as tokens/s.
func BenchmarkTokenize(b *testing.B) {
	for _, spec := range testTokenizers {
		b.Run(spec, func(b *testing.B) {
			tok := loadT(b, spec)
			gen, err := NewTextGen(context.Background(), tok)
			if err != nil {
				b.Fatal(err)
			}
			text, err := gen.Text(context.Background(), rand.New(rand.NewPCG(2, 2)), "", 100000)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			b.ResetTimer()
			tokens := 0
			for range b.N {
				ids, err := tok.Encode(context.Background(), text)
				if err != nil {
					b.Fatal(err)
				}
				tokens += len(ids)
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkSynthetic: exact-length prompt generation, reported as tokens/s of
// prompt written (each prompt is tokenised at least once to verify it).
func BenchmarkSynthetic(b *testing.B) {
	for _, spec := range testTokenizers {
		b.Run(spec, func(b *testing.B) {
			tok := loadT(b, spec)
			s := Synthetic{Requests: 200, Seed: 1, Input: FixedDist(500), Output: FixedDist(100)}
			b.ReportAllocs()
			b.ResetTimer()
			tokens := 0
			for range b.N {
				if err := s.Generate(tok, func(e Entry) error { tokens += e.InputTokens; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// benchCorpus is testdata/tokcorpus.json (the golden strings).
func benchCorpus(b *testing.B) ([]string, int) {
	b.Helper()
	raw, err := os.ReadFile("testdata/tokcorpus.json")
	if err != nil {
		b.Fatal(err)
	}
	var corpus []string
	if err := json.Unmarshal(raw, &corpus); err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, s := range corpus {
		n += len(s)
	}
	return corpus, n
}

// benchSpecs are the tokenizers the speed benchmarks run under.
var benchSpecs = []string{"cl100k_base", "o200k_base", "testdata/qwen3-tokenizer.json.gz", "testdata/gpt-oss-tokenizer.json.gz", "testdata/llama2-style-tokenizer.json"}

// BenchmarkEncodeCorpus: one goroutine encodes every string of the golden
// corpus ("all"), or those of at most 300 bytes ("short": no long repeats);
// compare with testdata/bench/encode_corpus.js (npm tiktoken and tokenizers
// on the same strings).
func BenchmarkEncodeCorpus(b *testing.B) {
	all, allSize := benchCorpus(b)
	var short []string
	shortSize := 0
	for _, s := range all {
		if len(s) <= 300 {
			short, shortSize = append(short, s), shortSize+len(s)
		}
	}
	for _, spec := range benchSpecs {
		for _, set := range []string{"all", "short"} {
			corpus, size := all, allSize
			if set == "short" {
				corpus, size = short, shortSize
			}
			b.Run(filepath.Base(spec)+"/"+set, func(b *testing.B) {
				tok := loadT(b, spec)
				b.SetBytes(int64(size))
				b.ResetTimer()
				for range b.N {
					for _, s := range corpus {
						if _, err := tok.Encode(context.Background(), s); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(len(corpus)*b.N)/b.Elapsed().Seconds(), "strings/s")
			})
		}
	}
}

// BenchmarkLongWord: one word of 100 KB, 300 KB and 1 MB ("a" repeated),
// which the pre-tokenizer keeps whole; the time per byte stays near flat.
func BenchmarkLongWord(b *testing.B) {
	for _, spec := range []string{"cl100k_base", "testdata/qwen3-tokenizer.json.gz"} {
		for _, n := range []int{100 << 10, 300 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("%s/%dKB", filepath.Base(spec), n>>10), func(b *testing.B) {
				tok := loadT(b, spec)
				word := strings.Repeat("a", n)
				b.SetBytes(int64(n))
				b.ResetTimer()
				for range b.N {
					if _, err := tok.Encode(context.Background(), word); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkBuildPrompts: the dataset builder on 2,000 JSONL prompts of about
// 1-3 KB (golden corpus strings joined), counted on GOMAXPROCS goroutines;
// reported as prompts/s.
func BenchmarkBuildPrompts(b *testing.B) {
	corpus, _ := benchCorpus(b)
	var in bytes.Buffer
	for i := range 2000 {
		var p strings.Builder
		for k := 0; p.Len() < 1000+(i%5)*500; k++ {
			p.WriteString(corpus[(i*7+k*13)%len(corpus)])
			p.WriteString(" ")
		}
		line, _ := json.Marshal(map[string]string{"prompt": p.String()})
		in.Write(line)
		in.WriteByte('\n')
	}
	for _, spec := range benchSpecs {
		b.Run(filepath.Base(spec), func(b *testing.B) {
			tok := loadT(b, spec)
			b.SetBytes(int64(in.Len()))
			b.ResetTimer()
			for range b.N {
				w := NewWriter(io.Discard)
				st, err := Builder{Tok: tok, Name: "bench.jsonl", Output: FixedDist(10)}.Build(context.Background(),
					func(emit func(Prompt) error) error {
						return ReadJSONL(bytes.NewReader(in.Bytes()), "bench.jsonl", emit)
					}, w.Write)
				if err != nil || st.Entries != 2000 {
					b.Fatal(st, err)
				}
			}
			b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "prompts/s")
		})
	}
}
