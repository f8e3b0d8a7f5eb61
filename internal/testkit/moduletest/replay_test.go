package moduletest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

var replayStats = regexp.MustCompile(`STATS (.*)`)

// TestReplaySendsEachEntryAtItsTraceTime: replay() sends the entries of
// the window [from, to), at most count, in order, each with its intended
// send time (start + (at_ms − from) / speedup, unix ns) for the helper, and
// a chat() outside replay() sends none.
func TestReplaySendsEachEntryAtItsTraceTime(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
import { replay } from 'file://`+modulePath+`';
const llm = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm' });
const entries = [0, 100, 250, 250, 400, 900, 2000].map((at, i) => ({ v: 1, id: 'e' + i, prompt: 'p' + i, at_ms: at, max_tokens: 2 }));
export default async function () {
  llm.chat('closed loop');
  const s = await replay(entries, { speedup: 5, from: '100ms', to: '1s', count: 4 }, (e) => llm.asyncChat(e));
  console.log('STATS ' + JSON.stringify(s));
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	m := replayStats.FindStringSubmatch(strings.Join(res.Console, "\n"))
	if m == nil {
		t.Fatalf("no stats: %v", res.Console)
	}
	var st struct {
		Requests, Sent, Failed int
		StartMs                float64
		LagMaxMs               float64
	}
	if err := json.Unmarshal([]byte(m[1]), &st); err != nil {
		t.Fatal(err)
	}
	reqs := h.requests()
	if len(reqs) != 5 || st.Requests != 4 || st.Sent != 4 || st.Failed != 0 {
		t.Fatalf("%d requests, stats %+v; want the closed-loop one and 4 (window 100 ms…1 s, count 4)", len(reqs), st)
	}
	if reqs[0].ScheduledUnixNS != 0 {
		t.Errorf("chat() outside replay() sent scheduled_unix_ns %d", reqs[0].ScheduledUnixNS)
	}
	var prompts []string
	for _, r := range reqs[1:] {
		prompts = append(prompts, r.prompt())
		at := map[string]float64{"p1": 100, "p2": 250, "p3": 250, "p4": 400}[r.prompt()]
		want := int64((st.StartMs + (at-100)/5) * 1e6)
		if d := r.ScheduledUnixNS - want; d < -1000 || d > 1000 {
			t.Errorf("%s: scheduled_unix_ns %d, want %d (start + (at − from) / speedup)", r.prompt(), r.ScheduledUnixNS, want)
		}
	}
	slices.Sort(prompts) // p2 and p3 are due at once: either may arrive first
	if !slices.Equal(prompts, []string{"p1", "p2", "p3", "p4"}) {
		t.Errorf("sent %v, want p1…p4", prompts)
	}
	if lat := res.Of("llm_arrival_lateness"); len(lat) != 4 {
		t.Errorf("%d llm_arrival_lateness samples, want 4", len(lat))
	}
	if st.LagMaxMs < 0 {
		t.Errorf("negative send lag: %+v", st)
	}
}

// TestReplayRefusesBadTraces: entries without at_ms, out of time order, and
// bad options are refused with a message naming them.
func TestReplayRefusesBadTraces(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	for i, c := range []struct{ entries, options, want string }{
		{`[{ v: 1, id: 'a', prompt: 'x', at_ms: 5 }, { v: 1, id: 'b', prompt: 'y' }]`, `{}`, `entry 2 (id "b") has no "at_ms"`},
		{`[{ v: 1, id: 'a', prompt: 'x', at_ms: 5 }, { v: 1, id: 'b', prompt: 'y', at_ms: 4 }]`, `{}`, `entry 2 (id "b") has at_ms 4, before the previous entry's 5`},
		{`[]`, `{ speed: 2 }`, `unknown option "speed"`},
		{`[]`, `{ speedup: 0 }`, `speedup must be a number > 0`},
		{`[]`, `{ speedup: NaN }`, `speedup must be a number > 0 (2: twice as fast as the trace), got NaN`},
		{`[]`, `{ speedup: Infinity }`, `got Infinity`},
		{`[]`, `{ maxInFlight: -Infinity }`, `maxInFlight must be a whole number > 0, got -Infinity`},
		{`[{ v: 1, id: 'b', prompt: 'y', at_ms: NaN }]`, `{}`, `got NaN (build the file from a trace: xk6-llmstream dataset --input TRACE --format mooncake|bailian|burstgpt|azure)`},
		{`[]`, `{ from: '2s', to: '1s' }`, `is empty`},
		{`'x'`, `{}`, `dataset must be a Dataset or an array of entries`},
	} {
		path := script(t, `
import { replay } from 'file://`+modulePath+`';
const llm = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm' });
export default async function () {
  try {
    await replay(`+c.entries+`, `+c.options+`, (e) => llm.asyncChat(e));
    console.log('NO ERROR');
  } catch (e) {
    console.log('ERROR ' + e.message);
  }
}
`)
		res := run(t, path, env(h), k6sim.Config{}, false)
		out := strings.Join(res.Console, "\n")
		if !strings.Contains(out, "ERROR llmstream: replay") || !strings.Contains(out, c.want) {
			t.Errorf("case %s: %s, want %q", strconv.Itoa(i+1), out, c.want)
		}
	}
}

// TestArrivalsSendTheirScheduledTime: arrivals() gives each request its
// intended arrival time (start + the schedule's offset) as scheduled_unix_ns.
func TestArrivalsSendTheirScheduledTime(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
import { arrivals } from 'file://`+modulePath+`';
const llm = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm' });
export default async function () {
  const s = await arrivals({ rate: 200, count: 5, schedule: true }, (i) => llm.asyncChat('a' + i));
  console.log('STATS ' + JSON.stringify(s));
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	m := replayStats.FindStringSubmatch(strings.Join(res.Console, "\n"))
	if m == nil {
		t.Fatalf("no stats: %v", res.Console)
	}
	var st struct {
		StartMs  float64
		Schedule []float64
	}
	if err := json.Unmarshal([]byte(m[1]), &st); err != nil {
		t.Fatal(err)
	}
	reqs := h.requests()
	if len(reqs) != 5 || len(st.Schedule) != 5 {
		t.Fatalf("%d requests, schedule %v", len(reqs), st.Schedule)
	}
	for _, r := range reqs {
		i, _ := strconv.Atoi(strings.TrimPrefix(r.prompt(), "a"))
		want := int64((st.StartMs + st.Schedule[i]) * 1e6)
		if d := r.ScheduledUnixNS - want; d < -1000 || d > 1000 {
			t.Errorf("%s: scheduled_unix_ns %d, want %d", r.prompt(), r.ScheduledUnixNS, want)
		}
	}
}
