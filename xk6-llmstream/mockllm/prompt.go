package mockllm

import (
	"container/list"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// TokenizerWords is the Config.Tokenizer value (also the zero value's meaning)
// that counts whitespace-separated words as tokens.
const TokenizerWords = "words"

// DefaultTokenizer is the prompt tokenizer of DefaultConfig and of
// `xk6-llmstream mock`: the dataset builder's default too, so the mock's
// prompt_tokens equal a dataset's input_tokens.
const DefaultTokenizer = "cl100k_base"

// DefaultBlockTokens is the prefix cache's block size when
// PrefixCache.BlockTokens is 0 (vLLM's default block size).
const DefaultBlockTokens = 16

// PrefixCache is the mock's prefix cache: like vLLM's automatic prefix
// caching, a prompt is cut into blocks of BlockTokens tokens, each block keyed
// by a hash of the model and every token up to its end; the leading blocks a
// request finds in the cache are "cached" prompt tokens: they cost
// Prefill.PerCachedToken instead of Prefill.PerInputToken and are reported in
// usage. Only whole blocks before the prompt's last token count (the last
// token is always computed). Every block of a request enters the cache when
// the request is planned, at arrival; the least recently used blocks leave
// when more than Blocks are held.
type PrefixCache struct {
	// Blocks is the capacity in blocks; 0 turns the cache off.
	Blocks int `json:"blocks" flag:"prefix-cache-blocks" usage:"prefix cache capacity in {N} blocks (0: no prefix cache)"`
	// BlockTokens is the block size in tokens; 0 means DefaultBlockTokens.
	BlockTokens int `json:"block_tokens" flag:"prefix-block-tokens" usage:"prefix cache block size {N} in tokens"`
}

func (p *PrefixCache) validate() error {
	if p.Blocks < 0 {
		return fmt.Errorf("prefix_cache.blocks: %d is negative", p.Blocks)
	}
	if p.BlockTokens < 0 {
		return fmt.Errorf("prefix_cache.block_tokens: %d is negative", p.BlockTokens)
	}
	return nil
}

// promptCounter turns a request's prompt into token keys: the ids of
// Config.Tokenizer over each text (system, message contents or prompt) alone,
// concatenated — the way `xk6-llmstream dataset` counts input_tokens — or a
// hash per word in words mode. Token-id prompts are taken as they are.
// Tokenizers are safe for concurrent use, so one long prompt holds up no
// other request.
type promptCounter struct {
	tok workload.Tokenizer // nil: words
}

func newPromptCounter(spec string) (*promptCounter, error) {
	if spec == "" || spec == TokenizerWords {
		return &promptCounter{}, nil
	}
	tok, err := workload.LoadTokenizer(spec)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return &promptCounter{tok: tok}, nil
}

// keysContext returns one key per prompt token of req. Tokenizing stops with
// ctx's error as soon as ctx is done (a client that left, a server shutting
// down), and fails when a regex of the tokenizer exceeds its time bound.
func (c *promptCounter) keysContext(ctx context.Context, req *genRequest) ([]uint64, error) {
	out := idKeys(req)
	if c.tok == nil {
		return imageKeys(req, wordKeys(req, out)), nil
	}
	for _, t := range req.Texts {
		ids, err := c.tok.Encode(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", c.tok.Name(), err)
		}
		for _, id := range ids {
			out = append(out, uint64(id))
		}
	}
	return imageKeys(req, out), nil
}

func idKeys(req *genRequest) []uint64 {
	out := make([]uint64, 0, req.InputTokens)
	for _, id := range req.IDs {
		out = append(out, uint64(id))
	}
	return out
}

// wordKeys appends a hash per whitespace-separated word of req's texts.
func wordKeys(req *genRequest, out []uint64) []uint64 {
	for _, t := range req.Texts {
		for _, w := range strings.Fields(t) {
			h := fnv.New64a()
			_, _ = h.Write([]byte(w))
			out = append(out, h.Sum64())
		}
	}
	return out
}

// prefixCache is the LRU of block hashes.
type prefixCache struct {
	block int
	cap   int

	mu  sync.Mutex
	lru *list.List // of uint64, most recent at the front
	at  map[uint64]*list.Element

	// queries and hits count prompt tokens looked up and served, as vLLM's
	// vllm:prefix_cache_queries and vllm:prefix_cache_hits do (/metrics).
	queries, hits atomic.Int64
}

func newPrefixCache(p PrefixCache) *prefixCache {
	if p.Blocks == 0 {
		return nil
	}
	b := p.BlockTokens
	if b == 0 {
		b = DefaultBlockTokens
	}
	return &prefixCache{block: b, cap: p.Blocks, lru: list.New(), at: map[uint64]*list.Element{}}
}

// serve returns how many leading tokens of the prompt were cached, and puts
// the prompt's blocks in the cache.
func (c *prefixCache) serve(model string, keys []uint64) int {
	if c == nil || len(keys) == 0 {
		return 0
	}
	n := (len(keys) - 1) / c.block // whole blocks before the last token
	hashes := make([]uint64, n)
	h := fnv.New64a()
	_, _ = h.Write([]byte(model))
	var buf [8]byte
	for i := range n {
		for _, k := range keys[i*c.block : (i+1)*c.block] {
			binary.LittleEndian.PutUint64(buf[:], k)
			_, _ = h.Write(buf[:])
		}
		hashes[i] = h.Sum64() // chained: the hash state carries every earlier token
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	hits := 0
	for hits < n {
		if _, ok := c.at[hashes[hits]]; !ok {
			break
		}
		hits++
	}
	for _, k := range hashes {
		if e, ok := c.at[k]; ok {
			c.lru.MoveToFront(e)
			continue
		}
		c.at[k] = c.lru.PushFront(k)
		for c.lru.Len() > c.cap {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.at, old.Value.(uint64))
		}
	}
	c.queries.Add(int64(len(keys)))
	c.hits.Add(int64(hits * c.block))
	return hits * c.block
}
