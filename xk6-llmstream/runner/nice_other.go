//go:build !linux

package runner

import "os/exec"

// startNiced starts cmd at this process's priority: only Linux lets one
// thread's nice value differ from the others', which k6 would inherit.
func startNiced(cmd *exec.Cmd, nice int) (<-chan error, string, error) {
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	note := ""
	if nice > 0 {
		note = "k6 runs at the runner's priority: lowering it is supported on Linux only"
	}
	return waited, note, nil
}
