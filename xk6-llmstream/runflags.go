package main

import (
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
)

// runnerFlags are the names of run's own flags (without dashes).
var runnerFlags = []string{"mock", "mock-profile", "allow", "records", "records-overwrite", "k6-nice", "k6-idle", "scrape", "ca-file", "verbose", "help", "h"}

// k6RunFlags are the flags of "k6 run" (k6 v1.x and v2.x, from `k6 run
// --help`) that run lets through before the script, each with whether it
// takes a value (true) or is a switch (false). After the script everything
// goes to k6 unchecked. --http-debug takes its value only as --http-debug=….
var k6RunFlags = map[string]bool{
	"u": true, "vus": true, "d": true, "duration": true, "i": true, "iterations": true,
	"s": true, "stage": true, "execution-segment": true, "execution-segment-sequence": true,
	"p": false, "paused": false, "no-setup": false, "no-teardown": false,
	"max-redirects": true, "batch": true, "batch-per-host": true, "rps": true, "user-agent": true,
	"http-debug": false, "insecure-skip-tls-verify": false, "no-connection-reuse": false,
	"no-vu-connection-reuse": false, "min-iteration-duration": true, "w": false, "throw": false,
	"blacklist-ip": true, "block-hostnames": true, "summary-trend-stats": true, "summary-time-unit": true,
	"system-tags": true, "tag": true, "console-output": true, "discard-response-bodies": false,
	"local-ips": true, "dns": true, "include-system-env-vars": false, "compatibility-mode": true,
	"t": true, "type": true, "e": true, "env": true, "no-thresholds": false, "summary-mode": true,
	"summary-export": true, "new-machine-readable-summary": false, "traces-output": true,
	"o": true, "out": true, "l": false, "linger": false, "no-usage-report": false, "features": true,
	"a": true, "address": true, "c": true, "config": true, "log-format": true, "log-output": true,
	"no-color": false, "profiling-enabled": false, "q": false, "quiet": false, "secret-source": true,
	"v": false,
}

// suggestFlag returns the flag nearest to name (one of run's, else one of
// k6 run's) when it is a near miss: at most 2 edits, and fewer edits than name has
// letters; "" when none is.
func suggestFlag(name string) string {
	best, bestD := "", 3
	try := func(cands []string) {
		for _, c := range cands {
			if len(c) < 3 {
				continue
			}
			if d := levenshtein.ComputeDistance(name, c); d < bestD && d < len(name) {
				best, bestD = c, d
			}
		}
	}
	try(runnerFlags)
	if best != "" {
		return best
	}
	k6 := make([]string, 0, len(k6RunFlags))
	for f := range k6RunFlags {
		k6 = append(k6, f)
	}
	sort.Strings(k6) // ties: the same answer every time
	try(k6)
	return best
}

// flagName is a flag's name without its dashes and value ("--out=x" → "out").
func flagName(a string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}
