package sweep

import (
	"fmt"
	"strings"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// CacheRiseLimit is how far (a share, 0..1) a later level's prefix-cache
// hit rate may rise above the first level's before the sweep says the
// levels shared the cache: a level that replays the first one's prompts
// with the same salt sees every prompt the first one warmed.
const CacheRiseLimit = 0.05

// cacheBustEnv is the environment a level's k6 gets for prefix-cache
// isolation (docs/traffic.md): a fresh salt and LLM_CACHE_BUST=1, so every
// Client without its own cacheBust option puts the level's salt at the start
// of every prompt. Without busting, none.
func cacheBustEnv(salt string) map[string]string {
	if salt == "" {
		return nil
	}
	return map[string]string{runner.CacheSaltEnv: salt, runner.CacheBustEnv: "1"}
}

// CacheWarning is the sweep's warning about prompts reused across levels
// ("" none). The rule: with more than one level, a sweep that did not bust
// (--no-cache-bust) warns, since its later levels can be served from the
// prefix cache the earlier ones built; a sweep that busted warns when a
// later level's server-side hit rate is above the first level's by more
// than CacheRiseLimit (the script's Client has cacheBust: false, or its
// prompts carry their own reuse). The hit rates, when scraped, are quoted.
func CacheWarning(levels []Level, busted bool) string {
	if len(levels) < 2 {
		return ""
	}
	var rates []string
	var first *float64
	rose := ""
	for _, l := range levels {
		r := l.prefixHitRate()
		if r == nil {
			continue
		}
		rates = append(rates, fmt.Sprintf("level %d %.1f%%", l.Index, 100**r))
		if first == nil {
			first = r
		} else if *r > *first+CacheRiseLimit && rose == "" {
			rose = fmt.Sprintf("level %d's prefix-cache hit rate %.1f%% is above the first level's %.1f%%", l.Index, 100**r, 100**first)
		}
	}
	seen := ""
	if len(rates) > 0 {
		seen = " (prefix-cache hit rate: " + strings.Join(rates, ", ") + ")"
	}
	switch {
	case !busted:
		return "the levels reuse the same prompts without cache busting (--no-cache-bust): later levels can be served from the prefix cache the earlier ones built" + seen
	case rose != "":
		return rose + ": the levels shared the prefix cache although each had its own salt; does the script's Client set cacheBust: false?" + seen
	}
	return ""
}

// prefixHitRate is the level's server-side prefix-cache hit rate (nil: not
// scraped).
func (l Level) prefixHitRate() *float64 {
	if l.Server == nil {
		return nil
	}
	return l.Server.PrefixHitRate
}

// prefixOver is the prefix cache's hits and queries between the first and
// the last scrape that had the counters, and their ratio (nil: no counters,
// or no query during the level).
func prefixOver(ss []ServerSample) (queries, hits float64, rate *float64) {
	var first, last *ServerSample
	for i := range ss {
		if ss[i].PrefixQueries != nil && ss[i].PrefixHits != nil {
			if first == nil {
				first = &ss[i]
			}
			last = &ss[i]
		}
	}
	if first == nil {
		return 0, 0, nil
	}
	queries, hits = *last.PrefixQueries-*first.PrefixQueries, *last.PrefixHits-*first.PrefixHits
	if queries <= 0 || hits < 0 {
		return queries, hits, nil
	}
	return queries, hits, num(hits / queries)
}
