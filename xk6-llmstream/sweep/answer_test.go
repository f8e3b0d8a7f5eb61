package sweep

import (
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// The answer line agrees with the table (issue 26 item 4): levels 6, 11, 14
// where 6 failed and 11 passed ended "no level met the SLO" under a table
// showing 11 "pass". The answer now says a level passed and why it is not
// taken as the answer; and with 6 passing, 11 failing and 14 passing it
// names 6 and says why 14 is not the answer.
func TestAnswerAgreesWithTable(t *testing.T) {
	t.Parallel()
	level := func(i int, offered float64, v result.Verdict) Level {
		return Level{Index: i, Offered: offered, Verdict: v, Pass: v == result.Pass}
	}
	for _, c := range []struct {
		levels []Level
		want   []string
		not    []string
	}{
		{[]Level{level(1, 6, result.Fail), level(2, 11, result.Pass), level(3, 14, result.Fail)},
			[]string{"no highest rate", "level 2 (11 req/s) passed", "level 1 (6 req/s), lower, failed"},
			[]string{"no level met the SLO"}},
		{[]Level{level(1, 6, result.Inconclusive), level(2, 11, result.Pass)},
			[]string{"level 2 (11 req/s) passed", "level 1 (6 req/s), lower, was inconclusive"}, []string{"no level met the SLO"}},
		{[]Level{level(1, 6, result.Pass), level(2, 11, result.Fail), level(3, 14, result.Pass)},
			[]string{"highest rate meeting the SLO: 6 req/s", "level 3 (14 req/s) passed too", "level 2 (11 req/s), lower, failed"}, nil},
		{[]Level{level(1, 6, result.Fail), level(2, 11, result.Fail)},
			[]string{"no level met the SLO: no highest rate"}, nil},
	} {
		res := &Result{Mode: "rate", Unit: "req/s", Levels: c.levels}
		finish(res)
		got := Answer(res)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: answer %q lacks %q", c.levels, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%v: answer %q says %q, against the table", c.levels, got, w)
			}
		}
	}
}
