package rundata

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/input"
	"io"
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
)

// Records files (the helper's --records, docs/records.md) are read beside or
// instead of k6's JSON: each record becomes the samples llmstream.js adds for
// the same request, with the same definitions and values (milliseconds
// rounded to the microsecond, as the helper answers k6; ITL with the k-token
// rule), so every command reads them like k6's output. A file is a records
// file when its first line is a records header (RecordsFile).
//
// When k6 JSON and records are given together, the records are joined to
// k6's samples by request id (k6's llm_request_id metadata): a record of a
// request k6 has takes k6's tags (scenario and all), and adds only the metrics
// k6 has no sample of for that request — with itl: 'records', its llm_itl —
// so nothing is counted twice.

// RequestIDMetadata is the metadata key of a request's id in k6's output.
const RequestIDMetadata = metrics.RequestIDMetadata

// recordOptions are the samples a record gives analyze: every ITL gap and
// the stages, whatever the Client chose for k6 (the join leaves out what k6
// has).
var recordOptions = metrics.Options{ITL: metrics.ITLAll, Stages: true}

// The metrics a record can add (metrics.Builtin), with their k6 types; the bit
// of each in a joined request's mask is its index.
var recordMetrics = func() []k6json.Metric {
	if len(metrics.Builtin) > 64 {
		panic("model: more than 64 builtin metrics do not fit a joined request's mask (uint64)")
	}
	out := make([]k6json.Metric, len(metrics.Builtin))
	for i, m := range metrics.Builtin {
		typ, err := k6json.ParseType(string(m.Type))
		if err != nil {
			panic(err) // metrics.Builtin names k6's types
		}
		out[i] = k6json.Metric{Name: m.Name, Type: typ}
		if m.Time {
			out[i].Contains = k6json.Time
		}
	}
	return out
}()

// metricBit is the index of a record metric, -1 for others.
func metricBit(name string) int {
	for i := range recordMetrics {
		if recordMetrics[i].Name == name {
			return i
		}
	}
	return -1
}

// RecordsFile reports whether the input is a records file (by its first
// line). Stdin ("-") is always read as k6 JSON.
func RecordsFile(path string) bool {
	if path == "-" {
		return false
	}
	rc, err := input.Open(path, nil)
	if err != nil {
		return false
	}
	defer rc.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(rc, head)
	return records.IsHeader(head[:n])
}

// joined is what k6's output said about one request: its tags and which
// record metrics it has samples of.
type joined struct {
	tags *k6json.TagSet
	mask uint64
}

// recordReader turns records into points for one Reader.
type recordReader struct {
	sc      *k6json.Scanner
	rec     []bool                    // by input: a records file
	k6      map[string]*joined        // by request id; nil when no k6 input is read
	keepers map[string]bool           // the selection's choice, by metric
	onPoint func(*k6json.Point) error // where a record's points go (grouping, window)
	opts    metrics.Options           // the samples a record makes (recordOptions, the deadline)
	p       k6json.Point
	tagBuf  []k6json.Tag
	// Counted while reading, for the warnings:
	warmup, unanswered, unjoined int64
}

