package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

const runUsage = `usage: xk6-llmstream run [flags] script.js [k6 run flags...]

Runs a k6 script with your stock k6 (v1.x or v2.x) around the streaming helper
that llmstream.js talks to. Starts the helper on 127.0.0.1, and the mock LLM when
--mock is given or LLM_BASE_URL is not set; gives k6 their addresses in
LLMSTREAM_HELPER, LLMSTREAM_HELPER_TOKEN and LLM_BASE_URL; runs "k6 run" from
K6_BIN or PATH with everything after the script flags passed on; forwards SIGINT
and SIGTERM to k6 (a second one kills it); stops the helper and the mock after
k6 exits; and exits with k6's exit code (99 when a threshold failed).

The flags below must come before the script; anything else, from the first
argument that is not one of them, goes to "k6 run" unchanged.

Examples:
  xk6-llmstream run scripts/smoke.js
  xk6-llmstream run --mock-profile scripts/mock-profiles/realistic.json scripts/ramping-vus.js --out json=results.json
  LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=... xk6-llmstream run scripts/ci-gate.js
  K6_BIN=/opt/k6/k6 xk6-llmstream run --allow api.anthropic.com scripts/compare-models.js

Flags:
  --mock               start the mock LLM even if LLM_BASE_URL is set
  --mock-profile FILE  start the mock with this profile (see docs/mock.md)
  --allow HOSTS        more upstream hosts for the helper, comma-separated
                       (loopback and the host of LLM_BASE_URL are allowed)
  --records FILE       the helper writes one record per request to FILE
                       (JSON Lines, .gz compresses; see docs/records.md);
                       FILE must be new, empty or a records file
  --records-overwrite  let --records replace a file that is not a records file
  --k6-nice N          run k6 N steps of CPU priority below the helper (0-19,
                       default 10; 0: the same), so that k6's own CPU does not
                       delay the helper's timestamps (Linux)
  --scrape URL         stamp each record with the server's queue depth and
                       running requests from this Prometheus /metrics URL
                       (http or https), or "mock" for the run's own mock,
                       scraped every 250ms; needs --records
  --ca-file FILE       the helper also trusts the CA certificates (PEM) in
                       FILE for https upstreams (a private CA)
  --verbose            log every stream the helper runs
`

// runFlags are the runner's own flags, parsed off the front of the arguments.
type runFlags struct {
	mock        bool
	mockProfile string
	allow       []string
	records     string
	recOverride bool
	k6Nice      int
	scrape      string
	caFile      string
	verbose     bool
	help        bool
}

// parseRunArgs takes the runner's own flags off the front of args and returns
// the rest, which goes to "k6 run". Flags may be written -flag or --flag, and
// values as "--flag value" or "--flag=value"; "--" ends the runner's flags.
func parseRunArgs(args []string) (runFlags, []string, error) {
	f := runFlags{k6Nice: runner.DefaultK6Nice}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return f, args[i+1:], nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return f, args[i:], nil
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takeValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", usagef("flag --%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch name {
		case "mock", "verbose", "records-overwrite":
			b := true
			if hasValue {
				switch value {
				case "true", "1":
				case "false", "0":
					b = false
				default:
					return f, nil, usagef("flag --%s: want true or false, got %q", name, value)
				}
			}
			switch name {
			case "mock":
				f.mock = b
			case "verbose":
				f.verbose = b
			default:
				f.recOverride = b
			}
		case "mock-profile":
			v, err := takeValue()
			if err != nil {
				return f, nil, err
			}
			f.mockProfile = v
		case "records", "scrape", "ca-file":
			v, err := takeValue()
			if err != nil {
				return f, nil, err
			}
			switch name {
			case "records":
				f.records = v
			case "scrape":
				f.scrape = v
			default:
				f.caFile = v
			}
		case "k6-nice":
			v, err := takeValue()
			if err != nil {
				return f, nil, err
			}
			n, err := strconv.Atoi(v)
			if err == nil {
				err = runner.CheckK6Nice(n)
			}
			if err != nil {
				return f, nil, usagef("flag --k6-nice %q: want a whole number from 0 to %d", v, runner.MaxK6Nice)
			}
			f.k6Nice = n
		case "allow":
			v, err := takeValue()
			if err != nil {
				return f, nil, err
			}
			f.allow = append(f.allow, v)
		case "h", "help":
			f.help = true
			return f, nil, nil
		default:
			// Not ours: this and everything after it belongs to k6.
			return f, args[i:], nil
		}
	}
	return f, nil, nil
}

// runRun is the `run` command.
func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	return runK6(context.Background(), args, stdin, stdout, stderr, signals, nil)
}

// runK6 is runRun with its signals and environment (nil: the process's) given.
func runK6(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, signals <-chan os.Signal, env []string) error {
	f, k6Args, err := parseRunArgs(args)
	if err != nil {
		return err
	}
	if f.help {
		fmt.Fprint(stderr, runUsage)
		return nil
	}
	if len(k6Args) == 0 {
		return usagef("missing the k6 script: xk6-llmstream run [--mock] script.js [k6 run flags...]")
	}
	if _, err := helper.ParseAllowList(f.allow...); err != nil {
		return usagef("--allow: %v", err)
	}
	if err := checkRunScrape(f); err != nil {
		return err
	}
	caOpts, scrapeCAOpts, err := caFileOptions(f.caFile)
	if err != nil {
		return err
	}
	code, err := runner.Run(ctx, runner.Config{
		Args:             k6Args,
		Mock:             f.mock,
		MockProfile:      f.mockProfile,
		Allow:            f.allow,
		Env:              env,
		Stdin:            stdin,
		Stdout:           stdout,
		Stderr:           stderr,
		Signals:          signals,
		Verbose:          f.verbose,
		Records:          f.records,
		RecordsOverwrite: f.recOverride,
		K6Nice:           f.k6Nice,
		Scrape:           f.scrape,
		HelperOptions:    caOpts,
		ScrapeOptions:    scrapeCAOpts,
	})
	if err != nil {
		return err
	}
	if code != 0 {
		return exitCodeError{code}
	}
	return nil
}

// checkRunScrape checks --scrape before anything starts ("mock" is checked
// by the runner, which knows whether it starts one).
func checkRunScrape(f runFlags) error {
	switch {
	case f.scrape == "" || f.scrape == serverstats.Mock && f.records != "":
		return nil
	case f.records == "":
		return usagef("--scrape needs --records: it stamps each record with the server's queue depth")
	}
	if err := serverstats.CheckURL("--scrape", f.scrape); err != nil {
		return usageError{err}
	}
	return nil
}
