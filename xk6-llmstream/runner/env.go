package runner

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
)

// Environment variables the runner sets for k6 (and reads).
const (
	// HelperEnv holds the helper's base URL; llmstream.js reads it.
	HelperEnv = "LLMSTREAM_HELPER"
	// HelperTokenEnv holds the helper's bearer token; llmstream.js sends it.
	HelperTokenEnv = "LLMSTREAM_HELPER_TOKEN"
	// BaseURLEnv holds the LLM endpoint the scripts use; when unset, the
	// runner starts the mock and sets it to the mock's URL.
	BaseURLEnv = "LLM_BASE_URL"
	// CacheSaltEnv holds the run's prefix-cache salt (docs/traffic.md): the
	// runner sets a fresh one when it is unset; a Client with cacheBust puts
	// it at the start of every prompt.
	CacheSaltEnv = "LLM_CACHE_SALT"
	// CacheBustEnv, "1", makes every Client without a cacheBust option bust
	// (the sweep sets it per level unless --no-cache-bust); "0" or unset
	// leaves it to the option.
	CacheBustEnv = "LLM_CACHE_BUST"
)

// NewCacheSalt is a fresh salt: 12 decimal digits from crypto/rand. Digits,
// not hex: BPE tokenizers split a run of digits into groups of a fixed size,
// so every salt costs the same tokens and a shared prefix keeps its block
// alignment (hence its prefix-cache hits) from one run to the next.
func NewCacheSalt() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1e12))
	if err != nil {
		panic(err) // crypto/rand does not fail (Go 1.24+)
	}
	return fmt.Sprintf("%012d", n)
}

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
