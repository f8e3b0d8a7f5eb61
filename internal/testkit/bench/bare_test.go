package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BareStream must see every event, tell text from the rest, read the write
// stamps, and stamp events completed by one read alike — also when lines are
// split across reads (tiny buffer) and the server pauses between events.
func TestBareStream(t *testing.T) {
	const stamp = int64(1795966835930213859)
	batch1 := fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}],\"x_mock_ts_ns\":%d}\n\n", stamp) +
		fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"x_mock_ts_ns\":%d}\n\n", stamp+1)
	batch2 := fmt.Sprintf(": comment\n\ndata: {\"choices\":[{\"delta\":{\"content\":\" there\"}}],\"x_mock_ts_ns\":%d}\n\n", stamp+2) +
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	release := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, batch1)
		http.NewResponseController(w).Flush()
		select { // batch 2 is written only once the client has read all of batch 1
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, batch2)
	}))
	defer srv.Close()
	client := &http.Client{Transport: countingTransport{next: srv.Client().Transport, after: len(batch1), done: release}}
	for _, bufSize := range []int{32 << 10, 150} {
		st, err := BareStream(context.Background(), client, srv.URL, []byte(`{}`), make([]byte, bufSize))
		if err != nil {
			t.Fatalf("buffer %d: %v", bufSize, err)
		}
		if st.Status != 200 || len(st.Events) != 5 {
			t.Fatalf("buffer %d: status %d, %d events: %+v", bufSize, st.Status, len(st.Events), st.Events)
		}
		wantText := []bool{false, true, true, false, false}
		wantStamp := []int64{stamp, stamp + 1, stamp + 2, 0, 0}
		for i, e := range st.Events {
			if e.Text != wantText[i] || e.ServerNS != wantStamp[i] {
				t.Errorf("buffer %d: event %d = %+v, want text %v stamp %d", bufSize, i, e, wantText[i], wantStamp[i])
			}
			if i > 0 && e.At < st.Events[i-1].At {
				t.Errorf("buffer %d: event %d read before event %d", bufSize, i, i-1)
			}
		}
		// Batch 2 was read by a later Read than batch 1: its events have a later stamp.
		if st.Events[2].At <= st.Events[1].At {
			t.Errorf("buffer %d: events of two reads share the stamp %v", bufSize, st.Events[1].At)
		}
	}
	if _, err := BareStream(context.Background(), srv.Client(), srv.URL, nil, make([]byte, 16)); err == nil {
		t.Error("a line longer than the buffer should be an error")
	}
}

// countingTransport signals done once `after` body bytes have been read.
type countingTransport struct {
	next  http.RoundTripper
	after int
	done  chan<- struct{}
}

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, left: c.after, done: c.done}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	left int
	done chan<- struct{}
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.left > 0 {
		b.left -= n
		if b.left <= 0 {
			b.done <- struct{}{}
		}
	}
	return n, err
}
