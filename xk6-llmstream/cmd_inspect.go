package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

const inspectUsage = `usage: xk6-llmstream inspect [--dialect D] [--max-line-bytes N] FILE|-

Decode a recorded text/event-stream body, or an ollama newline-delimited JSON
body (a file, a FILE.gz, or - for standard input), and print what it holds as
one JSON object: dialect, events, text, reasoning, tool_calls, usage
({input_tokens, output_tokens} from the stream's own usage report, plus
cached_input_tokens and cache_creation_input_tokens when reported, or null),
finish_reason and error ({kind, message} as the engine would classify the
stream, or null). A recording has no timing of ours, so no latencies are
printed; timings the server reported itself (ollama, llama.cpp) are, as
server_timings in milliseconds.

The exit status is 0 when the file was read and held at least one event,
whatever the stream holds (look at "error"); 1 when it could not be read; 2 for
bad usage, and for an input that is not an SSE stream (nor ollama NDJSON): no
event in it, as in an HTML error page or an empty file.

Examples:
  xk6-llmstream inspect capture.sse
  curl -sN https://api.example.com/v1/chat/completions ... | xk6-llmstream inspect -
  xk6-llmstream inspect --dialect anthropic-messages body.txt
  curl -sN http://127.0.0.1:11434/api/chat -d '{"model":"llama3.2","messages":[...]}' | xk6-llmstream inspect -

Flags:
`

// inspectOutput is what inspect prints. The first fields are the documented
// interface; the rest help when a recording looks wrong.
type inspectOutput struct {
	Dialect      stream.Dialect `json:"dialect"`
	Events       int            `json:"events"`
	Text         string         `json:"text"`
	Reasoning    string         `json:"reasoning"`
	ToolCalls    int            `json:"tool_calls"`
	Usage        *inspectTokens `json:"usage"`
	FinishReason string         `json:"finish_reason"`
	Error        *inspectError  `json:"error"`

	Model           string             `json:"model"`
	TextEvents      int                `json:"text_events"`
	OutputTokens    int                `json:"output_tokens"`
	ReasoningTokens int                `json:"reasoning_tokens"`
	TokenSource     stream.TokenSource `json:"token_source"`
	TokensPerEvent  []int              `json:"tokens_per_event,omitempty"`
	ServerTimings   *inspectTimings    `json:"server_timings,omitempty"`
	Bytes           int64              `json:"bytes"`
}

type inspectTokens struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CachedInputTokens        int `json:"cached_input_tokens,omitempty"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
}

// inspectTimings is stream.ServerTimings in milliseconds; fields the server
// did not report are left out.
type inspectTimings struct {
	PrefillMS    float64 `json:"prefill_ms,omitempty"`
	DecodeMS     float64 `json:"decode_ms,omitempty"`
	TotalMS      float64 `json:"total_ms,omitempty"`
	LoadMS       float64 `json:"load_ms,omitempty"`
	TPOTMS       float64 `json:"tpot_ms,omitempty"`
	PromptTokens int     `json:"prompt_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens,omitempty"`
}

type inspectError struct {
	Kind    stream.ErrorKind `json:"kind"`
	Message string           `json:"message"`
}

func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dialect := fs.String("dialect", string(stream.DialectAuto), "wire format: "+inspectDialectNames()+" (auto detects it from the events)")
	maxLine := fs.Int("max-line-bytes", stream.DefaultMaxLineBytes, "longest SSE line (and event data) accepted, in bytes")
	fs.Usage = func() {
		fmt.Fprint(stderr, inspectUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usagef("%v", err)
	}
	d, ok := stream.ParseDialect(*dialect)
	if !ok {
		return usagef("unknown dialect %q (want one of %s)", *dialect, inspectDialectNames())
	}
	if *maxLine <= 0 {
		return usagef("--max-line-bytes must be positive, got %d", *maxLine)
	}
	if fs.NArg() != 1 {
		return usagef("want one FILE (or - for standard input), got %d arguments; see 'xk6-llmstream inspect -h'", fs.NArg())
	}
	name := fs.Arg(0)
	in, closeIn, err := inspectOpen(name, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	rec, err := stream.Decode(in, d, stream.WithMaxLineBytes(*maxLine))
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if rec.Events == 0 && (rec.Err == nil || rec.Err.Kind == stream.KindResetMidstream) {
		// Not a stream that ended early: it ended without ever holding an
		// event. (A malformed first line, e.g. over --max-line-bytes, is
		// reported in the JSON as the engine classifies it.)
		return usagef("%s is not an SSE stream (nor ollama NDJSON): no event in its %d bytes", inspectName(name), rec.Bytes)
	}
	return inspectWriteJSON(stdout, inspectResult(rec))
}

// inspectName names the input in a message.
func inspectName(name string) string {
	if name == "-" {
		return "standard input (-)"
	}
	return name
}

// inspectOpen opens FILE, FILE.gz (decompressed) or - (stdin).
func inspectOpen(name string, stdin io.Reader) (io.Reader, func(), error) {
	if name == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open recording: %w", err)
	}
	if !strings.HasSuffix(name, ".gz") {
		return f, func() { f.Close() }, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a gzip file: %w", name, err)
	}
	return zr, func() { zr.Close(); f.Close() }, nil
}

func inspectResult(rec *stream.Record) inspectOutput {
	out := inspectOutput{
		Dialect:         rec.Dialect,
		Events:          rec.Events,
		Text:            rec.Text,
		Reasoning:       rec.Reasoning,
		ToolCalls:       rec.ToolCalls,
		FinishReason:    rec.FinishReason,
		Model:           rec.Model,
		TextEvents:      rec.TextEvents,
		OutputTokens:    rec.OutputTokens,
		ReasoningTokens: rec.ReasoningTokens,
		TokenSource:     rec.TokenSource,
		Bytes:           rec.Bytes,
	}
	if rec.TokenSource == stream.TokensFromUsage {
		out.Usage = &inspectTokens{InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens,
			CachedInputTokens: rec.CachedInputTokens, CacheCreationInputTokens: rec.CacheCreationInputTokens}
	}
	if st := rec.ServerTimings; st != nil {
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		tpot, _ := st.TPOT()
		out.ServerTimings = &inspectTimings{PrefillMS: ms(st.Prefill), DecodeMS: ms(st.Decode), TotalMS: ms(st.Total),
			LoadMS: ms(st.Load), TPOTMS: ms(tpot), PromptTokens: st.PromptTokens, OutputTokens: st.OutputTokens}
	}
	if rec.ITLTokens != nil {
		for _, e := range rec.Timeline {
			if e.Text {
				out.TokensPerEvent = append(out.TokensPerEvent, e.Tokens)
			}
		}
	}
	if rec.Err != nil {
		out.Error = &inspectError{Kind: rec.Err.Kind, Message: rec.Err.Message}
	}
	return out
}

func inspectWriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

func inspectDialectNames() string {
	var names []string
	for _, d := range stream.Dialects() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}
