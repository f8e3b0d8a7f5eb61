package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// regexMatchTimeout bounds one regex match of a normalizer or pre-tokenizer
// (dlclark/regexp2 backtracks, so a pattern such as (a+)+$ can take
// exponential time). An input that hits it fails with an error naming the
// pattern; linear patterns on megabytes of text stay far below it. It is wall
// time, so it is set above what a starved process needs (at 2 s, a 15-byte
// piece failed on a 2-core machine at load average 22), and below the 10 s a
// test waits for goroutines to end: regexp2's clock goroutine lives until the
// last match's bound has passed.
var regexMatchTimeout = 5 * time.Second

// gpt2Split is the split of GPT-2's ByteLevel pre-tokenizer (use_regex: true),
// as Hugging Face tokenizers defines it.
const gpt2Split = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// piece is a part of the text between pre-tokenizer steps. first reports
// that it starts at offset 0 of the original text (Metaspace's
// prepend_scheme "first" needs it).
type piece struct {
	text  string
	first bool
}

// preStep is one pre-tokenizer step over all pieces.
type preStep func(ctx context.Context, in []piece) ([]piece, error)

// span is a part of a string: [start, end) bytes, and whether it matched.
type span struct {
	start, end int
	match      bool
}

// splitBehavior is tokenizers' SplitDelimiterBehavior.
type splitBehavior int

const (
	removed splitBehavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string) (splitBehavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("split behavior %q is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous", s)
}

// applyBehavior turns a partition of s into the pieces a split keeps, as
// tokenizers' NormalizedString::split does. Empty pieces are dropped.
func applyBehavior(spans []span, b splitBehavior) []span {
	var out []span
	switch b {
	case isolated:
		out = spans
	case removed:
		for _, m := range spans {
			if !m.match {
				out = append(out, m)
			}
		}
	case mergedWithPrevious:
		prev := false
		for _, m := range spans {
			if m.match && !prev && len(out) > 0 {
				out[len(out)-1].end = m.end
			} else {
				out = append(out, m)
			}
			prev = m.match
		}
	case mergedWithNext:
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			m := spans[i]
			if m.match && !prev && len(out) > 0 {
				out[len(out)-1].start = m.start
			} else {
				out = append(out, m)
			}
			prev = m.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case contiguous:
		prev := false
		for _, m := range spans {
			if m.match == prev && len(out) > 0 {
				out[len(out)-1].end = m.end
			} else {
				out = append(out, m)
			}
			prev = m.match
		}
	}
	kept := out[:0:0]
	for _, m := range out {
		if m.end > m.start {
			kept = append(kept, m)
		}
	}
	return kept
}

// regexSpans partitions s into alternating non-matches and matches of re.
func regexSpans(re *regexp2.Regexp, s string) ([]span, error) {
	return regexSpansCtx(context.Background(), re, s)
}

// regexSpansCtx is regexSpans that stops when ctx is done.
func regexSpansCtx(ctx context.Context, re *regexp2.Regexp, s string) ([]span, error) {
	if s == "" || re == nil {
		return []span{{0, len(s), false}}, nil
	}
	// regexp2 reports rune positions; byteAt converts them (nil: ASCII).
	var byteAt []int
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			byteAt = make([]int, 0, len(s)+1)
			for k := range s {
				byteAt = append(byteAt, k)
			}
			byteAt = append(byteAt, len(s))
			break
		}
	}
	at := func(r int) int {
		if byteAt == nil {
			return r
		}
		return byteAt[r]
	}
	var out []span
	prev := 0
	m, err := re.FindStringMatch(s)
	for n := 1; ; n++ {
		if err != nil {
			return nil, fmt.Errorf("regex %q gave no answer within %v on a piece of %d bytes (it backtracks too much; the input is refused)", re.String(), re.MatchTimeout, len(s))
		}
		if m == nil {
			break
		}
		start, end := at(m.Index), at(m.Index+m.Length)
		if start > prev {
			out = append(out, span{prev, start, false})
		}
		out = append(out, span{start, end, true})
		prev = end
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m, err = re.FindNextMatch(m)
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out, nil
}

