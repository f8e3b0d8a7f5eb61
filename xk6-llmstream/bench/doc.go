// Package bench measures how much delay the k6 path adds to what it measures:
// the per-event delivery lag (the client's read time minus the mock LLM's own
// write stamp, x_mock_ts_ns), TTFT and ITL error against the mock's fixed
// schedule, tokens/s and CPU time — side by side, in one run, for
//
//	(a) bare:   a bare Go streaming client (net/http and a minimal line
//	            reader): the machine's floor;
//	(b) helper: the same load through the helper (an HTTP hop to the helper,
//	            which streams with the engine, keep_timeline on);
//	(c) k6:     real k6 running llmstream.js against the same helper, when
//	            K6_BIN points at a k6 binary;
//
// at 1, 50 and 200 concurrent streams, plus 2,000 concurrent slow streams
// through the helper. The mock runs in a child process (this test binary,
// re-executed), so the CPU time reported is the client side's alone.
//
// Run it with (figures and how to read them: docs/runner.md):
//
//	go test ./xk6-llmstream/bench -run '^$' -bench . -benchtime 1x
//
// Environment: K6_BIN (enables path c), LLMSTREAM_BENCH_ITL (default 20ms),
// LLMSTREAM_BENCH_TOKENS (default 50), LLMSTREAM_BENCH_ROUNDS (requests per
// stream slot, default 3), LLMSTREAM_BENCH_LEVELS (default "1,50,200").
package bench
