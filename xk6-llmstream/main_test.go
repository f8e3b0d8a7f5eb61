package main

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// Environment that makes this test binary play a role for tests that need a
// separate process: with asMainEnv=1 it is the xk6-llmstream binary; when the
// runner it started runs it as k6 (standInEnv=true and the helper's URL set),
// it is a stand-in k6 that says READY and would run forever.
const (
	asMainEnv  = "XK6_LLMSTREAM_TEST_AS_MAIN"
	standInEnv = "XK6_LLMSTREAM_TEST_K6_STAND_IN"
)

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		if os.Getenv(standInEnv) == "true" && os.Getenv(runner.HelperEnv) != "" {
			fmt.Fprintln(os.Stderr, "READY (stand-in k6)")
			for {
				time.Sleep(time.Hour)
			}
		}
		os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	mockChildEnv = []string{asMainEnv + "=1"} // the mock's process: this binary as the program
	os.Exit(m.Run())
}
