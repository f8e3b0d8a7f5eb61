package runner

import "syscall"

// dieWithParent makes the kernel send k6 SIGKILL when the runner dies
// (PR_SET_PDEATHSIG). The helper and the mock run inside the runner's process,
// so they die with it.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
