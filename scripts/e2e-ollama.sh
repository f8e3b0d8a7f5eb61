#!/usr/bin/env bash
# e2e-ollama.sh — prove xk6-llmstream against a real inference engine.
#
# Builds ollama (a llama.cpp-based server) at a pinned version from the Go module proxy,
# or reuses the binary cached by an earlier run; starts `ollama serve` on 127.0.0.1 with
# a private model folder; creates a model from testdata/models/llama-2-tiny-random.gguf;
# checks one streamed answer with curl; prints TTFT / ITL / tokens-per-second figures at
# 1 stream and at E2E_CONCURRENCY concurrent streams; stops everything it started.
#
# Usage:  scripts/e2e-ollama.sh
#
# The first run builds ollama (about 10 minutes on 2 cores); later runs reuse
# $XK6_LLMSTREAM_CACHE/ollama-<version>/bin/ollama. Details: docs/e2e-ollama.md.
#
# Environment (all optional):
#   OLLAMA_BIN            use this ollama binary instead of building or reusing the cached one
#   XK6_LLMSTREAM_CACHE   build cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/xk6-llmstream)
#   E2E_MAX_TOKENS        max_tokens of every request (default 32)
#   E2E_SEQ_REQUESTS      sequential single-stream requests (default 8)
#   E2E_CONCURRENCY       concurrent streams in the queueing run (default 16)
#   E2E_NUM_PARALLEL      OLLAMA_NUM_PARALLEL for the server (default 4)
#   E2E_KEEP_TMP=1        keep the temporary folder (server log, raw streams) after the run
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME and awk must use '.' as the decimal point

# The pinned engine version. v0.6.5 is the newest version on the Go module proxy whose
# module archive carries every C/C++ header its cgo build includes; later versions need
# miniaudio.h, which no Debian package ships (docs/e2e-ollama.md).
OLLAMA_VERSION=v0.6.5
OLLAMA_MODULE=github.com/ollama/ollama

MODEL_NAME=tiny-random
MODEL_SHA256=81f226c62d28ed4a1a9b9fa080fcd9f0cc40e0f9d5680036583ff98fbcd035cb

MAX_TOKENS=${E2E_MAX_TOKENS:-32}
SEQ_REQUESTS=${E2E_SEQ_REQUESTS:-8}
CONCURRENCY=${E2E_CONCURRENCY:-16}
NUM_PARALLEL=${E2E_NUM_PARALLEL:-4}

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODEL_GGUF=$REPO_ROOT/testdata/models/llama-2-tiny-random.gguf
CACHE_ROOT=${XK6_LLMSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xk6-llmstream}
CACHE_DIR=$CACHE_ROOT/ollama-$OLLAMA_VERSION

log() { printf 'e2e-ollama: %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

for v in MAX_TOKENS SEQ_REQUESTS CONCURRENCY NUM_PARALLEL; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "E2E_$v must be a positive integer, got '${!v}'"
done

# ---------------------------------------------------------------------------------------
# Cleanup: everything started below is registered here and stopped on any exit.
# ---------------------------------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/e2e-ollama.XXXXXX")
SERVER_PID=
SERVER_LOG=$TMP/ollama-serve.log
CLIENT_PIDS=()

alive() { # alive PID: true while PID runs (a zombie does not count)
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ -n $st && $st != Z* ]]
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	local p
	for p in "${CLIENT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${CLIENT_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	if [[ -n $SERVER_PID ]]; then
		# The server runs in its own process group with its model runner; stop both.
		kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 100); do alive "$SERVER_PID" || break; sleep 0.1; done
		kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	if ((rc != 0)) && [[ -s $SERVER_LOG ]]; then
		log "last lines of the server log ($SERVER_LOG):"
		tail -n 30 "$SERVER_LOG" >&2 || true
	fi
	if [[ ${E2E_KEEP_TMP:-0} == 1 ]]; then
		log "kept $TMP"
	else
		rm -rf "$TMP"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------
