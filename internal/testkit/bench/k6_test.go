package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// recorder is the helper's engine with every record kept for the benchmark
// (timeline on), so the k6 path is measured at the same point as the others
// with nanosecond resolution, whatever k6 does with the answer.
type recorder struct {
	inner helper.Streamer
	mu    sync.Mutex
	recs  []*stream.Record
}

func (r *recorder) Do(ctx context.Context, req *stream.Request) *stream.Record {
	// A copy: the answer to k6 stays as the script asked (no timeline), only
	// the engine keeps one.
	own := *req
	own.KeepTimeline = true
	rec := r.inner.Do(ctx, &own)
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
	return rec
}

func (r *recorder) take() []*stream.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs := r.recs
	r.recs = nil
	return recs
}

// k6Path is path (c): real k6 running llmstream.js against a helper, in one
// of four modes: k6All (itl: 'all' and --out json, what analyze reads from k6
// alone), k6Records (itl: 'records', the helper writing --records), k6Floor
// (k6 posts one request made once by the module and reads nothing of the
// answer: what k6 costs per request to reach the helper) or k6Plain (no
// module: k6 posts the same chat request, not streamed, straight to the mock,
// which answers when the stream's last token would be due — a plain post at
// the same pace and concurrency as the streams, what k6 itself costs per
// request).
type k6Path struct {
	bin, module, mockURL, dir string
	mode, name                string // name: as the tables show it
	nice                      int    // k6's priority below the helper's, as xk6-llmstream run sets it
	rec                       *recorder
	hs                        *helper.Server
	rw                        *records.Writer
}

// The k6 path's modes, as the tables name them.
const (
	k6All     = "k6-all+json"
	k6Records = "k6-records"
	k6Floor   = "k6-floor"
	k6Plain   = "k6-plain"
)

