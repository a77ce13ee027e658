#!/usr/bin/env bash
# make bench-cluster-tls (or make bench-cluster BENCH_MEMBER_TLS=both): what mutual TLS on the member plane costs a 3-node cluster at
# replicas=2/3. The same cluster runs with a plaintext member plane and with TLS, same commit and host, in
# interleaved rounds (plain, tls, then tls, plain, ...: a drift of the machine falls on both), each round on fresh
# data: maximum throughput (wrk, closed model, PUT then GET) and latency at a fixed rate (oha, open model with
# --latency-correction, PUT then GET). Writes docs/benchmarks/cluster-tls.json and cluster-tls.md: per round and
# mode, the means, and the TLS cost against the targets (at most 15% less throughput, at most 1.2x p99).
#
# Warm-ups: each round's cluster is new, and the JDK's TLS code (SSLEngine, AES-GCM) takes the JIT longer than the
# plaintext path: in the 20 s after a 10 s warm-up, compilation was 15-20% of a TLS node's CPU samples (6% in
# plaintext); after a 40 s one it was 1.5% (4%), and TLS's PUT throughput was within 1% of plaintext's (29.1k and
# 29.3k req/s; 14-30% below it after 10 s, same build, single runs). So the PUT warm-up is
# 30 s (GET's half of it), for both modes. Each fixed-rate run is also preceded by 5 s at the same rate, unrecorded:
# the first second of a new request shape (oha's keys and bodies) ran at 2-10x the p50 in both modes while the JIT
# caught up, and that one second held about half of a 30 s run's requests above p99.
#
# Environment: BENCH_ROUNDS=2 (pairs)   BENCH_DURATION=30   BENCH_WARMUP=30 (seconds)   BENCH_RATE_WARMUP=5   BENCH_THREADS=3
#   BENCH_CONNECTIONS=64   BENCH_REFERENCE_RATE=5000 (req/s of the fixed-rate runs)   BENCH_REPLICAS=2/3
#   BENCH_NODE_ARGS="--block-cache 1GiB"   BENCH_JAVA_OPTS   BENCH_CLUSTER_PORT=18100 (and the next two; the
#   member ports are 10000 above)   BENCH_OUT=docs/benchmarks   BENCH_LABEL
. "$(dirname "$0")/lib.sh"

ROUNDS=${BENCH_ROUNDS:-2}
DURATION=${BENCH_DURATION:-30}
WARMUP=${BENCH_WARMUP:-30}
RATE_WARMUP=${BENCH_RATE_WARMUP:-5}
THREADS=${BENCH_THREADS:-3}
CONNS=${BENCH_CONNECTIONS:-64}
RATE=${BENCH_REFERENCE_RATE:-5000}
REPLICAS=${BENCH_REPLICAS:-2/3}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
PORT=${BENCH_CLUSTER_PORT:-18100}
NODE_ARGS=${BENCH_NODE_ARGS---block-cache 1GiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}
LABEL=${BENCH_LABEL:-}
NODES=3

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-cluster
WRK=$("$DHT_ROOT/scripts/tool.sh" wrk)
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
PY=$("$DHT_ROOT/scripts/venv.sh")
command -v curl >/dev/null || die "curl is needed"
ports_free $(seq "$PORT" $((PORT + NODES - 1))) $(seq $((PORT + 10000)) $((PORT + 10000 + NODES - 1)))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-cluster-tls.XXXXXX")
RAW="$WORK/raw"
mkdir -p "$RAW" "$OUT"
stop_nodes() {
  stop_pids "${node_pids[@]}"
  node_pids=()
  rm -rf "$WORK/data"
}
trap stop_nodes EXIT

# One CA and one member certificate for the three members (members are not told apart by name: docs/security.md)
"$DHT_ROOT/scripts/tls/member-certs.sh" "$WORK/tls" 2
TLS_ARGS=(--member-tls-cert "$WORK/tls/tls.crt" --member-tls-key "$WORK/tls/tls.key" --member-tls-ca "$WORK/tls/ca.crt")

settle_load
read -r load1 load5 load15 _ < /proc/loadavg
log "load before: $load1 $load5 $load15 (nproc $(nproc))"
if awk "BEGIN {exit !($load1 > 1.0)}"; then
  log "warning: the machine is busy (load $load1): figures will be distorted; re-run on a quiet machine"
fi
{
  machine_env "$load1 $load5 $load15"
  echo "rounds=$ROUNDS"
  echo "duration=$DURATION"
  echo "warmup=$WARMUP"
  echo "rate_warmup=$RATE_WARMUP"
  echo "threads=$THREADS"
  echo "connections=$CONNS"
  echo "reference_rate=$RATE"
  echo "replicas=$REPLICAS"
  echo "nodes=$NODES"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"
  echo "label=$LABEL"
} > "$RAW/env.txt"

