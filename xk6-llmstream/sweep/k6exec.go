package sweep

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// DurationEnv hands the level's duration to the script (scripts/capacity.js).
const DurationEnv = "LLM_DURATION"

// K6 runs each level as "k6 run" through the runner: the helper, and the mock
// LLM when LLM_BASE_URL is unset (or Mock is set), start for the level and
// stop after it, so every level meets an idle server with a fresh request
// sequence (the mock's draws depend on the seed and the arrival order only).
// k6 gets the level in LLM_RATE or LLM_VUS (the other one removed), the
// level's duration in LLM_DURATION when Duration is set, and
//
//	k6 run --out json=<Run.Out> --tag level=<level> <Script> <K6Args…>
//
// Its standard output and error go to Run.Log.
type K6 struct {
	Mode     Mode
	Script   string
	K6Args   []string
	Duration string   // LLM_DURATION; "" leaves the script's own
	Env      []string // nil: os.Environ()
	// Mock, MockProfile, MockCmd, Allow and Verbose are the runner's (see
	// runner.Config).
	Mock        bool
	MockProfile string
	MockCmd     func(args ...string) *exec.Cmd
	Allow       []string
	Verbose     bool
	// HelperOptions are added to the helper's (runner.Config.HelperOptions):
	// e.g. helper.WithRootCAs for --ca-file.
	HelperOptions []helper.Option
}

// Run implements Executor.
func (k K6) Run(ctx context.Context, lv Run) (int, error) {
	env := k.Env
	if env == nil {
		env = os.Environ()
	}
	set := map[string]string{k.Mode.Env(): FormatLevel(lv.Offered)}
	if k.Duration != "" {
		set[DurationEnv] = k.Duration
	}
	maps.Copy(set, lv.Env)
	env = withEnv(env, set, Rate.Env(), VUs.Env())
	log, err := os.Create(lv.Log)
	if err != nil {
		return 0, fmt.Errorf("level %s: %w", FormatLevel(lv.Offered), err)
	}
	args := append([]string{"--out", "json=" + lv.Out, "--tag", "level=" + FormatLevel(lv.Offered), k.Script}, k.K6Args...)
	code, err := runner.Run(ctx, runner.Config{
		Args: args, Records: lv.Records, Mock: k.Mock, MockProfile: k.MockProfile, MockCmd: k.MockCmd, Allow: k.Allow, Env: env,
		Stdout: log, Stderr: log, Signals: lv.Signals, Verbose: k.Verbose, OnMock: lv.OnMock, HelperOptions: k.HelperOptions,
	})
	if cerr := log.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("level %s: k6's log: %w", FormatLevel(lv.Offered), cerr)
	}
	if errors.Is(err, runner.ErrK6NotFound) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("level %s: %w", FormatLevel(lv.Offered), err)
	}
	return code, nil
}

// withEnv returns env without the keys drop and the keys of set, then set's
// entries.
func withEnv(env []string, set map[string]string, drop ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || slices.Contains(drop, k) {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}
