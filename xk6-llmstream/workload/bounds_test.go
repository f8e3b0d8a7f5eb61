package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTokenLengthBound: a length above MaxTokens is refused where it is read
// (a trace's file and line, a distribution's spec), with the bound named,
// instead of being turned into a prompt that cannot fit in memory.
func TestTokenLengthBound(t *testing.T) {
	t.Parallel()
	bound := fmt.Sprint(MaxTokens)
	for _, c := range []struct {
		format TraceFormat
		data   string
		where  string
	}{
		{Mooncake, `{"timestamp":0,"input_length":10,"output_length":5}` + "\n" +
			`{"timestamp":1,"input_length":1000000000000,"output_length":5}` + "\n", "big.trace:2:"},
		{Mooncake, `{"timestamp":0,"input_length":10,"output_length":1000000000}` + "\n", "big.trace:1:"},
		{BurstGPT, "Timestamp,Model,Request tokens,Response tokens,Log Type\n0,m,2147483647,5,ok\n", "big.trace:2:"},
	} {
		_, err := ReadTrace(strings.NewReader(c.data), "big.trace", c.format, func(TraceRequest) error { return nil }, nil)
		if err == nil || !strings.Contains(err.Error(), c.where) || !strings.Contains(err.Error(), bound) {
			t.Errorf("%s %q: %v; want an error at %s naming the bound %s", c.format, c.data, err, c.where, bound)
		}
	}
	for _, s := range []string{"2000000000", "fixed:2000001", "uniform:min=1,max=3000000",
		"normal:mean=5000000,sd=1", "lognormal:mean=100,sd=1,max=1e12", "normal:mean=10,sd=1,min=2000001"} {
		if _, err := ParseDist(s); err == nil || !strings.Contains(err.Error(), bound) {
			t.Errorf("ParseDist(%q): %v; want an error naming the bound %s", s, err, bound)
		}
	}
	// A distribution with no max never draws above the bound.
	d := mustDist(t, "lognormal:mean=1000000,sd=100000000")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		if x := d.Sample(rng); x > MaxTokens {
			t.Fatalf("sample %d above MaxTokens %d", x, MaxTokens)
		}
	}
}

// TestTraceReaderChecks: a trace is read under the prompt files' rule — an
// entry over MaxEntryBytes and invalid UTF-8 stop the read with the file and
// line — in both the CSV and the JSONL formats; nothing is replaced silently.
func TestTraceReaderChecks(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("m", int(MaxEntryBytes)+1)
	limit := fmt.Sprintf("limit of %d bytes", MaxEntryBytes)
	const burstHead = "Timestamp,Model,Request tokens,Response tokens,Log Type\n"
	for _, c := range []struct {
		name   string
		format TraceFormat
		data   string
		want   []string
	}{
		{"big CSV field", BurstGPT, burstHead + "0,m,10,5,ok\n1,\"" + big + "\",10,5,ok\n", []string{"t.csv:3:", limit}},
		{"big Azure field", Azure, "TIMESTAMP,ContextTokens,GeneratedTokens\n" + big + ",1,1\n", []string{"t.csv:2:", limit}},
		{"bad UTF-8 in CSV", BurstGPT, burstHead + "0,m,10,5,ok\n1,gpt\xff4,10,5,ok\n", []string{"t.csv:3:", "invalid UTF-8"}},
		{"bad UTF-8 in JSONL", Mooncake, `{"timestamp":0,"input_length":10,"output_length":5}` + "\n" +
			`{"timestamp":1,"input_length":10,"output_length":5,"type":"a` + "\xfe" + `b"}` + "\n", []string{"t.csv:2:", "invalid UTF-8"}},
	} {
		n := 0
		_, err := ReadTrace(strings.NewReader(c.data), "t.csv", c.format, func(TraceRequest) error { n++; return nil }, nil)
		if err == nil {
			t.Errorf("%s: no error after %d requests", c.name, n)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %.200s; want %q in it", c.name, err, w)
			}
		}
	}
}
