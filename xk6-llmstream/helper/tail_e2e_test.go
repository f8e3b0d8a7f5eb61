package helper

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// TestTailAttributionMockSlowInstance runs the real engine against four
// mocks, instance 3 with a 50× longer prefill, and checks that the
// attribution of the records the helper writes names the mock's prefill
// stage (first_token: the mock sends its role chunk before prefill) and
// instance 3. The gap (2 ms against 100 ms) is far wider than the shared
// machine's jitter, even with the race detector and both cores busy (at
// 30 ms the header wait's jitter once outweighed it there); nothing here asserts how long anything took.
func TestTailAttributionMockSlowInstance(t *testing.T) {
	t.Parallel()
	mock := func(prefill time.Duration) string {
		return startMock(t, mockllm.Config{Default: mockllm.ModelConfig{
			Prefill: mockllm.Prefill{Base: prefill}, OutputTokens: mockllm.FixedCount(2)}})
	}
	urls := []string{mock(2 * time.Millisecond), mock(2 * time.Millisecond), mock(2 * time.Millisecond), mock(100 * time.Millisecond)}
	c := stream.NewClient()
	const n = 400
	reqs := make([]tail.Request, n)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				inst := i % len(urls)
				rec := c.Do(context.Background(), &stream.Request{URL: urls[inst] + "/v1/chat/completions",
					Body: []byte(`{"model":"m","max_tokens":2,"messages":[{"role":"user","content":"hi"}]}`)})
				r := toRecord(rec, &parsed{req: &stream.Request{}}, false, nil)
				r.Tags = map[string]string{"instance_id": fmt.Sprint(inst)}
				q, ok := tail.FromRecord(r)
				if !ok {
					t.Errorf("request %d: no TTFT or stages (error %+v)", i, r.Error)
				}
				reqs[i] = q
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	o := tail.DefaultOptions()
	o.Tail = 90
	res, err := tail.Analyze(reqs, o)
	if err != nil {
		t.Fatal(err)
	}
	apart := res.Apart()
	if res.Top().Name != "first_token" || len(apart) == 0 || apart[0].Name != tail.AttrInstance || apart[0].Value != "3" {
		t.Errorf("top stage %s, attributes %+v; want first_token and instance_id 3\n%v", res.Top().Name, apart, res.Findings)
	}
}
