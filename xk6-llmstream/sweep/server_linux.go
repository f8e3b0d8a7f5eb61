package sweep

import "syscall"

// dieWithSweep has the kernel kill the server's first process when the
// sweep dies, even by SIGKILL (PR_SET_PDEATHSIG).
func dieWithSweep(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
