package helper

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// TestRecordsOfRealStreams streams through a helper that writes records
// (gzip) and checks each record against the answer of the same request: id,
// tags, the text events' times (the answer's ITL), stages adding up to TTFT,
// and no API key anywhere in the file.
func TestRecordsOfRealStreams(t *testing.T) {
	t.Parallel()
	const key = "sk-records-test-0123456789abcdef"
	cfg := fixedMock()
	cfg.Default.ITL.Base = time.Millisecond
	cfg.APIKey = key
	mock := startMock(t, cfg)
	path := filepath.Join(t.TempDir(), "records.jsonl.gz")
	rw, err := CreateRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start("127.0.0.1:0", WithRecords(rw))
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]Answer{}
	for i, id := range []string{"1-1", "1-2", "2-1"} {
		status, a, raw := streamVia(t, s.URL(), map[string]any{
			"url": mock + "/v1/chat/completions", "headers": map[string]string{"Authorization": "Bearer " + key},
			"body": map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "max_tokens": 5 + i},
			"id":   id, "tags": map[string]string{"scenario": "s" + id, "leak": key}, "warmup": i == 2,
		})
		if status != 200 || !a.OK {
			t.Fatalf("request %s: %d %s", id, status, raw)
		}
		answers[id] = a
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if msg, err := CloseRecords(rw); err != nil || !strings.Contains(msg, "3 record(s) written, 0 dropped") {
		t.Fatalf("CloseRecords: %q, %v", msg, err)
	}
	raw, _ := os.ReadFile(path)
	f, _ := os.Open(path)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var plain strings.Builder
	seen := 0
	st, err := records.Scan(zr, func(r *records.Record) error {
		seen++
		a, ok := answers[r.ID]
		if !ok {
			t.Fatalf("record with unknown id %q", r.ID)
		}
		checkRecordMatchesAnswer(t, r, &a)
		if r.Tags["scenario"] != "s"+r.ID || strings.Contains(r.Tags["leak"], key) {
			t.Errorf("record %s: tags %v", r.ID, r.Tags)
		}
		if r.Warmup != (r.ID == "2-1") {
			t.Errorf("record %s: warmup %v", r.ID, r.Warmup)
		}
		plain.WriteString(r.Tags["leak"] + r.Model)
		return nil
	})
	if err != nil || st.Damage != "" || st.Trailer == nil || seen != 3 {
		t.Fatalf("scan: %v, %+v, %d records", err, st, seen)
	}
	if strings.Contains(string(raw), key) || strings.Contains(plain.String(), key) {
		t.Fatal("the API key is in the records file")
	}
}

// checkRecordMatchesAnswer: the answer's samples are the record's
// (metrics.FromRecord of the line analyze reads), value for value.
func checkRecordMatchesAnswer(t *testing.T, r *records.Record, a *Answer) {
	t.Helper()
	if got := metrics.FromRecord(r, &metrics.Options{}); !reflect.DeepEqual(got, []metrics.Series(a.Samples)) {
		t.Errorf("record %s: samples %v, the answer's %v", r.ID, got, a.Samples)
	}
	if len(r.TextNS) != len(a.Values(metrics.ITL))+1 {
		t.Fatalf("record %s: %d text events, answer has %d gaps", r.ID, len(r.TextNS), len(a.Values(metrics.ITL)))
	}
	if r.StartNS != *a.StartUnixNS || r.ID != a.ID {
		t.Errorf("record %s: start or id differ from the answer", r.ID)
	}
	if r.Stages == nil || r.Stages.Sum() != *r.TTFTNS {
		t.Errorf("record %s: stages %+v do not add up to TTFT %d", r.ID, r.Stages, *r.TTFTNS)
	}
	if r.OutputTokens != a.OutputTokens || r.API != a.API || r.Status != 200 || r.Error != nil {
		t.Errorf("record %s: %+v differs from the answer", r.ID, r)
	}
}

// TestRecordsServerStats: with a sampler of the mock's /metrics, a request
// that starts while one stream holds the mock's only slot and another waits
// is recorded with server_waiting 1 and server_running 1 (the scrape before
// its start, not its own arrival); without a sampler the fields are absent.
func TestRecordsServerStats(t *testing.T) {
	t.Parallel()
	cfg := fixedMock()
	cfg.Slots = 1
	cfg.Models = map[string]mockllm.ModelConfig{
		"slow": {ITL: mockllm.ITL{Base: time.Hour}},
		"fast": {ITL: mockllm.ITL{Base: time.Millisecond}, OutputTokens: mockllm.FixedCount(2)},
	}
	mock := startMock(t, cfg)
	sampler, err := serverstats.StartSampler(mock+"/metrics", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Stop()
	var buf bytes.Buffer
	rw := records.NewWriter(&buf, false, records.Options{})
	s := startHelper(t, WithRecords(rw), WithServerSampler(sampler))
	plain := startHelper(t, WithRecords(rw))

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 { // one holds the slot, one waits
		wg.Go(func() {
			body := `{"model":"slow","stream":true,"messages":[{"role":"user","content":"hi"}]}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, mock+"/v1/chat/completions", strings.NewReader(body))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body) // until the cancel
				resp.Body.Close()
			}
		})
	}
	waitServer := func(waiting float64) {
		for l := sampler.Latest(); l == nil || l.Waiting == nil || *l.Waiting != waiting || *l.Running != 1; l = sampler.Latest() {
			time.Sleep(time.Millisecond)
		}
	}
	waitServer(1)
	req := map[string]any{"url": mock + "/v1/chat/completions",
		"body": map[string]any{"model": "fast", "messages": []any{map[string]any{"role": "user", "content": "hi"}}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if status, a, raw := streamVia(t, s.URL(), req); status != 200 || !a.OK {
			t.Errorf("queued request: %d %s", status, raw)
		}
	}()
	waitServer(2) // it waits too now
	cancel()
	wg.Wait()
	<-done
	if status, _, raw := streamVia(t, plain.URL(), req); status != 200 {
		t.Fatalf("request without a sampler: %d %s", status, raw)
	}
	for _, h := range []*Server{s, plain} {
		if err := h.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := records.Scan(&buf, func(r *records.Record) error {
		got = append(got, fmt.Sprintf("waiting %s running %s", fmtPtr(r.ServerWaiting), fmtPtr(r.ServerRunning)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"waiting 1 running 1", "waiting - running -"}; !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}
