package history

import (
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/compare"
)

func parseLimitT(t *testing.T, ss ...string) []compare.RegressionLimit {
	t.Helper()
	var out []compare.RegressionLimit
	for _, s := range ss {
		l, err := compare.ParseLimit(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}
