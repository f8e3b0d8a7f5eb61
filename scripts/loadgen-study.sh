#!/usr/bin/env bash
# loadgen-study.sh — the data behind the load-generator rule (internal/headroom).
#
# Runs `xk6-llmstream calibrate` on the README's main job (scripts/ramping-vus.js, its
# default mock shape) at several peak loads, on this machine as it is ("quiet"), with half
# its CPUs kept busy by other processes ("half": one busy loop per two CPUs) and with all
# of them ("saturated": one busy loop per CPU; the loops run at the helper's priority,
# above k6's), and prints one JSON line per run: the ground truth (calibrate's mid-stream
# lag p99) beside what run's rule sees (the medians of llm_client_lag and llm_client_cpu_idle)
# and what the rule said. internal/headroom/testdata/study.jsonl holds such a run, and
# TestRuleOnTheStudy holds the rule to it (docs/calibrate.md#the-load-generator-rule).
#
# Usage:  K6_BIN=/path/to/k6 scripts/loadgen-study.sh > study.jsonl
#
# Environment (all optional):
#   STUDY_LOADS    peak VUs, space-separated (default: 10 20 40 80 160 320)
#   STUDY_STATES   any of quiet, half, saturated (default: all three)
#   XK6_LLMSTREAM  the xk6-llmstream binary (default: built from this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
loads=${STUDY_LOADS:-10 20 40 80 160 320}
states=${STUDY_STATES:-quiet half saturated}
bin=${XK6_LLMSTREAM:-}
if [ -z "$bin" ]; then
  bin=$(mktemp -d)/xk6-llmstream
  go build -o "$bin" ./xk6-llmstream
fi
busy=()
stop_busy() { for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done; busy=(); }
trap stop_busy EXIT INT TERM
for state in $states; do
  case $state in
    quiet) n=0 ;;
    half) n=$(( ($(nproc) + 1) / 2 )) ;;
    saturated) n=$(nproc) ;;
    *) echo "loadgen-study.sh: STUDY_STATES: unknown state $state (want quiet, half or saturated)" >&2; exit 2 ;;
  esac
  for _ in $(seq "$n"); do (while :; do :; done) & busy+=($!); done
  for vus in $loads; do
    out=$("$bin" calibrate --format json scripts/ramping-vus.js -e LLM_MAX_VUS="$vus" 2>/dev/null) || true
    printf '%s\n' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(json.dumps({"state": sys.argv[1], "vus": int(sys.argv[2]), "requests": r["requests"],
  "lag_p99_ms": round(r["lag_p99_ms"], 3), "lag_p99_ci95_ms": [None if v is None else round(v, 3) for v in r["lag_p99_ci95_ms"]],
  "client_lag_p50_ms": round(r.get("client_lag_p50_ms", 0), 3), "client_lag_p99_ms": round(r.get("client_lag_p99_ms", 0), 3),
  "client_lag_samples": r["client_lag_samples"],
  "cpu_idle_p50": round(r["cpu_idle_p50"], 3) if r.get("cpu_idle_p50") is not None else None,
  "cpu_idle_run": round(r["cpu_headroom"], 3) if r.get("cpu_headroom") is not None else None,
  "rule_limited": r["rule_limited"], "truth_limited": r["lag_p99_ms"] > 1}))' "$state" "$vus"
  done
  stop_busy
done
