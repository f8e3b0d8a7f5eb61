// Open-loop timing shared by arrivals() and replay(): the intended send time
// of the request being started, and a sleep that does not wake early.

// The intended send time (unix ms) of the request that arrivals() or replay()
// is starting: set around their synchronous call of fn, read by _prepare.
let ambient = null;

/** The intended send time (unix ms) set by callScheduled, else null. */
export function ambientScheduledMs() {
  return ambient;
}

// The longest delay one setTimeout takes (2³¹−1 ms, about 24.8 days): a
// longer one overflows and fires at once, in browsers and in k6.
export const MAX_TIMER_MS = 2147483647;

// sleepUntil resolves once Date.now() reaches due (unix ms). A k6 timer may
// fire early when the event loop is busy with many requests in flight (seen
// with real k6: first requests of a burst sent ~130 ms early), so it waits
// again until the time has come. Each wait is one timer of at most
// MAX_TIMER_MS, so a far due time is slept towards, never spun on.
export async function sleepUntil(due) {
  for (let wait = due - Date.now(); wait > 0; wait = due - Date.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, MAX_TIMER_MS)));
  }
}

// callScheduled calls fn(...args) with the intended send time set for the
// requests it starts synchronously; returns its promise (a throw rejects it).
export function callScheduled(fn, args, scheduledMs) {
  const prev = ambient;
  ambient = scheduledMs;
  try {
    return Promise.resolve(fn(...args));
  } catch (e) {
    return Promise.reject(e);
  } finally {
    ambient = prev;
  }
}
