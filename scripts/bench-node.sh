#!/usr/bin/env bash
# make bench-node: one dht node against the bare one-nio server (the HTTP ceiling of this machine), load
# generators on the same machine. Writes docs/benchmarks/node.json, node.md and flamegraphs.
#
#   1. wrk (closed model, 2 threads, 64 connections): PUT of unique keys, then GET over the filled keys;
#      the same against the bare server; node/ceiling ratios.
#   2. oha (open model, --latency-correction) at 70% of the node's measured max, node and bare server at the
#      same rate: p50/p90/p99/p99.9/max and the node/bare p99 ratio. cpu and alloc flamegraphs of the node
#      are taken through its own /v0/admin/profile endpoint during these runs.
#   3. the same oha runs at a reference rate (BENCH_REFERENCE_RATE, 20k/s) that this machine sustains with the
#      load generator beside the server, for a latency ratio node/bare that is not about CPU starvation.
#   4. k6 (constant-arrival-rate) at the same 70% rate: latency, errors and dropped iterations (k6 tops out
#      near 8-10k rps on 2 cores; whatever it could not start shows up as dropped iterations).
#
# Environment (defaults give the committed figures):
#   BENCH_DURATION=30     seconds per measured run      BENCH_WARMUP=10   seconds of warm-up per server
#   BENCH_THREADS=2       wrk threads                   BENCH_CONNECTIONS=64
#   BENCH_LOAD_FRACTION=0.7   BENCH_REFERENCE_RATE=20000
#   BENCH_NODE_ARGS="--block-cache 1GiB"   node options. The GET run reads uniformly over everything the PUT run
#                         wrote (~2-3M keys, ~300-400 MB uncompressed): the cache is sized to that working set, as
#                         in production (with the 64 MiB default most reads need the disk and go to the workers).
#   BENCH_JAVA_OPTS       JVM options of both servers   BENCH_OUT=docs/benchmarks
#   BENCH_NODE_PORT=18080 BENCH_BARE_PORT=18090         BENCH_LABEL       free text stored with the results
. "$(dirname "$0")/lib.sh"

DURATION=${BENCH_DURATION:-30}
WARMUP=${BENCH_WARMUP:-10}
THREADS=${BENCH_THREADS:-2}
CONNS=${BENCH_CONNECTIONS:-64}
FRACTION=${BENCH_LOAD_FRACTION:-0.7}
REFERENCE_RATE=${BENCH_REFERENCE_RATE:-20000}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
NODE_PORT=${BENCH_NODE_PORT:-18080}
BARE_PORT=${BENCH_BARE_PORT:-18090}
NODE_ARGS=${BENCH_NODE_ARGS---block-cache 1GiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints}
LABEL=${BENCH_LABEL:-}

JAR="$DHT_ROOT/node/target/dht-node.jar"
BENCH_JAR="$DHT_ROOT/bench/target/dht-bench.jar" # BareServer: benchmark code is not in the node's jar
for j in "$JAR" "$BENCH_JAR"; do
  [ -f "$j" ] || die "$j is missing: run 'make bench-node' (it builds the jars) or 'make build'"
done
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
JAVA="$JAVA_HOME/bin/java"
mapfile -t JAVA_FLAGS < <(node_jdk_flags "$JAVA")
# shellcheck disable=SC2206
JAVA_FLAGS+=($JAVA_OPTS)

WRK=$("$DHT_ROOT/scripts/tool.sh" wrk)
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
K6=$("$DHT_ROOT/scripts/tool.sh" k6)
PY=$("$DHT_ROOT/scripts/venv.sh")  # python with the reports' plotting library (matplotlib)
command -v curl >/dev/null || die "curl is needed"

for port in "$NODE_PORT" "$BARE_PORT"; do
  if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then die "port $port is in use"; fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-node.XXXXXX")
RAW="$WORK/raw"
mkdir -p "$RAW" "$OUT"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK/data"
}
trap cleanup EXIT

# --- the machine, before anything runs -----------------------------------------------------------------
settle_load
read -r load1 load5 load15 _ < /proc/loadavg
log "load before: $load1 $load5 $load15 (nproc $(nproc))"
if awk "BEGIN {exit !($load1 > 1.0)}"; then
  log "warning: the machine is busy (load $load1): figures will be distorted; re-run on a quiet machine"
