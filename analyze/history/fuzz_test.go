package history

import (
	"strings"
	"testing"
)

func FuzzRead(f *testing.F) {
	good := string(mustJSONF(bigRecord("a", 2)))
	f.Add(good + "\n")
	f.Add(good + "\n" + good[:40])
	f.Add("\n\n{oops\n")
	f.Add(`{"schema":"xk6-llmstream/analyze-history/v1","version":9,"start":"2026-01-01T00:00:00Z"}` + "\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, lenient := range []bool{false, true} {
			file, err := Read(strings.NewReader(text), "fuzz.jsonl", ReadOptions{Lenient: lenient})
			if err != nil {
				if !strings.HasPrefix(err.Error(), "history: fuzz.jsonl:") {
					t.Fatalf("error does not name the input and line: %v", err)
				}
				continue
			}
			if len(file.Lines) != len(file.Records) {
				t.Fatalf("%d lines for %d records", len(file.Lines), len(file.Records))
			}
			for _, r := range file.Records {
				if r.Version < 1 || r.Version > Version || r.Start.IsZero() {
					t.Fatalf("accepted an invalid record %+v", r)
				}
			}
			// Every record read can be written and read back.
			series := SeriesOf(file)
			_ = Evaluate(series, Options{})
		}
	})
}

func mustJSONF(r Record) []byte {
	b, err := marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}
