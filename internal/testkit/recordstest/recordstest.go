// Package recordstest writes records files for the tests of analyze's
// packages and commands.
package recordstest

import (
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

type item struct{ r records.Record }

func (it *item) AppendRecord(b []byte) []byte { return records.AppendJSON(b, &it.r) }
func (it *item) Size() int                    { return 200 }

// Write writes recs as a records file at path (gzipped when it ends in .gz).
func Write(tb testing.TB, path string, recs []records.Record) {
	tb.Helper()
	w, err := records.Create(path, records.Options{Queue: len(recs) + 10, QueueBytes: 1 << 30})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range recs {
		if !w.Submit(&item{recs[i]}) {
			tb.Fatalf("record %d dropped", i)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// SlowInstance are n requests 20 ms apart over four instances (the
// instance_id tag) whose instance 3 waits 5× longer for response headers.
func SlowInstance(n int) []records.Record {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]records.Record, n)
	for i := range out {
		inst := strconv.Itoa(i % 4)
		wait := int64(20e6 * (0.7 + 0.6*rng.Float64()))
		if inst == "3" {
			wait *= 5
		}
		st := records.Stages{SendNS: 2e5, WaitNS: wait, FirstEventNS: int64(10e6 * rng.Float64()), FirstTokenNS: 1e6}
		ttft := st.Sum()
		out[i] = records.Record{V: records.Version, ID: strconv.Itoa(i), StartNS: 1e18 + int64(i)*2e7,
			E2ENS: ttft + 5e8, TTFTNS: &ttft, Stages: &st, Tags: map[string]string{"instance_id": inst},
			InputTokens: 100 + rng.IntN(100), OutputTokens: 50, TokenSource: "usage", Model: "m", API: "openai-chat", Status: 200}
	}
	return out
}

// WriteSlowInstance writes SlowInstance(n) as records.jsonl in a temporary
// directory and returns its path.
func WriteSlowInstance(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "records.jsonl")
	Write(tb, path, SlowInstance(n))
	return path
}