fi
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load_before=$load1 $load5 $load15"
  echo "nproc=$(nproc)"
  echo "cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
  echo "kernel=$(uname -r)"
  echo "glibc=$(ldd --version 2>/dev/null | head -1 | sed 's/.* //')"
  echo "java=$("$JAVA" -version 2>&1 | head -1)"
  echo "commit=$(git -C "$DHT_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "dirty=$(git -C "$DHT_ROOT" status --porcelain -- node scripts k6 2>/dev/null | wc -l)"
  echo "wrk=$("$WRK" -v 2>&1 | head -1)"
  echo "oha=$("$OHA" --version 2>&1 | head -1)"
  echo "k6=$("$K6" version 2>&1 | head -1)"
  echo "duration=$DURATION"
  echo "warmup=$WARMUP"
  echo "threads=$THREADS"
  echo "connections=$CONNS"
  echo "fraction=$FRACTION"
  echo "reference_rate=$REFERENCE_RATE"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"
  echo "label=$LABEL"
} > "$RAW/env.txt"

# --- servers ---------------------------------------------------------------------------------------------
"$JAVA" "${JAVA_FLAGS[@]}" -cp "$BENCH_JAR:$JAR" dev.dht.bench.BareServer "$BARE_PORT" > "$WORK/bare.log" 2>&1 &
bare_pid=$!; pids+=("$bare_pid")
# shellcheck disable=SC2086
"$JAVA" "${JAVA_FLAGS[@]}" -jar "$JAR" --port "$NODE_PORT" --data-dir "$WORK/data" $NODE_ARGS \
  > "$WORK/node.log" 2>&1 &
node_pid=$!; pids+=("$node_pid")
await_http "$BARE_PORT" / "$bare_pid" "$WORK/bare.log"
await_http "$NODE_PORT" /v0/status "$node_pid" "$WORK/node.log"
NODE="http://127.0.0.1:$NODE_PORT"
BARE="http://127.0.0.1:$BARE_PORT"
S="$DHT_ROOT/scripts/bench"

wrk_run() { # wrk_run NAME URL SECONDS SCRIPT [args...]
  local name=$1 url=$2 secs=$3 script=$4; shift 4
  log "wrk $name (${secs}s)"
  "$WRK" -t"$THREADS" -c"$CONNS" -d"${secs}s" --latency -s "$S/$script" "$url" -- "$@" > "$RAW/wrk-$name.txt" 2>&1
}

# --- 1. closed model: maximum throughput -------------------------------------------------------------------
wrk_run warmup-bare-put "$BARE" "$WARMUP" wrk-put.lua w
wrk_run warmup-node-put "$NODE" "$WARMUP" wrk-put.lua w
wrk_run bare-put "$BARE" "$DURATION" wrk-put.lua t
wrk_run node-put "$NODE" "$DURATION" wrk-put.lua t
keys=$(sed -n 's/^KEYS_PER_THREAD //p' "$RAW/wrk-node-put.txt")
[ -n "$keys" ] || die "the PUT run reported no keys (see $RAW/wrk-node-put.txt)"
# The last request of each connection may not have completed when wrk stopped: stay clear of those keys.
keys=$((keys - CONNS))
echo "keys_per_thread=$keys" >> "$RAW/env.txt"
wrk_run warmup-bare-get "$BARE" $(((WARMUP + 1) / 2)) wrk-get.lua "$THREADS" "$keys"
wrk_run warmup-node-get "$NODE" $(((WARMUP + 1) / 2)) wrk-get.lua "$THREADS" "$keys"
wrk_run bare-get "$BARE" "$DURATION" wrk-get.lua "$THREADS" "$keys"
wrk_run node-get "$NODE" "$DURATION" wrk-get.lua "$THREADS" "$keys"

rps() { sed -n 's/^Requests\/sec: *//p' "$RAW/wrk-$1.txt"; }
rate_put=$(awk -v r="$(rps node-put)" -v f="$FRACTION" 'BEGIN {printf "%d", r * f}')
rate_get=$(awk -v r="$(rps node-get)" -v f="$FRACTION" 'BEGIN {printf "%d", r * f}')
echo "rate_put=$rate_put" >> "$RAW/env.txt"
echo "rate_get=$rate_get" >> "$RAW/env.txt"
log "node max: PUT $(rps node-put)/s, GET $(rps node-get)/s -> fixed rates PUT $rate_put/s, GET $rate_get/s"

