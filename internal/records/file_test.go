package records

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A second writer on a file another writer holds is refused, with an error
// naming the file; the first writer's records are all in the file.
func TestCreateRefusesAFileAnotherWriterHolds(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	a, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(path, Options{})
	if err == nil {
		b.Close()
		t.Fatal("a second writer on the same file was accepted")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another") {
		t.Fatalf("error %q does not name the file and the other writer", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		r := randomRecord(rng, i)
		a.Submit(&item{r})
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := readAll(t, data, false)
	if err != nil || len(got) != 300 || st.Trailer == nil || st.Lines != 302 {
		t.Fatalf("read %d records, %d lines, trailer %v, err %v; want 300, 302, a trailer", len(got), st.Lines, st.Trailer, err)
	}
	// Once the first writer closed, the file may be written again.
	c, err := Create(path, Options{})
	if err != nil {
		t.Fatalf("after the holder closed: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file that is neither empty nor a records file (a script given as the
// --records file by mistake) is left as it was, unless Overwrite.
func TestCreateKeepsAFileThatIsNotRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := []byte("import llm from './llmstream.js';\nexport default function () {}\n")
	path := filepath.Join(dir, "script.js")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, Options{})
	if err == nil {
		w.Close()
		t.Fatal("a file that is not a records file was overwritten")
	}
	if !errors.Is(err, ErrNotRecordsFile) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q: want ErrNotRecordsFile naming %s", err, path)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, script) {
		t.Fatalf("the file was changed: %q", data)
	}
	// An earlier records file, an empty file and a new file are written.
	for name, content := range map[string][]byte{
		"old.jsonl":   []byte(`{"format":"llmstream-records","v":1,"created_ns":1}` + "\n"),
		"empty.jsonl": {},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := Create(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// With Overwrite the script is replaced.
	w, err = Create(path, Options{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if _, st, err := readAll(t, data, false); err != nil || st.Trailer == nil {
		t.Fatalf("overwritten file: %v, %+v", err, st)
	}
}

// A gzip records file is recognised by its decompressed first line.
func TestCreateOverGzipRecordsFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl.gz")
	for range 2 {
		w, err := Create(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Submit(&item{randomRecord(rand.New(rand.NewPCG(1, 1)), 0)})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// failAfter accepts limit bytes, then fails every write (a full disk): a
// write that crosses the limit writes the part that fits, as write(2) does.
type failAfter struct {
	mu    sync.Mutex
	limit int
	buf   bytes.Buffer
}

var errNoSpace = errors.New("no space left on device")

func (f *failAfter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	room := f.limit - f.buf.Len()
	if room >= len(p) {
		return f.buf.Write(p)
	}
	if room > 0 {
		f.buf.Write(p[:room])
	} else {
		room = 0
	}
	return room, errNoSpace
}

// After a write error, Written is the number of Record lines the file holds
// (complete lines, the cut one not counted), Written+Lost is every record
// submitted, the first error is reported once through OnError, and Close
// returns it.
func TestWriteErrorCountsTheRecordsInTheFile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var recs []Record
	for i := range 400 {
		recs = append(recs, randomRecord(rng, i))
	}
	for _, limit := range []int{0, 10, 5000, 30000, 60000, 100000} {
		dst := &failAfter{limit: limit}
		var reported []error
		var mu sync.Mutex
		w := NewWriter(dst, false, Options{BatchBytes: 8 << 10, OnError: func(err error) {
			mu.Lock()
			reported = append(reported, err)
			mu.Unlock()
		}})
		for i := range recs {
			if !w.Submit(&item{recs[i]}) {
				t.Fatalf("record %d dropped", i)
			}
		}
		err := w.Close()
		if !errors.Is(err, errNoSpace) {
			t.Fatalf("limit %d: Close: %v, want the write error", limit, err)
		}
		st := w.Stats()
		got, fst, _ := readAll(t, dst.buf.Bytes(), false)
		if st.Written != int64(len(got)) || st.Written != fst.Records {
			t.Errorf("limit %d: Stats.Written %d, but the file holds %d Record lines", limit, st.Written, len(got))
		}
		if st.Written+st.Lost != int64(len(recs)) {
			t.Errorf("limit %d: written %d + lost %d != %d submitted", limit, st.Written, st.Lost, len(recs))
		}
		if st.Bytes != int64(dst.buf.Len()) {
			t.Errorf("limit %d: Stats.Bytes %d, the file holds %d bytes", limit, st.Bytes, dst.buf.Len())
		}
		mu.Lock()
		if len(reported) != 1 || !errors.Is(reported[0], errNoSpace) {
			t.Errorf("limit %d: OnError got %v, want the first write error once", limit, reported)
		}
		mu.Unlock()
	}
}
