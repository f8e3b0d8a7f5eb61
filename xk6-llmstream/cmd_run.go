package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
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
k6 exits; says why requests failed (by error kind, one example each); and exits
with k6's exit code (99 when a threshold failed; 2 for bad usage).

The flags below, and k6 run's own flags, may come before the script; any other
flag there is an error (exit 2) before anything starts. From the script on,
everything goes to "k6 run" unchanged; "--" ends run's flags.

Examples:
  xk6-llmstream run scripts/smoke.js
  xk6-llmstream run --records records.jsonl.gz scripts/ramping-vus.js --out json=results.json.gz
  xk6-llmstream run --mock-profile scripts/mock-profiles/realistic.json scripts/ramping-vus.js --out json=results.json
  LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=... xk6-llmstream run scripts/ci-gate.js
  K6_BIN=/opt/k6/k6 xk6-llmstream run --allow api.anthropic.com scripts/compare-models.js

Flags:
  --mock               start the mock LLM even if LLM_BASE_URL is set
  --mock-profile FILE  start the mock with this profile (see docs/mock-flags.md)
  --allow HOSTS        more upstream hosts for the helper, comma-separated
                       (loopback and the host of LLM_BASE_URL are allowed)
  --records FILE       the helper writes one record per request to FILE
                       (JSON Lines, .gz compresses; see docs/records.md);
                       FILE must be new, empty or a records file
  --records-overwrite  let --records replace a file that is not a records file
  --k6-nice N          run k6 N steps of CPU priority below the helper (0-19,
                       default 10; 0: the same), so that k6's own CPU does not
                       delay the helper's timestamps (Linux)
  --k6-idle            run k6 under SCHED_IDLE (Linux, default true): any other
                       thread preempts it at once; --k6-idle=false on a machine
                       shared with other work, where k6 would get little CPU
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
	k6Idle      bool
	scrape      string
	caFile      string
	verbose     bool
	help        bool
}

// parseRunArgs takes the runner's own flags off the front of args and returns
// the arguments of "k6 run". Flags may be written -flag or --flag, and
// values as "--flag value" or "--flag=value"; "--" ends the runner's flags.
//
// Before the script (the first argument that is not a flag, or "-" for
// stdin), each flag must be one of run's or one of k6 run's (k6RunFlags,
// passed on to k6 in their order, with their values); anything else is a
// usage error, naming the nearest flag when it is a near miss ("--recrods":
// did you mean --records?), so that nothing starts on a typo. From the
// script on, every argument goes to k6 unchanged and k6 checks it.
func parseRunArgs(args []string) (runFlags, []string, error) {
	f := runFlags{k6Nice: runner.DefaultK6Nice, k6Idle: true}
	var k6 []string // k6 flags before the script
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return f, append(k6, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return f, append(k6, args[i:]...), nil
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case name == "h" || name == "help":
			f.help = true
			return f, nil, nil
		case isRunBoolFlag(name):
			if err := f.setBool(name, value, hasValue); err != nil {
				return f, nil, err
			}
		case isRunValueFlag(name):
			if !hasValue {
				if i+1 >= len(args) {
					return f, nil, usagef("flag --%s needs a value", name)
				}
				i++
				value = args[i]
			}
			if err := f.set(name, value); err != nil {
				return f, nil, err
			}
		default:
			takes, ok := k6RunFlags[name]
			if !ok {
				return f, nil, unknownFlag(a)
			}
			k6 = append(k6, a)
			if takes && !hasValue {
				if i+1 >= len(args) {
					return f, nil, usagef("k6 flag %s needs a value", a)
				}
				i++
				k6 = append(k6, args[i])
			}
		}
	}
	return f, k6, nil
}

// isRunBoolFlag says whether name is one of run's boolean flags.
func isRunBoolFlag(name string) bool {
	switch name {
	case "mock", "verbose", "records-overwrite", "k6-idle":
		return true
	}
	return false
}

// isRunValueFlag says whether name is one of run's flags that take a value.
func isRunValueFlag(name string) bool {
	switch name {
	case "mock-profile", "records", "scrape", "ca-file", "k6-nice", "allow":
		return true
	}
	return false
}

// setBool sets a boolean flag: true when given bare, else its value, true
// or false (1 or 0).
func (f *runFlags) setBool(name, value string, hasValue bool) error {
	b := true
	if hasValue {
		switch value {
		case "true", "1":
		case "false", "0":
			b = false
		default:
			return usagef("flag --%s: want true or false, got %q", name, value)
		}
	}
	switch name {
	case "mock":
		f.mock = b
	case "verbose":
		f.verbose = b
	case "k6-idle":
		f.k6Idle = b
	default:
		f.recOverride = b
	}
	return nil
}

// set sets a flag that takes a value; --allow adds to the list.
func (f *runFlags) set(name, v string) error {
	switch name {
	case "mock-profile":
		f.mockProfile = v
	case "records":
		f.records = v
	case "scrape":
		f.scrape = v
	case "ca-file":
		f.caFile = v
	case "k6-nice":
		n, err := strconv.Atoi(v)
		if err == nil {
			err = runner.CheckK6Nice(n)
		}
		if err != nil {
			return usagef("flag --k6-nice %q: want a whole number from 0 to %d", v, runner.MaxK6Nice)
		}
		f.k6Nice = n
	case "allow":
		f.allow = append(f.allow, v)
	}
	return nil
}

// unknownFlag is the usage error for a flag before the script that is
// neither run's nor k6 run's.
func unknownFlag(a string) error {
	name := flagName(a)
	hint := ""
	if s := suggestFlag(name); s != "" {
		hint = " (did you mean --" + s + "?)"
	}
	return usagef("unknown flag %s%s: run's own flags and k6 run's flags come before the script; any other k6 flag goes after it (run -h lists run's)", a, hint)
}

// checkScript makes sure the script k6 is to run exists before anything
// starts: k6 would otherwise exit 255 after the mock and helper started. The
// script is the first of k6Args that is not a flag (k6RunFlags' values
// skipped); "-" (stdin) and http(s) URLs are k6's to read.
func checkScript(k6Args []string) error {
	for i := 0; i < len(k6Args); i++ {
		a := k6Args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			if a == "-" || strings.HasPrefix(a, "https://") || strings.HasPrefix(a, "http://") {
				return nil
			}
			fi, err := os.Stat(a)
			switch {
			case err != nil:
				return usagef("the k6 script %q: %v", a, errors.Unwrap(err))
			case fi.IsDir():
				return usagef("the k6 script %q is a folder: give the script file (e.g. %s)", a, filepath.Join(a, "script.js"))
			}
			return nil
		}
		if takes := k6RunFlags[flagName(a)]; takes && !strings.Contains(a, "=") {
			i++
		}
	}
	return usagef("missing the k6 script: xk6-llmstream run [--mock] script.js [k6 run flags...]")
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
	if err := checkScript(k6Args); err != nil {
		return err
	}
	mockCmd, err := mockCommand(env)
	if err != nil {
		return err
	}
	code, err := runner.Run(ctx, runner.Config{
		Args:             k6Args,
		Mock:             f.mock,
		MockProfile:      f.mockProfile,
		MockCmd:          mockCmd,
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
		K6Idle:           f.k6Idle,
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
		return usageError{Err: err}
	}
	return nil
}
