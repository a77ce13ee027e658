#!/usr/bin/env bash
# make bench-pause: what a paused replica costs reads (docs/cluster.md, "Choosing replicas"). Writes
# docs/benchmarks/pause.json, pause.md and pause-latency.svg.
#
#   1. three nodes (--replication-factor 3), preloaded with BENCH_KEYS PUTs at 2/3 on ids drawn from a space of
#      10^BENCH_KEY_DIGITS (oha, closed model);
#   2. a fixed-rate load through nodes 0 and 1 only (oha, open model, --latency-correction, one oha per node and
#      operation): GETs of preloaded ids at BENCH_READ_RATE req/s in all over BENCH_READ_CONNECTIONS connections
#      (few, like a client's pool: a read that waits holds up the ones behind it, so waiting shows as lost
#      throughput), and PUTs of new keys at BENCH_WRITE_RATE req/s, all at 2/3;
#   3. BENCH_BEFORE seconds, then node 2 is paused (SIGSTOP) for BENCH_PAUSE seconds and resumed (SIGCONT), then
#      BENCH_AFTER seconds; node 2's state as nodes 0 and 1 see it is sampled every 0.5 s meanwhile;
#   4. the report: GET and PUT p50/p99/p99.9 and throughput before, during and after the pause (from oha's
#      per-request CSVs, by when each request started; the first BENCH_WARMUP seconds are left out), the targets
#      (GET p99 during the pause <= 2x before; GET throughput during >= 80% of before), and a plot of throughput
#      and p99 per second across the pause.
#
# Environment (defaults give the committed figures):
#   BENCH_KEYS=200000  BENCH_KEY_DIGITS=6  BENCH_READ_RATE=1000  BENCH_READ_CONNECTIONS=4  BENCH_WRITE_RATE=500
#   BENCH_BEFORE=20  BENCH_PAUSE=15  BENCH_AFTER=15  BENCH_WARMUP=5 seconds
#   BENCH_NODE_ARGS="--replication-factor 3"  options of every node   BENCH_JAVA_OPTS="-Xms512m -Xmx512m"
#   BENCH_OUT=docs/benchmarks   BENCH_LABEL free text   BENCH_PORT=18300 (the nodes use it and the next two, and
#   their member ports 10000 above)
. "$(dirname "$0")/lib.sh"

KEYS=${BENCH_KEYS:-200000}
DIGITS=${BENCH_KEY_DIGITS:-6}
READ_RATE=${BENCH_READ_RATE:-1000}
READ_CONNECTIONS=${BENCH_READ_CONNECTIONS:-4}
WRITE_RATE=${BENCH_WRITE_RATE:-500}
BEFORE=${BENCH_BEFORE:-20}
PAUSE=${BENCH_PAUSE:-15}
AFTER=${BENCH_AFTER:-15}
WARMUP=${BENCH_WARMUP:-5}
PORT=${BENCH_PORT:-18300}
NODE_ARGS=${BENCH_NODE_ARGS---replication-factor 3}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms512m -Xmx512m}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
LABEL=${BENCH_LABEL:-}
REPLICAS=2/3
PAUSED=2

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-pause
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
command -v python3 >/dev/null || die "python3 is needed to sample the nodes and write the report"
PY=$("$DHT_ROOT/scripts/venv.sh")  # python with the reports' plotting library (matplotlib), made before the run
command -v curl >/dev/null || die "curl is needed"
S="$DHT_ROOT/scripts/bench"
[ $((READ_CONNECTIONS % 2)) -eq 0 ] || die "BENCH_READ_CONNECTIONS must be even (split over two nodes)"

