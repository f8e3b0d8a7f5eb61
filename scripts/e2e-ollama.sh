#!/usr/bin/env bash
# e2e-ollama.sh — prove xk6-llmstream against a real inference engine.
#
# Builds ollama (a llama.cpp-based server) at a pinned version from the Go module proxy,
# or reuses the binary cached by an earlier run; starts `ollama serve` on 127.0.0.1 with
# a private model folder; creates a model from testdata/models/llama-2-tiny-random.gguf;
# checks one streamed answer with curl and prints curl's TTFT / ITL / tokens-per-second
# figures at 1 stream and at E2E_CONCURRENCY concurrent streams. Then the product checks:
#
#   1-3. go test ./e2e -run Ollama: the streaming engine, the helper, and llmstream.js
#        under the k6sim harness, each against this ollama (e2e/*_test.go);
#   4.   with real k6 (K6_BIN, else k6 on PATH): `xk6-llmstream run e2e/ollama-sweep.js`
#        (1 stream, then E2E_CONCURRENCY at once) with --out json, then `analyze summary`,
#        `analyze plot` (ECDF PNGs) and `analyze check` on that output, and the assertion
#        that TTFT p50 at E2E_CONCURRENCY streams is at least E2E_MIN_QUEUE_RATIO times
#        TTFT p50 at 1 stream. Without k6, step 4 is skipped and the script says so.
#     5. with k6, a server sweep (xk6-llmstream sweep --serve): ollama restarted for each
#        OLLAMA_NUM_PARALLEL of E2E_SERVE_PARALLEL, the levels run against each, and
#        analyze plot's frontier (tokens/s per user against per instance) and table.
#
# It stops everything it started on success, failure, Ctrl-C and SIGTERM.
#
# Usage:  scripts/e2e-ollama.sh
#         K6_BIN=/path/to/k6 scripts/e2e-ollama.sh
#
# The first run builds ollama (2-4 minutes on 2 cores); later runs reuse
# $XK6_LLMSTREAM_CACHE/ollama-<version>/bin/ollama. Details: docs/e2e-ollama.md.
#
# Environment (all optional):
#   OLLAMA_BIN            use this ollama binary instead of building or reusing the cached one
#   XK6_LLMSTREAM_CACHE   build cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/xk6-llmstream)
#   K6_BIN                the k6 binary for step 4 (default: k6 on PATH; none: step 4 is skipped)
#   E2E_MAX_TOKENS        max_tokens of every request (default 32)
#   E2E_SEQ_REQUESTS      sequential single-stream requests of the curl figures (default 8)
#   E2E_CONCURRENCY       concurrent streams in the queueing runs, curl and k6 (default 16)
#   E2E_NUM_PARALLEL      OLLAMA_NUM_PARALLEL for the server (default 4)
#   E2E_STREAMS           concurrent streams in the Go tests (default 8)
#   E2E_SWEEP_SECONDS     seconds of the k6 sweep's single-stream level (default 8)
#   E2E_SWEEP_ROUNDS      requests per stream in the k6 sweep's concurrent level (default 4)
#   E2E_MIN_QUEUE_RATIO   least TTFT p50 ratio, E2E_CONCURRENCY streams / 1 stream (default 2)
#   E2E_SERVE_PARALLEL    step 5's server sweep: the OLLAMA_NUM_PARALLEL values (default 1,4)
#   E2E_SERVE_LEVELS      step 5: the concurrent streams of each level (default 1,4)
#   E2E_SERVE_SECONDS     step 5: seconds a level (default 10)
#   E2E_OUT               folder for the results: Go test log, k6 output and log, analyze
#                         output, ECDF PNGs (default: a new ${TMPDIR:-/tmp}/e2e-ollama-results.*)
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
STREAMS=${E2E_STREAMS:-8}
SWEEP_SECONDS=${E2E_SWEEP_SECONDS:-8}
SWEEP_ROUNDS=${E2E_SWEEP_ROUNDS:-4}
MIN_QUEUE_RATIO=${E2E_MIN_QUEUE_RATIO:-2}
SERVE_PARALLEL=${E2E_SERVE_PARALLEL:-1,4}
SERVE_LEVELS=${E2E_SERVE_LEVELS:-1,4}
SERVE_SECONDS=${E2E_SERVE_SECONDS:-10}

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODEL_GGUF=$REPO_ROOT/testdata/models/llama-2-tiny-random.gguf
CACHE_ROOT=${XK6_LLMSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xk6-llmstream}
CACHE_DIR=$CACHE_ROOT/ollama-$OLLAMA_VERSION

