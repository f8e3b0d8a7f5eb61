//go:build unix

package runner

import (
	"os"
	"os/exec"
	"syscall"
)

// childMockSupported is true: a mock in a process of its own is stopped by
// an interrupt, which flushes its request log (Config.MockCmd).
const childMockSupported = true

// prepare puts k6 in its own process group, so that a Ctrl-C in the terminal
// reaches only the runner, which forwards it to k6 exactly once (k6 treats a
// second interrupt as "stop now"); and, where the system has one, asks for k6
// to be killed when the runner dies (even by SIGKILL), so that no k6 keeps
// generating load against a helper that is gone.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// forward sends sig to the k6 process.
func forward(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

// signalExitCode is the shell's convention for a process killed by a signal:
// 128 + the signal number. ok is false when the process was not signaled.
func signalExitCode(st *os.ProcessState) (int, bool) {
	ws, isWS := st.Sys().(syscall.WaitStatus)
	if !isWS || !ws.Signaled() {
		return 0, false
	}
	return 128 + int(ws.Signal()), true
}
