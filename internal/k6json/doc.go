// Package k6json reads the NDJSON that k6 writes with --out json: one JSON object
// per line, either a Metric declaration
//
//	{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time",...},"metric":"llm_ttft"}
//
// or a Point (one sample)
//
//	{"metric":"llm_ttft","type":"Point","data":{"time":"2026-11-29T14:50:27.4Z","value":512.3,"tags":{...}}}
//
// A Scanner streams one input after another (plain, gzip, or stdin), never holding
// a file in memory, and hands each Point of the metrics the caller keeps to a
// callback. What to keep of a point is the caller's choice: a percentile table
// needs only Point.Value (8 bytes a sample), a drift-over-time view needs
// Point.Elapsed and Point.Value, a tail diagnosis may keep Point.Tags.ID().
//
// Tag sets are interned: every distinct set of tags is one *TagSet, shared by all
// points (and all files) that carry it, so pointer equality is set equality and
// TagSet.ID is a dense small integer a caller can index a slice with.
//
// Reading is fast: a byte-level scanner handles k6's own line shape and falls back
// to encoding/json for anything it does not recognise (escapes, unusual spacing,
// duplicate keys, ...). Both paths give the same result for any line both accept;
// a fuzz test holds them to it.
//
// Damage: a final line cut short, or a gzip stream cut short (k6 killed), ends the
// input early without an error; FileStats.Damage says what was lost. A corrupt line
// followed by more lines is a *LineError naming the input and the line number,
// unless Scanner.Lenient is set, in which case it is skipped and counted.
package k6json