// newK6Path returns nil (path c skipped) unless K6_BIN is set and the module
// is present.
// With named, the path's name says its nice value (mode/nice=N).
func newK6Path(b *testing.B, mockURL string, mode string, nice int, named bool) *k6Path {
	bin := os.Getenv("K6_BIN")
	if bin == "" {
		return nil
	}
	// LLMSTREAM_BENCH_MODULE runs another llmstream.js (e.g. an earlier
	// release's, to compare its cost) against this helper.
	module, err := filepath.Abs(cmp.Or(os.Getenv("LLMSTREAM_BENCH_MODULE"), filepath.Join("..", "..", "..", "xk6-llmstream", "js", "llmstream.js")))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(module); err != nil {
		b.Logf("k6 path skipped: %v", err)
		return nil
	}
	name := mode
	if named {
		name = fmt.Sprintf("%s/nice=%d", mode, nice)
	}
	k := &k6Path{bin: bin, module: module, mockURL: mockURL, dir: b.TempDir(), mode: mode, name: name, nice: nice,
		rec: &recorder{inner: stream.NewClient()}}
	opts := []helper.Option{helper.WithStreamer(k.rec)}
	if mode == k6Records {
		rw, err := helper.CreateRecords(filepath.Join(k.dir, "records.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		k.rw = rw
		opts = append(opts, helper.WithRecords(rw))
	}
	hs, err := helper.Start(helper.DefaultAddr, opts...)
	if err != nil {
		b.Fatal(err)
	}
	k.hs = hs
	return k
}

func (k *k6Path) close() {
	_ = k.hs.Shutdown(context.Background())
	if msg, err := helper.CloseRecords(k.rw); k.rw != nil {
		fmt.Printf("%s: records %s (%v)\n", k.name, msg, err)
	}
}

// k6Script is the k6 path's script. Each VU sleeps its start offset (the
// benchmark's StaggerOffset, in seconds) once, before its first (warm-up)
// iteration; its later iterations follow back to back, so the stagger carries
// on. An iteration runs PER_VU streams at once (asyncChat), one stream per
// VU being the plain chat() of a closed-loop test.
const k6Script = `import { sleep } from 'k6';
import http from 'k6/http';
import exec from 'k6/execution';
import { Client } from '%s';

const offsets = %s;
const perVU = %d;

export const options = {
  scenarios: { bench: { executor: 'per-vu-iterations', vus: %d, iterations: %d, maxDuration: '30m' } },
};

const floor = %t;
const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, model: '%s', api: 'openai-chat', warmup: floor ? 0 : perVU, itl: '%s' });
const params = { messages: [{ role: 'user', content: 'Explain TTFT in one sentence.' }], max_tokens: %d };

function failed(r) {
  if (!r.ok && !r.warmup) console.error('request failed: ' + JSON.stringify(r.error));
}

// The floor: one request made by the module once per VU, posted as it is;
// nothing of the answer is read but its status.
let floorReq = null;
function floorStatus(res) {
  if (res.status !== 200) console.error('request failed: helper answered ' + res.status);
}

export default async function () {
  if (exec.vu.iterationInScenario === 0) {
    const off = offsets[(exec.vu.idInTest - 1) %% offsets.length];
    if (off > 0) sleep(off);
  }
  if (floor) {
    if (floorReq === null) floorReq = llm._prepare(params);
    if (perVU === 1) {
      floorStatus(http.post(llm.helperURL, floorReq.payload, floorReq.httpParams));
      return;
    }
    const rs = await Promise.all(Array.from({ length: perVU }, () => http.asyncRequest('POST', llm.helperURL, floorReq.payload, floorReq.httpParams)));
    rs.forEach(floorStatus);
    return;
  }
  if (perVU === 1) {
    failed(llm.chat(params));
    return;
  }
  const rs = await Promise.all(Array.from({ length: perVU }, () => llm.asyncChat(params)));
  rs.forEach(failed);
}
`

// k6PlainScript is the k6Plain mode's script: the stagger of k6Script, and a
// plain http.post of the chat request (stream: false) to the mock, no module.
const k6PlainScript = `import { sleep } from 'k6';
import http from 'k6/http';
import exec from 'k6/execution';

const offsets = %s;
const perVU = %d;

export const options = {
  scenarios: { bench: { executor: 'per-vu-iterations', vus: %d, iterations: %d, maxDuration: '30m' } },
};

const url = __ENV.LLM_BASE_URL + '/v1/chat/completions';
const body = JSON.stringify({ model: '%s', messages: [{ role: 'user', content: 'Explain TTFT in one sentence.' }], max_tokens: %d, stream: false });
const params = { headers: { 'Content-Type': 'application/json' }, tags: { name: 'plain' }, timeout: '120s' };

function status(res) {
  if (res.status !== 200) console.error('request failed: mock answered ' + res.status);
}

export default async function () {
  if (exec.vu.iterationInScenario === 0) {
    const off = offsets[(exec.vu.idInTest - 1) %% offsets.length];
    if (off > 0) sleep(off);
  }
  if (perVU === 1) {
    status(http.post(url, body, params));
    return;
  }
  const rs = await Promise.all(Array.from({ length: perVU }, () => http.asyncRequest('POST', url, body, params)));
  rs.forEach(status);
}
`

// k6Load is what one k6 run does: vus VUs, each running perVU streams at
// once per iteration, the first iteration a warm-up, then s.rounds measured.
type k6Load struct {
	vus, perVU int
	s          settings
}

func (l k6Load) streams() int { return l.vus * l.perVU }

// script writes the k6 script of l with iterations per VU and returns its path.
func (k *k6Path) script(b *testing.B, l k6Load, iterations int, name string) string {
	offs := StaggerOffsets(l.vus, l.s.stagger)
	secs := make([]float64, l.vus)
	for i, o := range offs {
		secs[i] = o.Seconds()
	}
	offsJSON, err := json.Marshal(secs)
	if err != nil {
		b.Fatal(err)
	}
	itl := "all"
	if k.mode != k6All {
		itl = "records"
	}
	src := fmt.Sprintf(k6Script, "file://"+filepath.ToSlash(k.module), offsJSON, l.perVU, l.vus, iterations, k.mode == k6Floor, l.s.model, itl, l.s.tokens)
	if k.mode == k6Plain {
		src = fmt.Sprintf(k6PlainScript, offsJSON, l.perVU, l.vus, iterations, l.s.model, l.s.tokens)
	}
	path := filepath.Join(k.dir, name+".js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// exec runs k6 on script and returns the CPU time of the helper (this
// process) and of k6, and k6's error with its last lines.
func (k *k6Path) exec(script, jsonOut string) (self, k6CPU time.Duration, err error) {
	args := []string{"run", "--quiet", "--no-color"}
	if jsonOut != "" {
		args = append(args, "--out", "json="+jsonOut)
	}
	cmd := exec.Command(k.bin, append(args, script)...)
	// k6 as xk6-llmstream run starts it: its garbage collector's settings
	// (runner.K6GCEnv) and its priority (StartK6).
	cmd.Env = runner.K6GCEnv(append(os.Environ(), "LLM_BASE_URL="+k.mockURL, "LLMSTREAM_HELPER="+k.hs.URL(), "LLMSTREAM_HELPER_TOKEN="))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cpu0 := processCPU()
	waited, note, err := runner.StartK6(cmd, k.nice, true)
	if err == nil {
		if note != "" {
			fmt.Println("k6 path:", note)
		}
		err = <-waited
	}
	self, k6CPU = processCPU()-cpu0, childCPU(cmd.ProcessState)
	if err != nil {
		err = fmt.Errorf("k6: %v: %s", err, lastLines(out.String(), 5))
	}
	return self, k6CPU, err
}

// run runs l's warm-up and measured iterations in one k6 run, and then, to
// tell the steady cost from k6's start-up, the warm-up alone: the difference
// of the two runs' CPU is what the measured requests cost (r.steadyCPU).
func (k *k6Path) run(b *testing.B, l k6Load) *result {
	n := l.streams()
	r := &result{path: k.name, streams: n}
	jsonOut := ""
	if k.mode == k6All {
		jsonOut = filepath.Join(k.dir, fmt.Sprintf("out-%d.json", n))
	}
	k.rec.take()
	self, k6CPU, err := k.exec(k.script(b, l, l.s.rounds+1, fmt.Sprintf("bench-%d", n)), jsonOut)
	r.cpu = self + k6CPU
	r.cpuDetail = fmt.Sprintf("helper %.2f s + k6 %.2f s", self.Seconds(), k6CPU.Seconds())
	if err != nil {
		r.addError(err.Error())
	}
	if k.mode == k6Plain {
		// Nothing reaches the helper: the measured requests are what the
		// script made after each VU's warm-up iteration.
		r.requests = n * l.s.rounds
		k.rec.take()
	} else {
		k.addRecords(r, k.rec.take(), n, l.s)
	}
	// The warm-up alone: k6's start-up, the VUs' first requests and the
	// JSON output's opening, as in the run above.
	startupOut := ""
	if jsonOut != "" {
		startupOut = strings.TrimSuffix(jsonOut, ".json") + "-startup.json"
	}
	bself, bk6, err := k.exec(k.script(b, l, 1, fmt.Sprintf("startup-%d", n)), startupOut)
	k.rec.take()
	if err != nil {
		r.addError("start-up run: " + err.Error())
	}
	r.steadyCPU = r.cpu - bself - bk6
	r.k6Steady = k6CPU - bk6
	return r
}

// addRecords adds the measured requests of a k6 run (all but each VU's
// warm-up streams, which start first) to r.
func (k *k6Path) addRecords(r *result, recs []*stream.Record, n int, s settings) {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Start.Before(recs[j].Start) })
	if len(recs) < n {
		r.addError(fmt.Sprintf("only %d requests reached the helper", len(recs)))
		return
	}
	var first, last time.Time
	for _, rec := range recs[n:] {
		r.requests++
		if rec.Err != nil {
			r.addError(string(rec.Err.Kind) + ": " + rec.Err.Message)
			continue
		}
		events := make([]Event, len(rec.Timeline))
		for i, e := range rec.Timeline {
			events[i] = Event{At: e.At, ServerNS: e.ServerNS, Text: e.Text}
		}
		r.addStream(rec.Start.UnixNano(), events, s)
		if first.IsZero() || rec.Start.Before(first) {
			first = rec.Start
		}
		if end := rec.Start.Add(rec.E2E); end.After(last) {
			last = end
		}
	}
	r.wall = last.Sub(first)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
