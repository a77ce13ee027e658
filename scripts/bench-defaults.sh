#!/usr/bin/env bash
# bench-defaults.sh [node] [cluster]: the node as a user starts it (`java -jar dht-node.jar`, no JVM options, no
# node options) against the bare one-nio server, in one run. The tuned runs (bench-node.sh, bench-cluster.sh) show
# what the node can do; this shows what users get. Writes docs/benchmarks/defaults-<part>.json and defaults.md.
#
#   node:    1. oha at a fixed rate (BENCH_RATE, 20k/s), 64 connections, --latency-correction, ids drawn from
#               ~20k keys (PUTs overwrite), after a warm-up: node and bare server in alternating rounds
#               (BENCH_ROUNDS x BENCH_ROUND seconds each), percentiles pooled over the rounds; p99 and p99.9
#               node/bare ratios. Rounds alternate because this VM's neighbours move a single run's p99 by 2x.
#               The warm-up sends PUTs at the rate with GETs at a quarter of it beside them, in 5-s steps until
#               the node's first memtable flush and one step more (at most BENCH_WARMUP_MAX seconds), then the
#               same number of steps to the bare server. Without it the rounds measured the JIT, not the node:
#               C2 compiles the request path for the traffic it has seen, so the first GETs after PUT-only traffic,
#               and the first write after a flush (the key's last version now in an SST), deoptimize it and the
#               node runs interpreted code for a second or more (p99 57-195 ms in such a round, 4-10 ms after a
#               warm-up). Recurring events (later flushes, compactions, GC) stay inside the rounds. The first step
#               is kept as its own row: what a user sees in the seconds after starting a node.
#            2. wrk 2 threads x 64 connections: PUT of unique keys, then GET over them; node/bare throughput.
#   cluster: 3. three nodes at replicas=2/3 with every wrk connection on ONE node (a client that knows one address),
#               then spread over the three, against one node, PUT then GET; cluster/one-node ratios.
#
# Environment: BENCH_RATE=20000 BENCH_ROUNDS=3 BENCH_ROUND=10 BENCH_WARMUP_MAX=60 BENCH_DURATION=20 (wrk runs)
#              BENCH_OUT=docs/benchmarks BENCH_BASE_PORT=18400 (uses it and the next five)
. "$(dirname "$0")/lib.sh"

PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(node cluster)
for p in "${PARTS[@]}"; do
  case "$p" in node|cluster) ;; *) die "unknown part '$p' (node, cluster)" ;; esac
done
RATE=${BENCH_RATE:-20000}
ROUNDS=${BENCH_ROUNDS:-3}
ROUND=${BENCH_ROUND:-10}
WARMUP_MAX=${BENCH_WARMUP_MAX:-60}
STEP=5 # seconds per warm-up step
DURATION=${BENCH_DURATION:-20}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
BASE=${BENCH_BASE_PORT:-18400}
CONNS=64
KEYS='k[0-9]{4}[01]' # 20000 ids: at 20k PUT/s every key is overwritten about once a second

JAR="$DHT_ROOT/node/target/dht-node.jar"
BENCH_JAR="$DHT_ROOT/bench/target/dht-bench.jar"
[ -f "$JAR" ] || die "$JAR is missing: run 'make bench-defaults' (it builds the jars)"
if [[ " ${PARTS[*]} " == *" node "* ]]; then # the bare server: benchmark code is not in the node's jar
  [ -f "$BENCH_JAR" ] || die "$BENCH_JAR is missing: run 'make bench-defaults' (it builds the jars)"
fi
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
JAVA="$JAVA_HOME/bin/java"
# What scripts/run-local.sh adds on JDK 23+, nothing else: the JVM's own defaults (heap, GC) are part of the point.
mapfile -t JAVA_FLAGS < <(node_jdk_flags "$JAVA")
WRK=$("$DHT_ROOT/scripts/tool.sh" wrk)
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
command -v curl >/dev/null || die "curl is needed"
for port in $(seq "$BASE" $((BASE + 5))); do
  if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then die "port $port is in use"; fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-defaults.XXXXXX")
pids=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap 'stop_all; rm -rf "$WORK"/data-*' EXIT # raw outputs and logs stay for a look (like the other benchmarks)
mkdir -p "$OUT"
S="$DHT_ROOT/scripts/bench"

