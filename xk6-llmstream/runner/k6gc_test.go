package runner

import (
	"strings"
	"testing"
)

// TestK6GCEnv: k6 gets GOGC=K6GOGC and a GOMEMLIMIT of a quarter of the
// machine's memory, each unless the environment sets it, and neither where
// the memory is unknown.
func TestK6GCEnv(t *testing.T) {
	t.Parallel()
	mem := func(n uint64, ok bool) func() (uint64, bool) { return func() (uint64, bool) { return n, ok } }
	for _, c := range []struct {
		name         string
		env          []string
		memory       func() (uint64, bool)
		gogc, memlim string
	}{
		{"defaults", []string{"PATH=/bin"}, mem(8<<30, true), "400", "2147483648"},
		{"the user's GOGC", []string{"GOGC=50"}, mem(8<<30, true), "50", "2147483648"},
		{"the user's GOMEMLIMIT", []string{"GOMEMLIMIT=1GiB"}, mem(8<<30, true), "400", "1GiB"},
		{"memory unknown", []string{"PATH=/bin"}, mem(0, false), "", ""},
	} {
		env := k6GCEnv(c.env, c.memory)
		if g, m := LookupEnv(env, "GOGC"), LookupEnv(env, "GOMEMLIMIT"); g != c.gogc || m != c.memlim {
			t.Errorf("%s: GOGC=%q GOMEMLIMIT=%q, want %q %q", c.name, g, m, c.gogc, c.memlim)
		}
		if LookupEnv(env, "PATH") != LookupEnv(c.env, "PATH") {
			t.Errorf("%s: PATH changed: %q", c.name, env)
		}
	}
}

// TestK6CommandGetsGCEnv: the k6 the runner starts gets those settings, and
// the runner's own environment is left as it was.
func TestK6CommandGetsGCEnv(t *testing.T) {
	t.Parallel()
	if _, ok := machineMemory(); !ok {
		t.Skip("the machine's memory is unknown here: k6 keeps Go's defaults")
	}
	env := []string{"PATH=/bin"}
	cmd := k6Command("k6", Config{Args: []string{"s.js"}}, env)
	if LookupEnv(cmd.Env, "GOGC") != "400" || LookupEnv(cmd.Env, "GOMEMLIMIT") == "" {
		t.Errorf("k6's environment %q lacks GOGC=400 and a GOMEMLIMIT", cmd.Env)
	}
	if len(env) != 1 || strings.Contains(strings.Join(env, " "), "GOGC") {
		t.Errorf("the caller's environment changed: %q", env)
	}
}
