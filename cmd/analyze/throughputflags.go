package main

import (
	"flag"
	"strings"

	"github.com/llmstream/xk6-llmstream/check"
	"github.com/llmstream/xk6-llmstream/k6json"
	"github.com/llmstream/xk6-llmstream/model"
	"github.com/llmstream/xk6-llmstream/result"
)

// sloFlags are --slo: the per-request limits goodput counts against, which
// summary and report share.
type sloFlags struct {
	exprs repeatFlag
}

func (s *sloFlags) register(fs *flag.FlagSet) {
	fs.Var(&s.exprs, "slo", "a per-request SLO limit for goodput, `'METRIC<LIMIT'` or k6's threshold syntax 'llm_ttft: p(99)<2000' "+
		"(a request is good when each of its samples meets it; repeatable; default: the module's llm_slo_met)")
}

// parse reads the limits: "llm_ttft<2000" is "llm_ttft: max<2000".
func (s *sloFlags) parse() ([]check.Check, error) {
	var out []check.Check
	for _, e := range s.exprs {
		src := e
		if !strings.Contains(e, ":") {
			if i := strings.IndexAny(e, "<>="); i > 0 {
				src = strings.TrimSpace(e[:i]) + ": max" + e[i:]
			}
		}
		cs, err := check.Parse(src)
		if err != nil {
			return nil, usagef("--slo %q: %v", e, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// join makes the request join for throughput and goodput, and the options
// that measure it, once the reader r exists.
func (s *sloFlags) join(r *model.Reader, confidence float64) (*model.Requests, result.ThroughputOptions, error) {
	checks, err := s.parse()
	if err != nil {
		return nil, result.ThroughputOptions{}, err
	}
	slo := &result.SLO{Checks: checks, TypeOf: func(m string) k6json.Type { t, _, _ := r.TypeOf(m); return t }}
	return model.NewRequests(slo.Streams()), result.ThroughputOptions{Confidence: confidence, SLO: slo}, nil
}