# Tools: install the Debian packages this script needs, only when they are missing.
# ---------------------------------------------------------------------------------------
need_commands() { # need_commands cmd:package ...
	local missing=() pair
	for pair in "$@"; do
		command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
	done
	((${#missing[@]} == 0)) && return 0
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		log "installing missing Debian packages: ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
	else
		die "missing packages: ${missing[*]} (install them, or run as root on Debian)"
	fi
}
need_commands curl:curl jq:jq ps:procps setsid:util-linux flock:util-linux sha256sum:coreutils

# ---------------------------------------------------------------------------------------
# The engine: build ollama once, then reuse the cached binary.
# ---------------------------------------------------------------------------------------
# The link flags of ollama's own release scripts: the version /api/version reports, and
# gin in release mode.
OLLAMA_LDFLAGS="-X $OLLAMA_MODULE/version.Version=${OLLAMA_VERSION#v} -X $OLLAMA_MODULE/server.mode=release"

cached_ok() { # cached_ok BINARY: built by this script's pinned go install (module version and link flags)?
	local info
	info=$(go version -m "$1" 2>/dev/null) || return 1
	awk -v m="$OLLAMA_MODULE" -v v="$OLLAMA_VERSION" '$1 == "mod" && $2 == m && $3 == v { ok = 1 } END { exit !ok }' <<<"$info" &&
		grep -qF -- "-ldflags=\"$OLLAMA_LDFLAGS\"" <<<"$info"
}

ensure_ollama() {
	if [[ -n ${OLLAMA_BIN:-} ]]; then
		[[ -x $OLLAMA_BIN ]] || die "OLLAMA_BIN=$OLLAMA_BIN is not an executable file"
		OLLAMA=$OLLAMA_BIN
		log "using OLLAMA_BIN=$OLLAMA"
		return
	fi
	OLLAMA=$CACHE_DIR/bin/ollama
	command -v go >/dev/null 2>&1 || die "go is not on PATH (needed to build ollama $OLLAMA_VERSION)"
	mkdir -p "$CACHE_DIR"
	exec 9>"$CACHE_DIR/.lock"
	flock 9 # one build at a time, even with several runs in parallel
	if [[ -x $OLLAMA ]] && cached_ok "$OLLAMA"; then
		log "reusing cached ollama $OLLAMA_VERSION: $OLLAMA"
	else
		# cgo compiles ggml and llama.cpp: C and C++ compilers are needed.
		need_commands gcc:gcc g++:g++
		log "building ollama $OLLAMA_VERSION from the Go module proxy (2-4 minutes on 2 cores); log: $CACHE_DIR/build.log"
		local start=$SECONDS stage=$CACHE_DIR/bin.tmp
		rm -rf "$stage"
		mkdir -p "$stage"
		# GOFLAGS is cleared so that a caller's -mod=vendor cannot break `go install pkg@version`.
		if ! GOFLAGS='' CGO_ENABLED=1 GOBIN=$stage nice -n 10 \
			go install -ldflags "$OLLAMA_LDFLAGS" "$OLLAMA_MODULE@$OLLAMA_VERSION" >"$CACHE_DIR/build.log" 2>&1; then
			tail -n 40 "$CACHE_DIR/build.log" >&2
			die "go install $OLLAMA_MODULE@$OLLAMA_VERSION failed (full log: $CACHE_DIR/build.log)"
		fi
		mkdir -p "$CACHE_DIR/bin"
		mv -f "$stage/ollama" "$OLLAMA" # atomic: an interrupted build leaves no half binary
		rm -rf "$stage"
		log "built ollama $OLLAMA_VERSION in $((SECONDS - start)) s"
	fi
	exec 9>&-
}
ensure_ollama

# ---------------------------------------------------------------------------------------
# The server: 127.0.0.1, a port the kernel picks, a private model folder and home.
# ---------------------------------------------------------------------------------------
[[ -f $MODEL_GGUF ]] || die "model file not found: $MODEL_GGUF"
got_sha=$(sha256sum "$MODEL_GGUF" | awk '{print $1}')
[[ $got_sha == "$MODEL_SHA256" ]] || die "$MODEL_GGUF: sha256 $got_sha, want $MODEL_SHA256"

mkdir -p "$TMP/models" "$TMP/home" "$TMP/streams"
# HOME is private too: ollama keeps its identity key under ~/.ollama.
run_ollama() { HOME=$TMP/home OLLAMA_HOST=${ADDR:-127.0.0.1:0} OLLAMA_MODELS=$TMP/models "$OLLAMA" "$@"; }

OLLAMA_NUM_PARALLEL=$NUM_PARALLEL OLLAMA_MAX_LOADED_MODELS=1 OLLAMA_KEEP_ALIVE=30m \
	OLLAMA_NOPRUNE=1 OLLAMA_HOST=127.0.0.1:0 HOME=$TMP/home OLLAMA_MODELS=$TMP/models \
	setsid "$OLLAMA" serve >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

ADDR=
for _ in $(seq 600); do # up to 60 s
	alive "$SERVER_PID" || die "ollama serve exited during start-up"
	ADDR=$(sed -n 's/.*Listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$SERVER_LOG" | head -n 1)
	[[ -n $ADDR ]] && curl -fsS -o /dev/null "http://$ADDR/api/version" 2>/dev/null && break
	ADDR=
	sleep 0.1
done
[[ -n $ADDR ]] || die "ollama serve did not become ready within 60 s"
BASE=http://$ADDR
log "ollama $(curl -fsS "$BASE/api/version" | jq -r .version) serving on $BASE (OLLAMA_NUM_PARALLEL=$NUM_PARALLEL, models in $TMP/models)"

printf 'FROM %s\n' "$MODEL_GGUF" >"$TMP/Modelfile"
run_ollama create "$MODEL_NAME" -f "$TMP/Modelfile" >"$TMP/create.log" 2>&1 ||
	{ cat "$TMP/create.log" >&2; die "ollama create $MODEL_NAME failed"; }
log "created model $MODEL_NAME from $MODEL_GGUF"

# ---------------------------------------------------------------------------------------
# curl helpers: one streamed chat completion, every SSE line stamped as it arrives.
# ---------------------------------------------------------------------------------------
REQUEST_BODY=$(jq -cn --arg m "$MODEL_NAME" --argjson n "$MAX_TOKENS" '{
	model: $m, stream: true, stream_options: {include_usage: true}, max_tokens: $n,
	messages: [{role: "user", content: "Tell me a story about a lighthouse."}]}')

# stamped_stream OUT: writes "start <t0>" then "<t> <line>" per SSE line (t in epoch s).
# The stamps come from bash's clock as lines leave curl: good to a few ms, enough for
# these figures; the product's engine measures precisely in phase 2.
stamped_stream() {
	local out=$1
	{
		printf 'start %s\n' "$EPOCHREALTIME"
		curl -sS -N --fail-with-body --max-time 300 -H 'Content-Type: application/json' \
			--data-binary "$REQUEST_BODY" "$BASE/v1/chat/completions" |
			while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "${line%$'\r'}"; done
	} >"$out"
}

# check_stream FILE: the body (stamps removed) must be a complete, successful stream
# that ends with [DONE] and has one usage chunk whose completion_tokens equals max_tokens.
# Sets N_TEXT (events with non-empty content) and N_USAGE (usage.completion_tokens).
check_stream() {
	local f=$1 data out
	data=$(cut -d' ' -f2- "$f" | sed -n '2,$s/^data: //p')
	[[ $(tail -n 1 <<<"$data") == '[DONE]' ]] || die "$f: the stream does not end with 'data: [DONE]'"
	out=$(grep -v '^\[DONE\]$' <<<"$data" | jq -ser --argjson n "$MAX_TOKENS" '
		[.[] | select((.choices | length) > 0) | .choices[0].delta.content // "" | select(. != "")] as $text |
		[.[] | select(.usage != null) | .usage] as $usage |
		if ($usage | length) != 1 then error("want exactly 1 usage chunk, got \($usage | length)")
		elif $usage[0].completion_tokens != $n then error("usage.completion_tokens is \($usage[0].completion_tokens), want max_tokens \($n)")
		elif ($text | length) == 0 then error("no event carries text")
		else "\($text | length) \($usage[0].completion_tokens)" end' 2>&1) || die "$f: $out"
	read -r N_TEXT N_USAGE <<<"$out"
}

# timings FILE: per stream, "ttft_ms e2e_ms n_text decode_tok_per_s" on stdout and each
# inter-token gap (ms) appended to FILE.itl. A text event is a data line whose delta
# carries non-empty content.
timings() {
	awk -v itl="$1.itl" '
		$1 == "start" { t0 = $2; next }
		/^[0-9.]+ data: \{/ && /"content":"[^"]/ {
			n++
			if (n == 1) first = $1; else printf "%.3f\n", ($1 - prev) * 1000 > itl
			prev = $1
		}
		{ last = $1 }
		END {
			if (n == 0) exit 1
			rate = (n > 1 && prev > first) ? (n - 1) / (prev - first) : 0
			printf "%.3f %.3f %d %.1f\n", (first - t0) * 1000, (last - t0) * 1000, n, rate
		}' "$1"
}

# pct P: percentile of the numbers on stdin, linear interpolation at rank P*(n-1) (as k6).
pct() {
	sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		r = p * (NR - 1); lo = int(r); f = r - lo
		x = v[lo + 1]; if (lo + 2 <= NR) x += f * (v[lo + 2] - v[lo + 1]); printf "%.1f\n", x }'
}

# ---------------------------------------------------------------------------------------
# Sanity check: one streamed completion (also loads the model into a runner).
# ---------------------------------------------------------------------------------------
stamped_stream "$TMP/streams/warmup" || die "the first streamed request failed: $(tail -c 300 "$TMP/streams/warmup")"
check_stream "$TMP/streams/warmup"
log "sanity: one stream of $N_TEXT text events, usage.completion_tokens=$N_USAGE, ends with [DONE]"

# ---------------------------------------------------------------------------------------
# Figures from curl: E2E_SEQ_REQUESTS streams one after another, then E2E_CONCURRENCY at once.
# ---------------------------------------------------------------------------------------
run_wave() { # run_wave NAME COUNT CONCURRENT(0|1): writes $TMP/streams/NAME-<i>
	local name=$1 count=$2 concurrent=$3 i rc=0
	CLIENT_PIDS=()
	for ((i = 1; i <= count; i++)); do
		if ((concurrent)); then
			stamped_stream "$TMP/streams/$name-$i" &
			CLIENT_PIDS+=($!)
		else
			stamped_stream "$TMP/streams/$name-$i" || die "$name request $i failed: $(tail -c 300 "$TMP/streams/$name-$i")"
		fi
	done
	for i in "${!CLIENT_PIDS[@]}"; do
		wait "${CLIENT_PIDS[$i]}" || { rc=$?; log "$name request $((i + 1)) failed (exit $rc)"; }
	done
	CLIENT_PIDS=()
	((rc == 0)) || die "$name: some requests failed"
}

summarize() { # summarize NAME COUNT WALL_S: checks every stream, prints one line of figures
	local name=$1 count=$2 wall=$3 f i
	local rows=$TMP/$name.rows
	: >"$rows"
	: >"$TMP/$name.itl"
	for ((i = 1; i <= count; i++)); do
		f=$TMP/streams/$name-$i
		check_stream "$f"
		timings "$f" >>"$rows" || die "$f: no text events"
		cat "$f.itl" >>"$TMP/$name.itl" 2>/dev/null || true
	done
	local ttft50 ttftmax itl50 itl99 rate50 total
	ttft50=$(awk '{print $1}' "$rows" | pct 0.5)
	ttftmax=$(awk '{print $1}' "$rows" | pct 1)
	itl50=$(pct 0.5 <"$TMP/$name.itl")
	itl99=$(pct 0.99 <"$TMP/$name.itl")
	rate50=$(awk '{print $4}' "$rows" | pct 0.5)
	total=$((count * MAX_TOKENS))
	printf '%-11s %8d %10s %10s %9s %9s %12s %12s\n' "$name" "$count" "$ttft50" "$ttftmax" \
		"$itl50" "$itl99" "$rate50" "$(awk -v t="$total" -v w="$wall" 'BEGIN { printf "%.0f", t / w }')"
	TTFT50=$ttft50
}

t=$EPOCHREALTIME
run_wave single "$SEQ_REQUESTS" 0
single_wall=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
t=$EPOCHREALTIME
run_wave concurrent "$CONCURRENCY" 1
concurrent_wall=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')

echo
echo "ollama $OLLAMA_VERSION, model $MODEL_NAME, max_tokens=$MAX_TOKENS, OLLAMA_NUM_PARALLEL=$NUM_PARALLEL (curl timings, ms)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on these cores moves every figure)"
printf '%-11s %8s %10s %10s %9s %9s %12s %12s\n' run requests "TTFT p50" "TTFT max" "ITL p50" "ITL p99" "tok/s/strm" "tok/s total"
summarize single "$SEQ_REQUESTS" "$single_wall"
TTFT50_single=$TTFT50
summarize concurrent "$CONCURRENCY" "$concurrent_wall"
TTFT50_concurrent=$TTFT50
echo "(single: $SEQ_REQUESTS streams one after another; concurrent: $CONCURRENCY streams at once;"
echo " tok/s/strm: p50 of (text events - 1) / (last - first text event); tok/s total: usage tokens / wall time)"

# Queueing: with more streams than slots, the later ones wait for a free slot.
if ((CONCURRENCY > NUM_PARALLEL)); then
	awk -v a="$TTFT50_concurrent" -v b="$TTFT50_single" 'BEGIN { exit !(a > b) }' ||
		die "TTFT p50 at $CONCURRENCY streams ($TTFT50_concurrent ms) is not above TTFT p50 at 1 stream ($TTFT50_single ms): no queueing seen"
	log "queueing seen: TTFT p50 $TTFT50_single ms at 1 stream -> $TTFT50_concurrent ms at $CONCURRENCY streams"
fi

# --- product checks (added in phase 2) ---
# Phase 2 points the product at $BASE/v1 with model $MODEL_NAME: the streaming engine,
# the helper and the JS module (sobek harness, and real k6 when K6_BIN is set), then
# analyze on the k6 output, with the assertions of issue 7.

log "PASS in $SECONDS s"
