// Package helper is the loopback HTTP service that the k6 JavaScript module
// (llmstream.js) talks to. Stock k6 cannot read a response as it arrives, so the
// module posts each chat request to the helper, which streams it from the LLM
// with the stream engine — stamping every server-sent event as its bytes come
// off the socket — and answers with the timed record as JSON.
//
// The wire contract (POST /v1/stream, GET /healthz) is in docs/helper-api.md.
//
// Security: the helper binds 127.0.0.1 by default and refuses any other address
// unless a bearer token is configured; it streams only from loopback upstreams
// and from hosts on its AllowList, so it is never an open proxy; header values
// (API keys) are never logged, and every string it returns passes through a
// redactor that removes them.
//
// Resources: one shared engine client for all requests, no lock on the request
// path, the request body capped (WithMaxBody), returned text capped
// (WithMaxText), SSE lines capped by the engine (WithMaxLineBytes), and the
// upstream request canceled as soon as the k6 side's connection goes away.
package helper
