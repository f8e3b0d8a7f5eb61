package report

import (
	"fmt"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/analyze/output"
)

// HistoryOf is a history's section of the page without its figures: the
// file, the runs and series, the settings, the alerts and the latest run of
// each series, counted by verdict.
func HistoryOf(rep *history.Report) *History {
	sec := &History{File: rep.File, Runs: rep.Records, Series: len(rep.Series), OK: rep.OK,
		Settings: fmt.Sprintf("Window %d runs; limits %s; trend test at %g%%.", rep.Window, strings.Join(rep.Limits, ", "), 100*rep.Level)}
	for _, v := range rep.Alerts {
		sec.Alerts = append(sec.Alerts, output.VerdictLine(v))
	}
	for _, v := range rep.Latest {
		sec.Latest = append(sec.Latest, output.VerdictLine(v))
		switch v.Status {
		case history.OK:
			sec.Passed++
		case history.Regression:
			sec.Regressions++
		default:
			sec.Undecided++
		}
	}
	return sec
}