# the client ports and the member ports (client port + 10000, the default offset)
ports_free $(seq "$PORT" $((PORT + 2))) $(seq $((PORT + 10000)) $((PORT + 10002)))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-pause.XXXXXX")
RAW="$WORK/raw"
mkdir -p "$RAW" "$OUT"
watch_pid=
cleanup() {
  # a stopped node never ends on SIGTERM: continue it first, whatever state the run died in
  [ -n "${node_pids[$PAUSED]:-}" ] && kill -CONT "${node_pids[$PAUSED]}" 2>/dev/null
  stop_pids "${load_pids[@]}" "$watch_pid" "${node_pids[@]}"
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
  echo "read_rate=$READ_RATE"
  echo "read_connections=$READ_CONNECTIONS"
  echo "write_rate=$WRITE_RATE"
  echo "before=$BEFORE"
  echo "pause=$PAUSE"
  echo "after=$AFTER"
  echo "warmup=$WARMUP"
  echo "replicas=$REPLICAS"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"
  echo "label=$LABEL"
} > "$RAW/env.txt"
steal_start=$(cpu_steal_sample)

# --- the nodes ------------------------------------------------------------------------------------------------
members="$(url 0),$(url 1),$(url 2)"
for i in 0 1 2; do launch_node "$i" "$WORK/node$i.log" --cluster "$members" --self "$(url "$i")"; done
for i in 0 1 2; do await_node "$i" "$WORK/node$i.log"; done
await_rebuilt 0 1 2 # every node has decided the cluster is new before the preload writes

# --- 1. preload, through all three ---------------------------------------------------------------------------
value=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
log "preloading $KEYS PUTs at $REPLICAS on ids k[0-9]{$DIGITS}"
preload=()
for i in 0 1 2; do
  "$OHA" -n "$((KEYS / 3))" -c 16 --no-tui --output-format json -m PUT -d "$value" \
    --rand-regex-url "$(url "$i")/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" > "$RAW/oha-preload$i.json" \
    2> "$RAW/oha-preload$i.err" &
  preload+=($!)
done
for pid in "${preload[@]}"; do wait "$pid" || die "preload failed (see $RAW/oha-preload*.err)"; done
await_compactions 0 1 2

# --- 2. the load through nodes 0 and 1, and the sampler of node 2's state -------------------------------------
total=$((BEFORE + PAUSE + AFTER + 5))
python3 "$S/pause-watch.py" "$RAW/watch.jsonl" "$total" "$(url $PAUSED)" "$(url 0)" "$(url 1)" &
watch_pid=$!
for i in 0 1; do
  mark "get${i}_start"
  "$OHA" -z "${total}s" -q "$((READ_RATE / 2))" --latency-correction -c "$((READ_CONNECTIONS / 2))" --no-tui \
    --output-format csv -o "$RAW/load-get$i.csv" -m GET \
    --rand-regex-url "$(url "$i")/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" 2> "$RAW/load-get$i.err" &
  load_pids+=($!)
  mark "put${i}_start"
  "$OHA" -z "${total}s" -q "$((WRITE_RATE / 2))" --latency-correction -c 16 --no-tui \
    --output-format csv -o "$RAW/load-put$i.csv" -m PUT -d "$value" \
    --rand-regex-url "$(url "$i")/v0/entity\\?id=w[0-9a-f]{16}&replicas=$REPLICAS" 2> "$RAW/load-put$i.err" &
  load_pids+=($!)
done
mark load_start

# --- 3. the pause ------------------------------------------------------------------------------------------
sleep "$BEFORE"
kill -STOP "${node_pids[$PAUSED]}"
mark pause
sleep "$PAUSE"
kill -CONT "${node_pids[$PAUSED]}"
mark resume
sleep "$AFTER"
mark load_end
stop_load
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true # it ends by the TERM just sent: not a failure
watch_pid=

for i in 0 1 2; do curl -s --max-time 10 "$(url "$i")/metrics" > "$RAW/node$i-metrics.txt" || true; done
for i in 0 1 2; do cp "$WORK/node$i.log" "$RAW/node$i.log"; done
steal_pct_since "$steal_start" >> "$RAW/env.txt"
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"
echo "paused_peer=$(url $PAUSED)" >> "$RAW/env.txt"

"$PY" "$S/pause-report.py" "$RAW" "$OUT"
log "report: $OUT/pause.md (raw outputs in $RAW)"
