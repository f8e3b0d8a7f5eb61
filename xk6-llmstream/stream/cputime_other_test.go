//go:build !unix

package stream

import "time"

// processCPU is not measured on this platform.
func processCPU() time.Duration { return 0 }
