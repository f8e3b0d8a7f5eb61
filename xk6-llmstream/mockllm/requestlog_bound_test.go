package mockllm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestRequestLogBoundsALongAnswer: a 20,000-token answer (one token an
// event) writes a log line that keeps the first and the last events, says
// how many it left out and the tokens they carried, and stays far below the
// megabytes a line per event would take.
func TestRequestLogBoundsALongAnswer(t *testing.T) {
	t.Parallel()
	const tokens = 20000
	log := &logBuffer{}
	srv, url := startServer(t, Config{Seed: 5, Log: log, Default: ModelConfig{OutputTokens: FixedCount(tokens)}})
	r := post(t, url+"/v1/chat/completions", chatBody("m", 2*tokens, ""))
	if r.status != 200 || r.readErr != nil {
		t.Fatalf("status %d, %v", r.status, r.readErr)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	line := bytes.TrimSpace(log.buf.Bytes())
	if bytes.Count(line, []byte("\n")) != 0 {
		t.Fatalf("want one log line, got %d", bytes.Count(line, []byte("\n"))+1)
	}
	const maxLine = 512 << 10
	if len(line) > maxLine {
		t.Errorf("the log line is %d bytes; want at most %d", len(line), maxLine)
	}
	var l struct {
		SentTokens    int      `json:"sent_tokens"`
		EventDueNS    []int64  `json:"event_due_ns"`
		EventWriteNS  []int64  `json:"event_write_ns"`
		EventLateNS   []int64  `json:"event_late_ns"`
		EventTokens   []int    `json:"event_tokens"`
		EventKinds    []string `json:"event_kinds"`
		Events        *int     `json:"events"`
		EventsOmitted *int     `json:"events_omitted"`
		TokensOmitted *int     `json:"events_omitted_tokens"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		t.Fatal(err)
	}
	n := len(l.EventKinds)
	if len(l.EventDueNS) != n || len(l.EventWriteNS) != n || len(l.EventLateNS) != n || len(l.EventTokens) != n {
		t.Fatalf("event arrays of different lengths: %d %d %d %d %d", len(l.EventDueNS), len(l.EventWriteNS), len(l.EventLateNS), len(l.EventTokens), n)
	}
	if n != LogHeadEvents+LogTailEvents {
		t.Errorf("%d events kept, want %d + %d", n, LogHeadEvents, LogTailEvents)
	}
	if l.Events == nil || l.EventsOmitted == nil || l.TokensOmitted == nil {
		t.Fatalf("the line does not say what it left out: events %v, events_omitted %v, events_omitted_tokens %v", l.Events, l.EventsOmitted, l.TokensOmitted)
	}
	if *l.Events != n+*l.EventsOmitted || *l.Events < tokens {
		t.Errorf("events %d, kept %d, omitted %d: want events = kept + omitted ≥ %d", *l.Events, n, *l.EventsOmitted, tokens)
	}
	kept := 0
	for _, k := range l.EventTokens {
		kept += k
	}
	if l.SentTokens != tokens || kept+*l.TokensOmitted != tokens {
		t.Errorf("sent %d tokens; kept events carry %d, omitted %d: want both to add up to %d", l.SentTokens, kept, *l.TokensOmitted, tokens)
	}
	// The head starts the stream, the tail ends it, each in write order.
	if l.EventKinds[0] != "role" || !strings.HasSuffix(strings.Join(l.EventKinds, " "), "finish done") {
		t.Errorf("kept kinds start %v … end %v", l.EventKinds[:3], l.EventKinds[n-3:])
	}
	for i := 1; i < n; i++ {
		if l.EventDueNS[i] < l.EventDueNS[i-1] || l.EventWriteNS[i] < l.EventWriteNS[i-1] {
			t.Fatalf("event %d is out of order: due %d after %d, written %d after %d", i, l.EventDueNS[i], l.EventDueNS[i-1], l.EventWriteNS[i], l.EventWriteNS[i-1])
		}
	}
}

// TestRequestLogKeepsHeadAndTail: event k (due k, written 1000+k, k%3
// tokens) lands where the documented bound says: entries 0 to
// LogHeadEvents−1 are events 0 to LogHeadEvents−1, the rest the last
// LogTailEvents events in order, and the counts add up; a request within
// the bound keeps every event and none of the counting fields.
func TestRequestLogKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	for _, total := range []int{1, LogHeadEvents + LogTailEvents, LogHeadEvents + LogTailEvents + 1, LogHeadEvents + 3*LogTailEvents + 17} {
		var l RequestLog
		sum := 0
		for k := 0; k < total; k++ {
			l.addEvent(int64(k), 1000+int64(k), 0, k%3, "text")
			sum += k % 3
		}
		w := &logBuffer{}
		lw := newLogWriter(w)
		lw.put(&l)
		if err := lw.close(); err != nil {
			t.Fatal(err)
		}
		var got RequestLog
		dec := json.NewDecoder(&w.buf)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		omitted := max(0, total-LogHeadEvents-LogTailEvents)
		if len(got.EventDueNS) != total-omitted || got.EventsOmitted != omitted {
			t.Errorf("%d events: kept %d, omitted %d; want %d and %d", total, len(got.EventDueNS), got.EventsOmitted, total-omitted, omitted)
			continue
		}
		if omitted == 0 {
			if got.Events != 0 || got.TokensOmitted != 0 || strings.Contains(w.buf.String(), "omitted") {
				t.Errorf("%d events (within the bound): the line carries the counting fields: %+v", total, got)
			}
		} else if got.Events != total {
			t.Errorf("%d events: events = %d", total, got.Events)
		}
		kept := 0
		for i, due := range got.EventDueNS {
			want := int64(i)
			if i >= LogHeadEvents {
				want += int64(omitted)
			}
			if due != want || got.EventWriteNS[i] != 1000+want || got.EventTokens[i] != int(want%3) {
				t.Fatalf("%d events: entry %d is event (due %d, written %d, %d tokens); want event %d", total, i, due, got.EventWriteNS[i], got.EventTokens[i], want)
			}
			kept += got.EventTokens[i]
		}
		if kept+got.TokensOmitted != sum {
			t.Errorf("%d events: kept tokens %d + omitted %d != %d", total, kept, got.TokensOmitted, sum)
		}
	}
}
