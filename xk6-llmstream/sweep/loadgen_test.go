package sweep

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

func repeat(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

// TestLevelLoadGenerator: each level is judged by the rule run and analyze
// apply, on its own llm_client_lag and llm_client_cpu_idle samples.
func TestLevelLoadGenerator(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		lags, idles []float64
		limited     bool
		why         string
	}{
		{"quiet", repeat(0.05, 200), repeat(0.9, 200), false, ""},
		{"saturated", repeat(0.05, 200), repeat(0.02, 200), true, "2% idle"},
		{"late reads", repeat(3, 200), nil, true, "client lag p50 3 ms"},
		{"too few requests", repeat(3, 20), nil, false, "20 client lag sample(s)"},
	} {
		g := loadGen(c.lags, c.idles)
		if g.Limited != c.limited || !strings.Contains(g.Why, c.why) || (c.why == "" && g.Why != "") || g.Samples != len(c.lags) {
			t.Errorf("%s: %+v, want limited %v, why containing %q", c.name, g, c.limited, c.why)
		}
	}
	if g := loadGen(nil, nil); g.ClientLagP50 != nil || g.CPUIdleP50 != nil || g.Limited {
		t.Errorf("no samples: %+v, want no figures and no verdict", g)
	}
}

// TestTableSaysLoadGeneratorLimited: a limited level gets the warning line
// in the table, and an answer at that level says so.
func TestTableSaysLoadGeneratorLimited(t *testing.T) {
	t.Parallel()
	top := 20.0
	lv := func(i int, offered float64, idle float64) Level {
		return Level{Index: i, Offered: offered, Pass: true, Verdict: result.Pass, LoadGenerator: loadGen(repeat(0.05, 200), repeat(idle, 200))}
	}
	res := &Result{Mode: Rate.String(), Unit: "req/s", Confidence: 0.95, MaxPassing: &top,
		Levels: []Level{lv(1, 10, 0.8), lv(2, 20, 0.03)}}
	var buf bytes.Buffer
	if err := WriteTable(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "level 2 (20 req/s): warning: "+headroom.Warning) || strings.Contains(out, "level 1 (10 req/s): warning") {
		t.Errorf("table:\n%s\nwant the warning on level 2 alone", out)
	}
	if a := Answer(res); !strings.HasSuffix(a, "at that level "+headroom.Warning) {
		t.Errorf("answer %q, want it to say the answer's level may be limited", a)
	}
	res.Levels[1].LoadGenerator = res.Levels[0].LoadGenerator
	if a := Answer(res); strings.Contains(a, headroom.Warning) {
		t.Errorf("answer %q warns of a level the rule found not limited", a)
	}
}