log() { printf 'e2e-ollama: %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

for v in MAX_TOKENS SEQ_REQUESTS CONCURRENCY NUM_PARALLEL STREAMS SWEEP_SECONDS SWEEP_ROUNDS SERVE_SECONDS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "E2E_$v must be a positive integer, got '${!v}'"
done
((MAX_TOKENS >= 2)) || die "E2E_MAX_TOKENS must be at least 2 (TPOT and ITL need two tokens), got $MAX_TOKENS"
[[ $SERVE_PARALLEL =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "E2E_SERVE_PARALLEL must be a list like 1,4, got '$SERVE_PARALLEL'"
[[ $SERVE_LEVELS =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "E2E_SERVE_LEVELS must be a list like 1,4, got '$SERVE_LEVELS'"
[[ $MIN_QUEUE_RATIO =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "E2E_MIN_QUEUE_RATIO must be a number, got '$MIN_QUEUE_RATIO'"

# ---------------------------------------------------------------------------------------
# Cleanup: everything started below is registered here and stopped on any exit.
# ---------------------------------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/e2e-ollama.XXXXXX")
SERVER_PID=
SERVER_LOG=$TMP/ollama-serve.log
CLIENT_PIDS=()
CHILD_PID= # the product check running now (go build, go test, xk6-llmstream run), see run_child

alive() { # alive PID: true while PID runs (a zombie does not count)
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ -n $st && $st != Z* ]]
}

descendants() { # descendants PID: the PIDs of every process below PID
	local kids k
	kids=$(ps -o pid= --ppid "$1" 2>/dev/null) || return 0
	for k in $kids; do
		echo "$k"
		descendants "$k"
	done
}

# stop_child PID: stops a child started by run_child, which leads its own process
# group. SIGTERM goes to the group twice, 10 s apart: `xk6-llmstream run` forwards the
# first to k6 (which then stops gracefully and writes its output) and kills k6 on the
# second. Whatever still runs 10 s later gets SIGKILL, including descendants that
# moved to their own process group (k6 does).
stop_child() {
	local pid=$1 p procs
	for _ in 1 2; do
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" || break
	done
	if alive "$pid"; then
		procs=$(descendants "$pid")
		kill -KILL -- "-$pid" 2>/dev/null || true
		for p in $procs; do kill -KILL "$p" 2>/dev/null || true; done
	fi
	wait "$pid" 2>/dev/null || true
}

# run_child [--log FILE] CMD [ARG...]: runs CMD in its own session and process group
# (its stdout and stderr to FILE when given) and waits for it; returns its exit status.
# While it runs, a signal to this script interrupts the wait at once (a foreground
# command would delay the trap until it ended), and cleanup stops the child with
# stop_child. The redirection is the child's own, never the function's: cleanup may
# run inside this function, and its messages must reach this script's stderr.
run_child() {
	local rc=0
	if [[ $1 == --log ]]; then
		local log_file=$2
		shift 2
		setsid "$@" >"$log_file" 2>&1 &
	else
		setsid "$@" &
	fi
	CHILD_PID=$!
	wait "$CHILD_PID" || rc=$?
	CHILD_PID=
	return "$rc"
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	local p
	if [[ -n $CHILD_PID ]]; then
		log "stopping $(ps -o comm= -p "$CHILD_PID" 2>/dev/null || echo child) (pid $CHILD_PID)"
		stop_child "$CHILD_PID"
	fi
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
	if ((rc != 0)) && [[ -n ${OUT:-} ]]; then
		log "the product checks' logs and outputs so far are in $OUT"
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
# Product check 5: a server sweep (xk6-llmstream sweep --serve, docs/server-sweeps.md).
# The sweep restarts ollama for each OLLAMA_NUM_PARALLEL of E2E_SERVE_PARALLEL on the
# port the first server had (that server is stopped first: it is not needed any more),
# runs E2E_SERVE_LEVELS concurrent streams against each, and analyze draws the frontier:
# output tokens/s per user against output tokens/s per instance.
# ---------------------------------------------------------------------------------------
serve_sweep() {
	local dir=$OUT/serve-sweep cmd rc=0
	if [[ -n $SERVER_PID ]]; then
		kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 100); do alive "$SERVER_PID" || break; sleep 0.1; done
		kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=
	fi
	cmd=$(printf 'exec env HOME=%q OLLAMA_HOST=%q OLLAMA_MODELS=%q OLLAMA_MAX_LOADED_MODELS=1 OLLAMA_KEEP_ALIVE=30m OLLAMA_NOPRUNE=1 %q serve' \
		"$TMP/home" "$ADDR" "$TMP/models" "$OLLAMA")
	log "product check 5: server sweep of OLLAMA_NUM_PARALLEL=$SERVE_PARALLEL at $SERVE_LEVELS streams, ${SERVE_SECONDS} s a level (log: $OUT/serve-sweep.log)"
	t=$SECONDS
	run_child --log "$OUT/serve-sweep.log" env LLM_BASE_URL="$BASE/v1" LLM_MODEL="$MODEL_NAME" LLM_MAX_TOKENS="$MAX_TOKENS" \
		LLM_GRACEFUL_STOP=30s K6_BIN="$K6" "$BIN/xk6-llmstream" sweep --serve "$cmd" \
		--serve-params "OLLAMA_NUM_PARALLEL=$SERVE_PARALLEL" --serve-ready "$BASE/api/version" \
		--vus --levels "$SERVE_LEVELS" --level-duration "${SERVE_SECONDS}s" --slo 'llm_ttft: p(50)<2000' \
		--max-failure-rate 1 --out-dir "$dir" scripts/capacity.js || rc=$?
	[[ -s $dir/sweep.json ]] || { tail -n 40 "$OUT/serve-sweep.log" >&2; die "the server sweep wrote no sweep.json (exit $rc)"; }
	jq -e '[.configs[] | select(.status != "done")] | length == 0' "$dir/sweep.json" >/dev/null ||
		{ tail -n 40 "$OUT/serve-sweep.log" >&2; die "a configuration of the server sweep failed: $(jq -r '[.configs[] | select(.status != "done") | "\(.name): \(.reason)"] | join("; ")' "$dir/sweep.json")"; }
	"$BIN/analyze" plot "$dir/sweep.json" -o "$dir" >"$dir/plot.txt" 2>&1 || { cat "$dir/plot.txt" >&2; die "analyze plot of the server sweep failed"; }
	echo
	echo "server sweep: OLLAMA_NUM_PARALLEL=$SERVE_PARALLEL, $SERVE_LEVELS concurrent streams, ${SERVE_SECONDS} s a level; took $((SECONDS - t)) s"
	jq -r '.configs[] as $c | $c.levels[] |
		([.latency[] | select(.metric == "llm_tpot") | .percentiles[] | select(.name == "p(50)") | .value] | .[0]) as $tpot |
		"\($c.name)\t\(.offered) streams\toutput tok/s \(.output_tps // "-" | tostring | .[0:6])\tTPOT p50 \($tpot // "-" | tostring | .[0:6]) ms\ttok/s/user \(if $tpot then (1000 / $tpot | tostring | .[0:6]) else "-" end)"' \
		"$dir/sweep.json" | column -t -s $'\t'
	grep -v '^wrote ' "$dir/plot.txt" || true
	sed -n 's/^wrote \(.*frontier.*\)/  \1/p' "$dir/plot.txt"
	# The trade-off, printed (a timing: not asserted): at the highest level, more slots
	# should give more output tokens/s per instance and fewer per user.
	jq -r '[.configs[] | {n: .name, l: .levels[-1]}] | if length < 2 then empty else
		(.[0]) as $a | (.[-1]) as $b |
		"at \($b.l.offered) streams, \($b.n) over \($a.n): output tok/s per instance x\(($b.l.output_tps / $a.l.output_tps * 100 | round) / 100)" end' "$dir/sweep.json"
}

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
# The product against this ollama: the engine, the helper and the JS module (Go tests),
# then real k6 through `xk6-llmstream run`, and analyze on k6's output.
command -v go >/dev/null 2>&1 || die "go is not on PATH (needed for the product checks)"
cd "$REPO_ROOT"
if [[ -n ${E2E_OUT:-} ]]; then
	mkdir -p "$E2E_OUT" || die "E2E_OUT=$E2E_OUT: cannot create the folder"
	OUT=$(cd "$E2E_OUT" && pwd)
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/e2e-ollama-results.XXXXXX")
fi
log "results go to $OUT"

# 1-3. go test ./e2e: stream.Client, the helper (helper.Start, POST /v1/stream),
# llmstream.js under k6sim, and step 4's e2e/ollama-sweep.js under k6sim, each against
# $BASE (e2e/doc.go says what they assert).
log "product checks 1-3: go test ./e2e -run Ollama (engine, helper, JS module under k6sim; log: $OUT/go-test.log)"
t=$SECONDS
rc=0
run_child --log "$OUT/go-test.log" env LLMSTREAM_OLLAMA_URL="$BASE" LLMSTREAM_OLLAMA_MODEL="$MODEL_NAME" \
	LLMSTREAM_OLLAMA_MAX_TOKENS="$MAX_TOKENS" LLMSTREAM_OLLAMA_STREAMS="$STREAMS" \
	go test ./e2e -run Ollama -count=1 -v || rc=$?
grep -E '^(--- (PASS|FAIL|SKIP): TestOllama|ok |FAIL)' "$OUT/go-test.log" | sed 's/^/  /' >&2 || true
if ((rc != 0)); then
	grep -E -e '--- FAIL|_test\.go:[0-9]+:|panic|cannot|error' "$OUT/go-test.log" | head -n 40 >&2 || tail -n 40 "$OUT/go-test.log" >&2
	die "go test ./e2e -run Ollama failed (exit $rc); full log: $OUT/go-test.log"
fi
grep -q -- '--- SKIP' "$OUT/go-test.log" && die "go test ./e2e skipped tests although LLMSTREAM_OLLAMA_URL was set: $OUT/go-test.log"
for name in TestOllamaEngine TestOllamaHelper TestOllamaModule TestOllamaSweepScript; do
	grep -q -- "^--- PASS: $name " "$OUT/go-test.log" || die "$name did not run and pass: $OUT/go-test.log"
done
log "engine, helper, JS module and sweep script under k6sim: PASS against ollama ($((SECONDS - t)) s, $STREAMS concurrent streams in each)"

# 4. Real k6: the concurrency sweep through `xk6-llmstream run`, then analyze.
K6=
K6_SKIP=
if [[ -n ${K6_BIN:-} ]]; then
	[[ -f $K6_BIN && -x $K6_BIN ]] || die "K6_BIN=$K6_BIN is not an executable file"
	K6=$K6_BIN
elif K6=$(command -v k6 2>/dev/null); then
	:
else
	K6=
	K6_SKIP="no k6: K6_BIN is not set and k6 is not on PATH (set K6_BIN=/path/to/k6, any stock v1.x or v2.x)"
fi
if [[ -z $K6_SKIP ]] && ((CONCURRENCY < 2)); then
	K6_SKIP="E2E_CONCURRENCY=$CONCURRENCY: the sweep compares 1 stream with at least 2"
fi

if [[ -n $K6_SKIP ]]; then
	log "product check 4 (real k6 sweep and analyze) SKIPPED: $K6_SKIP"
else
	K6_VERSION=$("$K6" version 2>/dev/null | head -n 1) || die "$K6 version failed: is K6_BIN a k6 binary?"
	BIN=$TMP/bin
	mkdir -p "$BIN"
	log "building xk6-llmstream and analyze into $BIN"
	run_child go build -o "$BIN/xk6-llmstream" ./xk6-llmstream || die "go build ./xk6-llmstream failed"
	run_child go build -o "$BIN/analyze" ./analyze || die "go build ./analyze failed"

	# The single-stream level gets a grace period for its last stream of 5 times the
	# slowest curl stream above (at least 3 s, at most 60 s): enough on a busy machine,
	# short on a quiet one. The concurrent level starts after it, so they never overlap.
	grace=$(awk '{ if ($2 > m) m = $2 } END { g = int(m * 5 / 1000) + 1; if (g < 3) g = 3; if (g > 60) g = 60; print g }' "$TMP/single.rows")
	SWEEP=$OUT/sweep.json
	rm -f "$SWEEP"
	log "product check 4: $K6_VERSION: xk6-llmstream run e2e/ollama-sweep.js: 1 stream for ${SWEEP_SECONDS} s, then $CONCURRENCY streams x $SWEEP_ROUNDS requests (log: $OUT/k6.log)"
	t=$SECONDS
	k6rc=0
	server_lines=$(wc -l <"$SERVER_LOG")
	run_child --log "$OUT/k6.log" env LLM_BASE_URL="$BASE" LLM_MODEL="$MODEL_NAME" LLM_MAX_TOKENS="$MAX_TOKENS" \
		LLM_CONCURRENCY="$CONCURRENCY" LLM_ROUNDS="$SWEEP_ROUNDS" LLM_SINGLE_SECONDS="$SWEEP_SECONDS" \
		LLM_SINGLE_GRACE="$grace" K6_BIN="$K6" \
		"$BIN/xk6-llmstream" run e2e/ollama-sweep.js --no-color --out "json=$SWEEP" || k6rc=$?
	k6_wall=$((SECONDS - t))
	grep -E '^xk6-llmstream:' "$OUT/k6.log" | sed 's/^/  /' >&2 || true
	if ((k6rc != 0)); then
		tail -n 40 "$OUT/k6.log" >&2
		[[ -s $SWEEP ]] || die "k6 exited $k6rc and wrote no output; log: $OUT/k6.log"
		log "k6 exited $k6rc ($( ((k6rc == 99)) && echo 'a threshold failed' || echo 'see the log')); analyzing what it wrote before failing"
	fi
	[[ -s $SWEEP ]] || die "k6 wrote no --out json output to $SWEEP; log: $OUT/k6.log"

	# analyze: the tables, the ECDFs, and the checks.
	"$BIN/analyze" summary "$SWEEP" --by concurrency --percentiles 50,90,99 >"$OUT/summary.txt" ||
		die "analyze summary failed"
	"$BIN/analyze" summary "$SWEEP" --by concurrency --percentiles 50,99 --format json -o "$OUT/summary.json" ||
		die "analyze summary --format json failed"
	"$BIN/analyze" summary "$SWEEP" --metric iterations --by scenario --format json -o "$OUT/iterations.json" ||
		die "analyze summary --metric iterations failed"
	"$BIN/analyze" plot "$SWEEP" --by concurrency --log --metric llm_ttft,llm_itl,llm_tpot,llm_e2e \
		-o "$OUT/ecdf.png" >"$OUT/plot.txt" 2>&1 || { cat "$OUT/plot.txt" >&2; die "analyze plot failed"; }

	# jq over analyze's JSON: stat NAME LEVEL FIELD
	stat_of() {
		jq -r --arg m "$1" --arg c "$2" --arg f "$3" '
			[.metrics[] | select(.name == $m) | .groups[] | select(.labels.concurrency == $c)] |
			if length != 1 then "missing" else .[0] |
				if ($f | startswith("p(")) then ([.percentiles[] | select(.name == $f) | .value] | .[0] // "missing")
				else (.[$f] // "missing") end end' "$OUT/summary.json"
	}
	for c in 1 "$CONCURRENCY"; do
		for m in llm_ttft llm_tpot llm_itl llm_e2e llm_requests_failed llm_output_tokens; do
			[[ $(stat_of "$m" "$c" count) =~ ^[1-9][0-9]*$ ]] || die "analyze summary: no $m samples at concurrency $c ($OUT/summary.json)"
		done
	done

	# Nothing lost: one llm_requests_failed sample per finished k6 iteration (one request
	# each) at each level, every planned request of the concurrent level ran, and the
	# helper served exactly these streams.
	iters_of() { jq -r --arg s "$1" '[.metrics[] | select(.name == "iterations") | .groups[] | select(.labels.scenario == $s) | .sum] | .[0] // 0' "$OUT/iterations.json"; }
	n1=$(stat_of llm_requests_failed 1 count)
	nN=$(stat_of llm_requests_failed "$CONCURRENCY" count)
	i1=$(iters_of c1)
	iN=$(iters_of "c$CONCURRENCY")
	((n1 == i1 && nN == iN)) || die "requests counted (llm_requests_failed) $n1 and $nN, k6 iterations $i1 and $iN: some requests were not counted"
	((nN == CONCURRENCY * SWEEP_ROUNDS)) || die "$nN requests at $CONCURRENCY streams, want $CONCURRENCY x $SWEEP_ROUNDS = $((CONCURRENCY * SWEEP_ROUNDS))"
	served=$(sed -n 's/^xk6-llmstream: helper served \([0-9]*\) stream.*/\1/p' "$OUT/k6.log" | tail -n 1)
	[[ $served == $((n1 + nN)) ]] || die "the helper served '${served}' streams, k6 counted $((n1 + nN)) requests"

	# Output tokens from usage, equal to max_tokens, for every single request.
	tokens=$(jq -r 'select(.type == "Point" and .metric == "llm_output_tokens") | "\(.data.value) \(.data.tags.token_source)"' "$SWEEP" | sort | uniq -c | awk '{$1 = $1; print}')
	[[ $tokens == "$((n1 + nN)) $MAX_TOKENS usage" ]] ||
		die "llm_output_tokens per request (count value token_source): '$tokens', want '$((n1 + nN)) $MAX_TOKENS usage'"

	# analyze check: the gate a CI job would run on this output.
	checks=(
		'llm_requests_failed: rate==0'
		'checks: rate==1'
		"llm_output_tokens{token_source:usage}: count==$(((n1 + nN) * MAX_TOKENS))"
		"llm_output_tokens: count==$(((n1 + nN) * MAX_TOKENS))"
	)
	for c in 1 "$CONCURRENCY"; do
		checks+=(
			"llm_ttft{concurrency:$c,model:$MODEL_NAME,api:openai-chat,status:200,error:\"\",token_source:usage}: min>0"
			"llm_tpot{concurrency:$c,token_source:usage}: min>0"
			"llm_e2e{concurrency:$c,token_source:usage}: min>0"
			"llm_itl{concurrency:$c,token_source:usage}: min>=0"
		)
	done
	check_args=()
	for c in "${checks[@]}"; do check_args+=(--check "$c"); done
	crc=0
	"$BIN/analyze" check "$SWEEP" "${check_args[@]}" >"$OUT/check.txt" 2>&1 || crc=$?
	sed 's/^/  /' "$OUT/check.txt" >&2
	((crc == 0)) || die "analyze check failed (exit $crc)"
	((k6rc == 0)) || die "k6 exited $k6rc; log: $OUT/k6.log"

	# ITL: at least max_tokens-2 gaps per request.
	for c in 1 "$CONCURRENCY"; do
		nreq=$(stat_of llm_requests_failed "$c" count)
		nitl=$(stat_of llm_itl "$c" count)
		((nitl >= nreq * (MAX_TOKENS - 2))) || die "$nitl llm_itl samples for $nreq requests at concurrency $c, want >= $((nreq * (MAX_TOKENS - 2)))"
	done

	# Tokens per second of a level: usage tokens / (first request start .. last answer).
	# A sample's time is when the module added it, at the end of its request; the
	# request started llm_e2e earlier.
	jq -r 'def epoch: capture("^(?<d>[0-9]+-[0-9]+-[0-9]+)T(?<h>[0-9]+):(?<m>[0-9]+):(?<s>[0-9.]+)(?<z>Z|[+-][0-9]+:[0-9]+)$") |
			((.d + "T00:00:00Z") | fromdateiso8601) + (.h | tonumber) * 3600 + (.m | tonumber) * 60 + (.s | tonumber) -
			(if .z == "Z" then 0 else ((.z[1:3] | tonumber) * 3600 + (.z[4:6] | tonumber) * 60) * (if .z[0:1] == "-" then -1 else 1 end) end);
		select(.type == "Point" and (.metric == "llm_e2e" or .metric == "llm_output_tokens")) |
		"\(.metric) \(.data.tags.concurrency) \(.data.time | epoch) \(.data.value)"' "$SWEEP" >"$TMP/level-times" ||
		die "cannot read the sample times of $SWEEP"
	tok_total() {
		awk -v c="$1" '$2 != c { next }
			$1 == "llm_e2e" { s = $3 - $4 / 1000; if (!n++ || s < lo) lo = s; if ($3 > hi) hi = $3 }
			$1 == "llm_output_tokens" { tok += $4 }
			END { if (hi > lo) printf "%.0f", tok / (hi - lo); else print "nan" }' "$TMP/level-times"
	}

	# Cross-check with the engine's own clock: ollama logs each request's handler time
	# (gin: "| 200 | 107.874857ms | 127.0.0.1 | POST "/v1/chat/completions""). The
	# single-stream requests ran one at a time and first, so the i-th logged request is
	# the i-th llm_e2e sample of that level. Printed, not asserted (a timing).
	tail -n "+$((server_lines + 1))" "$SERVER_LOG" | awk -F'|' '/^\[GIN\]/ && /POST +"\/v1\/chat\/completions"/ {
			d = $3; gsub(/ /, "", d); v = 0
			if (d ~ /m[0-9]/) { split(d, a, "m"); v = a[1] * 60000; d = a[2] }
			if (d ~ /ns$/) v += d / 1e6; else if (d ~ /(µs|us)$/) v += d / 1e3; else if (d ~ /ms$/) v += d + 0; else v += d * 1000
			print v }' | head -n "$n1" >"$TMP/server-c1"
	awk '$1 == "llm_e2e" && $2 == "1" { print $4 }' "$TMP/level-times" >"$TMP/client-c1"
	if [[ $(wc -l <"$TMP/server-c1") == "$n1" && $(wc -l <"$TMP/client-c1") == "$n1" ]]; then
		e2e_vs_server=$(paste "$TMP/client-c1" "$TMP/server-c1" | awk '{ print $1 - $2 }' | sort -g | awk '{ v[NR] = $1 } END {
			r = 0.5 * (NR - 1); lo = int(r); m = v[lo + 1] + (r - lo) * (v[lo + 2 <= NR ? lo + 2 : lo + 1] - v[lo + 1])
			printf "llm_e2e minus ollama'"'"'s own logged request time, per request at 1 stream: p50 %.3f ms, min %.3f ms, max %.3f ms (%d requests)", m, v[1], v[NR], NR }')
	else
		e2e_vs_server="(ollama's log holds $(wc -l <"$TMP/server-c1") single-stream requests for $n1 llm_e2e samples: no cross-check)"
	fi

	ttft1=$(stat_of llm_ttft 1 'p(50)')
	ttftN=$(stat_of llm_ttft "$CONCURRENCY" 'p(50)')
	echo
	echo "xk6-llmstream against ollama $OLLAMA_VERSION, model $MODEL_NAME, max_tokens=$MAX_TOKENS, OLLAMA_NUM_PARALLEL=$NUM_PARALLEL"
	echo "$K6_VERSION through xk6-llmstream run (helper timings via llmstream.js, ms; analyze summary --by concurrency)"
	echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); sweep took ${k6_wall} s"
	printf '%-12s %8s %10s %10s %9s %9s %9s %12s %12s\n' level requests "TTFT p50" "TTFT p99" "ITL p50" "ITL p99" "TPOT p50" "tok/s/strm" "tok/s total"
	for c in 1 "$CONCURRENCY"; do
		printf '%-12s %8s %10.1f %10.1f %9.2f %9.2f %9.2f %12.0f %12s\n' "$c stream(s)" \
			"$(stat_of llm_requests_failed "$c" count)" \
			"$(stat_of llm_ttft "$c" 'p(50)')" "$(stat_of llm_ttft "$c" 'p(99)')" \
			"$(stat_of llm_itl "$c" 'p(50)')" "$(stat_of llm_itl "$c" 'p(99)')" \
			"$(stat_of llm_tpot "$c" 'p(50)')" "$(awk -v t="$(stat_of llm_tpot "$c" 'p(50)')" 'BEGIN { print 1000 / t }')" \
			"$(tok_total "$c")"
	done
	echo "(1 stream: constant for ${SWEEP_SECONDS} s; $CONCURRENCY streams: $SWEEP_ROUNDS request(s) each; every request ok,"
	echo " output tokens from usage = max_tokens; tok/s/strm = 1000 / TPOT p50; tok/s total = usage tokens / level wall time)"
	echo "$e2e_vs_server"
	echo "ECDFs (analyze plot --by concurrency --log):"
	sed -n 's/^wrote /  /p' "$OUT/plot.txt"
	echo "tables: $OUT/summary.txt   k6 output: $SWEEP"

	if ((CONCURRENCY > NUM_PARALLEL)); then
		awk -v a="$ttftN" -v b="$ttft1" -v r="$MIN_QUEUE_RATIO" 'BEGIN { exit !(a >= r * b) }' ||
			die "TTFT p50 at $CONCURRENCY streams ($(printf '%.1f' "$ttftN") ms) is not $MIN_QUEUE_RATIO x TTFT p50 at 1 stream ($(printf '%.1f' "$ttft1") ms): no queueing seen in k6's output"
		log "queueing seen by k6: TTFT p50 $(printf '%.1f' "$ttft1") ms at 1 stream -> $(printf '%.1f' "$ttftN") ms at $CONCURRENCY streams ($(awk -v a="$ttftN" -v b="$ttft1" 'BEGIN { printf "%.0f", a / b }')x, want >= ${MIN_QUEUE_RATIO}x)"
	else
		log "no queueing assertion: E2E_CONCURRENCY=$CONCURRENCY streams fit in E2E_NUM_PARALLEL=$NUM_PARALLEL slots"
	fi

	serve_sweep
fi

log "PASS in $SECONDS s; results in $OUT"
