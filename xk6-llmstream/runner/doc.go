// Package runner runs a k6 script with stock k6 around the project's own
// services: it starts the streaming helper in this process on loopback and,
// when no endpoint is given, the mock LLM as a process of its own
// (`xk6-llmstream mock`, from Config.MockCmd; in this process only when MockCmd
// is nil or the system cannot interrupt a child, childMockSupported), passes
// their addresses to k6 in the environment (LLMSTREAM_HELPER,
// LLMSTREAM_HELPER_TOKEN, LLM_BASE_URL), runs
// "k6 run" from K6_BIN or PATH with the standard streams passed through,
// forwards signals, says why requests failed (by error kind, one redacted
// example each), stops everything afterwards and returns k6's exit code.
//
// k6 is only ever an external program here: nothing of k6 is imported.
package runner
