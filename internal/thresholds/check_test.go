package thresholds

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
)

func TestParseExpr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    string
		agg   string
		op    string
		limit float64
	}{
		{"p(99)<2000", "p(99)", "<", 2000},
		{" p(99.9) <= 1.5e3 ", "p(99.9)", "<=", 1500},
		{"avg>=10", "avg", ">=", 10},
		{"med>1", "med", ">", 1},
		{"min==0", "min", "==", 0},
		{"max===100", "max", "===", 100},
		{"count!=3", "count", "!=", 3},
		{"rate<0.01", "rate", "<", 0.01},
		{"value<-1", "value", "<", -1},
		{"p(0)>0", "p(0)", ">", 0},
		{"p(100)<1", "p(100)", "<", 1},
	} {
		e, err := ParseExpr(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if e.Aggregate.String() != c.agg || e.Op != c.op || e.Limit != c.limit || e.Source != strings.TrimSpace(c.in) {
			t.Errorf("%q: %s %s %v", c.in, e.Aggregate, e.Op, e.Limit)
		}
	}
	for _, bad := range []string{"", "p99<1", "p(101)<1", "p(-1)<1", "p(x)<1", "avg", "avg<", "avg=1", "mean<1", "avg<abc", "avg<NaN", "<5"} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseCheck(t *testing.T) {
	t.Parallel()
	cs, err := Parse(`llm_ttft{ model : "gpt-4o" , scenario:'ramp' }: p(95)<800, avg < 400`)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Metric != "llm_ttft" || len(cs[0].Tags) != 2 ||
		cs[0].Tags[0] != (k6json.Tag{Key: "model", Value: "gpt-4o"}) || cs[0].Tags[1] != (k6json.Tag{Key: "scenario", Value: "ramp"}) {
		t.Fatalf("%+v", cs)
	}
	if cs[0].Name() != "llm_ttft{model:gpt-4o,scenario:ramp}" || cs[1].Source != "llm_ttft{model:gpt-4o,scenario:ramp}: avg < 400" {
		t.Errorf("names %q %q", cs[0].Name(), cs[1].Source)
	}
	cs, err = Parse(`llm_ttft{error:""}: count>0`)
	if err != nil || cs[0].Tags[0] != (k6json.Tag{Key: "error", Value: ""}) {
		t.Errorf("quoted empty value: %+v %v", cs, err)
	}
	for _, bad := range []string{
		"llm_ttft p(95)<800", "llm_ttft{model:a: p(95)<1", "llm_ttft{model}: avg<1", "llm_ttft{model:}: avg<1",
		"llm_ttft{}: avg<1", "llm_ttft{a:1,a:2}: avg<1", ": avg<1", "llm ttft: avg<1", "llm_ttft:", "llm_ttft: avg<1, bogus",
		"llm_ttft{a:1}x: avg<1",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReadChecks(t *testing.T) {
	t.Parallel()
	lines := "# gates\n\nllm_ttft: p(99)<2000\n  llm_requests_failed: rate<0.01 \n"
	cs, err := ReadChecks([]byte(lines), "gates.txt")
	if err != nil || len(cs) != 2 || cs[1].Metric != "llm_requests_failed" {
		t.Fatalf("%+v %v", cs, err)
	}
	_, err = ReadChecks([]byte("llm_ttft: p(99)<2000\nllm_ttft: p(99)<<2000\n"), "gates.txt")
	if err == nil || !strings.HasPrefix(err.Error(), "gates.txt:2: ") {
		t.Errorf("error without line: %v", err)
	}
	js := `{"llm_ttft": ["p(99)<2000", {"threshold": "p(90)<900", "abortOnFail": true}],
	        "llm_ttft{model:model-b}": ["p(95)<1500"], "llm_requests_failed": ["rate<0.05"]}`
	cs, err = ReadChecks([]byte(js), "t.json")
	if err != nil || len(cs) != 4 {
		t.Fatalf("%+v %v", cs, err)
	}
	// The order of the JSON keys is kept.
	if cs[0].Source != "llm_ttft: p(99)<2000" || cs[1].Expr.String() != "p(90)<900" || cs[2].Name() != "llm_ttft{model:model-b}" || cs[3].Metric != "llm_requests_failed" {
		t.Errorf("%+v", cs)
	}
	wrapped, err := ReadChecks([]byte(`{"thresholds": `+js+`}`), "options.json")
	if err != nil || len(wrapped) != 4 {
		t.Errorf("options object: %v", err)
	}
	for _, bad := range []string{`{"llm_ttft": "p(99)<1"}`, `{"llm_ttft": [1]}`, `{"llm_ttft": ["p(99)"]}`, `{"llm ttft": ["avg<1"]}`, `{`, `{}`} {
		if _, err := ReadChecks([]byte(bad), "t.json"); err == nil || !strings.Contains(err.Error(), "t.json") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ReadChecks([]byte("# nothing\n"), "empty.txt"); !errors.Is(err, ErrNoChecks) {
		t.Errorf("empty: %v", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := map[k6json.Type][]string{
		k6json.Trend:   {"avg<1", "min<1", "max<1", "med<1", "p(90)<1"},
		k6json.Rate:    {"rate<1"},
		k6json.Counter: {"count<1", "rate<1"},
		k6json.Gauge:   {"value<1"},
	}
	all := []string{"avg<1", "min<1", "max<1", "med<1", "p(90)<1", "rate<1", "count<1", "value<1"}
	for typ, good := range ok {
		for _, e := range all {
			cs, err := Parse("m: " + e)
			if err != nil {
				t.Fatal(err)
			}
			want := false
			for _, g := range good {
				want = want || g == e
			}
			if err := cs[0].Validate(typ); (err == nil) != want {
				t.Errorf("%s on a %s: %v", e, typ, err)
			}
		}
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	trend := Data{Type: k6json.Trend, Sorted: []float64{10, 20, 30, 40}, Count: 4}
	for expr, want := range map[string]float64{
		"avg<0": 25, "min<0": 10, "max<0": 40, "med<0": 25, "p(90)<0": 37, "p(0)<0": 10,
	} {
		cs, _ := Parse("m: " + expr)
		r := cs[0].Evaluate(trend)
		if !r.Defined || math.Abs(r.Observed-want) > 1e-12 || r.Passed {
			t.Errorf("%s: %+v, want %v", expr, r, want)
		}
	}
	eval := func(expr string, d Data) Result {
		cs, err := Parse("m: " + expr)
		if err != nil {
			t.Fatal(err)
		}
		return cs[0].Evaluate(d)
	}
	rate := Data{Type: k6json.Rate, Count: 200, NonZero: 3}
	if r := eval("rate<0.01", rate); r.Observed != 0.015 || r.Passed {
		t.Errorf("rate %+v", r)
	}
	if r := eval("rate<0.02", rate); !r.Passed {
		t.Errorf("rate %+v", r)
	}
	counter := Data{Type: k6json.Counter, Count: 10, Sum: 500, Seconds: 20}
	if r := eval("count>=500", counter); !r.Passed || r.Observed != 500 {
		t.Errorf("count %+v", r)
	}
	if r := eval("rate==25", counter); !r.Passed {
		t.Errorf("counter rate %+v", r)
	}
	if r := eval("rate>0", Data{Type: k6json.Counter, Count: 1, Sum: 5}); r.Defined || r.Passed || r.Reason == "" {
		t.Errorf("counter rate without a span %+v", r)
	}
	if r := eval("value!=3", Data{Type: k6json.Gauge, Count: 2, Last: 3}); r.Passed || r.Observed != 3 {
		t.Errorf("gauge %+v", r)
	}
	// Operators as k6 applies them.
	for expr, pass := range map[string]bool{"max<40": false, "max<=40": true, "max>40": false, "max>=40": true, "max==40": true, "max===40": true, "max!=40": false} {
		if r := eval(expr, trend); r.Passed != pass {
			t.Errorf("%s: passed %v", expr, r.Passed)
		}
	}
	// No data fails (k6 would pass a threshold on an empty metric).
	if r := eval("p(99)<1e9", Data{Type: k6json.Trend}); r.Passed || r.Defined || !strings.HasPrefix(r.Reason, "no data") {
		t.Errorf("no data %+v", r)
	}
}
