package workload

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// hfTokenizer counts with a Hugging Face tokenizer.json whose model is BPE
// (byte-level as in GPT-2, Llama 3, Qwen, DeepSeek, gpt-oss; or
// SentencePiece-style with byte fallback as in Llama 2 and Mistral). The
// pipeline follows the tokenizers library's encode without special tokens
// added: added tokens are cut out of the raw text (non-normalized ones) and of
// the normalized text (normalized ones), the rest is normalized, pre-tokenized
// and given to the model; each matched added token is one token. It is safe
// for concurrent use.
type hfTokenizer struct {
	path    string
	norm    normalizeFunc
	pre     []preStep
	bpe     *bpeModel
	raw     *addedTrie // added tokens matched in the raw text
	normed  *addedTrie // added tokens matched in the normalized text
	decoder decodeFunc
	idToken map[int]string
	size    int
}

type hfJSON struct {
	AddedTokens  []addedJSON     `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        json.RawMessage `json:"model"`
	Decoder      json.RawMessage `json:"decoder"`
}

type addedJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// readMaybeGzip reads path, gunzipping it when it starts with gzip's magic.
func readMaybeGzip(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		return raw, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func loadHF(path string) (Tokenizer, error) {
	raw, err := readMaybeGzip(path)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer %s: %w", path, err)
	}
	t, err := parseHF(path, raw)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

func parseHF(path string, raw []byte) (*hfTokenizer, error) {
	var j hfJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if len(j.Model) == 0 || string(j.Model) == "null" {
		return nil, fmt.Errorf("no \"model\" section")
	}
	t := &hfTokenizer{path: path}
	var err error
	if t.bpe, err = newBPE(j.Model); err != nil {
		return nil, err
	}
	if t.norm, err = newNormalizer(j.Normalizer); err != nil {
		return nil, err
	}
	if t.pre, err = newPreTokenizer(j.PreTokenizer); err != nil {
		return nil, err
	}
	if t.decoder, err = newDecoder(j.Decoder); err != nil {
		return nil, err
	}
	t.idToken = make(map[int]string, len(t.bpe.vocab)+len(j.AddedTokens))
	for tok, id := range t.bpe.vocab {
		t.idToken[id] = tok
		t.size = max(t.size, id+1)
	}
	t.raw, t.normed = &addedTrie{}, &addedTrie{}
	for _, a := range j.AddedTokens {
		if a.Content == "" {
			return nil, fmt.Errorf("added token %d has empty content", a.ID)
		}
		t.idToken[a.ID] = a.Content
		if !a.Normalized {
			t.raw.add(a.Content, a)
			continue
		}
		pat := a.Content
		if t.norm != nil {
			if pat, err = t.norm(pat); err != nil {
				return nil, fmt.Errorf("added token %q: %w", a.Content, err)
			}
		}
		t.normed.add(pat, a)
	}
	return t, nil
}

func (t *hfTokenizer) Name() string { return t.path }

func (t *hfTokenizer) VocabSize() int { return t.size }

// Encode returns the ids of text. Invalid UTF-8 is read as U+FFFD per bad
// byte (the tokenizers library takes only valid strings).
func (t *hfTokenizer) Encode(ctx context.Context, text string) ([]int, error) {
	if !utf8.ValidString(text) {
		text = validUTF8(text)
	}
	var out []int
	var err error
	for _, s := range t.raw.split(text, true) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.id >= 0 {
			out = append(out, s.id)
			continue
		}
		n := s.text
		if t.norm != nil {
			if n, err = t.norm(n); err != nil {
				return nil, err
			}
		}
		for _, s2 := range t.normed.split(n, s.first) {
			if s2.id >= 0 {
				out = append(out, s2.id)
				continue
			}
			pieces := []piece{{text: s2.text, first: s2.first}}
			for _, step := range t.pre {
				if pieces, err = step(ctx, pieces); err != nil {
					return nil, err
				}
			}
			for _, p := range pieces {
				if out, err = t.bpe.tokenize(ctx, p.text, out); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// validUTF8 replaces each byte of an invalid sequence with U+FFFD.
func validUTF8(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

func (t *hfTokenizer) Decode(ids []int) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		toks = append(toks, t.idToken[id])
	}
	if t.decoder == nil {
		return strings.Join(toks, "")
	}
	return strings.Join(t.decoder(toks), "")
}

// addedTrie finds added tokens in text, leftmost first and then longest, as
// tokenizers' AddedVocabulary does with its Aho-Corasick automaton.
type addedTrie struct {
	root   trieNode
	maxLen int
}

type trieNode struct {
	next  map[byte]*trieNode
	token *addedJSON
}

func (a *addedTrie) add(pattern string, tok addedJSON) {
	n := &a.root
	for i := 0; i < len(pattern); i++ {
		if n.next == nil {
			n.next = map[byte]*trieNode{}
		}
		c := n.next[pattern[i]]
		if c == nil {
			c = &trieNode{}
			n.next[pattern[i]] = c
		}
		n = c
	}
	if n.token == nil { // the first of equal patterns wins
		n.token = &tok
	}
	a.maxLen = max(a.maxLen, len(pattern))
}

// longestAt is the longest token starting at s[i:], and its length.
func (a *addedTrie) longestAt(s string, i int) (*addedJSON, int) {
	var best *addedJSON
	bestLen := 0
	n := &a.root
	for k := i; k < len(s) && n.next != nil; k++ {
		n = n.next[s[k]]
		if n == nil {
			break
		}
		if n.token != nil {
			best, bestLen = n.token, k+1-i
		}
	}
	return best, bestLen
}

type addedSplit struct {
	text  string
	id    int // -1: not an added token
	first bool
}

// split cuts s into added tokens and the text between them, with the
// single_word, lstrip and rstrip rules of AddedVocabulary::find_matches.
func (a *addedTrie) split(s string, first bool) []addedSplit {
	if a.maxLen == 0 || s == "" {
		return []addedSplit{{text: s, id: -1, first: first}}
	}
	var out []addedSplit
	startOff := 0
	for i := 0; i < len(s); {
		tok, n := a.longestAt(s, i)
		if tok == nil {
			i++
			continue
		}
		start, stop := i, i+n
		i = stop // the automaton goes on after the match
		if tok.SingleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.LStrip {
			ns := len(strings.TrimRightFunc(s[:start], unicode.IsSpace))
			start = max(ns, startOff)
		}
		if tok.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if startOff < start {
			out = append(out, addedSplit{text: s[startOff:start], id: -1, first: first && startOff == 0})
		}
		out = append(out, addedSplit{text: s[start:stop], id: tok.ID})
		startOff = stop
	}
	if startOff != len(s) {
		out = append(out, addedSplit{text: s[startOff:], id: -1, first: first && startOff == 0})
	}
	return out
}

func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '_'
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordChar(r)
}

// decodeFunc is a tokenizer.json decoder over token strings.
type decodeFunc func([]string) []string

type decJSON struct {
	Type          string            `json:"type"`
	Decoders      []json.RawMessage `json:"decoders"`
	Pattern       *patternJSON      `json:"pattern"`
	Content       string            `json:"content"`
	Start         int               `json:"start"`
	Stop          int               `json:"stop"`
	Replacement   string            `json:"replacement"`
	PrependScheme string            `json:"prepend_scheme"`
	AddPrefix     *bool             `json:"add_prefix_space"`
}

// newDecoder builds the decoder section; null or an unsupported decoder
// decodes by joining the token strings (decoding serves only to find plain
// words for synthetic prompts, whose counts are checked by encoding).
func newDecoder(raw json.RawMessage) (decodeFunc, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var j decJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	switch j.Type {
	case "Sequence":
		var steps []decodeFunc
		for _, r := range j.Decoders {
			f, err := newDecoder(r)
			if err != nil {
				return nil, err
			}
			if f != nil {
				steps = append(steps, f)
			}
		}
		return func(toks []string) []string {
			for _, f := range steps {
				toks = f(toks)
			}
			return toks
		}, nil
	case "ByteLevel":
		return byteLevelDecoder(), nil
	case "Replace":
		if j.Pattern == nil || j.Pattern.String == nil {
			return nil, nil
		}
		old, repl := *j.Pattern.String, j.Content
		return func(toks []string) []string {
			for i := range toks {
				toks[i] = strings.ReplaceAll(toks[i], old, repl)
			}
			return toks
		}, nil
	case "ByteFallback":
		return byteFallbackDecoder, nil
	case "Fuse":
		return func(toks []string) []string { return []string{strings.Join(toks, "")} }, nil
	case "Strip":
		c, start, stop := j.Content, j.Start, j.Stop
		return func(toks []string) []string {
			for i, t := range toks {
				for k := 0; k < start && strings.HasPrefix(t, c); k++ {
					t = t[len(c):]
				}
				for k := 0; k < stop && strings.HasSuffix(t, c); k++ {
					t = t[:len(t)-len(c)]
				}
				toks[i] = t
			}
			return toks
		}, nil
	case "Metaspace":
		repl := j.Replacement
		if repl == "" {
			repl = "▁"
		}
		strip := j.PrependScheme != "never" && (j.AddPrefix == nil || *j.AddPrefix)
		return func(toks []string) []string {
			for i, t := range toks {
				t = strings.ReplaceAll(t, repl, " ")
				if i == 0 && strip {
					t = strings.TrimPrefix(t, " ")
				}
				toks[i] = t
			}
			return toks
		}, nil
	}
	return nil, nil
}

// byteLevelDecoder maps ByteLevel's runes back to their bytes and the bytes
// to text (invalid UTF-8 replaced).
func byteLevelDecoder() decodeFunc {
	inv := map[rune]byte{}
	for b, r := range byteLevelChars {
		inv[r] = byte(b)
	}
	return func(toks []string) []string {
		var b []byte
		for _, t := range toks {
			for _, r := range t {
				if c, ok := inv[r]; ok {
					b = append(b, c)
				} else {
					b = utf8.AppendRune(b, r)
				}
			}
		}
		return []string{strings.ToValidUTF8(string(b), "\uFFFD")}
	}
}

// byteFallbackDecoder turns runs of <0xNN> byte tokens into their text.
func byteFallbackDecoder(toks []string) []string {
	var out []string
	var pend []byte
	flush := func() {
		if pend != nil {
			out = append(out, strings.ToValidUTF8(string(pend), "\uFFFD"))
			pend = nil
		}
	}
	for _, t := range toks {
		if len(t) == 6 && strings.HasPrefix(t, "<0x") && t[5] == '>' {
			if v, err := strconv.ParseUint(t[3:5], 16, 8); err == nil {
				pend = append(pend, byte(v))
				continue
			}
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}
