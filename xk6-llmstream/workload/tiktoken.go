package workload

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktokenVocab holds the built-in OpenAI encodings and their number of
// ordinary tokens (the ranks in the BPE file).
var tiktokenVocab = map[string]int{
	tiktoken.MODEL_CL100K_BASE: 100256,
	tiktoken.MODEL_O200K_BASE:  199998,
}

var offlineLoader sync.Once

// tiktokenTokenizer counts with an OpenAI encoding. The BPE files are embedded
// in the binary by tiktoken-go-loader, so loading needs no network.
type tiktokenTokenizer struct {
	name string
	enc  *tiktoken.Tiktoken
}

func loadTiktoken(name string) (Tokenizer, error) {
	offlineLoader.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("loading encoding %s: %w", name, err)
	}
	return &tiktokenTokenizer{name: name, enc: enc}, nil
}

func (t *tiktokenTokenizer) Name() string { return t.name }

// Encode treats special-token text as ordinary text, as APIs do with user
// content.
func (t *tiktokenTokenizer) Encode(text string) []int { return t.enc.EncodeOrdinary(text) }

func (t *tiktokenTokenizer) Decode(ids []int) string { return t.enc.Decode(ids) }

func (t *tiktokenTokenizer) VocabSize() int { return tiktokenVocab[t.name] }
