package helper

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The bounds of the structured-output check's JSON schemas (a request's
// response_format and its kin, output.go). A schema over a compile bound is
// refused (400, naming the field and the bound); an answer whose validation
// goes over MaxSchemaSteps, or whose client leaves during it, is counted
// invalid, too_long: not checked. Real structured-output schemas are far
// smaller: OpenAI's own limits are 5,000 properties and 10 levels of nesting.
const (
	// MaxSchemaBytes bounds a schema's JSON text.
	MaxSchemaBytes = 256 << 10
	// MaxSchemaValues bounds the JSON values of a schema (objects, arrays,
	// strings, numbers…): compiling takes time more than linear in them.
	MaxSchemaValues = 20_000
	// MaxSchemaDepth bounds the nesting of a schema's JSON.
	MaxSchemaDepth = 64
	// MaxSchemaRegexpInsts bounds the compiled size of all of a schema's
	// patterns together (Go regexp program instructions; "[a-z]{1,1000}" is
	// about 2,000): a repeat count multiplies a pattern's size.
	MaxSchemaRegexpInsts = 100_000
	// MaxSchemaSteps bounds one answer's validation: subschemas applied to
	// parts of the answer (anyOf over a recursive $ref doubles them at each
	// level of the answer).
	MaxSchemaSteps = 500_000
	// MaxCachedSchemaBytes bounds the schemas kept compiled between requests,
	// by their text (a compiled schema takes some 60 times its text); at
	// most maxCachedSchemas are kept. Others are compiled per request.
	MaxCachedSchemaBytes = 1 << 20
	maxCachedSchemas     = 64
)

// schemaSlots bounds the schema compilations and validations that run at
// once: each is CPU work, and each holds a compiled schema in memory.
var schemaSlots = make(chan struct{}, max(runtime.GOMAXPROCS(0), 2))

// schemaEntry is one schema text and its compiled copies: a validation takes
// one (each has its own step budget), or compiles one when none is free.
type schemaEntry struct {
	raw  []byte
	free chan *compiledSchema // nil for a schema not cached: nothing kept
}

// compiledSchema is a compiled schema and the budget its validation steps
// count against (stepExt).
type compiledSchema struct {
	sch    *jsonschema.Schema
	budget *stepBudget
}

type stepBudget struct {
	ctx   context.Context
	steps int
}

// schemaCache keeps schemas by their text: a test sends the same schema
// with every request.
var schemaCache = struct {
	sync.Mutex
	m     map[string]*schemaEntry
	bytes int
}{m: map[string]*schemaEntry{}}

// checkedSchema compiles raw within the bounds (or finds it compiled) and
// returns its entry; the error names the bound it went over.
func checkedSchema(raw []byte) (*schemaEntry, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, fmt.Errorf("the JSON schema has %d bytes, over the helper's limit of %d (helper.MaxSchemaBytes)", len(raw), MaxSchemaBytes)
	}
	key := string(raw)
	schemaCache.Lock()
	e, ok := schemaCache.m[key]
	schemaCache.Unlock()
	if ok {
		return e, nil
	}
	schemaSlots <- struct{}{}
	c, err := compileSchema(raw)
	<-schemaSlots
	if err != nil {
		return nil, err
	}
	e = &schemaEntry{raw: bytes.Clone(raw)}
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if old, ok := schemaCache.m[key]; ok {
		return old, nil
	}
	if cost := 2 * len(raw); len(schemaCache.m) < maxCachedSchemas && schemaCache.bytes+cost <= MaxCachedSchemaBytes {
		e.free = make(chan *compiledSchema, 1)
		e.free <- c
		schemaCache.m[key] = e
		schemaCache.bytes += cost
	}
	return e, nil
}

// notCheckedError is a validation stopped before it decided.
type notCheckedError struct{ msg string }

func (e *notCheckedError) Error() string { return e.msg }

// stepsSpent is the panic with which stepExt stops a validation.
type stepsSpent struct{ err *notCheckedError }

