package k6json

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Metadata: k6 writes a sample's metadata (exec.vu.metrics.metadata, e.g. the
// llm_request_id llmstream.js sets on every llm_* sample) as an object of
// strings beside the tags:
//
//	{"metric":"llm_ttft","type":"Point","data":{"time":…,"value":…,"tags":{…},"metadata":{"llm_request_id":"7-12"}}}
//
// Unlike tags, metadata values are mostly unique (one per request), so they are
// not interned: each is a new string, and a Scanner decodes them only when
// KeepMetadata is set.

// fastMetadata decodes a metadata object whose keys and values are plain
// strings into r.meta, sorted by key; false means "ask encoding/json".
func (dc *decoder) fastMetadata(c *cursor, r *lineResult) bool {
	if !c.eat('{') {
		return c.lit("null")
	}
	meta := r.meta[:0]
	c.ws()
	if !c.eat('}') {
		for {
			c.ws()
			k, ok := c.str()
			if !ok {
				return false
			}
			c.ws()
			if !c.eat(':') {
				return false
			}
			c.ws()
			v, ok := c.str()
			if !ok {
				return false
			}
			for _, t := range meta {
				if t.Key == string(k) {
					return false // duplicate key: encoding/json's last-wins rule applies
				}
			}
			meta = append(meta, Tag{dc.in.str(k), string(v)})
			c.ws()
			if c.eat('}') {
				break
			}
			if !c.eat(',') {
				return false
			}
		}
	}
	sortTags(meta)
	r.meta = meta
	return true
}

// slowMetadata decodes a metadata object with encoding/json: string values as
// they are, a null value as no entry, any other value as its compact JSON text
// (as tags are read).
func (dc *decoder) slowMetadata(metric string, raw json.RawMessage, r *lineResult) error {
	if string(raw) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return fmt.Errorf("Point of %s: metadata is not an object: %.40s", metric, raw)
	}
	meta := r.meta[:0]
	for k, v := range m {
		var s string
		switch {
		case string(v) == "null":
			continue
		case v[0] == '"':
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("Point of %s: metadata %q: %v", metric, k, err)
			}
		default:
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				return fmt.Errorf("Point of %s: metadata %q: %v", metric, k, err)
			}
			s = b.String()
		}
		meta = append(meta, Tag{dc.in.strOf(k), s})
	}
	sortTags(meta)
	r.meta = meta
	return nil
}

// MetadataValue returns the value of a metadata key of the point and whether
// the point has it (always false unless Scanner.KeepMetadata is set).
func (p *Point) MetadataValue(key string) (string, bool) {
	for _, t := range p.Metadata {
		if t.Key == key {
			return t.Value, true
		}
	}
	return "", false
}
