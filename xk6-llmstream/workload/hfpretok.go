package workload

import (
	"fmt"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretokenizer"
)

// gpt2Split is the split of GPT-2's ByteLevel pre-tokenizer (use_regex: true),
// as Hugging Face tokenizers defines it.
const gpt2Split = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevelPreTokenizer runs a tokenizer.json pre_tokenizer made of Split
// (Isolated or Removed, not inverted) and ByteLevel steps, alone or in a
// Sequence, with regexp2 (which has look-ahead) for the regexes.
type byteLevelPreTokenizer struct {
	steps []preStep
}

type preStep struct {
	re          *regexp2.Regexp // a split, or nil for the byte mapping
	behavior    normalizer.SplitDelimiterBehavior
	prefixSpace bool // ByteLevel add_prefix_space
}

// isByteLevelFamily reports whether cfg is a Split, a ByteLevel, or a Sequence
// of only those.
func isByteLevelFamily(cfg map[string]any) bool {
	switch cfg["type"] {
	case "Split", "ByteLevel":
		return true
	case "Sequence":
		steps, _ := cfg["pretokenizers"].([]any)
		for _, s := range steps {
			m, _ := s.(map[string]any)
			if m["type"] != "Split" && m["type"] != "ByteLevel" {
				return false
			}
		}
		return len(steps) > 0
	}
	return false
}

func newByteLevelPreTokenizer(cfg map[string]any) (*byteLevelPreTokenizer, error) {
	list := []any{cfg}
	if cfg["type"] == "Sequence" {
		list, _ = cfg["pretokenizers"].([]any)
	}
	p := &byteLevelPreTokenizer{}
	for _, s := range list {
		m, _ := s.(map[string]any)
		steps, err := preSteps(m)
		if err != nil {
			return nil, err
		}
		p.steps = append(p.steps, steps...)
	}
	return p, nil
}

func preSteps(m map[string]any) ([]preStep, error) {
	if m["type"] == "ByteLevel" {
		prefix, _ := m["add_prefix_space"].(bool)
		mapping := preStep{prefixSpace: prefix}
		if useRegex, set := m["use_regex"].(bool); set && !useRegex {
			return []preStep{mapping}, nil
		}
		re := regexp2.MustCompile(gpt2Split, regexp2.None)
		return []preStep{{re: re, behavior: normalizer.IsolatedBehavior, prefixSpace: prefix}, mapping}, nil
	}
	pattern, _ := m["pattern"].(map[string]any)
	expr, isRegex := pattern["Regex"].(string)
	if !isRegex {
		lit, ok := pattern["String"].(string)
		if !ok {
			return nil, fmt.Errorf("pre_tokenizer Split: no Regex or String pattern")
		}
		expr = regexp2.Escape(lit)
	}
	if inv, _ := m["invert"].(bool); inv {
		return nil, fmt.Errorf("pre_tokenizer Split with invert: true is not supported")
	}
	var b normalizer.SplitDelimiterBehavior
	switch m["behavior"] {
	case "Isolated":
		b = normalizer.IsolatedBehavior
	case "Removed":
		b = normalizer.RemovedBehavior
	default:
		return nil, fmt.Errorf("pre_tokenizer Split behavior %v is not supported (want Isolated or Removed)", m["behavior"])
	}
	re, err := regexp2.Compile(expr, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer Split regex %q: %w", expr, err)
	}
	return []preStep{{re: re, behavior: b}}, nil
}

// PreTokenize implements tokenizer.PreTokenizer.
func (p *byteLevelPreTokenizer) PreTokenize(pt *tokenizer.PreTokenizedString) (*tokenizer.PreTokenizedString, error) {
	for _, st := range p.steps {
		if st.re == nil {
			pt = pt.Normalize(toByteChars)
			continue
		}
		pat := regexPattern{st.re}
		prefix := st.prefixSpace
		pt = pt.Split(func(_ int, n *normalizer.NormalizedString) []tokenizer.SplitIdx {
			if prefix && len(n.GetNormalized()) > 0 && n.GetNormalized()[0] != ' ' {
				n = n.Prepend(" ")
			}
			parts := n.Split(pat, st.behavior)
			out := make([]tokenizer.SplitIdx, len(parts))
			for i := range parts {
				out[i] = tokenizer.SplitIdx{Normalized: &parts[i]}
			}
			return out
		})
	}
	return pt, nil
}

// toByteChars maps each byte of the text to its printable ByteLevel character.
func toByteChars(n *normalizer.NormalizedString) *normalizer.NormalizedString {
	s := n.GetNormalized()
	changes := make([]normalizer.ChangeMap, 0, len(s))
	for _, r := range s {
		var buf [utf8.UTFMax]byte
		k := utf8.EncodeRune(buf[:], r)
		for i := 0; i < k; i++ {
			changes = append(changes, normalizer.ChangeMap{RuneVal: pretokenizer.BytesChar[buf[i]], Changes: min(i, 1)})
		}
	}
	return n.Transform(changes, 0)
}

// regexPattern is a normalizer.Pattern over a regexp2 expression, in byte
// offsets, covering the whole input with alternating non-matches and matches.
type regexPattern struct{ re *regexp2.Regexp }

func (p regexPattern) FindMatches(s string) []normalizer.OffsetsMatch {
	if s == "" {
		return []normalizer.OffsetsMatch{{Offsets: []int{0, 0}, Match: false}}
	}
	// regexp2 reports rune positions; byteAt converts them.
	byteAt := make([]int, 0, len(s)+1)
	for i := range s {
		byteAt = append(byteAt, i)
	}
	byteAt = append(byteAt, len(s))
	var out []normalizer.OffsetsMatch
	prev := 0
	m, _ := p.re.FindStringMatch(s)
	for m != nil {
		start, end := byteAt[m.Index], byteAt[m.Index+m.Length]
		if start > prev {
			out = append(out, normalizer.OffsetsMatch{Offsets: []int{prev, start}, Match: false})
		}
		if end > start {
			out = append(out, normalizer.OffsetsMatch{Offsets: []int{start, end}, Match: true})
		}
		prev = end
		m, _ = p.re.FindNextMatch(m)
	}
	if prev < len(s) {
		out = append(out, normalizer.OffsetsMatch{Offsets: []int{prev, len(s)}, Match: false})
	}
	return out
}