members=()
for ((i = 0; i < NODES; i++)); do members+=("$(url "$i")"); done
cluster=$(IFS=,; echo "${members[*]}")
CLUSTER="http://127.0.0.1:$PORT"
CLUSTER_PORTS=$(seq -s, "$PORT" $((PORT + NODES - 1)))
S="$DHT_ROOT/scripts/bench"
connect_to=()
for ((i = 0; i < NODES; i++)); do
  connect_to+=(--connect-to "127.0.0.1:$PORT:127.0.0.1:$((PORT + i))")
done

start_cluster() { # start_cluster MODE TAG: the three nodes, member plane plaintext (loopback) or TLS
  local mode=$1 tag=$2 i extra=()
  [ "$mode" = tls ] && extra=("${TLS_ARGS[@]}")
  for ((i = 0; i < NODES; i++)); do launch_node "$i" "$RAW/$tag-node$i.log" --cluster "$cluster" "${extra[@]}"; done
  for ((i = 0; i < NODES; i++)); do await_node "$i" "$RAW/$tag-node$i.log"; done
}

wrk_run() { # wrk_run NAME SECONDS SCRIPT [args...]
  local name=$1 secs=$2 script=$3; shift 3
  log "wrk $name (${secs}s)"
  BENCH_PORTS="$CLUSTER_PORTS" BENCH_REPLICAS="$REPLICAS" \
    "$WRK" -t"$THREADS" -c"$CONNS" -d"${secs}s" --latency -s "$S/$script" "$CLUSTER" -- "$@" \
    > "$RAW/wrk-$name.txt" 2>&1
}
oha_run() { # oha_run NAME METHOD URL-REGEX
  local name=$1 method=$2 url=$3 load=()
  load=(-q "$RATE" --latency-correction -c "$CONNS" --no-tui "${connect_to[@]}" -m "$method")
  [ "$method" = PUT ] && load+=(-d 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789)
  load+=(--rand-regex-url "$url")
  if [ "$RATE_WARMUP" -gt 0 ]; then
    log "oha $name warm-up at $RATE/s (${RATE_WARMUP}s, not recorded)"
    "$OHA" -z "${RATE_WARMUP}s" --output-format quiet "${load[@]}" > /dev/null 2>&1 || true
  fi
  log "oha $name at $RATE/s (${DURATION}s)"
  "$OHA" -z "${DURATION}s" --output-format json "${load[@]}" \
    > "$RAW/oha-$name.json" 2> "$RAW/oha-$name.err" || log "oha $name exited with $?"
}

round() { # round N MODE: one cluster, fresh data, every measurement of one mode
  local n=$1 mode=$2 tag="r$1-$2" keys digits zeros regex
  log "round $n: member plane $mode"
  start_cluster "$mode" "$tag"
  wrk_run "$tag-warmup-put" "$WARMUP" wrk-cluster-put.lua w
  wrk_run "$tag-put" "$DURATION" wrk-cluster-put.lua t
  keys=$(sed -n 's/^KEYS_PER_THREAD //p' "$RAW/wrk-$tag-put.txt")
  [ -n "$keys" ] || die "the PUT run $tag reported no keys (see $RAW/wrk-$tag-put.txt)"
  keys=$((keys - CONNS))
  wrk_run "$tag-warmup-get" $(((WARMUP + 1) / 2)) wrk-cluster-get.lua "$THREADS" "$keys"
  wrk_run "$tag-get" "$DURATION" wrk-cluster-get.lua "$THREADS" "$keys"
  digits=${#keys}; digits=$((digits - 1)); [ "$digits" -ge 2 ] || die "too few keys written ($keys)"
  zeros=$(printf '0%.0s' $(seq $((10 - digits))))
  regex="/v0/entity\\?id=t[0-$((THREADS - 1))]-${zeros}[1-9][0-9]{$((digits - 1))}&replicas=$REPLICAS"
  # the maximum-throughput runs leave a compaction backlog of a size that differs from round to round (and from
  # mode to mode): the fixed-rate runs measure the member plane, not what remains of it
  await_compactions 0 1 2
  oha_run "$tag-put-rate" PUT "$CLUSTER/v0/entity\\?id=o[0-9a-f]{16}&replicas=$REPLICAS"
  await_compactions 0 1 2
  oha_run "$tag-get-rate" GET "$CLUSTER$regex"
  for ((i = 0; i < NODES; i++)); do
    curl -s "$(url "$i")/metrics" > "$RAW/$tag-node$i-metrics.txt"
  done
  stop_nodes
}

for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2 == 1)); then round "$r" plain; round "$r" tls; else round "$r" tls; round "$r" plain; fi
done
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"

"$PY" "$S/cluster-tls-report.py" "$RAW" "$OUT"
log "report: $OUT/cluster-tls.md (raw outputs in $RAW)"
