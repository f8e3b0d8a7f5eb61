package main

import (
	"flag"

	"github.com/llmstream/xk6-llmstream/check"
)

// checkFlags are --check and --checks, which check and report share.
type checkFlags struct {
	exprs repeatFlag
	files repeatFlag
}

// register adds the flags; what says what is done with the checks.
func (c *checkFlags) register(fs *flag.FlagSet, what string) {
	fs.Var(&c.exprs, "check", "a check, `'METRIC[{tag:value}]: EXPR'` in k6's threshold syntax, "+what+" (repeatable)")
	fs.Var(&c.files, "checks", "read checks from this `file`: one per line, or a JSON object like k6's thresholds option (repeatable)")
}

// parse reads the checks, --check ones first, in the order given.
func (c *checkFlags) parse() ([]check.Check, error) {
	var checks []check.Check
	for _, e := range c.exprs {
		cs, err := check.Parse(e)
		if err != nil {
			return nil, usagef("--check: %v", err)
		}
		checks = append(checks, cs...)
	}
	for _, f := range c.files {
		cs, err := check.ReadFile(f)
		if err != nil {
			return nil, usagef("--checks: %v", err)
		}
		checks = append(checks, cs...)
	}
	return checks, nil
}
