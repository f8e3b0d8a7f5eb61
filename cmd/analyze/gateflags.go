package main

import (
	"flag"

	"github.com/llmstream/xk6-llmstream/stats"
)

// gateFlags are how check and compare decide with confidence: the level,
// and whether an inconclusive gate is accepted.
type gateFlags struct {
	confidence float64
	allow      bool
}

// register adds --allow-inconclusive, and --confidence unless the command
// has its own (what names the gates: "checks", "limits").
func (g *gateFlags) register(fs *flag.FlagSet, what string) {
	if fs.Lookup("confidence") == nil {
		fs.Float64Var(&g.confidence, "confidence", stats.DefaultConfidence, "confidence level "+what+" are judged at, between 0 and 1")
	}
	fs.BoolVar(&g.allow, "allow-inconclusive", false, "accept "+what+" that cannot be decided at the confidence level (too few samples, or an interval that straddles the limit): they are reported, and exit 0; by default they fail (exit 99)")
}

func (g *gateFlags) validate() error {
	if c := g.confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	return nil
}