// scan reads one records file and calls emit with each point.
func (rr *recordReader) scan(path string, emit func(*k6json.Point) error) (k6json.FileStats, error) {
	st := k6json.FileStats{Input: path}
	rc, err := input.Open(path, nil)
	if err != nil {
		return st, err
	}
	defer rc.Close()
	var origin time.Time
	fs, err := records.ScanWith(rc, records.ScanOptions{Lenient: rr.sc.Lenient}, func(rec *records.Record) error {
		if rec.Warmup || rec.Unanswered {
			rr.warmup += b2i(rec.Warmup)
			rr.unanswered += b2i(rec.Unanswered)
			return nil
		}
		end := time.Unix(0, rec.StartNS+rec.E2ENS).UTC()
		if origin.IsZero() {
			origin, st.Start = end, end
		}
		rr.p.Time, rr.p.Elapsed = end, end.Sub(origin)
		return rr.points(rec, &st, emit)
	})
	st.Lines = fs.Lines
	st.Damage = fs.Damage
	st.Skipped, st.SkippedLines = fs.Skipped, fs.SkippedLines
	if err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	if fs.Trailer != nil && fs.Trailer.Dropped+fs.Trailer.Lost > 0 {
		st.Damage = fmt.Sprintf("the helper dropped %d record(s) (queue full) and lost %d to write errors: their requests are missing",
			fs.Trailer.Dropped, fs.Trailer.Lost)
	}
	return st, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// warn says what the records reading left out.
func (rr *recordReader) warn(w io.Writer) {
	if rr == nil {
		return
	}
	if rr.warmup+rr.unanswered > 0 {
		fmt.Fprintf(w, "analyze: note: records: left out %d warm-up request(s) and %d the k6 side never got an answer for (as k6 did)\n",
			rr.warmup, rr.unanswered)
	}
	if rr.unjoined > 0 {
		fmt.Fprintf(w, "analyze: warning: records: %d request(s) have no samples in the k6 inputs (no llm_request_id match): read with the records' own tags\n",
			rr.unjoined)
	}
}

// withTags is base with a series' own tags added (they win).
func (rr *recordReader) withTags(base *k6json.TagSet, extra map[string]string) *k6json.TagSet {
	tags := rr.tagBuf[:0]
	for _, t := range base.Tags() {
		if _, ok := extra[t.Key]; !ok {
			tags = append(tags, t)
		}
	}
	for k, v := range extra {
		tags = append(tags, k6json.Tag{Key: k, Value: v})
	}
	rr.tagBuf = tags
	return rr.sc.Intern(tags)
}

// tagsOf is the tag set llmstream.js gives the request's samples: the
// script's tags, then the module's own (which win).
func (rr *recordReader) tagsOf(rec *records.Record) *k6json.TagSet {
	tags := rr.tagBuf[:0]
	own := metrics.Tags(rec)
	for k, v := range rec.Tags {
		if slices.Contains(metrics.ModuleTags, k) {
			continue
		}
		tags = append(tags, k6json.Tag{Key: k, Value: v})
	}
	for i, k := range metrics.ModuleTags {
		tags = append(tags, k6json.Tag{Key: k, Value: own[i]})
	}
	rr.tagBuf = tags
	return rr.sc.Intern(tags)
}

// points adds the request's samples (metrics.FromRecord, the definition the
// helper answered k6 with), with the request's tags — k6's when the request
// is joined — and, for a joined request, only the metrics k6 has no sample
// of. Each point carries the request's id, so the request join sees it.
func (rr *recordReader) points(rec *records.Record, st *k6json.FileStats, emit func(*k6json.Point) error) error {
	var skip uint64
	rr.p.Tags = nil
	if rr.k6 != nil {
		if j, ok := rr.k6[rec.ID]; ok && rec.ID != "" {
			rr.p.Tags, skip = j.tags, j.mask
		} else {
			rr.unjoined++
		}
	}
	if rr.p.Tags == nil {
		rr.p.Tags = rr.tagsOf(rec)
	}
	tags := rr.p.Tags
	rr.p.Metadata = rr.p.Metadata[:0]
	if rec.ID != "" {
		rr.p.Metadata = append(rr.p.Metadata, k6json.Tag{Key: RequestIDMetadata, Value: rec.ID})
	}
	for _, s := range metrics.FromRecord(rec, &rr.opts) {
		bit := metricBit(s.Metric)
		if bit < 0 || skip&(1<<bit) != 0 {
			continue
		}
		rr.p.Metric = recordMetrics[bit].Name
		rr.p.Tags = tags
		if len(s.Tags) > 0 {
			rr.p.Tags = rr.withTags(tags, s.Tags)
		}
		for _, v := range s.Values {
			rr.p.Value = v
			st.Points++
			st.Kept++
			if err := emit(&rr.p); err != nil {
				return err
			}
		}
	}
	return nil
}

// prepareRecords finds the records inputs. Without any it returns nil (a nil
// *recordReader reads nothing and reorders nothing). With k6 inputs too, it
// sets the scanner up for the join: k6's points carry their request ids, and
// the record metrics are read from k6 (to know which requests have which)
// even when the selection does not keep them; only the kept ones reach fn.
func (r *Reader) prepareRecords(sc *k6json.Scanner, keep func(string) bool) *recordReader {
	rr := &recordReader{sc: sc, rec: make([]bool, len(r.inputs)), onPoint: sc.OnPoint, opts: recordOptions}
	rr.opts.Deadline = r.deadline
	hasRec, k6 := false, false
	for i, in := range r.inputs {
		rr.rec[i] = RecordsFile(in.Path)
		hasRec = hasRec || rr.rec[i]
		k6 = k6 || !rr.rec[i]
	}
	if !hasRec {
		return nil
	}
	if !k6 {
		return rr
	}
	rr.k6 = map[string]*joined{}
	kept := map[string]bool{}
	sc.KeepMetadata = true
	sc.Keep = func(name string) bool {
		kept[name] = keep(name)
		return kept[name] || metricBit(name) >= 0
	}
	onPoint := sc.OnPoint
	sc.OnPoint = func(p *k6json.Point) error {
		if r.deadline != nil && (p.Metric == metrics.DeadlineMet || p.Metric == metrics.Fluidity) {
			return nil // the records judge the deadline (SetDeadline)
		}
		if bit := metricBit(p.Metric); bit >= 0 {
			if id, ok := p.MetadataValue(RequestIDMetadata); ok {
				j := rr.k6[id]
				if j == nil {
					j = &joined{tags: p.Tags}
					rr.k6[id] = j
				}
				j.mask |= 1 << bit
			}
		}
		if !kept[p.Metric] {
			return nil
		}
		return onPoint(p)
	}
	return rr
}

// isRecords reports whether input i is a records file.
func (rr *recordReader) isRecords(i int) bool { return rr != nil && rr.rec[i] }

// order is the order inputs are read in: as given, except that k6 inputs
// come before records when they are joined.
func (rr *recordReader) order(n int) []int {
	out := make([]int, 0, n)
	for pass := range 2 {
		for i := range n {
			if (rr.isRecords(i) && rr.k6 != nil) == (pass == 1) {
				out = append(out, i)
			}
		}
	}
	return out
}

// scanFile declares the record metrics and reads one records file, each
// point through the selection's keep and the scanner's OnPoint.
func (rr *recordReader) scanFile(path string, sc *k6json.Scanner, keep func(string) bool) (k6json.FileStats, error) {
	for i := range recordMetrics {
		if sc.OnMetric != nil {
			if err := sc.OnMetric(&recordMetrics[i]); err != nil {
				return k6json.FileStats{Input: path}, err
			}
		}
	}
	if rr.keepers == nil {
		rr.keepers = map[string]bool{}
	}
	return rr.scan(path, func(p *k6json.Point) error {
		k, ok := rr.keepers[p.Metric]
		if !ok {
			k = keep(p.Metric)
			rr.keepers[p.Metric] = k
		}
		if !k {
			return nil
		}
		return rr.onPoint(p)
	})
}
