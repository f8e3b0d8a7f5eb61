package thresholds

import (
	"strings"
	"testing"
)

// FuzzParse: the parser never panics, and what it accepts prints back (Source)
// into something it parses to the same check.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"llm_ttft: p(99)<2000", "llm_ttft{model:gpt-4o}: p(95)<800, avg<=400", "llm_requests_failed: rate<0.01",
		`m{ a : "x" , 'b':y }: p(99.9) >= 1e3`, "m: count!=3", "m: max===1", "m: value == -0.5", "m{a:b}:p(0)>0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := Parse(s)
		if err != nil {
			return
		}
		for _, c := range cs {
			again, err := Parse(c.Source)
			if err != nil {
				t.Fatalf("%q parsed, its source %q does not: %v", s, c.Source, err)
			}
			if len(again) != 1 {
				// An expression with a comma inside is split again; the first
				// part must still be the same check.
				if !strings.Contains(c.Expr.Source, ",") {
					t.Fatalf("%q: source %q gave %d checks", s, c.Source, len(again))
				}
				return
			}
			a := again[0]
			if a.Name() != c.Name() || a.Expr.Aggregate != c.Expr.Aggregate || a.Expr.Op != c.Expr.Op ||
				!(a.Expr.Limit == c.Expr.Limit || a.Expr.Limit != a.Expr.Limit) {
				t.Fatalf("%q → %+v, reparsed %+v", s, c, a)
			}
		}
	})
}

// FuzzParseExpr: no panics; an accepted expression's canonical form (String)
// parses to the same expression.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"p(99)<2000", "avg <= 1", "rate!=0.5", "p(99.99)===1e-3", "value>-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpr(s)
		if err != nil {
			return
		}
		again, err := ParseExpr(e.String())
		if err != nil {
			t.Fatalf("%q parsed, %q does not: %v", s, e.String(), err)
		}
		if again.Aggregate != e.Aggregate || again.Op != e.Op || again.Limit != e.Limit {
			t.Fatalf("%q → %+v, %q → %+v", s, e, e.String(), again)
		}
	})
}

// FuzzReadChecks: the checks file reader never panics on any content.
func FuzzReadChecks(f *testing.F) {
	f.Add([]byte("# x\nllm_ttft: p(99)<1\n"))
	f.Add([]byte(`{"llm_ttft": ["p(99)<1", {"threshold": "avg<2"}]}`))
	f.Add([]byte(`{"thresholds": {"m{a:b}": ["rate<0.1"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ReadChecks(data, "fuzz")
		if err == nil && len(cs) == 0 {
			t.Fatal("no error and no checks")
		}
	})
}
