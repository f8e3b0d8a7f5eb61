package k6json

import (
	"strings"
	"testing"
)

func TestScannerMetadata(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1,"tags":{"model":"m"},"metadata":{"llm_request_id":"1-1","b":"x"}}}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:06Z","value":2,"metadata":{"llm_request_id":"1-\u0032","n":3,"z":null},"tags":{"model":"m"}}}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:07Z","value":3,"tags":{"model":"m"}}}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-02T03:04:08Z","value":4,"tags":{"model":"m"},"metadata":null}}`,
	}, "\n") + "\n"
	read := func(keep bool) []string {
		var got []string
		s := Scanner{KeepMetadata: keep, OnPoint: func(p *Point) error {
			id, ok := p.MetadataValue("llm_request_id")
			var all []string
			for _, m := range p.Metadata {
				all = append(all, m.Key+"="+m.Value)
			}
			got = append(got, strings.Join(all, ",")+"|"+id+"|"+map[bool]string{true: "y", false: "n"}[ok])
			return nil
		}}
		if _, err := s.Scan(strings.NewReader(in), "in"); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := []string{"b=x,llm_request_id=1-1|1-1|y", "llm_request_id=1-2,n=3|1-2|y", "||n", "||n"}
	if got := read(true); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("with KeepMetadata: %q, want %q", got, want)
	}
	for _, g := range read(false) {
		if g != "||n" {
			t.Errorf("without KeepMetadata a point has metadata %q", g)
		}
	}
}

// FuzzMetadata holds the fast path's metadata to the reference decoder's.
func FuzzMetadata(f *testing.F) {
	f.Add([]byte(`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1,"metadata":{"llm_request_id":"a","k":"v"}}}`))
	f.Add([]byte(`{"metric":"m","type":"Point","data":{"metadata":{"x":"1","x":"2"},"time":"2026-01-02T03:04:05Z","value":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var fr, sr lineResult
		fast := newDecoder(nil)
		fast.metadata = true
		if !fast.fast(line, true, &fr) {
			return
		}
		slow := newDecoder(nil)
		slow.metadata = true
		if err := slow.slow(line, true, &sr); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json says %v", line, err)
		}
		if len(fr.meta) != len(sr.meta) {
			t.Fatalf("%q: metadata %v vs %v", line, fr.meta, sr.meta)
		}
		for i := range fr.meta {
			if fr.meta[i] != sr.meta[i] {
				t.Fatalf("%q: metadata %v vs %v", line, fr.meta, sr.meta)
			}
		}
	})
}
