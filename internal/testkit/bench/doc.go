// Package bench measures how much delay the k6 path adds to what it measures:
// the per-event delivery lag (the client's read time minus the mock LLM's own
// write stamp, x_mock_ts_ns), TTFT and ITL error against the mock's fixed
// schedule, tokens/s and CPU time — side by side, in one run, for
//
//	(a) bare:   a bare Go streaming client (net/http and a minimal line
//	            reader): the machine's floor;
//	(b) helper: the same load through the helper (an HTTP hop to the helper,
//	            which streams with the engine, keep_timeline on);
//	(c) k6:     real k6 running llmstream.js against a helper, when K6_BIN
//	            points at a k6 binary, in two modes: k6-all+json (itl: 'all'
//	            and --out json, what analyze reads from k6 alone) and
//	            k6-records (itl: 'records', the helper writing --records);
//
// at 1, 50 and 200 concurrent streams, and with LLMSTREAM_BENCH_SLOW=1 the
// slow case: 2,000 concurrent slow streams on every path (the k6 paths as
// 200 VUs of 10 asyncChat streams). BenchmarkSlowStreams also runs the
// 2,000 slow streams through the helper alone, with its memory. The mock runs
// in a child process (this test binary, re-executed), so the CPU time
// reported is the client side's alone. For the k6 paths a second k6 run of
// the warm-up alone measures k6's start-up, which the "steady" CPU leaves out.
//
// Stream starts are staggered: slot i of n starts i·W/n after its round
// begins (StaggerOffset), W half a stream's length by default (515 ms), the
// same offsets for every path: requests then begin at about the rate a steady
// load of n back-to-back streams makes, and all n run at once in the second
// half of the round. In lockstep every request of a round would start, and
// end, in the same millisecond, and each path's per-request work would land in
// those bursts and delay the other streams' first and last events — a burst
// real load does not make. LLMSTREAM_BENCH_STAGGER=0 keeps lockstep to show it.
//
// The lag is reported for all events and split by phase (Phase): the first
// event (arrives with the headers), the first text event (TTFT), mid-stream
// events (every text event after the first, with the p99's interval) and the
// final events, with p99.9 where there are enough events
// (MinNForP999), and the helper/bare and k6/bare p99 ratios for all and for
// mid-stream events.
//
// Run it with (how to read the tables: docs/runner.md):
//
//	go test ./internal/testkit/bench -run '^$' -bench . -benchtime 1x
//
// Environment: K6_BIN (enables path c), LLMSTREAM_BENCH_ITL (default 20ms),
// LLMSTREAM_BENCH_TOKENS (default 50), LLMSTREAM_BENCH_ROUNDS (requests per
// stream slot, default 3), LLMSTREAM_BENCH_LEVELS (default "1,50,200"),
// LLMSTREAM_BENCH_STAGGER (start window, default half a stream, 0 = lockstep),
// LLMSTREAM_BENCH_SLOW=1 (add the slow case), LLMSTREAM_BENCH_K6_NICE (k6's
// priority below the helper's, default that of xk6-llmstream run),
// LLMSTREAM_BENCH_MODULE (another llmstream.js for the k6 paths).
//
// BenchmarkScriptLag runs one k6 script as it is (LLMSTREAM_BENCH_SCRIPT,
// from the repository's root; default scripts/ramping-vus.js) through the k6
// path against calibrate's mock (LLMSTREAM_BENCH_TTFT, default 50ms;
// LLMSTREAM_BENCH_ITL; LLMSTREAM_BENCH_TOKENS, default 64; in the child
// process, or in this one with LLMSTREAM_BENCH_MOCK_INPROC=1 as calibrate
// runs it) and prints the mid-stream lag — every text event after the first,
// the statistic calibrate reports — with its p99's 95% interval
// (calibrate.LagP99Interval, the same rule): the figure `xk6-llmstream
// calibrate` is checked against (docs/calibrate.md).
package bench
