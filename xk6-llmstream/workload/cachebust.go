package workload

import (
	"context"
	"fmt"
	"regexp"
)

// saltRE is a cache-bust salt: what the module's Client accepts too
// (js/lib/cachebust.js).
var saltRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CacheBustMarker is the text put at the start of a prompt for the salt;
// the module's Client puts the same (js/lib/cachebust.js saltMarker).
func CacheBustMarker(salt string) string { return "[cache-bust " + salt + "]\n" }

// CheckSalt refuses a salt that is not 1 to 64 of A-Z a-z 0-9 _ -.
func CheckSalt(salt string) error {
	if !saltRE.MatchString(salt) {
		return fmt.Errorf("the cache-bust salt %q must be 1 to 64 of A-Z a-z 0-9 _ -", salt)
	}
	return nil
}

// SaltEntry puts the salt's marker at the start of the entry's prompt (its
// prompt, or its first message) and recounts it under tok: input_tokens
// (and input_tokens_target, prefix_tokens when set) grow by the marker's
// cost, so the counts stay exact and a shared prefix stays shared.
func SaltEntry(ctx context.Context, tok Tokenizer, e *Entry, salt string) error {
	text := &e.Prompt
	if len(e.Messages) > 0 {
		text = &e.Messages[0].Content
	}
	before, err := Count(ctx, tok, *text)
	if err != nil {
		return err
	}
	*text = CacheBustMarker(salt) + *text
	after, err := Count(ctx, tok, *text)
	if err != nil {
		return err
	}
	d := after - before
	e.InputTokens += d
	if e.InputTokensTarget > 0 {
		e.InputTokensTarget += d
	}
	if e.PrefixTokens > 0 {
		e.PrefixTokens += d
	}
	return nil
}