// validate validates inst against the schema, within MaxSchemaSteps and
// until ctx ends; over either it returns a *notCheckedError.
func (e *schemaEntry) validate(ctx context.Context, inst any) (err error) {
	select {
	case schemaSlots <- struct{}{}:
	case <-ctx.Done():
		return &notCheckedError{"not checked: the client left before the schema validation began"}
	}
	defer func() { <-schemaSlots }()
	var c *compiledSchema
	select {
	case c = <-e.free:
	default:
		if c, err = compileSchema(e.raw); err != nil {
			return err
		}
	}
	c.budget.ctx, c.budget.steps = ctx, 0
	defer func() {
		c.budget.ctx = nil
		if r := recover(); r != nil {
			s, ok := r.(stepsSpent)
			if !ok {
				panic(r)
			}
			err = s.err
		}
		select {
		case e.free <- c:
		default:
		}
	}()
	return c.sch.Validate(inst)
}

// stepExt counts each subschema applied to a part of the answer against its
// budget, and stops the validation (a stepsSpent panic, recovered by
// validate) over MaxSchemaSteps or once the client has left.
type stepExt struct{ b *stepBudget }

func (x stepExt) Validate(_ *jsonschema.ValidatorContext, _ any) {
	x.b.steps++
	if x.b.steps > MaxSchemaSteps {
		panic(stepsSpent{&notCheckedError{fmt.Sprintf("not checked: validating the answer took over %d schema steps (helper.MaxSchemaSteps)", MaxSchemaSteps)}})
	}
	if x.b.steps%1024 == 0 && x.b.ctx != nil && x.b.ctx.Err() != nil {
		panic(stepsSpent{&notCheckedError{"not checked: the client left during the schema validation"}})
	}
}

// compileSchema compiles raw within the compile bounds. It loads nothing: a
// $ref outside the schema is refused (noLoader).
func compileSchema(raw []byte) (*compiledSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("the JSON schema does not compile: %v", err)
	}
	if err := checkSchemaShape(doc); err != nil {
		return nil, err
	}
	b := &stepBudget{}
	re := &regexpBudget{}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.UseRegexpEngine(re.compile)
	c.RegisterVocabulary(&jsonschema.Vocabulary{URL: "urn:xk6-llmstream:steps",
		Compile: func(*jsonschema.CompilerContext, map[string]any) (jsonschema.SchemaExt, error) {
			return stepExt{b}, nil
		}})
	c.AssertVocabs()
	const loc = "mem:///response-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("the JSON schema does not compile: %v", err)
	}
	sch, err := c.Compile(loc)
	if re.over != nil { // say the bound, not the metaschema's account of the failed pattern
		return nil, re.over
	}
	if err != nil {
		return nil, fmt.Errorf("the JSON schema does not compile: %v", err)
	}
	return &compiledSchema{sch: sch, budget: b}, nil
}

// checkSchemaShape refuses a schema document over MaxSchemaValues or
// MaxSchemaDepth.
func checkSchemaShape(doc any) error {
	values := 0
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		values++
		if values > MaxSchemaValues {
			return fmt.Errorf("the JSON schema has more than %d values, over the helper's limit (helper.MaxSchemaValues)", MaxSchemaValues)
		}
		if depth > MaxSchemaDepth {
			return fmt.Errorf("the JSON schema nests deeper than %d levels, over the helper's limit (helper.MaxSchemaDepth)", MaxSchemaDepth)
		}
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				if err := walk(x, depth+1); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(doc, 1)
}

// regexpBudget compiles a schema's patterns (Go's regexp: linear time, no
// backtracking) while their programs together stay within
// MaxSchemaRegexpInsts.
type regexpBudget struct {
	insts int
	over  error // set once the budget is spent: every later pattern is refused
}

func (r *regexpBudget) compile(s string) (jsonschema.Regexp, error) {
	if r.over != nil {
		return nil, r.over
	}
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	r.insts += len(prog.Inst)
	if r.insts > MaxSchemaRegexpInsts {
		r.over = fmt.Errorf("the JSON schema's patterns compile to more than %d regexp instructions together, over the helper's limit (helper.MaxSchemaRegexpInsts)", MaxSchemaRegexpInsts)
		return nil, r.over
	}
	return regexp.Compile(s)
}

// noLoader refuses every $ref outside the schema: the helper fetches and
// reads nothing on a request's behalf.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the helper does not load %s: a schema must be self-contained", url)
}
