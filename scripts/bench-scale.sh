#!/usr/bin/env bash
# make bench-scale: what moving data costs while serving. Writes docs/benchmarks/scale.json and scale.md.
#
#   1. three nodes on one cluster file (--replication-factor 3), preloaded with BENCH_KEYS PUTs at 2/3 on ids drawn
#      from a space of 10^BENCH_KEY_DIGITS (oha, closed model);
#   2. a fixed-rate load (oha, open model, --latency-correction): PUTs of new keys and GETs of preloaded ids at
#      2/3, BENCH_RATE req/s in all, half each, spread over the three nodes, running through everything below;
#   3. BENCH_PHASE seconds of load alone; then the file lists five and two nodes start; once every node reports
#      idle with five members, BENCH_PHASE seconds; then the file lists three; once all five report idle with three
#      members the two extra nodes stop; BENCH_PHASE seconds;
#   4. the report: for each step, records and bytes moved, the move's duration (file change -> all idle) and its
#      streaming part (first to last batch sent), keys/s and MB/s while streaming; the load's p50/p99/p99.9 before,
#      during and after each step, from oha's per-request CSV (every request, classified by when it started).
#
# Environment (defaults give the committed figures):
#   BENCH_KEYS=1000000  BENCH_KEY_DIGITS=6   BENCH_RATE=1000   BENCH_PHASE=30 seconds   BENCH_MOVE_TIMEOUT=600 s
#   BENCH_NODE_ARGS="--replication-factor 3 --block-cache 256MiB"  options of every node (add --move-rate etc.)
#   BENCH_JAVA_OPTS="-Xms512m -Xmx512m"   BENCH_OUT=docs/benchmarks   BENCH_LABEL free text
#   BENCH_PORT=18200 (the nodes use it and the next four)
. "$(dirname "$0")/lib.sh"

KEYS=${BENCH_KEYS:-1000000}
DIGITS=${BENCH_KEY_DIGITS:-6}
RATE=${BENCH_RATE:-1000}
PHASE=${BENCH_PHASE:-30}
MOVE_TIMEOUT=${BENCH_MOVE_TIMEOUT:-600}
PORT=${BENCH_PORT:-18200}
NODE_ARGS=${BENCH_NODE_ARGS---replication-factor 3 --block-cache 256MiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms512m -Xmx512m}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
LABEL=${BENCH_LABEL:-}
REPLICAS=2/3

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-scale
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
command -v python3 >/dev/null || die "python3 is needed to watch the moves and write the report"
PY=$("$DHT_ROOT/scripts/venv.sh")  # python with the reports' plotting library (matplotlib), made before the run
command -v curl >/dev/null || die "curl is needed"
S="$DHT_ROOT/scripts/bench"

ports_free $(seq "$PORT" $((PORT + 4)))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-scale.XXXXXX")
RAW="$WORK/raw"
mkdir -p "$RAW" "$OUT"
cleanup() {
  stop_pids "${load_pids[@]}" "${node_pids[@]}"
  rm -rf "$WORK/data"
}
trap cleanup EXIT

settle_load
read -r load1 load5 load15 _ < /proc/loadavg
log "load before: $load1 $load5 $load15 (nproc $(nproc))"
{
  machine_env "$load1 $load5 $load15"
  echo "oha=$("$OHA" --version 2>&1 | head -1)"
  echo "keys=$KEYS"
  echo "key_digits=$DIGITS"
  echo "rate=$RATE"
  echo "phase=$PHASE"
  echo "replicas=$REPLICAS"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"
  echo "label=$LABEL"
} > "$RAW/env.txt"
steal_start=$(cpu_steal_sample)

