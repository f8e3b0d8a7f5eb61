// Package definitions computes TTFT, ITL and TPOT of one run as each peer
// tool defines them — vLLM's benchmark, AIPerf, GuideLLM, LLMPerf, SGLang's
// bench_serving — beside this project's own (metrics.FromRecord), from the
// same per-request records, so numbers from different tools can be told
// apart from differences between servers. docs/definitions.md cites each
// tool's source for its formula and says what the records can and cannot
// reproduce.
//
// It also sums the token-count audit (records.TokenAudit,
// metrics.TokenMismatch) and the text events per token of a run.
//
// The package reads records only: the per-request event times, the first
// event of any kind and the token counts are not in k6's JSON output.
package definitions
