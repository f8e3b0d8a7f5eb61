package workload

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// normalizeFunc is one tokenizer.json normalizer step. Counts need no
// offsets, so a step maps a string to a string.
type normalizeFunc func(string) (string, error)

type normJSON struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"`
	Prepend     string            `json:"prepend"`
	Pattern     *patternJSON      `json:"pattern"`
	Content     string            `json:"content"`
	StripLeft   bool              `json:"strip_left"`
	StripRight  bool              `json:"strip_right"`
}

// patternJSON is a Split or Replace pattern: {"String": …} or {"Regex": …}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// compile makes the pattern a regexp2 expression (a String is escaped).
func (p *patternJSON) compile(where string) (*regexp2.Regexp, error) {
	switch {
	case p == nil:
		return nil, fmt.Errorf("%s: no pattern", where)
	case p.Regex != nil:
		re, err := regexp2.Compile(*p.Regex, regexp2.None)
		if err != nil {
			return nil, fmt.Errorf("%s: regex %q: %w", where, *p.Regex, err)
		}
		re.MatchTimeout = regexMatchTimeout
		return re, nil
	case p.String != nil:
		if *p.String == "" {
			return nil, nil // matches nothing
		}
		re := regexp2.MustCompile(regexp2.Escape(*p.String), regexp2.None)
		re.MatchTimeout = regexMatchTimeout
		return re, nil
	}
	return nil, fmt.Errorf("%s: pattern has neither \"String\" nor \"Regex\"", where)
}

// newNormalizer builds the normalizer section (null: none).
func newNormalizer(raw json.RawMessage) (normalizeFunc, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var j normJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch j.Type {
	case "Sequence":
		return sequenceNormalizer(j.Normalizers)
	case "NFC":
		return func(s string) (string, error) { return norm.NFC.String(s), nil }, nil
	case "NFD":
		return func(s string) (string, error) { return norm.NFD.String(s), nil }, nil
	case "NFKC":
		return func(s string) (string, error) { return norm.NFKC.String(s), nil }, nil
	case "NFKD":
		return func(s string) (string, error) { return norm.NFKD.String(s), nil }, nil
	case "Lowercase":
		return func(s string) (string, error) { return strings.ToLower(s), nil }, nil
	case "Strip":
		l, r := j.StripLeft, j.StripRight
		return func(s string) (string, error) {
			if l {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if r {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s, nil
		}, nil
	case "StripAccents":
		return func(s string) (string, error) {
			return strings.Map(func(r rune) rune {
				if unicode.Is(unicode.Mn, r) {
					return -1
				}
				return r
			}, s), nil
		}, nil
	case "Prepend":
		p := j.Prepend
		return func(s string) (string, error) {
			if s == "" {
				return s, nil
			}
			return p + s, nil
		}, nil
	case "Replace":
		return replaceNormalizer(j)
	case "":
		return nil, fmt.Errorf("normalizer without a \"type\"")
	}
	return nil, fmt.Errorf("normalizer %s is not supported (supported: Sequence, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Prepend, Replace)", j.Type)
}

// sequenceNormalizer applies the normalizers of a Sequence in turn (nil when
// none does anything).
func sequenceNormalizer(raws []json.RawMessage) (normalizeFunc, error) {
	var steps []normalizeFunc
	for _, r := range raws {
		f, err := newNormalizer(r)
		if err != nil {
			return nil, err
		}
		if f != nil {
			steps = append(steps, f)
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	return func(s string) (string, error) {
		var err error
		for _, f := range steps {
			if s, err = f(s); err != nil {
				return "", err
			}
		}
		return s, nil
	}, nil
}

// replaceNormalizer replaces a string or a regex's matches with the content.
func replaceNormalizer(j normJSON) (normalizeFunc, error) {
	if j.Pattern != nil && j.Pattern.String != nil {
		old, repl := *j.Pattern.String, j.Content
		if old == "" {
			return nil, nil
		}
		return func(s string) (string, error) { return strings.ReplaceAll(s, old, repl), nil }, nil
	}
	re, err := j.Pattern.compile("normalizer Replace")
	if err != nil {
		return nil, err
	}
	repl := j.Content
	return func(s string) (string, error) { return replaceRegex(re, s, repl) }, nil
}

// replaceRegex replaces every match of re in s with repl, literally.
func replaceRegex(re *regexp2.Regexp, s, repl string) (string, error) {
	ms, err := regexSpans(re, s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range ms {
		if m.match {
			b.WriteString(repl)
		} else {
			b.WriteString(s[m.start:m.end])
		}
	}
	return b.String(), nil
}
