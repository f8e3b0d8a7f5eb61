//go:build !linux

package runner

import "os/exec"

// startNiced starts cmd at this process's priority: only Linux lets one
// thread's nice value differ from the others', which k6 would inherit.
func startNiced(cmd *exec.Cmd, nice int, idle bool) (<-chan error, string, error) {
	waited, err := start(cmd)
	if err != nil {
		return nil, "", err
	}
	note := ""
	if nice > 0 || idle {
		note = "k6 runs at the runner's priority: lowering it is supported on Linux only"
	}
	return waited, note, nil
}