start_bare() { # start_bare PORT
  "$JAVA" "${JAVA_FLAGS[@]}" -cp "$BENCH_JAR:$JAR" dev.dht.bench.BareServer "$1" > "$WORK/bare-$1.log" 2>&1 &
  pids+=($!); await_http "$1" / $! "$WORK/bare-$1.log"
}
start_node() { # start_node PORT [options...]   (exactly what a user types, plus port and data directory)
  local port=$1; shift
  "$JAVA" "${JAVA_FLAGS[@]}" -jar "$JAR" --port "$port" --data-dir "$WORK/data-$port" "$@" \
    > "$WORK/node-$port.log" 2>&1 &
  pids+=($!); await_http "$port" / $! "$WORK/node-$port.log"
}
env_file() { # env_file FILE: the machine and the run's settings
  local load1 load5 load15
  read -r load1 load5 load15 _ < /proc/loadavg
  {
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "load_before=$load1 $load5 $load15"
    echo "nproc=$(nproc)"
    echo "memory_kib=$(awk '/MemTotal/{print $2}' /proc/meminfo)"
    echo "cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
    echo "java=$("$JAVA" -version 2>&1 | head -1)"
    echo "commit=$(git -C "$DHT_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "dirty=$(git -C "$DHT_ROOT" status --porcelain -- node scripts 2>/dev/null | wc -l)"
    echo "wrk=$("$WRK" -v 2>&1 | head -1)"
    echo "oha=$("$OHA" --version 2>&1 | head -1)"
    echo "rate=$RATE"; echo "rounds=$ROUNDS"; echo "round=$ROUND"; echo "warmup_max=$WARMUP_MAX"; echo "warmup_step=$STEP"; echo "duration=$DURATION"
    echo "block_cache_default=$("$JAVA" "${JAVA_FLAGS[@]}" -jar "$JAR" --help 2>&1 | sed -n 's/.*env DHT_BLOCK_CACHE, default: //p')"
  } > "$1"
}
steal() { awk '/^cpu /{print $9}' /proc/stat; }
BODY=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
oha_run() { # oha_run OUT.csv SECONDS METHOD PORT [RATE]
  "$OHA" -z "${2}s" -q "${5:-$RATE}" --latency-correction -c "$CONNS" --no-tui --output-format csv -m "$3" -d "$BODY" \
    --rand-regex-url "http://127.0.0.1:$4/v0/entity\\?id=$KEYS" > "$1" 2> "$1.err" || log "oha exited with $? ($1)"
}
wrk_run() { # wrk_run OUT.txt PORTS REPLICAS SCRIPT [args...]   (BENCH_PORTS: wrk thread i -> port i mod n)
  local out=$1; export BENCH_PORTS=$2 BENCH_REPLICAS=$3; shift 3
  log "wrk $(basename "$out" .txt) (${DURATION}s)"
  "$WRK" -t2 -c"$CONNS" -d"${DURATION}s" --latency -s "$S/$1" "http://127.0.0.1:${BENCH_PORTS%%,*}" -- "${@:2}" \
    > "$out" 2>&1
}
warm_step() { # warm_step OUT-PREFIX PORT: one warm-up step, PUTs at the rate and GETs at a quarter of it together
  local put get
  oha_run "$1-put.csv" "$STEP" PUT "$2" & put=$!
  oha_run "$1-get.csv" "$STEP" GET "$2" $((RATE / 4)) & get=$!
  wait "$put" "$get"
}
flushed() { compgen -G "$1/*.sst" > /dev/null; } # flushed DATA-DIR: RocksDB wrote its first SST file
profile_during() { # profile_during PORT OUT SECONDS: a cpu profile (collapsed stacks) of that node, in the background
  (sleep 2; curl -s -o "$2" "http://127.0.0.1:$1/v0/admin/profile?event=cpu&duration=${3}s&format=collapsed&interval=1ms" \
    || log "profile of port $1 failed") &
}
keys_of() { # keys written per wrk thread, minus the requests possibly in flight when wrk stopped
  local k; k=$(sed -n 's/^KEYS_PER_THREAD //p' "$1")
  [ -n "$k" ] || die "the PUT run reported no keys (see $1)"
  echo $((k - CONNS))
}

