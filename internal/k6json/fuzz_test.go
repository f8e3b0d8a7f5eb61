package k6json

import (
	"bufio"
	"bytes"
	"github.com/llmstream/xk6-llmstream/internal/input"
	"math"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are lines of the real fixtures plus odd shapes.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte(declLine), []byte(pointA), []byte(pointB),
		[]byte(`{"data":{"value":-0.5,"time":"2026-01-02T00:04:05-03:00","tags":{"a":"b"}},"type":"Point","metric":"llm_ttft"}`),
		[]byte(`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05.123456789+05:30","value":1E-7,"tags":{"a":"\u00e9","b":"é"}}}`),
		[]byte(`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":0,"tags":{"a":"1","a":"2"}}}`),
		[]byte(`{"metric":"m","type":"Point","metric":"n","data":{"time":"2026-01-02T03:04:05Z","value":0}}`),
		[]byte(` { "metric" : "m" , "type" : "Point" , "data" : { "time" : "2026-02-29T03:04:05Z" , "value" : 3 , "tags" : null } } `),
		[]byte(`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:05Z","value":1,"metadata":{"x":[true,false,null,{"y":"\"\\\/\b\f\n\r\t"}]}}}`),
		[]byte(`{"metric":"m","type":"Point","data":{"time":"2026-01-02t03:04:05z","value":1}}`),
		[]byte(`{"metric":"m","type":"Point","data":{"time":"2026-01-02T03:04:60Z","value":1}}`),
		[]byte(`{"type":"Other"}`), []byte(`{}`), []byte(`null`), []byte(`{"metric":"m","type":"Point","data":{"time":"x","value":01}}`),
	}
	for _, name := range []string{"k6v2_llm_synthetic.json.gz", "k6v1_llm_synthetic.json.gz"} {
		data := gunzipF(f, fixtures+name)
		sc := bufio.NewScanner(bytes.NewReader(data))
		for i := 0; sc.Scan() && i < 40; i++ {
			seeds = append(seeds, bytes.Clone(sc.Bytes()))
		}
	}
	return seeds
}

func gunzipF(f *testing.F, path string) []byte {
	rc, err := input.Open(path, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer rc.Close()
	var b bytes.Buffer
	b.ReadFrom(rc)
	return b.Bytes()
}

// FuzzDecodeLine holds the fast path to the reference decoder: on every line the
// fast path accepts, encoding/json must accept it too and give the same kind,
// metric, time, value and tags.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, true, false)
		f.Add(s, false, true)
	}
	f.Fuzz(func(t *testing.T, line []byte, keep, needTime bool) {
		keepFn := func(string) bool { return keep }
		var fr, sr lineResult
		fast := newDecoder(keepFn)
		if !fast.fast(line, needTime, &fr) {
			return
		}
		slow := newDecoder(keepFn)
		if err := slow.slow(line, needTime, &sr); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json says %v", line, err)
		}
		if fr.kind != sr.kind {
			t.Fatalf("%q: kind %d vs %d", line, fr.kind, sr.kind)
		}
		if fr.kind != linePoint && fr.kind != lineSkipped {
			return
		}
		if fr.metric.name != sr.metric.name || fr.hasTime != sr.hasTime || (fr.hasTime && fr.unixNano != sr.unixNano) {
			t.Fatalf("%q: fast %q %v %d, reference %q %v %d", line, fr.metric.name, fr.hasTime, fr.unixNano, sr.metric.name, sr.hasTime, sr.unixNano)
		}
		if fr.kind == linePoint && (math.Float64bits(fr.value) != math.Float64bits(sr.value) || fr.tags.String() != sr.tags.String()) {
			t.Fatalf("%q: fast %v %s, reference %v %s", line, fr.value, fr.tags, sr.value, sr.tags)
		}
	})
}

// FuzzParseTime holds the fast time parser to the standard library's.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-29T14:50:27.435275183Z", "2026-11-29T11:50:38.734479437-03:00",
		"2024-02-29T23:59:59+14:00", "2023-02-29T00:00:00Z", "1999-12-31T23:59:59.1Z", "2026-01-01T00:00:00.0000000001Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, ok := parseTimeFast([]byte(s))
		if !ok {
			return
		}
		ref, err := parseTimeStd([]byte(s))
		if err != nil {
			t.Fatalf("fast accepted %q, time says %v", s, err)
		}
		if ref.UnixNano() != ns {
			t.Fatalf("%q: fast %v, time %v", s, time.Unix(0, ns).UTC(), ref.UTC())
		}
	})
}

// FuzzScan feeds arbitrary bytes to a Scanner: it must never panic, must count
// every line, and (lenient) must never fail on content.
func FuzzScan(f *testing.F) {
	seeds := fuzzSeeds(f)
	var all [][]byte
	for i := 0; i+3 < len(seeds); i += 3 {
		all = append(all, bytes.Join(seeds[i:i+3], []byte("\n")))
	}
	for _, s := range all {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		kept := 0
		s := &Scanner{Lenient: true, MaxLineBytes: 1 << 16, OnPoint: func(p *Point) error {
			if p.Tags == nil || p.Metric == "" {
				t.Fatalf("point %+v", p)
			}
			kept++
			return nil
		}}
		st, err := s.Scan(bytes.NewReader(data), "fuzz")
		if err != nil {
			if strings.Contains(err.Error(), "line longer than") {
				return
			}
			t.Fatalf("lenient scan failed: %v", err)
		}
		lines := int64(bytes.Count(data, []byte("\n")))
		if len(data) > 0 && data[len(data)-1] != '\n' && len(bytes.TrimSpace(data[bytes.LastIndexByte(data, '\n')+1:])) > 0 {
			lines++
		}
		if st.Lines != lines || int64(kept) != st.Kept || st.Kept+st.Skipped > st.Lines {
			t.Fatalf("lines %d (want %d), kept %d/%d, skipped %d", st.Lines, lines, kept, st.Kept, st.Skipped)
		}
	})
}
