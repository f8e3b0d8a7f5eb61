// Package mockllm is a mock LLM server that speaks the streaming APIs the
// xk6-llmstream engine measures — OpenAI chat completions, completions and
// Responses, Anthropic messages, Gemini, Cohere v2 chat and ollama — with a
// seeded latency model, injected faults and ground-truth timestamps. Its wire
// formats follow the providers' (the recordings in testdata/sse); the nested
// module conformance/ runs the official SDKs against it.
//
// A Server is an http.Handler, so tests start it with httptest.NewServer:
//
//	srv, err := mockllm.New(mockllm.Config{Seed: 1})
//	if err != nil { ... }
//	defer srv.Close()
//	ts := httptest.NewServer(srv)
//	defer ts.Close()
//	// POST ts.URL + "/v1/chat/completions"
//
// # Latency model
//
// Every request gets its own random source, derived from Config.Seed and the
// request's arrival sequence number only, so the same seed and the same request
// order give the same timeline whatever the goroutine interleaving. A request
// waits FIFO for one of Config.Slots decode slots (queue wait), then prefills
// (base + per input token, times a jitter), then emits events on a schedule: event
// k is due at a fixed offset from the moment the slot was granted, each gap being
// one inter-token latency draw (times the batching slowdown factor) plus, with a
// configured probability, a stall. Pacing sleeps until each event is due, so
// lateness never accumulates; the lateness of every event is recorded.
//
// # Ground truth
//
// Every SSE data JSON object the server sends carries the top-level field
// "x_mock_ts_ns" (stream.GroundTruthField) holding the server's wall-clock time,
// in unix nanoseconds, taken immediately before the event was written. The
// optional request log (Config.Log) holds one JSON line per request with its
// arrival, queue wait, prefill and every event's due offset, write time and
// lateness (see RequestLog).
//
// # Faults
//
// Each fault (HTTP 429, 5xx, a disconnect mid-stream, a malformed event, an
// error event, a non-streamed answer to a streamed request) fires at its own
// configured rate, drawn from the request's seeded source; 401 answers requests
// without the right key when Config.APIKey is set; 429 also answers requests
// beyond Config.QueueLimit.
package mockllm
