package workload

import "sync"

// bpeCacheWords bounds a piece cache; it is emptied when full.
const bpeCacheWords = 1 << 17

// bpeCacheMaxLen is the longest piece (in bytes) that is cached.
const bpeCacheMaxLen = 256

// pieceCache remembers the ids of short pieces (pre-tokenized words), the
// BPE merge of both tokenizer kinds being the costly part. Safe for
// concurrent use; the zero value is ready.
type pieceCache struct {
	mu sync.Mutex
	m  map[string][]int
}

// appendTo appends the cached ids of piece to out; false when it has none
// (then the caller merges and calls remember).
func (c *pieceCache) appendTo(piece string, out []int) ([]int, bool) {
	if len(piece) > bpeCacheMaxLen {
		return out, false
	}
	c.mu.Lock()
	ids, ok := c.m[piece]
	c.mu.Unlock()
	if !ok {
		return out, false
	}
	return append(out, ids...), true
}

// remember keeps a copy of ids as piece's (short pieces only).
func (c *pieceCache) remember(piece string, ids []int) {
	if len(piece) > bpeCacheMaxLen {
		return
	}
	ids = append([]int(nil), ids...)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= bpeCacheWords {
		c.m = make(map[string][]int)
	}
	c.m[piece] = ids
	c.mu.Unlock()
}
