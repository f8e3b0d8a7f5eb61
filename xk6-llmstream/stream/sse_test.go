package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sseEvent is an Event copied out of the Reader's buffers.
type sseEvent struct {
	Type, Data, ID string
	Retry          int64
}

// readAll reads every event from r, copying each one.
func readAll(r *Reader) ([]sseEvent, error) {
	var out []sseEvent
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, sseEvent{string(ev.Type), string(ev.Data), string(ev.ID), ev.Retry})
	}
}

// refParse is a deliberately plain transcription of the WHATWG event-stream
// parsing rules over a whole input, to check the Reader against.
func refParse(in []byte) (events []sseEvent, pending bool) {
	s := strings.TrimPrefix(string(in), "\uFEFF")
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			lines = append(lines, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		case '\n':
			lines = append(lines, s[start:i])
			start = i + 1
		}
	}
	trailing := s[start:] // a line without its end: never processed
	var typ, id string
	var data []byte
	retry := int64(-1)
	for _, line := range lines {
		if line == "" {
			if len(data) == 0 {
				typ = ""
				continue
			}
			events = append(events, sseEvent{typ, strings.TrimSuffix(string(data), "\n"), id, retry})
			data, typ = data[:0], ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, ""
		if i := strings.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], strings.TrimPrefix(line[i+1:], " ")
		}
		switch field {
		case "data":
			data = append(append(data, value...), '\n')
		case "event":
			typ = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				id = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				v, err := strconv.ParseInt(value, 10, 64)
				if err != nil {
					v = math.MaxInt64
				}
				retry = v
			}
		}
	}
	return events, trailing != "" || len(data) > 0
}

// chunkReader returns its input in reads of the given sizes, cycling.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := c.sizes[c.i%len(c.sizes)]
	c.i++
	if n > len(p) {
		n = len(p)
	}
	if n > len(c.data) {
		n = len(c.data)
	}
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func oneByte(b []byte) io.Reader { return &chunkReader{data: b, sizes: []int{1}} }

func TestReaderRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []sseEvent
		pending bool
	}{
		{"LF", "data: a\n\ndata: b\n\n", []sseEvent{{"", "a", "", -1}, {"", "b", "", -1}}, false},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{{"", "a", "", -1}, {"", "b", "", -1}}, false},
		{"CR only", "data: a\r\rdata: b\r\r", []sseEvent{{"", "a", "", -1}, {"", "b", "", -1}}, false},
		{"mixed ends", "data: a\r\n\rdata: b\n\r\n", []sseEvent{{"", "a", "", -1}, {"", "b", "", -1}}, false},
		{"BOM", "\uFEFFdata: a\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"only one BOM skipped", "\uFEFF\uFEFFdata: a\n\n", nil, false},
		{"BOM later is data", "data: \uFEFFa\n\n", []sseEvent{{"", "\uFEFFa", "", -1}}, false},
		{"comments", ": ping\n: OPENROUTER PROCESSING\ndata: a\n:x\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"no space after colon", "data:a\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"only one space removed", "data:  a \n\n", []sseEvent{{"", " a ", "", -1}}, false},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []sseEvent{{"", "{\"a\":\n1}", "", -1}}, false},
		{"bare data field", "data\n\n", []sseEvent{{"", "", "", -1}}, false},
		{"empty data then more", "data:\ndata: x\n\n", []sseEvent{{"", "\nx", "", -1}}, false},
		{"event, id, retry", "event: message_start\nid: 7\nretry: 1500\ndata: x\n\n", []sseEvent{{"message_start", "x", "7", 1500}}, false},
		{"id carries over", "id: 1\ndata: a\n\ndata: b\n\n", []sseEvent{{"", "a", "1", -1}, {"", "b", "1", -1}}, false},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []sseEvent{{"", "a", "1", -1}, {"", "b", "1", -1}}, false},
		{"empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\n", []sseEvent{{"", "a", "1", -1}, {"", "b", "", -1}}, false},
		{"bad retry ignored", "retry: 12a\ndata: a\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"type without data discarded", "event: ping\n\ndata: a\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"unknown field ignored", "foo: bar\ndata: a\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"field name is case-sensitive", "Data: a\n\n", nil, false},
		{"no blank line at end: discarded", "data: a\n\ndata: [DONE]\n", []sseEvent{{"", "a", "", -1}}, true},
		{"no line end at all", "data: a\n\ndata: [DONE]", []sseEvent{{"", "a", "", -1}}, true},
		{"leading blank lines", "\n\n\ndata: a\n\n", []sseEvent{{"", "a", "", -1}}, false},
		{"empty input", "", nil, false},
		{"trailing CR", "data: a\r\r", []sseEvent{{"", "a", "", -1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ref, refPending := refParse([]byte(tt.in))
			if !reflect.DeepEqual(ref, tt.want) || refPending != tt.pending {
				t.Fatalf("reference parser disagrees with the table: %#v pending=%v", ref, refPending)
			}
			for _, rd := range []struct {
				name string
				r    io.Reader
			}{{"whole", strings.NewReader(tt.in)}, {"1-byte", oneByte([]byte(tt.in))}, {"3-byte", &chunkReader{data: []byte(tt.in), sizes: []int{3, 1, 2}}}} {
				r := NewReader(rd.r, 0)
				got, err := readAll(r)
				if err != nil {
					t.Fatalf("%s: %v", rd.name, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s reads: got %#v, want %#v", rd.name, got, tt.want)
				}
				if r.Pending() != tt.pending {
					t.Errorf("%s reads: Pending() = %v, want %v", rd.name, r.Pending(), tt.pending)
				}
			}
		})
	}
}

// A CR at the end of one read and the LF at the start of the next are one
// line end, not an end plus an empty line (which would dispatch early).
func TestReaderCRLFSplitAcrossReads(t *testing.T) {
	t.Parallel()
	in := "data: a\r\ndata: b\r\n\r\n"
	cut := strings.Index(in, "\r") + 1
	r := NewReader(&chunkReader{data: []byte(in), sizes: []int{cut, 1, 100}}, 0)
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []sseEvent{{"", "a\nb", "", -1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

func TestReaderLineCap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	tests := []struct {
		name    string
		in      string
		max     int
		wantN   int // events before the error
		wantErr bool
	}{
		{"line at the cap", "data:" + long[:95] + "\n\n", 100, 1, false},
		{"line one past the cap", "data:" + long[:96] + "\n\n", 100, 0, true},
		{"event before a long line is kept", "data: a\n\ndata:" + long + "\n\n", 100, 1, true},
		{"joined data past the cap", "data:" + long[:60] + "\ndata:" + long[:60] + "\n\n", 100, 0, true},
		{"CRLF line at the cap", "data:" + long[:95] + "\r\n\r\n", 100, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, src := range []io.Reader{strings.NewReader(tt.in), oneByte([]byte(tt.in))} {
				r := NewReader(src, tt.max)
				got, err := readAll(r)
				if len(got) != tt.wantN {
					t.Errorf("got %d events, want %d", len(got), tt.wantN)
				}
				if tt.wantErr != (err != nil) {
					t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
				}
				if err != nil {
					if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "line ") {
						t.Errorf("error %q does not wrap ErrLineTooLong with a line number", err)
					}
					if _, again := r.Next(); again == nil || again.Error() != err.Error() {
						t.Errorf("error is not sticky: %v", again)
					}
				}
			}
		})
	}
}

// errReader returns some bytes, then an error.
type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

func TestReaderSourceError(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset by peer")
	r := NewReader(&errReader{data: []byte("data: a\n\ndata: b"), err: boom}, 0)
	got, err := readAll(r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the source's error", err)
	}
	if len(got) != 1 || got[0].Data != "a" {
		t.Fatalf("events before the error: %#v", got)
	}
}

// stampReader hands out scripted chunks; the stamp function reports which
// read the Reader last made, so every event's At says which read completed it.
type stampReader struct {
	chunks []string
	reads  int
}

func (s *stampReader) Read(p []byte) (int, error) {
	if s.reads >= len(s.chunks) {
		return 0, io.EOF
	}
	n := copy(p, s.chunks[s.reads])
	s.reads++
	return n, nil
}

// Events are stamped with the time of the read that completed them, not the
// time they are parsed or decoded: events completed by one read share its
// stamp even when parsed later, and an event begun in one read but completed
// in the next gets the later read's stamp.
func TestReaderStampsAtRead(t *testing.T) {
	t.Parallel()
	src := &stampReader{chunks: []string{
		"data: 1\n\ndata: 2\n\nda",          // read 1 completes events 1, 2
		"ta: 3\n",                           // read 2 completes nothing
		"\ndata: 4\n\ndata: 5\n\ndata: 6\r", // read 3 completes 3, 4, 5
		"\n\r\n",                            // read 4 completes 6 (CR LF split)
	}}
	r := NewReader(src, 0)
	r.SetStamp(func() time.Duration { return time.Duration(src.reads) * time.Millisecond })
	want := []time.Duration{1, 1, 3, 3, 3, 4}
	for i, w := range want {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		if string(ev.Data) != strconv.Itoa(i+1) {
			t.Fatalf("event %d has data %q", i+1, ev.Data)
		}
		if ev.At != w*time.Millisecond {
			t.Errorf("event %d stamped %v, want read %d", i+1, ev.At, w)
		}
		// Decoding (or anything else) between events does not move stamps:
		// the source is not read again while events are pending.
		if i == 0 && src.reads != 1 {
			t.Fatalf("the reader read ahead: %d reads after the first event", src.reads)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

// The Reader's results do not depend on how the input is cut into reads; they
// match the plain reference parser on every recording.
func TestReaderMatchesReferenceOnRecordings(t *testing.T) {
	t.Parallel()
	for _, path := range sseFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, filepath.Base(path), data, []int{1, 7, 4096})
	}
}

func checkAgainstReference(t *testing.T, name string, data []byte, sizes []int) {
	t.Helper()
	want, wantPending := refParse(data)
	for _, size := range sizes {
		r := NewReader(&chunkReader{data: data, sizes: []int{size}}, math.MaxInt32)
		got, err := readAll(r)
		if err != nil {
			t.Fatalf("%s, %d-byte reads: %v", name, size, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, %d-byte reads: got %d events, reference %d\n got %#v\nwant %#v", name, size, len(got), len(want), got, want)
		}
		if r.Pending() != wantPending {
			t.Fatalf("%s, %d-byte reads: Pending() = %v, reference %v", name, size, r.Pending(), wantPending)
		}
	}
}

// sseFiles lists the recordings and the hand-written cases.
func sseFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../testdata/sse/*.sse", "../../testdata/sse/*.ndjson", "testdata/cases/*.sse", "testdata/cases/*.ndjson"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found only %d SSE files; run the tests from the package directory", len(files))
	}
	return files
}

func FuzzSSE(f *testing.F) {
	for _, path := range sseFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(1))
		f.Add(data, uint8(200))
	}
	f.Add([]byte("\uFEFFdata: a\r\n\r\ndata:b\r\rid: 1\nretry: 99\nevent: e\ndata\n\n: c\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		size := int(chunk%64) + 1
		want, wantPending := refParse(data)
		// Reads of one size, and of varying sizes around it.
		for _, sizes := range [][]int{{size}, {size, 1, size * 3, 2}} {
			r := NewReader(&chunkReader{data: data, sizes: sizes}, len(data)+1)
			got, err := readAll(r)
			if err != nil {
				t.Fatalf("error under a cap larger than the input: %v", err)
			}
			// An event needs at least "data" and two line ends.
			if len(got) > len(data)/6 {
				t.Fatalf("%d events from %d bytes", len(got), len(data))
			}
			for _, ev := range got {
				if strings.ContainsRune(ev.Data, '\r') || strings.ContainsRune(ev.Type, '\n') || strings.ContainsRune(ev.ID, 0) {
					t.Fatalf("line end or NUL leaked into an event: %#v", ev)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("reads %v: got %#v, reference %#v", sizes, got, want)
			}
			if r.Pending() != wantPending {
				t.Fatalf("Pending() = %v, reference %v", r.Pending(), wantPending)
			}
		}
		// Round trip: the input's lines (without CR or LF) sent as data lines
		// of one event come back joined with "\n", whatever the line ends.
		lines := strings.FieldsFunc(string(data), func(r rune) bool { return r == '\r' || r == '\n' })
		if len(lines) == 0 {
			return
		}
		ends := []string{"\n", "\r", "\r\n"}
		var enc bytes.Buffer
		for i, l := range lines {
			fmt.Fprintf(&enc, "data: %s%s", l, ends[(i+int(chunk))%3])
		}
		// The blank line: "\n\n" is one whatever ended the last data line
		// (after a CR, a lone "\n" would merge with it into one CRLF).
		enc.WriteString("\n\n")
		r := NewReader(&chunkReader{data: enc.Bytes(), sizes: []int{size}}, enc.Len()+1)
		got, err := readAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Data != strings.Join(lines, "\n") {
			t.Fatalf("round trip: got %#v, want one event with %q", got, strings.Join(lines, "\n"))
		}
	})
}

// benchStream builds n OpenAI-chat-like events of realistic size (~330 bytes).
func benchStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for i := 0; i < n-4; i++ {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-Dx0Xq5Xx9rHB2ehcHZCRDsnuymUXc","object":"chat.completion.chunk","created":1782955818,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_d0469e1700","choices":[{"index":0,"delta":{"content":" tok%d"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"auU6fTns"}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", n-4, n+6)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkReader measures the SSE reader alone over a long in-memory stream
// read in 4 KiB pieces, as from a connection. It reports events/s and
// allocations per event (the goal is ≥ 1,000,000 events/s per core and 0).
func BenchmarkReader(b *testing.B) {
	const n = 10000
	data := benchStream(n)
	src := &chunkReader{sizes: []int{4096}}
	r := NewReader(src, 0)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	events := 0
	var ms0, ms1 runtimeMem
	ms0.read()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src.data, src.i = data, 0
		r.Reset(src)
		for {
			_, err := r.Next()
			if err != nil {
				break
			}
			events++
		}
	}
	b.StopTimer()
	ms1.read()
	if events != b.N*n {
		b.Fatalf("read %d events, want %d", events, b.N*n)
	}
	reportRates(b, events, ms0, ms1)
}
