//go:build !unix

package runner

import (
	"os"
	"os/exec"
)

// childMockSupported is false: Windows cannot interrupt a child process, so
// a mock there could not be stopped with its request log flushed; the mock
// stays in the runner's process.
const childMockSupported = false

// prepare leaves k6 in the runner's console: on Windows a console Ctrl-C
// reaches every process attached to it.
func prepare(cmd *exec.Cmd) {}

// forward stops k6: Windows cannot deliver an interrupt to another process.
func forward(p *os.Process, sig os.Signal) error {
	if err := p.Signal(sig); err == nil {
		return nil
	}
	return p.Kill()
}

// signalExitCode has no meaning off Unix.
func signalExitCode(st *os.ProcessState) (int, bool) { return 0, false }
