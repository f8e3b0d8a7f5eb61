//go:build !unix

package bench

import (
	"os"
	"time"
)

// processCPU is not measured off Unix.
func processCPU() time.Duration { return 0 }

// childCPU is the user+system CPU time an exited child used.
func childCPU(st *os.ProcessState) time.Duration {
	if st == nil {
		return 0
	}
	return st.UserTime() + st.SystemTime()
}
