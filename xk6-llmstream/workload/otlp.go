package workload

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
)

// OTLPGenAI is an agent trace as OpenTelemetry GenAI spans in the OTLP JSON
// encoding (opentelemetry-proto's ExportTraceServiceRequest, as the OTLP
// file exporter writes it: one JSON object a line, or one object for the
// file): every span whose gen_ai.operation.name is chat, text_completion or
// generate_content is a request, with gen_ai.usage.input_tokens and
// gen_ai.usage.output_tokens (semantic conventions for GenAI spans); a trace
// (traceId) is a session.
const OTLPGenAI TraceFormat = "otlp-genai"

// genAIOperations are the gen_ai.operation.name values of a model call.
var genAIOperations = map[string]bool{"chat": true, "text_completion": true, "generate_content": true}

// otlpRequest is one ExportTraceServiceRequest, the fields read.
type otlpRequest struct {
	ResourceSpans []struct {
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpSpan struct {
	TraceID    string          `json:"traceId"`
	SpanID     string          `json:"spanId"`
	Name       string          `json:"name"`
	Start      json.RawMessage `json:"startTimeUnixNano"` // a string (int64 in JSON) or a number
	End        json.RawMessage `json:"endTimeUnixNano"`
	Attributes []struct {
		Key   string `json:"key"`
		Value struct {
			String *string          `json:"stringValue"`
			Int    *json.RawMessage `json:"intValue"` // a string in OTLP JSON
		} `json:"value"`
	} `json:"attributes"`
}

// AgentStep is one model call of an agent trace.
type AgentStep struct {
	Line          int
	Session       string // the traceId
	SpanID        string
	Step          int     // 1-based, in start order within the session
	StartMS       float64 // from the file's earliest model call
	EndMS         float64
	startNS       int64 // unix ns, as recorded
	endNS         int64
	Input, Output int
	After         []After // ids are span ids here; the builder renames them
}

// ReadAgentTrace reads an OTLP JSON GenAI trace and returns its model calls
// in start order, each with the calls of its session it waits for: those
// that ended before it started and that no other such call waited for (the
// latest of each chain), with the recorded gap from their end to its start.
// Concurrent calls (sub-agents) wait for none of each other. Errors name the
// file and line.
func ReadAgentTrace(r io.Reader, name string) ([]AgentStep, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), int(MaxEntryBytes))
	var steps []AgentStep
	var body bytes.Buffer
	line, first := 0, 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if first == 0 {
			first = line
		}
		body.Write(b)
		body.WriteByte('\n')
		var req otlpRequest
		if err := json.Unmarshal(body.Bytes(), &req); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) && se.Offset >= int64(body.Len()) {
				continue // an object over several lines: read on
			}
			return nil, fmt.Errorf("%s:%d: not an OTLP JSON ExportTraceServiceRequest: %w", name, first, err)
		}
		body.Reset()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					st, ok, err := otlpStep(sp)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: span %s (%q): %w", name, first, sp.SpanID, sp.Name, err)
					}
					if ok {
						st.Line = first
						steps = append(steps, st)
					}
				}
			}
		}
		first = 0
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: %s", name, line+1, tooLong(MaxEntryBytes))
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if body.Len() > 0 {
		return nil, fmt.Errorf("%s:%d: the JSON object that starts here does not end", name, first)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s: no GenAI model-call spans (gen_ai.operation.name chat, text_completion or generate_content)", name)
	}
	linkSteps(steps)
	return steps, nil
}

