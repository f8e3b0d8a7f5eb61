#!/usr/bin/env bash
# EXAMPLE — a nightly load test that keeps a run history and fails on a
# regression. Copy it into your repository and adapt the script, the endpoint
# and the grouping. Needs k6 on PATH (or K6_BIN) and Go to build the binaries.
#
#   LLM_BASE_URL=https://llm.example.internal/v1 LLM_MODEL=my-model \
#     HISTORY=history/runs.jsonl docs/examples/nightly.sh
#
# cron (02:00 every night, on a host that keeps history/ between runs):
#   0 2 * * *  cd /srv/llm-loadtest && LLM_BASE_URL=... ./nightly.sh >> nightly.log 2>&1
#
# Exit status: 0 no regression; 99 the run is a regression, or could not be
# decided (too few samples) — the gate fails closed; anything else: the test
# itself failed (k6's own 99 for failed thresholds is reported, not swallowed).
set -euo pipefail

SCRIPT=${SCRIPT:-scripts/ramping-vus.js}
HISTORY=${HISTORY:-history/runs.jsonl}
OUT=${OUT:-nightly}
LABEL=${LABEL:-${MODEL_VERSION:-$(git rev-parse --short HEAD 2>/dev/null || date -u +%Y-%m-%d)}}

mkdir -p "$(dirname "$HISTORY")" "$OUT"
go build -o bin/ ./xk6-llmstream ./analyze

# 1. The test. Same script, same prompts, same concurrency every night:
#    only then is a trend a trend.
k6_status=0
bin/xk6-llmstream run "$SCRIPT" --out json="$OUT/results.json.gz" || k6_status=$?
if [ "$k6_status" -ne 0 ] && [ "$k6_status" -ne 99 ]; then
  echo "nightly: the load test failed (exit $k6_status)" >&2
  exit "$k6_status"
fi

# 2. Append tonight's run: percentiles with intervals, failure and goodput
#    rates, one series per --by group. Drop the warm-up with --from.
bin/analyze summary "$OUT/results.json.gz" --from 5s --by model \
  --history "$HISTORY" --label "$LABEL" --format markdown > "$OUT/summary.md"

# 3. The trend and the gate: exit 99 when the last run is a regression
#    (a step or a drift beyond 10% with confidence) or inconclusive.
bin/analyze history "$HISTORY" --metric llm_ttft --window 7 \
  --max-regression p50=10% --max-regression p99=10% \
  --max-regression llm_requests_failed:rate=+1pp \
  --format markdown -o "$OUT/trend.png" --report "$OUT/report" \
  --fail-on regression > "$OUT/history.md"