node_part() {
  local raw="$WORK/node" bare=$BASE node=$((BASE + 1)) m r s0
  mkdir -p "$raw"
  settle_load
  env_file "$raw/env.txt"
  s0=$(steal)
  start_bare "$bare"
  start_node "$node"
  # 1. fixed rate, overwrites, alternating rounds after the warm-up (see the header for why)
  local steps=0 flush_step=0
  while [ $((steps * STEP)) -lt "$WARMUP_MAX" ]; do
    steps=$((steps + 1))
    log "warm-up step $steps of the node: ${STEP}s of PUT at $RATE/s and GET at $((RATE / 4))/s"
    warm_step "$raw/warmup-$steps-node" "$node"
    if [ "$flush_step" -gt 0 ]; then break; fi
    if flushed "$WORK/data-$node"; then flush_step=$steps; fi
  done
  [ "$flush_step" -gt 0 ] || log "the node did not flush its memtable within ${WARMUP_MAX}s of warm-up"
  for r in $(seq "$steps"); do
    log "warm-up step $r/$steps of the bare server"
    warm_step "$raw/warmup-$r-bare" "$bare"
  done
  { echo "warmup_steps=$steps"; echo "warmup_flush_step=$flush_step"; } >> "$raw/env.txt"
  find "$raw" -name 'warmup-*.csv' ! -name 'warmup-1-*' -delete # the first step is reported; the rest is large
  for m in PUT GET; do
    for r in $(seq "$ROUNDS"); do
      log "oha $m round $r/$ROUNDS: node then bare, ${ROUND}s each at $RATE/s"
      oha_run "$raw/oha-$m-$r-node.csv" "$ROUND" "$m" "$node"
      oha_run "$raw/oha-$m-$r-bare.csv" "$ROUND" "$m" "$bare"
    done
  done
  # where the node's CPU goes at the fixed rate: one more round each, profiled, not counted in the figures above
  for m in PUT GET; do
    log "oha $m profiled round (not counted)"
    profile_during "$node" "$raw/profile-$m-cpu-collapsed.txt" $((ROUND > 4 ? ROUND - 3 : 1))
    oha_run "$raw/profiled-$m.csv" "$ROUND" "$m" "$node"
    wait $!
  done
  # 2. closed model
  wrk_run "$raw/wrk-put-node.txt" "$node" "" wrk-put.lua t
  wrk_run "$raw/wrk-put-bare.txt" "$bare" "" wrk-put.lua t
  wrk_run "$raw/wrk-get-node.txt" "$node" "" wrk-get.lua 2 "$(keys_of "$raw/wrk-put-node.txt")"
  wrk_run "$raw/wrk-get-bare.txt" "$bare" "" wrk-get.lua 2 "$(keys_of "$raw/wrk-put-bare.txt")"
  curl -s "http://127.0.0.1:$node/metrics" > "$raw/node-metrics.txt"
  stop_all
  cp "$WORK/node-$node.log" "$raw/node.log"
  { read -r l1 l5 l15 _ < /proc/loadavg; echo "load_after=$l1 $l5 $l15"; echo "steal_ticks=$(( $(steal) - s0 ))"; } \
    >> "$raw/env.txt"
  "$PY" "$S/defaults-report.py" node "$raw" "$OUT"
}

cluster_part() {
  local raw="$WORK/cluster" one=$((BASE + 2)) c0=$((BASE + 3)) i s0 members=() keys
  mkdir -p "$raw"
  settle_load
  env_file "$raw/env.txt"
  s0=$(steal)
  for i in 0 1 2; do members+=("http://127.0.0.1:$((c0 + i))"); done
  local cluster; cluster=$(IFS=,; echo "${members[*]}")
  start_node "$one"
  for i in 0 1 2; do start_node $((c0 + i)) --cluster "$cluster"; done
  local spread="$c0,$((c0 + 1)),$((c0 + 2))"
  # warm-up: the JIT of every process, then the measured runs; the GETs read the keys the one-entry PUT wrote
  DURATION=5 wrk_run "$raw/warmup-one.txt" "$one" "" wrk-cluster-put.lua w
  DURATION=5 wrk_run "$raw/warmup-cluster.txt" "$spread" 2/3 wrk-cluster-put.lua w
  wrk_run "$raw/wrk-put-single.txt" "$one" "" wrk-cluster-put.lua t
  wrk_run "$raw/wrk-put-one-entry.txt" "$c0" 2/3 wrk-cluster-put.lua t
  wrk_run "$raw/wrk-put-spread.txt" "$spread" 2/3 wrk-cluster-put.lua s
  wrk_run "$raw/wrk-get-single.txt" "$one" "" wrk-cluster-get.lua 2 "$(keys_of "$raw/wrk-put-single.txt")"
  keys=$(keys_of "$raw/wrk-put-one-entry.txt")
  wrk_run "$raw/wrk-get-one-entry.txt" "$c0" 2/3 wrk-cluster-get.lua 2 "$keys"
  wrk_run "$raw/wrk-get-spread.txt" "$spread" 2/3 wrk-cluster-get.lua 2 "$keys"
  # where the entry node's CPU goes: one more short run of each, profiled, not counted in the figures above
  local full=$DURATION
  DURATION=12
  profile_during "$c0" "$raw/profile-put-cpu-collapsed.txt" 8
  wrk_run "$raw/profiled-put.txt" "$c0" 2/3 wrk-cluster-put.lua p
  wait $!
  profile_during "$c0" "$raw/profile-get-cpu-collapsed.txt" 8
  wrk_run "$raw/profiled-get.txt" "$c0" 2/3 wrk-cluster-get.lua 2 "$keys"
  wait $!
  DURATION=$full
  for i in 0 1 2; do curl -s "http://127.0.0.1:$((c0 + i))/metrics" > "$raw/node$i-metrics.txt"; done
  stop_all
  { read -r l1 l5 l15 _ < /proc/loadavg; echo "load_after=$l1 $l5 $l15"; echo "steal_ticks=$(( $(steal) - s0 ))"; } \
    >> "$raw/env.txt"
  "$PY" "$S/defaults-report.py" cluster "$raw" "$OUT"
}

PY=$("$DHT_ROOT/scripts/venv.sh") # the profile breakdown is node-report.py's, which plots with matplotlib
for p in "${PARTS[@]}"; do "${p}_part"; done
"$PY" "$S/defaults-report.py" render "$OUT"
log "report: $OUT/defaults.md (raw outputs and logs in $WORK)"
