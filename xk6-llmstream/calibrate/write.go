package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteText writes the report as a short table and the verdict line.
func WriteText(w io.Writer, r *Result) error {
	head := "?"
	if r.CPUHeadroom != nil {
		head = fmt.Sprintf("%.0f%% idle of %d CPUs", 100**r.CPUHeadroom, r.CPUs)
	}
	clientLag := "—"
	if r.ClientLagP50 != nil && r.ClientLagP99 != nil {
		clientLag = fmt.Sprintf("p50 %.2f ms, p99 %.2f ms over %d requests", *r.ClientLagP50, *r.ClientLagP99, r.ClientLagSamples)
	}
	rule := "quiet"
	if r.RuleLimited {
		rule = "limited: " + r.RuleWhy
	} else if r.RuleWhy != "" {
		rule = r.RuleWhy
	}
	_, err := fmt.Fprintf(w, `calibration: the client's own error against the mock's ground truth
mock                   TTFT %.2f ms, ITL %.2f ms, %d output tokens, from %s
requests compared      %d of %d (k6 exit %d), %d streams at peak
TTFT error             p50 %.2f ms, p99 %.2f ms
mid-stream lag         p50 %.2f ms, p99 %.2f ms %s, p99.9 %.2f ms (%d events)
ITL error              p99 %.2f ms
zero gaps              %.2f%% measured, %.2f%% written
client lag (probes)    %s
CPU headroom           %s
run's warning rule     %s
%s
`, r.Mock.TTFTMS, r.Mock.ITLMS, r.Mock.OutputTokens, r.Mock.From, r.Matched, r.Requests, r.K6Exit, r.PeakStreams, r.TTFTErrorP50, r.TTFTErrorP99, r.LagP50, r.LagP99, ciText(r.LagP99CI), r.LagP999, r.Events,
		r.ITLErrorP99, 100*r.ZeroGapShare, 100*r.TrueZeroGapShare, clientLag, head, rule, r.Verdict)
	if err != nil {
		return err
	}
	for _, why := range r.Reasons {
		if _, err := fmt.Fprintf(w, "  because %s\n", why); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the report as one JSON object.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func ciText(ci [2]*float64) string {
	end := func(v *float64, inf string) string {
		if v == nil {
			return inf
		}
		return fmt.Sprintf("%.2f", *v)
	}
	return "[95% CI " + end(ci[0], "-∞") + ", " + end(ci[1], "∞") + "]"
}
