#!/usr/bin/env bash
# make bench-cluster: a 3-node cluster at replicas=2/3 against one node, in the same run, load generators on the
# same machine. Writes docs/benchmarks/cluster.json and cluster.md.
#
#   1. wrk (closed model, BENCH_THREADS threads, 64 connections): PUT of unique keys, then GET over the filled
#      keys, against the single node (default replicas 1/1), then against the cluster with replicas=2/3 and the
#      wrk threads spread over the three ports (thread i -> node i mod 3); cluster/single throughput ratios.
#   2. oha (open model, --latency-correction) at 70% of the cluster's measured maximum, its connections spread
#      over the three nodes: p50/p90/p99/p99.9/max, status codes and errors.
#   3. the same oha runs at a reference rate (BENCH_REFERENCE_RATE, 5k/s) against the cluster and against the
#      single node: what replication adds to latency, at a rate the machine sustains with oha beside the nodes
#      (oha needs about twice wrk's CPU per request, so 70% of wrk's maximum oversubscribes the two cores).
#
# Environment (defaults give the committed figures):
#   BENCH_DURATION=30 seconds per measured run     BENCH_WARMUP=10 seconds of warm-up per target
#   BENCH_THREADS=3   wrk threads (one per node)   BENCH_CONNECTIONS=64   BENCH_LOAD_FRACTION=0.7
#   BENCH_REPLICAS=2/3                             BENCH_NODE_ARGS="--block-cache 1GiB"  options of every node
#                                                  (the single node's too; the cache holds what the run writes)
#   BENCH_JAVA_OPTS   JVM options of every node    BENCH_OUT=docs/benchmarks   BENCH_LABEL free text
#   BENCH_SINGLE_PORT=18080  BENCH_CLUSTER_PORT=18100 (the cluster uses it and the next two)
#   BENCH_MEMBER_TLS=off     the cluster's member plane: off (plaintext, loopback), on (mutual TLS, this report),
#                            both (the TLS cost instead: scripts/bench-cluster-tls.sh, docs/benchmarks/cluster-tls.md)
. "$(dirname "$0")/lib.sh"

MEMBER_TLS=${BENCH_MEMBER_TLS:-off}
case "$MEMBER_TLS" in
  off | on) ;;
  both) exec "$DHT_ROOT/scripts/bench-cluster-tls.sh" ;;
  *) die "BENCH_MEMBER_TLS must be off, on or both (got '$MEMBER_TLS')" ;;
esac

DURATION=${BENCH_DURATION:-30}
WARMUP=${BENCH_WARMUP:-10}
THREADS=${BENCH_THREADS:-3}
CONNS=${BENCH_CONNECTIONS:-64}
FRACTION=${BENCH_LOAD_FRACTION:-0.7}
REFERENCE_RATE=${BENCH_REFERENCE_RATE:-5000}
REPLICAS=${BENCH_REPLICAS:-2/3}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
SINGLE_PORT=${BENCH_SINGLE_PORT:-18080}
CLUSTER_PORT=${BENCH_CLUSTER_PORT:-18100}
NODE_ARGS=${BENCH_NODE_ARGS---block-cache 1GiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}
LABEL=${BENCH_LABEL:-}
NODES=3

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-cluster

WRK=$("$DHT_ROOT/scripts/tool.sh" wrk)
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
PY=$("$DHT_ROOT/scripts/venv.sh")  # python with the reports' plotting library (matplotlib)
command -v curl >/dev/null || die "curl is needed"

ports=("$SINGLE_PORT")
for ((i = 0; i < NODES; i++)); do ports+=($((CLUSTER_PORT + i))); done
ports_free "${ports[@]}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-cluster.XXXXXX")
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

settle_load
read -r load1 load5 load15 _ < /proc/loadavg
log "load before: $load1 $load5 $load15 (nproc $(nproc))"
if awk "BEGIN {exit !($load1 > 1.0)}"; then
  log "warning: the machine is busy (load $load1): figures will be distorted; re-run on a quiet machine"
