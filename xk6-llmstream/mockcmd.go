package main

import (
	"fmt"
	"os"
	"os/exec"
)

// mockChildEnv is added to the environment of the mock's process (the tests
// set it so that their binary runs as this program).
var mockChildEnv []string

// mockCommand makes the command that serves the mock in a process of its own
// (runner.Config.MockCmd): this program's mock command, in env (nil: this
// process's environment). A mock in the helper's process would share its Go
// runtime, and its pacing and garbage collection would enter the helper's
// timestamps, which a real server's never do.
func mockCommand(env []string) (func(args ...string) *exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to serve the mock: %w", err)
	}
	if env == nil {
		env = os.Environ()
	}
	env = append(append([]string(nil), env...), mockChildEnv...)
	return func(args ...string) *exec.Cmd {
		c := exec.Command(self, append([]string{"mock"}, args...)...)
		c.Env = env
		return c
	}, nil
}
