package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Event is one server-sent event as a client saw it.
type Event struct {
	// At is request start → the return of the Read that completed the event.
	At time.Duration
	// ServerNS is the mock's write stamp (x_mock_ts_ns, unix ns), 0 if none.
	ServerNS int64
	// Text is true when the event carried generated text.
	Text bool
}

// Stream is one streamed response as a client saw it.
type Stream struct {
	// Start is taken just before the request is handed to the transport.
	Start  time.Time
	Status int
	Events []Event
}

var (
	stampKey = []byte(`"x_mock_ts_ns":`)
	textKey  = []byte(`"delta":{"content":"`)
	dataKey  = []byte("data:")
)

// BareStream is the floor the helper is compared with: it POSTs body to url
// and reads the SSE answer with a minimal line reader over one reused buffer,
// taking time.Now() once per Read and stamping every event that Read completed,
// as the engine does. It knows only what the benchmark needs of the mock's
// OpenAI chat stream: one data line per event, text in delta.content.
func BareStream(ctx context.Context, c *http.Client, url string, body []byte, buf []byte) (Stream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Stream{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	s := Stream{Start: time.Now()}
	resp, err := c.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("status %d", resp.StatusCode)
	}
	filled := 0
	for {
		if filled == len(buf) {
			return s, fmt.Errorf("a line longer than %d bytes", len(buf))
		}
		n, rerr := resp.Body.Read(buf[filled:])
		at := time.Since(s.Start)
		filled += n
		start := 0
		for {
			i := bytes.IndexByte(buf[start:filled], '\n')
			if i < 0 {
				break
			}
			line := buf[start : start+i]
			start += i + 1
			if !bytes.HasPrefix(line, dataKey) {
				continue
			}
			e := Event{At: at, ServerNS: stampOf(line)}
			if j := bytes.Index(line, textKey); j >= 0 && j+len(textKey) < len(line) && line[j+len(textKey)] != '"' {
				e.Text = true
			}
			s.Events = append(s.Events, e)
		}
		filled = copy(buf, buf[start:filled])
		if rerr == io.EOF {
			return s, nil
		}
		if rerr != nil {
			return s, rerr
		}
	}
}

// stampOf returns the x_mock_ts_ns value in line, 0 if there is none.
func stampOf(line []byte) int64 {
	i := bytes.Index(line, stampKey)
	if i < 0 {
		return 0
	}
	j := i + len(stampKey)
	k := j
	for k < len(line) && line[k] >= '0' && line[k] <= '9' {
		k++
	}
	v, err := strconv.ParseInt(string(line[j:k]), 10, 64)
	if err != nil {
		return 0
	}
	return v
}
