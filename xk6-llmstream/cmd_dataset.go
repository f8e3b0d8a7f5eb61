package main

import (
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

const datasetUsage = `usage: xk6-llmstream dataset [flags] [-o FILE]

Build a JSONL request file for the module's Dataset (format: docs/dataset.md),
one request a line, either from an input file (--input: ShareGPT-format JSON,
JSONL or CSV of prompts) or, without --input, from the synthetic generator,
whose prompts have exactly the drawn number of tokens under --tokenizer.
Lengths (--input-tokens, --output-tokens, --turn-input-tokens) are in tokens:
  512 | fixed:512 | uniform:min=100,max=1000
  normal:mean=512,sd=128[,min=1,max=2048] | lognormal:mean=512,sd=256[,min=..,max=..]
each at most 2,000,000 tokens, as is every length a trace gives (larger ones
are refused, naming the spec or the trace's line; docs/input-bounds.md).
A request trace (--input with --format mooncake, bailian, burstgpt or azure;
sorted by time when it is not, with a note of how many requests were out of order)
becomes one entry per request with its send time (at_ms, for the module's
replay()), a prompt of exactly its input length and its output length; equal
hash_ids blocks (--block-tokens each) become equal prompt prefixes.
The same flags and --seed give a byte-identical file. A progress bar is drawn
on standard error when it is a terminal, or with --progress.

Examples:
  xk6-llmstream dataset --requests 1000 --input-tokens lognormal:mean=800,sd=400,max=8000 -o synth.jsonl
  xk6-llmstream dataset --prefix-groups 8 --prefix-tokens 1000 --input-tokens 1200 -o prefix.jsonl
  xk6-llmstream dataset --turns 5 --input-tokens 500 --turn-input-tokens 100 --requests 500 -o chat.jsonl
  xk6-llmstream dataset --input ShareGPT_V3.json --requests 5000 --tokenizer ./tokenizer.json -o sharegpt.jsonl
  xk6-llmstream dataset --input mooncake_trace.jsonl --format mooncake --requests 2000 -o trace.jsonl

Flags:
`

// datasetFlags holds the parsed flags of dataset.
type datasetFlags struct {
	out, input, format, tokenizer string
	inputLen, outputLen, turnLen  string
	requests, turns, groups, plen int
	imageSizes                    string
	imagesPer                     int
	blockTokens                   int
	skipNote                      string // what a trace's build skipped
	cacheBust                     string // "", "random" or a salt
	seed                          uint64
	asPrompt, progress            bool
	tags                          tagFlag
}

type tagFlag map[string]string

func (t tagFlag) String() string { return fmt.Sprint(map[string]string(t)) }

func (t tagFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	t[k] = v
	return nil
}

func runDataset(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, err := parseDatasetFlags(args, stderr)
	if err != nil || f == nil {
		return err
	}
	tok, err := workload.LoadTokenizer(f.tokenizer)
	if err != nil {
		return usagef("--tokenizer: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, closeOut, err := datasetCreate(f.out, stdout)
	if err != nil {
		return err
	}
	w := workload.NewWriter(out)
	prog := datasetProgress(f, stderr)
	emit := func(e workload.Entry) error { prog.Add(1); return w.Write(e) }
	salt := f.cacheBust
	if salt == "random" {
		salt = runner.NewCacheSalt()
	}
	if salt != "" {
		write := emit
		emit = func(e workload.Entry) error {
			if err := workload.SaltEntry(ctx, tok, &e, salt); err != nil {
				return fmt.Errorf("--cache-bust: entry %s: %w", e.ID, err)
			}
			return write(e)
		}
	}
	skipped := 0
	if f.input == "" {
		err = datasetSynthetic(ctx, f, tok, emit)
	} else {
		skipped, err = datasetFromFile(ctx, f, tok, stdin, emit)
	}
	if err == nil {
		err = w.Close()
	}
	// closeOut renames the finished file into place, or removes it when
	// the build failed: no empty or partial file is left behind.
	if cerr := closeOut(err == nil); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	prog.Done()
	fmt.Fprintf(stderr, "wrote %d requests (%d bytes of JSONL) to %s", w.Entries(), w.Bytes(), f.out)
	if salt != "" {
		fmt.Fprintf(stderr, "; cache-bust salt %s at the start of every prompt", salt)
	}
	fmt.Fprint(stderr, f.skipNote)
	if skipped > 0 {
		fmt.Fprintf(stderr, "; skipped %d conversations without a question and an answer", skipped)
	}
	fmt.Fprintln(stderr)
	return nil
}

func parseDatasetFlags(args []string, stderr io.Writer) (*datasetFlags, error) {
	f := &datasetFlags{tags: tagFlag{}}
	fs := flag.NewFlagSet("dataset", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.out, "o", "-", "output `FILE` (- for standard output; FILE.gz is gzipped)")
	fs.StringVar(&f.input, "input", "", "read prompts from `FILE` (- for standard input; FILE.gz is gunzipped) instead of generating them")
	fs.StringVar(&f.format, "format", "", "input format: sharegpt, jsonl or csv (default: from the extension, .json is sharegpt), or a request trace: mooncake, bailian, burstgpt, azure, or an agent trace: otlp-genai (OpenTelemetry GenAI spans, OTLP JSON)")
	fs.IntVar(&f.blockTokens, "block-tokens", -1, "tokens per hash_ids block of a trace (default: mooncake 512, bailian 16; 0 ignores hash_ids)")
	fs.StringVar(&f.tokenizer, "tokenizer", "cl100k_base", "token counts under: "+strings.Join(workload.BuiltinEncodings(), ", ")+", or a Hugging Face tokenizer.json `path`")
	fs.IntVar(&f.requests, "requests", 0, "number of requests (synthetic default 1000; from a file, 0 is all)")
	fs.StringVar(&f.inputLen, "input-tokens", "fixed:512", "synthetic prompt lengths (a session's first turn)")
	fs.StringVar(&f.outputLen, "output-tokens", "fixed:128", "output lengths (from a file: for prompts that give none)")
	fs.StringVar(&f.turnLen, "turn-input-tokens", "", "synthetic prompt lengths of a session's later turns (default: --input-tokens)")
	fs.IntVar(&f.turns, "turns", 1, "synthetic turns per session (1: no sessions)")
	fs.IntVar(&f.groups, "prefix-groups", 0, "synthetic shared-prefix groups")
	fs.IntVar(&f.plen, "prefix-tokens", 0, "length of each group's shared prefix, in tokens")
	fs.StringVar(&f.imageSizes, "image-sizes", "", "synthetic image prompts: give each request's user message generated PNG images of these `WxH,...` sizes (request i: size i mod count)")
	fs.IntVar(&f.imagesPer, "images-per-request", 1, "images per request with --image-sizes")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.StringVar(&f.cacheBust, "cache-bust", "", "put \"[cache-bust SALT]\" at the start of every prompt (shared prefixes stay shared within the file): `SALT`, or random for a fresh one (the same --seed then gives a file no server cache has seen; docs/traffic.md)")
	fs.BoolVar(&f.asPrompt, "as-prompt", false, `write "prompt" (completions APIs) instead of "messages"`)
	fs.BoolVar(&f.progress, "progress", false, "draw the progress bar even when standard error is not a terminal")
	fs.Var(f.tags, "tag", "add tag `name=value` to every request (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(stderr, datasetUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil
		}
		return nil, usagef("%v", err)
	}
	if fs.NArg() != 0 {
		return nil, usagef("unexpected arguments %q; see 'xk6-llmstream dataset -h'", fs.Args())
	}
	if f.requests < 0 {
		return nil, usagef("--requests must not be negative, got %d", f.requests)
	}
	if f.cacheBust != "" && f.cacheBust != "random" {
		if err := workload.CheckSalt(f.cacheBust); err != nil {
			return nil, usagef("--cache-bust: %v", err)
		}
	}
	if f.imageSizes != "" && f.input != "" {
		return nil, usagef("--image-sizes makes synthetic image prompts; it does not go with --input")
	}
	return f, nil
}

func datasetTags(f *datasetFlags) map[string]string {
	if len(f.tags) == 0 {
		return nil
	}
	return f.tags
}

func datasetSynthetic(ctx context.Context, f *datasetFlags, tok workload.Tokenizer, emit func(workload.Entry) error) error {
	s := workload.Synthetic{Requests: f.requests, Turns: f.turns, PrefixGroups: f.groups, PrefixTokens: f.plen,
		AsPrompt: f.asPrompt, Tags: datasetTags(f), Seed: f.seed}
	if s.Requests == 0 {
		s.Requests = 1000
	}
	var err error
	if f.imageSizes != "" {
		if s.ImageSizes, err = workload.ParseImageSizes(f.imageSizes); err != nil {
			return usagef("--image-sizes: %v", err)
		}
		s.ImagesPerRequest = f.imagesPer
	}
	if s.Input, err = workload.ParseDist(f.inputLen); err != nil {
		return usagef("--input-tokens: %v", err)
	}
	if s.Output, err = workload.ParseDist(f.outputLen); err != nil {
		return usagef("--output-tokens: %v", err)
	}
	if f.turnLen != "" {
		if s.TurnInput, err = workload.ParseDist(f.turnLen); err != nil {
			return usagef("--turn-input-tokens: %v", err)
		}
	}
	if err := s.Check(); err != nil {
		return usagef("%v", err)
	}
	return s.GenerateContext(ctx, tok, emit)
}

func datasetFromFile(ctx context.Context, f *datasetFlags, tok workload.Tokenizer, stdin io.Reader, emit func(workload.Entry) error) (int, error) {
	if f.turns != 1 || f.groups != 0 || f.plen != 0 || f.turnLen != "" {
		return 0, usagef("--turns, --turn-input-tokens and --prefix-* apply to synthetic datasets, not to --input")
	}
	format := f.format
	if format == "" {
		format = datasetFormatOf(f.input)
	}
	if isTraceFormat(format) {
		return datasetFromTrace(ctx, f, tok, workload.TraceFormat(format), stdin, emit)
	}
	if format == string(workload.OTLPGenAI) {
		return 0, datasetFromAgentTrace(ctx, f, tok, stdin, emit)
	}
	if f.blockTokens >= 0 {
		return 0, usagef("--block-tokens applies to request traces (--format mooncake or bailian)")
	}
	if format != "sharegpt" && format != "jsonl" && format != "csv" {
		return 0, usagef("--format %q: want sharegpt, jsonl or csv, or a trace: mooncake, bailian, burstgpt, azure, otlp-genai", format)
	}
	out, err := workload.ParseDist(f.outputLen)
	if err != nil {
		return 0, usagef("--output-tokens: %v", err)
	}
	in, closeIn, err := datasetOpen(f.input, stdin)
	if err != nil {
		return 0, err
	}
	defer closeIn()
	var read func(func(workload.Prompt) error) error
	var sg *workload.ShareGPT
	switch format {
	case "sharegpt":
		sg = &workload.ShareGPT{R: in, Name: f.input}
		read = sg.Read
	case "jsonl":
		read = func(emit func(workload.Prompt) error) error { return workload.ReadJSONL(in, f.input, emit) }
	default: // csv
		read = func(emit func(workload.Prompt) error) error { return workload.ReadCSV(in, f.input, emit) }
	}
	b := workload.Builder{Tok: tok, Name: f.input, Output: out, Requests: f.requests, AsPrompt: f.asPrompt,
		Tags: datasetTags(f), Seed: f.seed}
	st, err := b.Build(ctx, read, emit)
	if sg != nil {
		return sg.Skipped + st.Skipped, err
	}
	return st.Skipped, err
}

func isTraceFormat(format string) bool {
	for _, t := range workload.TraceFormats() {
		if string(t) == format {
			return true
		}
	}
	return false
}

// datasetFromTrace builds a trace's entries. Requests with nothing to send
// are skipped and reported through f.skipNote (the count and first lines).
func datasetFromTrace(ctx context.Context, f *datasetFlags, tok workload.Tokenizer, format workload.TraceFormat, stdin io.Reader, emit func(workload.Entry) error) (int, error) {
	block := f.blockTokens
	if block < 0 {
		block = format.DefaultBlockTokens()
	}
	in, closeIn, err := datasetOpen(f.input, stdin)
	if err != nil {
		return 0, err
	}
	defer closeIn()
	var skipped []string
	n := 0
	var st workload.TraceStats
	read := func(e func(workload.TraceRequest) error) error {
		st, err = workload.ReadTrace(in, f.input, format, e, func(s workload.TraceSkip) {
			n++
			if len(skipped) < 5 {
				skipped = append(skipped, fmt.Sprintf("%s:%d (%s)", f.input, s.Line, s.Reason))
			}
		})
		return err
	}
	b := workload.TraceBuilder{Tok: tok, Name: f.input, BlockTokens: block, Requests: f.requests, AsPrompt: f.asPrompt,
		Tags: datasetTags(f), Seed: f.seed}
	if _, err = b.Build(ctx, read, emit); err != nil {
		return 0, err
	}
	if st.OutOfOrder > 0 {
		f.skipNote = fmt.Sprintf("; sorted the trace by time: %d of %d requests were out of time order", st.OutOfOrder, st.Requests)
	}
	if n > 0 {
		f.skipNote += fmt.Sprintf("; skipped %d trace requests with no input or no output tokens, first: %s", n, strings.Join(skipped, ", "))
	}
	return 0, nil
}

// datasetFromAgentTrace builds an agent trace's entries (OTLP JSON GenAI
// spans): one per model call, with the calls it waits for (after).
func datasetFromAgentTrace(ctx context.Context, f *datasetFlags, tok workload.Tokenizer, stdin io.Reader, emit func(workload.Entry) error) error {
	in, closeIn, err := datasetOpen(f.input, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	steps, err := workload.ReadAgentTrace(in, f.input)
	if err != nil {
		return err
	}
	if f.requests > 0 && f.requests < len(steps) {
		return usagef("--requests %d: an agent trace is built whole (%d model calls): a step's parents must be in the file", f.requests, len(steps))
	}
	b := workload.AgentBuilder{Tok: tok, AsPrompt: f.asPrompt, Tags: datasetTags(f), Seed: f.seed}
	return b.Build(ctx, steps, emit)
}

func datasetFormatOf(name string) string {
	switch filepath.Ext(strings.TrimSuffix(name, ".gz")) {
	case ".csv":
		return "csv"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".json":
		return "sharegpt"
	}
	return "(none: name one with --format)"
}

// datasetOpen opens FILE, FILE.gz (decompressed) or - (stdin).
func datasetOpen(name string, stdin io.Reader) (io.Reader, func(), error) {
	if name == "-" {
		return stdin, func() {}, nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open input: %w", err)
	}
	if !strings.HasSuffix(name, ".gz") {
		return fh, func() { fh.Close() }, nil
	}
	zr, err := gzip.NewReader(fh)
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: not a gzip file: %w", name, err)
	}
	return zr, func() { zr.Close(); fh.Close() }, nil
}

// datasetCreate writes FILE (FILE.gz gzipped) through a temporary file in
// the same directory, or returns stdout for -. Its close function, given
// whether the build succeeded, renames the temporary file to FILE or removes
// it.
func datasetCreate(name string, stdout io.Writer) (io.Writer, func(ok bool) error, error) {
	if name == "-" {
		return stdout, func(bool) error { return nil }, nil
	}
	fh, err := atomicfile.Create(name, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create output: %w", err)
	}
	var w io.Writer = fh
	closeW := func() error { return nil }
	if strings.HasSuffix(name, ".gz") {
		zw := gzip.NewWriter(fh)
		w, closeW = zw, zw.Close
	}
	return w, func(ok bool) error {
		if !ok {
			fh.Abort()
			return nil
		}
		if err := closeW(); err != nil {
			fh.Abort()
			return fmt.Errorf("writing %s: %w", name, err)
		}
		return fh.Commit()
	}, nil
}

func datasetProgress(f *datasetFlags, stderr io.Writer) *workload.Progress {
	if !f.progress && !isTerminal(stderr) {
		return nil
	}
	total := f.requests
	if total == 0 && f.input == "" {
		total = 1000
	}
	return &workload.Progress{W: stderr, Total: total, Label: "requests"}
}

func isTerminal(w io.Writer) bool {
	fh, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := fh.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