fi
{
  machine_env "$load1 $load5 $load15"
  echo "wrk=$("$WRK" -v 2>&1 | head -1)"
  echo "oha=$("$OHA" --version 2>&1 | head -1)"
  echo "duration=$DURATION"
  echo "warmup=$WARMUP"
  echo "threads=$THREADS"
  echo "connections=$CONNS"
  echo "fraction=$FRACTION"
  echo "reference_rate=$REFERENCE_RATE"
  echo "replicas=$REPLICAS"
  echo "nodes=$NODES"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"
  echo "label=$LABEL"
  echo "member_tls=$MEMBER_TLS"
} > "$RAW/env.txt"

steal_start=$(cpu_steal_sample)

# --- servers: one single node and a 3-node cluster, all started up front -------------------------------------
start_node() { # start_node NAME PORT [options...]
  local name=$1 port=$2; shift 2
  # shellcheck disable=SC2086
  "$JAVA" "${JAVA_FLAGS[@]}" -jar "$JAR" --port "$port" --data-dir "$WORK/data/$name" "$@" $NODE_ARGS \
    > "$WORK/$name.log" 2>&1 &
  pids+=($!)
  await_http "$port" /v0/status "$!" "$WORK/$name.log"
}
members=()
for ((i = 0; i < NODES; i++)); do members+=("http://127.0.0.1:$((CLUSTER_PORT + i))"); done
cluster=$(IFS=,; echo "${members[*]}")
start_node single "$SINGLE_PORT"
TLS_ARGS=()
if [ "$MEMBER_TLS" = on ]; then
  "$DHT_ROOT/scripts/tls/member-certs.sh" "$WORK/tls" 2
  TLS_ARGS=(--member-tls-cert "$WORK/tls/tls.crt" --member-tls-key "$WORK/tls/tls.key"
    --member-tls-ca "$WORK/tls/ca.crt")
fi
for ((i = 0; i < NODES; i++)); do
  start_node "node$i" $((CLUSTER_PORT + i)) --cluster "$cluster" "${TLS_ARGS[@]}"
done
SINGLE="http://127.0.0.1:$SINGLE_PORT"
CLUSTER="http://127.0.0.1:$CLUSTER_PORT"
CLUSTER_PORTS=$(seq -s, "$CLUSTER_PORT" $((CLUSTER_PORT + NODES - 1)))
S="$DHT_ROOT/scripts/bench"

wrk_run() { # wrk_run NAME URL SECONDS SCRIPT [args...]; BENCH_PORTS/BENCH_REPLICAS from the environment
  local name=$1 url=$2 secs=$3 script=$4; shift 4
  log "wrk $name (${secs}s)"
  "$WRK" -t"$THREADS" -c"$CONNS" -d"${secs}s" --latency -s "$S/$script" "$url" -- "$@" > "$RAW/wrk-$name.txt" 2>&1
}
keys_of() { # keys written per thread by a PUT run, minus the requests possibly in flight when wrk stopped
  local k
  k=$(sed -n 's/^KEYS_PER_THREAD //p' "$RAW/wrk-$1.txt")
  [ -n "$k" ] || die "the PUT run $1 reported no keys (see $RAW/wrk-$1.txt)"
  echo $((k - CONNS))
}

# --- 1. closed model: maximum throughput, single node then cluster --------------------------------------------
export BENCH_PORTS="" BENCH_REPLICAS=""
wrk_run warmup-single-put "$SINGLE" "$WARMUP" wrk-cluster-put.lua w
wrk_run single-put "$SINGLE" "$DURATION" wrk-cluster-put.lua t
single_keys=$(keys_of single-put)
wrk_run warmup-single-get "$SINGLE" $(((WARMUP + 1) / 2)) wrk-cluster-get.lua "$THREADS" "$single_keys"
wrk_run single-get "$SINGLE" "$DURATION" wrk-cluster-get.lua "$THREADS" "$single_keys"

export BENCH_PORTS="$CLUSTER_PORTS" BENCH_REPLICAS="$REPLICAS"
wrk_run warmup-cluster-put "$CLUSTER" "$WARMUP" wrk-cluster-put.lua w
wrk_run cluster-put "$CLUSTER" "$DURATION" wrk-cluster-put.lua t
keys=$(keys_of cluster-put)
echo "keys_per_thread=$keys" >> "$RAW/env.txt"
wrk_run warmup-cluster-get "$CLUSTER" $(((WARMUP + 1) / 2)) wrk-cluster-get.lua "$THREADS" "$keys"
wrk_run cluster-get "$CLUSTER" "$DURATION" wrk-cluster-get.lua "$THREADS" "$keys"

