package records

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// corrupt replaces lines (1-based) of a records file with bad ones.
func corrupt(data []byte, bad map[int]string) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for n, s := range bad {
		lines[n-1] = []byte(s + "\n")
	}
	return bytes.Join(lines, nil)
}

// Lenient skips bad record lines, reporting their numbers, and hands over
// every good record; without it the first bad line is an error with its
// number.
func TestScanLenientSkipsBadLines(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	var recs []Record
	for i := range 10 {
		recs = append(recs, randomRecord(rng, i))
	}
	data := writeAll(t, false, recs)
	// Line 1 is the header: lines 3, 6 and 9 hold records 2, 5 and 8.
	bad := corrupt(data, map[int]string{3: `{"v":1,"start_ns":`, 6: `{"v":99,"e2e_ns":1}`, 9: `not json`})
	var want []Record
	for i, r := range recs {
		if i != 1 && i != 4 && i != 7 {
			want = append(want, r)
		}
	}

	_, err := Scan(bytes.NewReader(bad), func(*Record) error { return nil })
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("strict Scan: %v, want a LineError at line 3", err)
	}

	var got []Record
	st, err := ScanWith(bytes.NewReader(bad), ScanOptions{Lenient: true}, func(r *Record) error { got = append(got, *r); return nil })
	if err != nil {
		t.Fatalf("lenient Scan: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lenient Scan handed over %d records, want the %d good ones", len(got), len(want))
	}
	if st.Skipped != 3 || !reflect.DeepEqual(st.SkippedLines, []int64{3, 6, 9}) || st.Records != 7 || st.Trailer == nil {
		t.Fatalf("stats %+v: want 3 skipped (lines 3, 6, 9), 7 records, the trailer", st)
	}
	if !strings.Contains(st.SkippedNote(), "3 bad line(s) skipped") || !strings.Contains(st.SkippedNote(), "3, 6, 9") {
		t.Fatalf("note %q", st.SkippedNote())
	}

	// The header is not skipped: a file that does not start with one is
	// not a records file, lenient or not.
	if _, err := ScanWith(bytes.NewReader(corrupt(data, map[int]string{1: "{}"})), ScanOptions{Lenient: true},
		func(*Record) error { return nil }); !errors.Is(err, ErrNotRecords) {
		t.Fatalf("lenient Scan of a file without a header: %v", err)
	}
}

// SkippedLines keeps the first MaxSkippedLines numbers; Skipped counts all.
func TestScanLenientCountsEverySkippedLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	b.WriteString(`{"format":"llmstream-records","v":1,"created_ns":1}` + "\n")
	for range 20 {
		b.WriteString("{\n")
	}
	st, err := ScanWith(&b, ScanOptions{Lenient: true}, func(*Record) error { return nil })
	if err != nil || st.Skipped != 20 || len(st.SkippedLines) != MaxSkippedLines || st.SkippedLines[0] != 2 {
		t.Fatalf("%+v, %v", st, err)
	}
}