// otlpStep reads a span: ok is false for a span that is not a model call.
func otlpStep(sp otlpSpan) (AgentStep, bool, error) {
	var op string
	in, out := -1, -1
	for _, a := range sp.Attributes {
		switch a.Key {
		case "gen_ai.operation.name":
			if a.Value.String != nil {
				op = *a.Value.String
			}
		case "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens":
			n, err := otlpInt(a.Value.Int)
			if err != nil || n < 0 || n > 1<<31 {
				return AgentStep{}, false, fmt.Errorf("%s is not a whole number of tokens ≥ 0", a.Key)
			}
			if a.Key == "gen_ai.usage.input_tokens" {
				in = int(n)
			} else {
				out = int(n)
			}
		}
	}
	if !genAIOperations[op] {
		return AgentStep{}, false, nil
	}
	if in <= 0 || out <= 0 {
		return AgentStep{}, false, fmt.Errorf("a model call needs gen_ai.usage.input_tokens and gen_ai.usage.output_tokens ≥ 1 (got %d, %d)", in, out)
	}
	if sp.TraceID == "" || sp.SpanID == "" {
		return AgentStep{}, false, fmt.Errorf("no traceId or spanId")
	}
	start, err1 := otlpInt((*json.RawMessage)(&sp.Start))
	end, err2 := otlpInt((*json.RawMessage)(&sp.End))
	if err1 != nil || err2 != nil || start <= 0 || end < start {
		return AgentStep{}, false, fmt.Errorf("startTimeUnixNano and endTimeUnixNano must be unix ns with end ≥ start")
	}
	return AgentStep{Session: sp.TraceID, SpanID: sp.SpanID, startNS: start, endNS: end, Input: in, Output: out}, true, nil
}

// otlpInt reads an OTLP JSON int64: a decimal string or a number.
func otlpInt(raw *json.RawMessage) (int64, error) {
	if raw == nil || len(*raw) == 0 {
		return 0, errors.New("missing")
	}
	s := string(*raw)
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	return strconv.ParseInt(s, 10, 64)
}

// linkSteps orders the steps by start (stably), numbers them per session,
// makes times relative to the earliest start and links each step to the
// latest calls of its session that ended before it started.
func linkSteps(steps []AgentStep) {
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].startNS < steps[j].startNS })
	t0 := steps[0].startNS
	bySession := map[string][]int{}
	for i := range steps {
		s := &steps[i]
		// Offsets in ns first: unix ns do not fit a float64's 53 bits.
		s.StartMS, s.EndMS = float64(s.startNS-t0)/1e6, float64(s.endNS-t0)/1e6
		prev := bySession[s.Session]
		s.Step = len(prev) + 1
		var done []int // calls of the session that ended before s started
		for _, j := range prev {
			if steps[j].EndMS <= s.StartMS {
				done = append(done, j)
			}
		}
		for _, j := range done {
			covered := false // another done call started after j ended: j is behind it
			for _, k := range done {
				if k != j && steps[k].StartMS >= steps[j].EndMS {
					covered = true
					break
				}
			}
			if !covered {
				s.After = append(s.After, After{ID: steps[j].SpanID, DelayMS: s.StartMS - steps[j].EndMS})
			}
		}
		bySession[s.Session] = append(prev, i)
	}
}

// AgentBuilder turns an agent trace's steps into entries: prompts of exactly
// the step's input tokens under Tok, its output length, at_ms (the step's
// recorded start) and after (the steps it waits for, by entry id).
type AgentBuilder struct {
	Tok      Tokenizer
	AsPrompt bool
	Tags     map[string]string
	Seed     uint64
}

// Build calls emit with each step's entry, in start order.
func (b AgentBuilder) Build(ctx context.Context, steps []AgentStep, emit func(Entry) error) error {
	gen, err := NewTextGen(ctx, b.Tok)
	if err != nil {
		return err
	}
	ids := map[string]string{}
	for i, s := range steps {
		id := fmt.Sprintf("agent-%06d", i+1)
		ids[s.Session+"/"+s.SpanID] = id
		text, err := gen.Text(ctx, rand.New(rand.NewPCG(b.Seed, uint64(i))), "", s.Input)
		if err != nil {
			return fmt.Errorf("line %d: %w", s.Line, err)
		}
		at := s.StartMS
		e := Entry{V: Version, ID: id, Tokenizer: b.Tok.Name(), MaxTokens: s.Output, OutputTokens: s.Output,
			InputTokens: s.Input, InputTokensTarget: s.Input, AtMS: &at,
			Tags: map[string]string{"agent_session": s.Session, "agent_step": strconv.Itoa(s.Step)}}
		for k, v := range b.Tags {
			e.Tags[k] = v
		}
		for _, a := range s.After {
			e.After = append(e.After, After{ID: ids[s.Session+"/"+a.ID], DelayMS: a.DelayMS})
		}
		if b.AsPrompt {
			e.Prompt = text
		} else {
			e.Messages = []Message{{Role: "user", Content: text}}
		}
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}
