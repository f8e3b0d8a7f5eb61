package records

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

type item struct{ r Record }

func (it *item) AppendRecord(b []byte) []byte { return AppendJSON(b, &it.r) }
func (it *item) Size() int                    { return 100 + 8*len(it.r.TextNS) }

func randomRecord(rng *rand.Rand, i int) Record {
	ns := func() *int64 { v := rng.Int64N(1e9); return &v }
	r := Record{V: Version, ID: "1-" + strings.Repeat("9", i%3), StartNS: time.Now().UnixNano(),
		API: "openai-chat", Model: "m<&>\u2028", Status: 200, E2ENS: rng.Int64N(1e10),
		Tags: map[string]string{"scenario": "s", "x": "\n\""}, TokenSource: "usage"}
	if rng.IntN(3) == 0 {
		r.Error = &Error{Kind: "timeout", Message: "m"}
	}
	if rng.IntN(2) == 0 {
		r.TTFTNS, r.HeadersNS = ns(), ns()
		r.Stages = &Stages{ConnectNS: 1, SendNS: 2, WaitNS: 3, Reused: true}
		for range rng.IntN(70) {
			r.TextNS = append(r.TextNS, rng.Int64N(1e8))
		}
	}
	return r
}

func writeAll(t *testing.T, gz bool, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, gz, Options{Writer: "test"})
	for i := range recs {
		if !w.Submit(&item{recs[i]}) {
			t.Fatalf("record %d dropped", i)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Written != int64(len(recs)) || st.Dropped != 0 {
		t.Fatalf("stats %+v, want %d written", st, len(recs))
	}
	return buf.Bytes()
}

func readAll(t *testing.T, data []byte, gz bool) ([]Record, FileStats, error) {
	t.Helper()
	var r io.Reader = bytes.NewReader(data)
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var out []Record
	st, err := Scan(r, func(rec *Record) error { out = append(out, *rec); return nil })
	return out, st, err
}

func TestWriteThenScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var recs []Record
	for i := range 500 {
		recs = append(recs, randomRecord(rng, i))
	}
	for _, gz := range []bool{false, true} {
		data := writeAll(t, gz, recs)
		got, st, err := readAll(t, data, gz)
		if err != nil || st.Damage != "" || st.Trailer == nil {
			t.Fatalf("gz=%v: err %v, stats %+v", gz, err, st)
		}
		if !reflect.DeepEqual(got, recs) {
			t.Fatalf("gz=%v: records differ after the round trip", gz)
		}
		if st.Trailer.Records != 500 || st.Header.Format != Format || st.Header.Writer != "test" {
			t.Fatalf("gz=%v: header %+v trailer %+v", gz, st.Header, st.Trailer)
		}
	}
}

// TestCutFileReadToTheDamage cuts a written file at every length and checks
// that the records before the cut are read and the damage is reported.
func TestCutFileReadToTheDamage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var recs []Record
	for i := range 20 {
		recs = append(recs, randomRecord(rng, i))
	}
	for _, gz := range []bool{false, true} {
		data := writeAll(t, gz, recs)
		for cut := len(data) - 1; cut > 40; cut -= 1 + cut/50 {
			var got []Record
			var st FileStats
			var err error
			if gz {
				zr, zerr := gzip.NewReader(bytes.NewReader(data[:cut]))
				if zerr != nil {
					continue
				}
				st, err = Scan(zr, func(rec *Record) error { got = append(got, *rec); return nil })
			} else {
				got, st, err = readAll(t, data[:cut], false)
			}
			if err != nil && err != ErrNotRecords {
				t.Fatalf("gz=%v cut %d: %v", gz, cut, err)
			}
			if err == nil && st.Damage == "" && (st.Trailer == nil || len(got) != len(recs)) { // a gzip cut in its footer loses nothing
				t.Fatalf("gz=%v cut %d of %d: no damage reported", gz, cut, len(data))
			}
			if len(got) > 0 && !reflect.DeepEqual(got, recs[:len(got)]) {
				t.Fatalf("gz=%v cut %d: the records read differ from those written", gz, cut)
			}
		}
	}
}

// blockingDst blocks every Write until released.
type blockingDst struct {
	release chan struct{}
	buf     bytes.Buffer
}

func (b *blockingDst) Write(p []byte) (int, error) {
	<-b.release
	return b.buf.Write(p)
}

func TestFullQueueDropsAndCounts(t *testing.T) {
	t.Parallel()
	dst := &blockingDst{release: make(chan struct{})}
	w := NewWriter(dst, false, Options{Queue: 4, BatchBytes: 1})
	rec := Record{V: Version}
	accepted, dropped := 0, 0
	for range 50 {
		if w.Submit(&item{rec}) {
			accepted++
		} else {
			dropped++
		}
	}
	close(dst.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	if dropped == 0 || st.Dropped != int64(dropped) || st.Written != int64(accepted) {
		t.Fatalf("accepted %d dropped %d, stats %+v", accepted, dropped, st)
	}
	_, fs, err := readAll(t, dst.buf.Bytes(), false)
	if err != nil || fs.Trailer == nil || fs.Trailer.Dropped != int64(dropped) || fs.Records != int64(accepted) {
		t.Fatalf("read back: %v %+v %+v", err, fs, fs.Trailer)
	}
}

func TestQueueBytesBound(t *testing.T) {
	t.Parallel()
	dst := &blockingDst{release: make(chan struct{})}
	w := NewWriter(dst, false, Options{QueueBytes: 1000, BatchBytes: 1})
	n := 0
	for range 100 {
		if w.Submit(&item{Record{V: Version}}) { // 100 bytes each
			n++
		}
	}
	close(dst.release)
	_ = w.Close()
	if n > 11 { // ten fit, and one may be on the writer's goroutine
		t.Fatalf("%d records of 100 bytes queued under a 1000-byte bound", n)
	}
}

func TestSubmitConcurrentWithClose(t *testing.T) {
	t.Parallel()
	w := NewWriter(io.Discard, true, Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				w.Submit(&item{Record{V: Version}})
			}
		})
	}
	_ = w.Close()
	wg.Wait()
	st := w.Stats()
	if st.Written+st.Dropped != 1600 {
		t.Fatalf("written %d + dropped %d != 1600", st.Written, st.Dropped)
	}
}

func FuzzScan(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf, false, Options{})
	w.Submit(&item{randomRecord(rand.New(rand.NewPCG(1, 1)), 1)})
	_ = w.Close()
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"llmstream-records","v":1}` + "\n" + `{"v":1,"text_ns":[1,2]`))
	f.Add([]byte(`{"format":"llmstream-records","v":1}` + "\n" + `{"v":2}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := int64(0)
		st, err := Scan(bytes.NewReader(data), func(*Record) error { n++; return nil })
		if st.Records != n || n > st.Lines {
			t.Fatalf("stats %+v after %d records", st, n)
		}
		if err == nil && st.Trailer == nil && st.Damage == "" {
			t.Fatalf("a file without a trailer read without damage: %+v", st)
		}
	})
}
