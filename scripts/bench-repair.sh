#!/usr/bin/env bash
# make bench-repair: what repair and a rebuild cost while serving. Writes docs/benchmarks/repair.json and repair.md.
#
#   1. three nodes (--replication-factor 3, hints off: only repair heals), preloaded with BENCH_KEYS PUTs of
#      100-byte values at 2/3 on ids drawn from a space of 10^BENCH_KEY_DIGITS (oha, closed model);
#   2. a fixed-rate load (oha, open model, --latency-correction) through nodes 0 and 1: PUTs of new keys and GETs of
#      preloaded ids at 2/3, BENCH_RATE req/s in all, running through everything below;
#   3. BENCH_PHASE seconds of load alone; node 2 stops, BENCH_DIFF overwrites of preloaded ids go to the other two
#      (plus what the load writes meanwhile), node 2 starts again: its replicas now differ;
#   4. a repair round (POST /v0/admin/repair on each node, until every node's rounds are done): time, keys and bytes
#      repaired, hash bytes exchanged (span queries, hashes, digests) per differing key; then a second round with
#      nothing to repair (what an in-sync round costs);
#   5. node 2 stops, its data directory is deleted, it starts again: it rebuilds (pulls every range from nodes 0
#      and 1) while the load runs; time, keys and bytes received;
#   6. BENCH_PHASE seconds of load after; the report: keys/s and MB/s of each, and the load's p50/p99/p99.9 before,
#      during the round, the idle round and the rebuild, and after, from oha's per-request CSV.
#
# Environment (defaults give the committed figures):
#   BENCH_KEYS=1000000  BENCH_KEY_DIGITS=6  BENCH_DIFF=20000  BENCH_RATE=1000  BENCH_PHASE=30 seconds
#   BENCH_REPAIR_RATE=4MiB (the node's default --repair-rate; 0: unthrottled, the raw speed)
#   BENCH_NODE_ARGS="--replication-factor 3 --block-cache 256MiB"  options of every node
#   BENCH_JAVA_OPTS="-Xms512m -Xmx512m"  BENCH_OUT=docs/benchmarks  BENCH_LABEL free text  BENCH_TIMEOUT=900 s
#   BENCH_PORT=18300 (the nodes use it and the next two; their member ports are 10000 above)
. "$(dirname "$0")/lib.sh"

KEYS=${BENCH_KEYS:-1000000}
DIGITS=${BENCH_KEY_DIGITS:-6}
DIFF=${BENCH_DIFF:-20000}
RATE=${BENCH_RATE:-1000}
PHASE=${BENCH_PHASE:-30}
REPAIR_RATE=${BENCH_REPAIR_RATE:-4MiB}
TIMEOUT=${BENCH_TIMEOUT:-900}
PORT=${BENCH_PORT:-18300}
NODE_ARGS=${BENCH_NODE_ARGS---replication-factor 3 --block-cache 256MiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms512m -Xmx512m}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
LABEL=${BENCH_LABEL:-}
REPLICAS=2/3

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-repair
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
command -v python3 >/dev/null || die "python3 is needed to drive the rounds and write the report"
PY=$("$DHT_ROOT/scripts/venv.sh")
command -v curl >/dev/null || die "curl is needed"
S="$DHT_ROOT/scripts/bench"

ports_free $(seq "$PORT" $((PORT + 2))) $(seq $((PORT + 10000)) $((PORT + 10002)))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-repair.XXXXXX")
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
  echo "diff=$DIFF"
  echo "rate=$RATE"
  echo "phase=$PHASE"
  echo "repair_rate=$REPAIR_RATE"
  echo "replicas=$REPLICAS"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"
  echo "label=$LABEL"
} > "$RAW/env.txt"
steal_start=$(cpu_steal_sample)

