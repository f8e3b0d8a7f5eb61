// Package sweep finds the highest load a deployment takes while it still meets
// an SLO: it runs a k6 script at a series of load levels — an arrival rate
// (LLM_RATE, requests per second) or a concurrency (LLM_VUS) — each level one
// real "k6 run" through the runner with its own output file, reads each
// level's samples, and judges it:
//
//   - the SLO, in k6's threshold syntax (check), holds with confidence:
//     a percentile's distribution-free interval (stats), a rate's
//     Wilson interval (compare), lies on the right side of every limit;
//     an interval that straddles a limit makes the level inconclusive, which
//     does not count as passing;
//   - the level is not over-saturated: the achieved rate is not below the
//     offered one, k6 dropped no iterations, TTFT did not rise within the level
//     (shape's drift test), and, with VUs, more VUs still raised the
//     throughput.
//
// A Plan chooses the levels: Fixed runs a list (and stops climbing at the first
// saturated level), Search brackets (×2 from a minimum until a level does not
// pass) and then bisects to a resolution within a budget of levels.
//
// The result (Result, versioned JSON) holds per level the offered and achieved
// rate, request and output-token throughput, goodput (requests per second that
// met every SLO limit, joined per request through the llm_request_id metadata),
// TTFT/TPOT/ITL percentiles with intervals, the failure rate and the verdict;
// and the highest passing level.
//
// Nothing here computes a percentile or an interval itself: reading is
// behind the Reader interface, statistics come from analyze's packages.
package sweep
