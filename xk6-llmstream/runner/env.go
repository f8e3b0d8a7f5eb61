package runner

import "strings"

// Environment variables the runner sets for k6 (and reads).
const (
	// HelperEnv holds the helper's base URL; llmstream.js reads it.
	HelperEnv = "LLMSTREAM_HELPER"
	// HelperTokenEnv holds the helper's bearer token; llmstream.js sends it.
	HelperTokenEnv = "LLMSTREAM_HELPER_TOKEN"
	// BaseURLEnv holds the LLM endpoint the scripts use; when unset, the
	// runner starts the mock and sets it to the mock's URL.
	BaseURLEnv = "LLM_BASE_URL"
)

// LookupEnv returns the last value of key in env ("KEY=value" entries), as the
// process environment would resolve duplicates.
func LookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// setEnv returns env with key set to value (every earlier entry of key removed).
func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == key {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}
