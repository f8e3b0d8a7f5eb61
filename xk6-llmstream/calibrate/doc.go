// Package calibrate measures the client's own error on this machine, at the
// load a user's script declares: it runs the script (through the runner:
// helper, stock k6) against the mock LLM shaped like the target (TTFT, ITL,
// output length, from flags or from a probe of the real endpoint: Probe),
// served in a process of its own as a real server would be, and compares what the helper measured (its records) with
// the mock's ground truth (its request log: every event's write time). It
// reports the TTFT error, the delivery lag of mid-stream text events, the
// ITL error, the share of zero gaps, the machine's CPU headroom during the
// run and one verdict: how far numbers from this machine can be trusted at
// this load, or that the machine is the bottleneck (docs/calibrate.md).
//
// Analyze is the comparison alone (records and mock log in, report out), so
// it is tested without k6; Run needs a k6 binary (K6_BIN or PATH).
package calibrate
