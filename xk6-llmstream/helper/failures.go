package helper

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/truncate"
)

// MaxFailureExample bounds the example message kept per failure kind, in
// bytes.
const MaxFailureExample = 300

// maxFailureKinds bounds the kinds kept apart: the engine's and the helper's
// kinds are a small fixed set, so this is never reached in practice; any
// further kind is counted under FailureOtherKind, never dropped.
const maxFailureKinds = 64

// FailureOtherKind counts the failures of kinds beyond maxFailureKinds.
const FailureOtherKind = "other"

// FailureKind is how many requests failed with one error kind, and the
// first of their messages (redacted: no key, URLs without user info or
// query).
type FailureKind struct {
	Kind    string `json:"kind"`
	Count   int64  `json:"count"`
	Example string `json:"example"`
}

// failures counts failed requests by kind and keeps the first message of each
// kind. Successful requests never touch it; a failure takes no lock once its
// kind has been seen.
type failures struct {
	kinds sync.Map // kind → *failureEntry
	n     atomic.Int64
}

type failureEntry struct {
	count   atomic.Int64
	example string // set once, when the entry is made
}

// add counts one failure of kind; msg must already be redacted of the
// request's own secrets (KeyShapes is applied here too).
func (f *failures) add(kind, msg string) {
	if e, ok := f.kinds.Load(kind); ok {
		e.(*failureEntry).count.Add(1)
		return
	}
	if f.n.Load() >= maxFailureKinds {
		kind = FailureOtherKind
	}
	fresh := &failureEntry{example: truncate.Marked(redact.KeyShapes(msg), MaxFailureExample)}
	e, loaded := f.kinds.LoadOrStore(kind, fresh)
	if !loaded {
		f.n.Add(1)
	}
	e.(*failureEntry).count.Add(1)
}

// list returns the kinds, most frequent first (then by name).
func (f *failures) list() []FailureKind {
	var out []FailureKind
	f.kinds.Range(func(k, v any) bool {
		e := v.(*failureEntry)
		out = append(out, FailureKind{Kind: k.(string), Count: e.count.Load(), Example: e.example})
		return true
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// Failures returns the failed requests so far by error kind, most frequent
// first, each with its first message: the streams whose record has an error
// (engine kinds such as "connect" or "http_4xx") and the requests the helper
// refused (its own kinds such as "forbidden").
func (h *Handler) Failures() []FailureKind { return h.failures.list() }