# --- the nodes ------------------------------------------------------------------------------------------------
MEMBERS="$(url 0),$(url 1),$(url 2)"
start_node() { # start_node I (again after a stop: its log goes on)
  launch_node "$1" "$WORK/node$1.log" --cluster "$MEMBERS" --hints false --repair-interval 0s \
    --repair-rate "$REPAIR_RATE"
  await_node "$1" "$WORK/node$1.log"
}
status_all() { # status_all NAME: every node's GET /v0/admin/repair, one JSON object per line
  local i
  for i in 0 1 2; do curl -s "$(url "$i")/v0/admin/repair"; echo; done > "$RAW/repair-$1.jsonl"
}
rounds_done() { # ROUNDS: the sum of completed rounds over the nodes (polls start no process: see http_request)
  local i
  ROUNDS=0
  for i in 0 1 2; do
    http_request GET $((PORT + i)) /v0/admin/repair || true
    body_field '"totals":\{"rounds":([0-9]+)'
    ROUNDS=$((ROUNDS + ${FIELD:-0}))
  done
}
repair_round() { # repair_round NAME: POST on each node, wait until every scheduled round is done
  local before scheduled=0 i deadline
  rounds_done
  before=$ROUNDS
  for i in 0 1 2; do
    http_request POST $((PORT + i)) /v0/admin/repair || true
    body_field '"scheduled":([0-9]+)'
    scheduled=$((scheduled + ${FIELD:-0}))
  done
  deadline=$((SECONDS + TIMEOUT))
  until rounds_done; [ "$ROUNDS" -ge $((before + scheduled)) ]; do
    [ $SECONDS -lt $deadline ] || die "the repair round $1 did not end within ${TIMEOUT}s (logs in $WORK)"
    sleep 0.5
  done
}

for i in 0 1 2; do start_node "$i"; done

# --- 1. preload ----------------------------------------------------------------------------------------------
value=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
connect_all=()
for i in 0 1 2; do connect_all+=(--connect-to "127.0.0.1:$PORT:127.0.0.1:$((PORT + i))"); done
connect_two=(--connect-to "127.0.0.1:$PORT:127.0.0.1:$PORT" --connect-to "127.0.0.1:$PORT:127.0.0.1:$((PORT + 1))")
log "preloading $KEYS PUTs at $REPLICAS on ids k[0-9]{$DIGITS}"
"$OHA" -n "$KEYS" -c 48 --no-tui --output-format json "${connect_all[@]}" -m PUT -d "$value" \
  --rand-regex-url "$(url 0)/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" > "$RAW/oha-preload.json" \
  2> "$RAW/oha-preload.err" || die "preload failed (see $RAW/oha-preload.err)"
await_compactions 0 1 2 # the preload's compactions finish before "before" is measured

# --- 2. the fixed-rate load, through nodes 0 and 1 -------------------------------------------------------------
half=$((RATE / 2))
mark load_start
"$OHA" -z 7200s -q "$half" --latency-correction -c 32 --no-tui --output-format csv -o "$RAW/load-put.csv" \
  "${connect_two[@]}" -m PUT -d "$value" --rand-regex-url "$(url 0)/v0/entity\\?id=w[0-9a-f]{16}&replicas=$REPLICAS" \
  2> "$RAW/load-put.err" &
load_pids+=($!)
"$OHA" -z 7200s -q "$half" --latency-correction -c 32 --no-tui --output-format csv -o "$RAW/load-get.csv" \
  "${connect_two[@]}" -m GET --rand-regex-url "$(url 0)/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" \
  2> "$RAW/load-get.err" &
load_pids+=($!)
sleep "$PHASE"

# --- 3. node 2 misses writes -----------------------------------------------------------------------------------
mark diverge_start
stop_node 2
"$OHA" -n "$DIFF" -c 16 --no-tui --output-format json "${connect_two[@]}" -m PUT -d "${value}x" \
  --rand-regex-url "$(url 0)/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" > "$RAW/oha-diff.json" \
  2> "$RAW/oha-diff.err" || die "the overwrites failed (see $RAW/oha-diff.err)"
start_node 2
mark diverge_end
sleep "$PHASE"

# --- 4. a round, then an idle one --------------------------------------------------------------------------------
status_all before-round
mark round_start
repair_round diverged
mark round_end
status_all after-round
sleep "$PHASE"
mark idle_round_start
repair_round idle
mark idle_round_end
status_all after-idle-round
sleep "$PHASE"

# --- 5. a rebuild ------------------------------------------------------------------------------------------------
mark rebuild_stop
stop_node 2
rm -rf "$WORK/data/node2"
mark rebuild_start
start_node 2
deadline=$((SECONDS + TIMEOUT))
until rebuild_state 2; [ "$FIELD" = ready ]; do
  [ $SECONDS -lt $deadline ] || die "the rebuild did not end within ${TIMEOUT}s (logs in $WORK)"
  sleep 0.25
done
mark rebuild_end
status_all after-rebuild
sleep "$PHASE"
mark load_end
stop_load

for i in 0 1 2; do curl -s "$(url "$i")/metrics" > "$RAW/node$i-metrics.txt"; cp "$WORK/node$i.log" "$RAW/"; done
steal_pct_since "$steal_start" >> "$RAW/env.txt"
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"

"$PY" "$S/repair-report.py" "$RAW" "$OUT"
log "report: $OUT/repair.md (raw outputs in $RAW)"