# --- the nodes ------------------------------------------------------------------------------------------------
members() { # members N: the cluster file's content for the first N nodes
  local i; for ((i = 0; i < $1; i++)); do url "$i"; done
}
set_members() { # set_members N: rewrite the file atomically, as the kubelet swaps a ConfigMap
  members "$1" > "$WORK/members.tmp" && mv "$WORK/members.tmp" "$WORK/members"
}
start_node() { # start_node I
  launch_node "$1" "$WORK/node$1.log" --cluster-file "$WORK/members" --self "$(url "$1")"
  await_node "$1" "$WORK/node$1.log"
}
watch_until_idle() { # watch_until_idle NAME MEMBERS NODES...: samples movement until all are idle with the first MEMBERS
  local name=$1 n=$2; shift 2
  local urls=() i
  for i in "$@"; do urls+=("$(url "$i")"); done
  python3 "$S/scale-watch.py" "$RAW/watch-$name.jsonl" "$MOVE_TIMEOUT" "$(members "$n" | paste -sd, -)" \
    "${urls[@]}" || die "the move $name did not end within ${MOVE_TIMEOUT}s (logs in $WORK)"
}

set_members 3
for i in 0 1 2; do start_node "$i"; done
await_rebuilt 0 1 2 # every node has decided the cluster is new before the preload writes
watch_until_idle start 3 0 1 2

# --- 1. preload ----------------------------------------------------------------------------------------------
value=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
connect_to=()
for i in 0 1 2; do connect_to+=(--connect-to "127.0.0.1:$PORT:127.0.0.1:$((PORT + i))"); done
log "preloading $KEYS PUTs at $REPLICAS on ids k[0-9]{$DIGITS}"
"$OHA" -n "$KEYS" -c 48 --no-tui --output-format json "${connect_to[@]}" -m PUT -d "$value" \
  --rand-regex-url "$(url 0)/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" > "$RAW/oha-preload.json" \
  2> "$RAW/oha-preload.err" || die "preload failed (see $RAW/oha-preload.err)"
await_compactions 0 1 2
for i in 0 1 2; do curl -s "$(url "$i")/metrics" > "$RAW/node$i-metrics-preloaded.txt"; done

# --- 2. the fixed-rate load, through everything that follows ---------------------------------------------------
half=$((RATE / 2))
mark load_start
"$OHA" -z 3600s -q "$half" --latency-correction -c 32 --no-tui --output-format csv -o "$RAW/load-put.csv" \
  "${connect_to[@]}" -m PUT -d "$value" --rand-regex-url "$(url 0)/v0/entity\\?id=w[0-9a-f]{16}&replicas=$REPLICAS" \
  2> "$RAW/load-put.err" &
load_pids+=($!)
"$OHA" -z 3600s -q "$half" --latency-correction -c 32 --no-tui --output-format csv -o "$RAW/load-get.csv" \
  "${connect_to[@]}" -m GET --rand-regex-url "$(url 0)/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" \
  2> "$RAW/load-get.err" &
load_pids+=($!)

sleep "$PHASE"

# --- 3. scale up: the file lists five, then the two new nodes start ---------------------------------------------
mark up_file
set_members 5
start_node 3
start_node 4
mark up_started
watch_until_idle up 5 0 1 2 3 4
mark up_idle
sleep "$PHASE"

# --- 4. scale down: the file lists three; the two extra nodes stop once idle ------------------------------------
mark down_file
set_members 3
watch_until_idle down 3 0 1 2 3 4
mark down_idle
for i in 3 4; do curl -s "$(url "$i")/metrics" > "$RAW/node$i-metrics.txt"; done
stop_node 3
stop_node 4
mark down_stopped
sleep "$PHASE"
mark load_end
stop_load

for i in 0 1 2; do curl -s "$(url "$i")/metrics" > "$RAW/node$i-metrics.txt"; done
for i in 0 1 2 3 4; do cp "$WORK/node$i.log" "$RAW/node$i.log" 2>/dev/null || true; done
steal_pct_since "$steal_start" >> "$RAW/env.txt"
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"

"$PY" "$S/scale-report.py" "$RAW" "$OUT"
log "report: $OUT/scale.md (raw outputs in $RAW)"