rps() { sed -n 's/^Requests\/sec: *//p' "$RAW/wrk-$1.txt"; }
rate_put=$(awk -v r="$(rps cluster-put)" -v f="$FRACTION" 'BEGIN {printf "%d", r * f}')
rate_get=$(awk -v r="$(rps cluster-get)" -v f="$FRACTION" 'BEGIN {printf "%d", r * f}')
echo "rate_put=$rate_put" >> "$RAW/env.txt"
echo "rate_get=$rate_get" >> "$RAW/env.txt"
log "cluster max: PUT $(rps cluster-put)/s, GET $(rps cluster-get)/s (single node: PUT $(rps single-put)/s," \
  "GET $(rps single-get)/s) -> fixed rates PUT $rate_put/s, GET $rate_get/s"

# --- 2. open model at 70% of the cluster maximum (oha), connections spread over the nodes ----------------------
# oha keeps one host:port per run; --connect-to given once per node maps each new connection to one of them.
connect_to=()
for ((i = 0; i < NODES; i++)); do
  connect_to+=(--connect-to "127.0.0.1:$CLUSTER_PORT:127.0.0.1:$((CLUSTER_PORT + i))")
done
digits=${#keys}; digits=$((digits - 1)); [ "$digits" -ge 2 ] || die "too few keys written ($keys) for the GET runs"
zeros=$(printf '0%.0s' $(seq $((10 - digits))))
get_regex="/v0/entity\\?id=t[0-$((THREADS - 1))]-${zeros}[1-9][0-9]{$((digits - 1))}&replicas=$REPLICAS"
echo "get_regex=$get_regex" >> "$RAW/env.txt"
oha_run() { # oha_run NAME RATE METHOD URL-REGEX
  local name=$1 rate=$2 method=$3 url=$4
  local body=()
  [ "$method" = PUT ] && body=(-d 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789)
  log "oha $name at $rate/s (${DURATION}s)"
  "$OHA" -z "${DURATION}s" -q "$rate" --latency-correction -c "$CONNS" --no-tui --output-format json \
    "${connect_to[@]}" -m "$method" "${body[@]}" --rand-regex-url "$url" \
    > "$RAW/oha-$name.json" 2> "$RAW/oha-$name.err" || log "oha $name exited with $?"
}
oha_run cluster-put "$rate_put" PUT "$CLUSTER/v0/entity\\?id=o[0-9a-f]{16}&replicas=$REPLICAS"
oha_run cluster-get "$rate_get" GET "$CLUSTER$get_regex"

# --- 3. the reference rate: cluster against the single node ------------------------------------------------
single_get_regex=${get_regex%&replicas=*} # the single node wrote more keys than the cluster: a subset of them
oha_run cluster-put-ref "$REFERENCE_RATE" PUT "$CLUSTER/v0/entity\\?id=r[0-9a-f]{16}&replicas=$REPLICAS"
oha_run single-put-ref "$REFERENCE_RATE" PUT "$SINGLE/v0/entity\\?id=r[0-9a-f]{16}"
oha_run cluster-get-ref "$REFERENCE_RATE" GET "$CLUSTER$get_regex"
oha_run single-get-ref "$REFERENCE_RATE" GET "$SINGLE$single_get_regex"

curl -s "$SINGLE/metrics" > "$RAW/single-metrics.txt"
for ((i = 0; i < NODES; i++)); do
  curl -s "http://127.0.0.1:$((CLUSTER_PORT + i))/metrics" > "$RAW/node$i-metrics.txt"
  cp "$WORK/node$i.log" "$RAW/node$i.log"
done
steal_pct_since "$steal_start" >> "$RAW/env.txt"
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"

"$PY" "$S/cluster-report.py" "$RAW" "$OUT"
log "report: $OUT/cluster.md (raw outputs in $RAW)"
