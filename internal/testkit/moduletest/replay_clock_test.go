package moduletest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// fakeClock is script text that replaces Date.now and setTimeout with a fake
// clock: a timer fires at once (on the microtask queue) and moves the clock
// by its delay — by nothing when the delay is above 2³¹−1 ms, as an engine's
// overflowing timer does. Every delay is kept in DELAYS; past 1,000 timers
// the fake throws, so a busy wait ends the test instead of hanging it.
const fakeClock = `
let NOW = 1700000000000;
const DELAYS = [];
Date.now = () => NOW;
globalThis.setTimeout = (fn, ms) => {
  DELAYS.push(ms);
  if (DELAYS.length > 1000) throw new Error('SPIN: ' + DELAYS.length + ' timers');
  if (ms > 0 && ms <= 2147483647) NOW += ms;
  Promise.resolve().then(fn);
  return DELAYS.length;
};
`

// TestReplayWaitsBySleeping: under a fake clock, replay() and sleepUntil
// reach a far send time with a few timers of at most 2³¹−1 ms (setTimeout's
// range), never by spinning on timers that fire at once; a send time past
// the documented horizon (REPLAY_HORIZON_MS, also reached by a tiny speedup)
// is refused, naming the entry and the horizon.
func TestReplayWaitsBySleeping(t *testing.T) {
	t.Parallel()
	sched := filepath.ToSlash(filepath.Join(filepath.Dir(modulePath), "lib", "internal", "schedule.js"))
	path := script(t, `
import { replay, REPLAY_HORIZON_MS } from 'file://`+modulePath+`';
import { sleepUntil } from 'file://`+sched+`';
`+fakeClock+`
export default async function () {
  await sleepUntil(NOW + 3e9);
  console.log('SLEEP ' + JSON.stringify(DELAYS));
  DELAYS.length = 0;
  const sent = [];
  const t0 = NOW;
  const entries = [0, 1000, 5e8].map((at, i) => ({ id: 'e' + i, prompt: 'p', at_ms: at }));
  await replay(entries, {}, (e) => { sent.push(NOW - t0); return Promise.resolve(); });
  console.log('REPLAY ' + JSON.stringify(sent) + ' ' + DELAYS.length);
  for (const [name, es, opts] of [
    ['far', [{ id: 'a', at_ms: 0 }, { id: 'b', at_ms: 1e15 }], {}],
    ['slow', [{ id: 'a', at_ms: 0 }, { id: 'b', at_ms: 1000 }], { speedup: 1e-9 }],
  ]) {
    DELAYS.length = 0;
    try {
      await replay(es, opts, () => Promise.resolve());
      console.log('NO ERROR ' + name);
    } catch (e) {
      console.log('ERROR ' + name + ' ' + e.message + ' timers=' + DELAYS.length + ' horizon=' + REPLAY_HORIZON_MS);
    }
  }
}
`)
	res := run(t, path, nil, k6sim.Config{}, true)
	out := strings.Join(res.Console, "\n")
	for _, want := range []string{
		"SLEEP [2147483647,852516353]",
		"REPLAY [0,1000,500000000] 2",
		`ERROR far llmstream: replay: entry 2 (id "b")`,
		`ERROR slow llmstream: replay: entry 2 (id "b")`,
		"timers=0 horizon=604800000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s\n%v", want, out, res.Errors)
		}
	}
	if strings.Count(out, "beyond the replay horizon of 604800000 ms") != 2 {
		t.Errorf("the horizon is not named twice:\n%s", out)
	}
}
