package runner

import "strconv"

// K6GOGC is the garbage collector's target k6 runs with unless its
// environment sets GOGC (Go's default is 100). At 50 VUs most of what the
// module's JavaScript costs k6 per request is the garbage collector's, and
// each collection scans every VU's runtime: at 400 the delivery-lag benchmark
// measured k6's CPU per records-mode request at 428 µs against 629 µs at
// 100, and a plain http.post's at 188 µs against 249 µs (docs/performance.md).
const K6GOGC = 400

// K6MemoryShare bounds what the larger target may cost: k6 gets GOMEMLIMIT
// of this share of the machine's memory unless its environment sets one,
// so that near it Go collects as often as it must instead of growing.
const K6MemoryShare = 4 // a quarter

// K6GCEnv returns env with GOGC=K6GOGC and GOMEMLIMIT set for k6, each
// unless env sets it already; where the machine's memory is unknown it sets
// neither (a higher target needs the bound).
func K6GCEnv(env []string) []string { return k6GCEnv(env, machineMemory) }

func k6GCEnv(env []string, memory func() (uint64, bool)) []string {
	total, ok := memory()
	if !ok || total == 0 {
		return env
	}
	if LookupEnv(env, "GOGC") == "" {
		env = setEnv(env, "GOGC", strconv.Itoa(K6GOGC))
	}
	if LookupEnv(env, "GOMEMLIMIT") == "" {
		env = setEnv(env, "GOMEMLIMIT", strconv.FormatUint(total/K6MemoryShare, 10))
	}
	return env
}