// runeSpans partitions s into single-rune matches of is and the runs between.
func runeSpans(s string, is func(rune) bool) []span {
	var out []span
	prev := 0
	for i, r := range s {
		if is(r) {
			if i > prev {
				out = append(out, span{prev, i, false})
			}
			n := utf8.RuneLen(r)
			out = append(out, span{i, i + n, true})
			prev = i + n
		}
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// splitPieces splits every piece with spansOf and b.
func splitPieces(ctx context.Context, in []piece, spansOf func(context.Context, string) ([]span, error), b splitBehavior) ([]piece, error) {
	out := make([]piece, 0, len(in))
	for _, p := range in {
		spans, err := spansOf(ctx, p.text)
		if err != nil {
			return nil, err
		}
		for _, m := range applyBehavior(spans, b) {
			out = append(out, piece{text: p.text[m.start:m.end], first: p.first && m.start == 0})
		}
	}
	return out, nil
}

type preJSON struct {
	Type           string            `json:"type"`
	Pretokenizers  []json.RawMessage `json:"pretokenizers"`
	Pattern        *patternJSON      `json:"pattern"`
	Behavior       string            `json:"behavior"`
	Invert         bool              `json:"invert"`
	AddPrefixSpace *bool             `json:"add_prefix_space"`
	UseRegex       *bool             `json:"use_regex"`
	Replacement    string            `json:"replacement"`
	PrependScheme  string            `json:"prepend_scheme"`
	Split          *bool             `json:"split"`
	Individual     bool              `json:"individual_digits"`
	Delimiter      string            `json:"delimiter"`
}

// newPreTokenizer builds the pre_tokenizer section (null: none).
func newPreTokenizer(raw json.RawMessage) ([]preStep, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var j preJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	switch j.Type {
	case "Sequence":
		var steps []preStep
		for _, r := range j.Pretokenizers {
			s, err := newPreTokenizer(r)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
		return steps, nil
	case "Split":
		return splitStep(j)
	case "ByteLevel":
		return byteLevelStep(j), nil
	case "Metaspace":
		return metaspaceStep(j)
	case "Digits":
		b := contiguous
		if j.Individual {
			b = isolated
		}
		return []preStep{runeStep(unicode.IsDigit, b)}, nil
	case "WhitespaceSplit":
		return []preStep{runeStep(unicode.IsSpace, removed)}, nil
	case "Punctuation":
		b := isolated
		if j.Behavior != "" {
			var err error
			if b, err = parseBehavior(j.Behavior); err != nil {
				return nil, fmt.Errorf("pre_tokenizer Punctuation: %w", err)
			}
		}
		return []preStep{runeStep(isBertPunct, b)}, nil
	case "BertPreTokenizer":
		return []preStep{runeStep(unicode.IsSpace, removed), runeStep(isBertPunct, isolated)}, nil
	case "Whitespace":
		return whitespaceStep(), nil
	case "CharDelimiterSplit":
		d, n := utf8.DecodeRuneInString(j.Delimiter)
		if n == 0 || n != len(j.Delimiter) {
			return nil, fmt.Errorf("pre_tokenizer CharDelimiterSplit: delimiter %q is not one character", j.Delimiter)
		}
		return []preStep{runeStep(func(r rune) bool { return r == d }, removed)}, nil
	case "":
		return nil, fmt.Errorf("pre_tokenizer without a \"type\"")
	}
	return nil, fmt.Errorf("pre_tokenizer %s is not supported (supported: Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit, Punctuation, BertPreTokenizer, CharDelimiterSplit)", j.Type)
}

// splitStep is the Split pre-tokenizer: a regex's matches (or, inverted, what
// lies between them) split the pieces with the section's behavior.
func splitStep(j preJSON) ([]preStep, error) {
	b, err := parseBehavior(j.Behavior)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer Split: %w", err)
	}
	re, err := j.Pattern.compile("pre_tokenizer Split")
	if err != nil {
		return nil, err
	}
	inv := j.Invert
	spans := func(ctx context.Context, s string) ([]span, error) {
		ms, err := regexSpansCtx(ctx, re, s)
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer Split: %w", err)
		}
		if inv {
			for i := range ms {
				ms[i].match = !ms[i].match
			}
		}
		return ms, nil
	}
	return []preStep{func(ctx context.Context, in []piece) ([]piece, error) {
		return splitPieces(ctx, in, spans, b)
	}}, nil
}

// byteLevelStep is the ByteLevel pre-tokenizer: an optional prefix space,
// GPT-2's split (unless use_regex is false), and the byte-to-rune mapping.
func byteLevelStep(j preJSON) []preStep {
	prefix := j.AddPrefixSpace != nil && *j.AddPrefixSpace
	useRegex := j.UseRegex == nil || *j.UseRegex
	var re *regexp2.Regexp
	if useRegex {
		re = regexp2.MustCompile(gpt2Split, regexp2.None)
		re.MatchTimeout = regexMatchTimeout
	}
	return []preStep{func(ctx context.Context, in []piece) ([]piece, error) {
		out := make([]piece, 0, len(in))
		for _, p := range in {
			if prefix && !strings.HasPrefix(p.text, " ") {
				p.text = " " + p.text
			}
			parts := []piece{p}
			if re != nil {
				var err error
				spans := func(ctx context.Context, s string) ([]span, error) { return regexSpansCtx(ctx, re, s) }
				if parts, err = splitPieces(ctx, parts, spans, isolated); err != nil {
					return nil, fmt.Errorf("pre_tokenizer ByteLevel: %w", err)
				}
			}
			for _, q := range parts {
				q.text = byteLevelString(q.text)
				out = append(out, q)
			}
		}
		return out, nil
	}}
}

// metaspaceStep is the Metaspace pre-tokenizer: spaces become the
// replacement character, prepended by the scheme, and split on it.
func metaspaceStep(j preJSON) ([]preStep, error) {
	repl := j.Replacement
	if repl == "" {
		repl = "▁"
	}
	if utf8.RuneCountInString(repl) != 1 {
		return nil, fmt.Errorf("pre_tokenizer Metaspace: replacement %q is not one character", repl)
	}
	scheme := j.PrependScheme
	if scheme == "" {
		scheme = "always"
		if j.AddPrefixSpace != nil && !*j.AddPrefixSpace {
			scheme = "never"
		}
	}
	if scheme != "always" && scheme != "first" && scheme != "never" {
		return nil, fmt.Errorf("pre_tokenizer Metaspace: prepend_scheme %q is not always, first or never", scheme)
	}
	split := j.Split == nil || *j.Split
	r, _ := utf8.DecodeRuneInString(repl)
	return []preStep{func(ctx context.Context, in []piece) ([]piece, error) {
		out := make([]piece, 0, len(in))
		for _, p := range in {
			t := strings.ReplaceAll(p.text, " ", repl)
			if !strings.HasPrefix(t, repl) && (scheme == "always" || scheme == "first" && p.first) {
				t = repl + t
			}
			q := piece{text: t, first: p.first}
			if !split {
				out = append(out, q)
				continue
			}
			parts, _ := splitPieces(ctx, []piece{q}, func(_ context.Context, s string) ([]span, error) {
				return runeSpans(s, func(c rune) bool { return c == r }), nil
			}, mergedWithNext)
			out = append(out, parts...)
		}
		return out, nil
	}}, nil
}

// whitespaceStep is the Whitespace pre-tokenizer: runs of word characters
// and of other non-space characters, spaces removed.
func whitespaceStep() []preStep {
	re := regexp2.MustCompile(`\w+|[^\w\s]+`, regexp2.None)
	re.MatchTimeout = regexMatchTimeout
	spans := func(ctx context.Context, s string) ([]span, error) {
		ms, err := regexSpansCtx(ctx, re, s)
		for i := range ms {
			ms[i].match = !ms[i].match
		}
		return ms, err
	}
	return []preStep{func(ctx context.Context, in []piece) ([]piece, error) {
		return splitPieces(ctx, in, spans, removed)
	}}
}

func runeStep(is func(rune) bool, b splitBehavior) preStep {
	spans := func(_ context.Context, s string) ([]span, error) { return runeSpans(s, is), nil }
	return func(ctx context.Context, in []piece) ([]piece, error) { return splitPieces(ctx, in, spans, b) }
}

// isBertPunct is tokenizers' is_punc: ASCII punctuation or Unicode P*.
func isBertPunct(r rune) bool {
	return r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r) || unicode.IsPunct(r)
}

// byteLevelChars maps each byte to its printable stand-in, GPT-2's
// bytes_to_unicode: printable Latin-1 bytes stand for themselves, the others
// for 256, 257, … in byte order.
var byteLevelChars = func() (t [256]rune) {
	n := rune(256)
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			t[b] = rune(b)
		} else {
			t[b] = n
			n++
		}
	}
	return t
}()

// byteLevelString maps each byte of s to its stand-in character.
func byteLevelString(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteLevelChars[s[i]])
	}
	return b.String()
}
