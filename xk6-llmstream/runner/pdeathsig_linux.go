package runner

import "syscall"

// dieWithParent makes the kernel send k6 (and a mock in a process of its
// own) SIGKILL when the runner dies (PR_SET_PDEATHSIG). The helper runs
// inside the runner's process, so it dies with it.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