# GET URLs for oha: keys n in [10^(d-1), 10^d) of each writer thread (t<thread>-<n, 10 digits>), the largest
# such block below the keys written. (n = 0 is avoided: wrk drops the very first request it generates.)
digits=${#keys}; digits=$((digits - 1)); [ "$digits" -ge 2 ] || die "too few keys written ($keys) for the GET runs"
zeros=$(printf '0%.0s' $(seq $((10 - digits))))
get_regex="/v0/entity\\?id=t[0-$((THREADS - 1))]-${zeros}[1-9][0-9]{$((digits - 1))}"
echo "get_regex=$get_regex" >> "$RAW/env.txt"

# --- 2. open model at a fixed rate (oha), with flamegraphs ---------------------------------------------------
profile() { # profile NAME EVENT SECONDS FORMAT   (cpu sampled every 1 ms of CPU time, alloc every 512 KiB)
  local interval=""
  [ "$2" = cpu ] && interval="&interval=1ms"
  curl -s -o "$RAW/profile-$1.$([ "$4" = html ] && echo html || echo txt)" -w "%{http_code}" \
    "$NODE/v0/admin/profile?event=$2&duration=${3}s&format=$4$interval" > "$RAW/profile-$1.status"
}
oha_run() { # oha_run NAME RATE METHOD URL-REGEX [profile-prefix]
  local name=$1 rate=$2 method=$3 url=$4 prof=${5:-}
  local body=()
  [ "$method" = PUT ] && body=(-d 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789)
  log "oha $name at $rate/s (${DURATION}s)"
  "$OHA" -z "${DURATION}s" -q "$rate" --latency-correction -c "$CONNS" --no-tui --output-format json \
    -m "$method" "${body[@]}" --rand-regex-url "$url" > "$RAW/oha-$name.json" 2> "$RAW/oha-$name.err" &
  local oha_pid=$!
  if [ -n "$prof" ]; then
    # three back-to-back captures inside the run: cpu (HTML), alloc (HTML), cpu (collapsed, for the report)
    local p=$(((DURATION - 4) / 3)); [ "$p" -ge 1 ] || p=1
    sleep 2
    profile "$prof-cpu" cpu "$p" html
    profile "$prof-alloc" alloc "$p" html
    profile "$prof-cpu-collapsed" cpu "$p" collapsed
  fi
  wait "$oha_pid" || log "oha $name exited with $?"
}
oha_run node-put "$rate_put" PUT "$NODE/v0/entity\\?id=o[0-9a-f]{16}" node-put
oha_run bare-put "$rate_put" PUT "$BARE/v0/entity\\?id=o[0-9a-f]{16}"
oha_run node-get "$rate_get" GET "$NODE$get_regex" node-get
oha_run bare-get "$rate_get" GET "$BARE$get_regex"

# --- 3. the reference rate: node vs bare where neither starves for CPU ------------------------------------------
oha_run node-put-ref "$REFERENCE_RATE" PUT "$NODE/v0/entity\\?id=r[0-9a-f]{16}"
oha_run bare-put-ref "$REFERENCE_RATE" PUT "$BARE/v0/entity\\?id=r[0-9a-f]{16}"
oha_run node-get-ref "$REFERENCE_RATE" GET "$NODE$get_regex"
oha_run bare-get-ref "$REFERENCE_RATE" GET "$BARE$get_regex"

# --- 4. k6 at the same fixed rates ----------------------------------------------------------------------------
k6_run() { # k6_run NAME MODE RATE
  log "k6 $1 at $3/s (${DURATION}s)"
  BASE_URL="$NODE" MODE=$2 RATE=$3 DURATION="${DURATION}s" KEY_PREFIX="k6-$1-" KEY_THREADS="$THREADS" \
    KEYS_PER_THREAD="$keys" SUMMARY="$RAW/k6-$1.json" \
    "$K6" run --quiet --no-usage-report "$DHT_ROOT/k6/bench-node.js" > "$RAW/k6-$1.txt" 2>&1 \
    || log "k6 $1 exited with $? (thresholds are not used; see $RAW/k6-$1.txt)"
}
k6_run node-put put "$rate_put"
k6_run node-get get "$rate_get"

curl -s "$NODE/metrics" > "$RAW/node-metrics.txt"
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"
cp "$WORK/node.log" "$RAW/node.log"
# read at the end: the node logs it after it starts serving, so a check right after start could miss it
grep -q "sockets: JDK NIO" "$RAW/node.log" && echo "onenio_native=false" >> "$RAW/env.txt" \
  || echo "onenio_native=true" >> "$RAW/env.txt"

"$PY" "$S/node-report.py" "$RAW" "$OUT"
log "report: $OUT/node.md (raw outputs in $RAW)"
