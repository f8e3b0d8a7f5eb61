package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
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
