// Package e2e holds end-to-end tests of xk6-llmstream: against a real
// inference engine (ollama serving the tiny random-weights llama model from
// testdata/models), and the tail attribution against causes the mock makes
// on purpose (tail_causes_test.go, which always runs: mock, helper, records
// and analyze in one process). The package has no non-test code.
//
// The ollama tests run only when LLMSTREAM_OLLAMA_URL names a running ollama
// (its base URL, e.g. http://127.0.0.1:11434); otherwise they skip. scripts/e2e-ollama.sh
// builds and starts ollama, creates the model and runs them:
//
//	LLMSTREAM_OLLAMA_URL=http://127.0.0.1:PORT LLMSTREAM_OLLAMA_MODEL=tiny-random \
//	  go test ./e2e -run Ollama -count=1 -v
//
// Environment:
//
//	LLMSTREAM_OLLAMA_URL         ollama's base URL, with or without /v1 (required)
//	LLMSTREAM_OLLAMA_MODEL       model name (default tiny-random)
//	LLMSTREAM_OLLAMA_MAX_TOKENS  max_tokens of every request, at least 2 (default 32)
//	LLMSTREAM_OLLAMA_STREAMS     concurrent streams of the concurrency cases (default 8)
//
// What they check, for the stream engine, the helper and the JavaScript module
// (under the k6sim harness, with a test script and with ollama-sweep.js, the k6
// script of the script's real-k6 step): every request succeeds; output tokens come from
// the usage report and equal max_tokens; TTFT is positive and lies between the
// response headers and the end of the stream; there are at least max_tokens−2
// inter-token gaps, none negative, and they add up to the span of the text
// events; the finish reason is "length"; and what the product decoded equals an
// independent decoding of the same answer (encoding/json over the raw body).
// They assert no wall-clock figure: the queueing comparison between 1 and 16
// streams is made by scripts/e2e-ollama.sh on real k6 output.
package e2e
