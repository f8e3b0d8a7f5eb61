package k6json

import (
	"iter"
	"slices"
	"strings"
)

// Tag is one tag of a sample.
type Tag struct {
	Key, Value string
}

// TagSet is an interned, immutable set of tags. All points with the same tags
// share one *TagSet (within one Scanner), so pointer equality is set equality.
// The zero value and a nil *TagSet are the empty set.
type TagSet struct {
	id   int
	tags []Tag // sorted by key, keys unique
	str  string
}

// ID is a dense index of the set within its Scanner: 0 for the empty set, then
// 1, 2, ... in order of first appearance. A caller can index a slice with it to
// cache a per-set decision (does it match a filter, which group is it in).
func (t *TagSet) ID() int {
	if t == nil {
		return 0
	}
	return t.id
}

// Len is the number of tags.
func (t *TagSet) Len() int {
	if t == nil {
		return 0
	}
	return len(t.tags)
}

// Get returns the value of a tag and whether the set has it.
func (t *TagSet) Get(key string) (string, bool) {
	if t == nil {
		return "", false
	}
	// Tag sets are small: a linear scan beats a binary search.
	for _, tag := range t.tags {
		if tag.Key == key {
			return tag.Value, true
		}
	}
	return "", false
}

// All yields the tags in key order.
func (t *TagSet) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if t == nil {
			return
		}
		for _, tag := range t.tags {
			if !yield(tag.Key, tag.Value) {
				return
			}
		}
	}
}

// Tags returns a copy of the tags in key order.
func (t *TagSet) Tags() []Tag {
	if t == nil {
		return nil
	}
	return slices.Clone(t.tags)
}

// Map returns the tags as a new map.
func (t *TagSet) Map() map[string]string {
	m := make(map[string]string, t.Len())
	for k, v := range t.All() {
		m[k] = v
	}
	return m
}

// Contains reports whether every key of want is in the set with the same value
// (k6's rule for a submetric such as llm_ttft{model:gpt-4o}: the key must be
// present; an empty wanted value matches only a present, empty tag).
func (t *TagSet) Contains(want []Tag) bool {
	for _, w := range want {
		v, ok := t.Get(w.Key)
		if !ok || v != w.Value {
			return false
		}
	}
	return true
}

// String formats the set like a k6 submetric suffix: {key:value,key:value}.
func (t *TagSet) String() string {
	if t == nil {
		return "{}"
	}
	return t.str
}

// interner owns the tag sets and strings of one Scanner.
type interner struct {
	strs   map[string]string
	byRaw  map[string]*TagSet // raw JSON text of a tags object -> set
	byKey  map[string]*TagSet // canonical key -> set
	sets   []*TagSet          // by ID
	keyBuf []byte
}

// maxRawForms bounds the cache from raw JSON text to tag set. Beyond it (inputs
// with a unique tag per sample, e.g. k6's vu or iter system tags), sets are still
// interned by their canonical form but the raw-text shortcut is not grown.
const maxRawForms = 1 << 20

func newInterner() *interner {
	empty := &TagSet{id: 0, str: "{}"}
	return &interner{
		strs:  make(map[string]string),
		byRaw: make(map[string]*TagSet),
		byKey: map[string]*TagSet{"": empty},
		sets:  []*TagSet{empty},
	}
}

func (in *interner) str(b []byte) string {
	if s, ok := in.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	in.strs[s] = s
	return s
}

func (in *interner) strOf(s string) string {
	if v, ok := in.strs[s]; ok {
		return v
	}
	in.strs[s] = s
	return s
}

// set interns a list of tags (any order, keys unique) and remembers raw, the JSON
// text it came from, as a shortcut for the next time the same text is seen.
func (in *interner) set(tags []Tag, raw []byte) *TagSet {
	sortTags(tags)
	buf := in.keyBuf[:0]
	for _, t := range tags {
		buf = append(buf, t.Key...)
		buf = append(buf, 0)
		buf = append(buf, t.Value...)
		buf = append(buf, 0)
	}
	in.keyBuf = buf
	ts, ok := in.byKey[string(buf)]
	if !ok {
		owned := make([]Tag, len(tags))
		var sb strings.Builder
		sb.WriteByte('{')
		for i, t := range tags {
			owned[i] = Tag{in.strOf(t.Key), in.strOf(t.Value)}
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(t.Key)
			sb.WriteByte(':')
			sb.WriteString(t.Value)
		}
		sb.WriteByte('}')
		ts = &TagSet{id: len(in.sets), tags: owned, str: sb.String()}
		in.sets = append(in.sets, ts)
		in.byKey[string(buf)] = ts
	}
	if raw != nil && len(in.byRaw) < maxRawForms {
		in.byRaw[string(raw)] = ts
	}
	return ts
}

func sortTags(tags []Tag) {
	slices.SortFunc(tags, func(a, b Tag) int { return strings.Compare(a.Key, b.Key) })
}

// Intern returns the Scanner's tag set of tags (any order, keys unique): the
// same *TagSet its inputs' points with these tags have. It lets a reader of
// another format (analyze's records) give its points tag sets that group,
// filter and compare like k6's.
func (s *Scanner) Intern(tags []Tag) *TagSet { return s.decoder().in.set(tags, nil) }
