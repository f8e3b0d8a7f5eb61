package helper

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// schemaBody is a chat body asking for JSON with schema.
func schemaBody(schema string) []byte {
	return []byte(`{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":` + schema + `}}}`)
}

// objectWith is an object schema whose properties p0…p(n−1) are prop(i).
func objectWith(n int, prop func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":%s`, i, prop(i))
	}
	b.WriteString(`}}`)
	return b.String()
}

// The compile attacks are refused, naming the field and the bound:
// 2,000 patterns with repeat counts (which compiled to 200 MB), a schema
// of 21,000 values (compile time grows faster than linearly), one nested
// 100 deep, one over MaxSchemaBytes. A schema of ordinary size compiles.
func TestSchemaCompileBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, schema, bound string
	}{
		{"patterns", objectWith(2000, func(int) string { return `{"pattern":"^[a-z]{1,1000}$"}` }), "helper.MaxSchemaRegexpInsts"},
		{"values", objectWith(21_000, func(int) string { return `{}` }), "helper.MaxSchemaValues"},
		{"depth", strings.Repeat(`{"items":`, 100) + `{}` + strings.Repeat(`}`, 100), "helper.MaxSchemaDepth"},
		{"bytes", `{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, "helper.MaxSchemaBytes"},
	} {
		_, rerr := newOutputCheck(schemaBody(c.schema))
		if rerr == nil || !strings.HasPrefix(rerr.msg, "response_format.json_schema.schema: the JSON schema") || !strings.Contains(rerr.msg, c.bound) ||
			strings.Contains(rerr.msg, "metaschema") {
			t.Errorf("%s: %v, want a refusal naming the field and %s", c.name, rerr, c.bound)
		}
	}
	if _, rerr := newOutputCheck(schemaBody(objectWith(500, func(int) string { return `{"type":"string","pattern":"^[a-z]{1,20}$"}` }))); rerr != nil {
		t.Errorf("an ordinary schema: %v", rerr)
	}
}

// The compiled-schema cache is bounded by its schemas' total size, not by
// their count only: five distinct 200 KB schemas do not all stay.
func TestSchemaCacheBoundedBySize(t *testing.T) {
	t.Parallel()
	for i := range 5 {
		s := fmt.Sprintf(`{"description":"%d%s"}`, i, strings.Repeat("y", 200_000))
		if _, rerr := newOutputCheck(schemaBody(s)); rerr != nil {
			t.Fatal(rerr)
		}
	}
	schemaCache.Lock()
	defer schemaCache.Unlock()
	total := 0
	for _, e := range schemaCache.m {
		total += 2 * len(e.raw)
	}
	if total != schemaCache.bytes || total > MaxCachedSchemaBytes || len(schemaCache.m) > maxCachedSchemas {
		t.Errorf("the cache holds %d schemas costing %d bytes (counted %d), bound %d", len(schemaCache.m), total, schemaCache.bytes, MaxCachedSchemaBytes)
	}
}

// recursiveAnyOf validates an object nested under "a" by anyOf over two
// branches that both recurse: each level of the answer doubles the work
// (the issue: depth 22 took 14 s, depth 40 50 s of CPU).
const recursiveAnyOf = `{"$defs":{"n":{"anyOf":[` +
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"required":["x"]},` +
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}]}},"$ref":"#/$defs/n"}`

func nestedA(depth int) string {
	return strings.Repeat(`{"a":`, depth) + `{}` + strings.Repeat(`}`, depth)
}

// checkWithin runs the check of text in the background and fails the test
// if it has not returned after a minute (a guard against the unbounded
// validation, not a timing claim).
func checkWithin(t *testing.T, ctx context.Context, c *outputCheck, text string) *records.OutputCheck {
	t.Helper()
	rec := &records.Record{}
	done := make(chan struct{})
	go func() {
		c.check(ctx, &stream.Record{Text: text}, rec)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the schema validation went on")
	}
	return rec.OutputCheck
}

// Schema validation is bounded: an exponential anyOf over a nested answer
// stops at MaxSchemaSteps and the answer is counted invalid (too_long: not
// checked), failing closed; when the client has gone it stops too. A
// shallow answer is still checked in full.
func TestSchemaValidationBounded(t *testing.T) {
	t.Parallel()
	c, rerr := newOutputCheck(schemaBody(recursiveAnyOf))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if oc := checkWithin(t, context.Background(), c, nestedA(3)); oc == nil || oc.Invalid != "" {
		t.Fatalf("a shallow answer: %+v", oc)
	}
	oc := checkWithin(t, context.Background(), c, nestedA(40))
	if oc == nil || oc.Invalid != InvalidTooLong || !strings.Contains(oc.Detail, "helper.MaxSchemaSteps") {
		t.Errorf("depth 40: %+v", oc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	oc = checkWithin(t, ctx, c, nestedA(40))
	if oc == nil || oc.Invalid != InvalidTooLong || !strings.Contains(oc.Detail, "the client left") {
		t.Errorf("client gone: %+v", oc)
	}
}
