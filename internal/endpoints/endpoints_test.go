package endpoints_test

import (
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// TestEngineKnowsEveryEndpoint: the engine's dialect detection names each
// endpoint's dialect from its path, and each dialect is one the engine
// parses: the list and the engine cannot drift apart.
func TestEngineKnowsEveryEndpoint(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, e := range endpoints.Generation {
		if _, ok := stream.ParseDialect(e.Dialect); !ok {
			t.Errorf("endpoint of %q: the engine has no such dialect", e.Dialect)
		}
		path, _, _ := strings.Cut(strings.ReplaceAll(e.Path, "{model}", "m"), "?")
		if got := stream.DialectFromPath(path); string(got) != e.Dialect {
			t.Errorf("DialectFromPath(%q) = %q, want %q", path, got, e.Dialect)
		}
		seen[e.Dialect] = true
	}
	for _, d := range stream.Dialects() {
		if d != stream.DialectAuto && !seen[string(d)] {
			t.Errorf("dialect %q has no endpoint in the list", d)
		}
	}
}

// TestEngineKnowsEveryCall: each call endpoint's path names its dialect in
// the engine, which parses the dialect and knows its kind.
func TestEngineKnowsEveryCall(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range endpoints.Calls {
		d, ok := stream.ParseDialect(c.Dialect)
		if !ok || d.CallKind() != c.Kind {
			t.Errorf("call %q: ParseDialect ok=%v, kind %q, want %q", c.Dialect, ok, d.CallKind(), c.Kind)
		}
		if got := stream.DialectFromPath(c.Path); string(got) != c.Dialect {
			t.Errorf("DialectFromPath(%q) = %q, want %q", c.Path, got, c.Dialect)
		}
		seen[c.Dialect] = true
	}
	for _, d := range stream.CallDialects() {
		if !seen[string(d)] {
			t.Errorf("call dialect %q has no endpoint in the list", d)
		}
	}
}
