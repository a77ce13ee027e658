#!/usr/bin/env bash
# make bench-cluster-tls (or make bench-cluster BENCH_MEMBER_TLS=both): what TLS costs a 3-node cluster at replicas=2/3,
# on the member plane (mutual TLS between the members) and on the client port (the load generators speak TLS to the
# coordinators), in the same run. Three clusters of the same commit run side by side on this host (BENCH_MODES), on
# fresh data each round: plaintext ("plain"), member TLS ("tls"), member TLS and client TLS ("client": as the operator
# runs a cluster by default; server TLS on the client port, no client certificate: wrk cannot present one, and a
# kept-alive connection checks one once, in its handshake). Member TLS is judged against plain, the client port's TLS
# against tls (the one difference between those two clusters), and both together against plain (shown);
#   - maximum throughput: wrk (closed model), PUT then GET, one cluster after the other (which goes first alternates
#     by round), the others idle meanwhile; each measured run in two halves, two identical windows whose spread is the
#     noise floor beside the throughput ratio (the slices' spread is the p99's);
#   - latency at a fixed rate: oha (open model, --latency-correction), PUT then GET, in BENCH_SLICES slices of
#     BENCH_SLICE seconds per cluster, the clusters taking turns (ABC, CBA...): a minute of the machine running slower
#     falls on both modes. One 30 s run per mode and round (the earlier design) gave round-to-round GET p99 ratios of
#     0.51x-1.40x, and one round 6.7x (its TLS cluster slow over all of its 30 s, the plaintext one measured minutes
#     earlier): the runs measured the machine's moments as much as the member plane. Each slice is a new oha, whose
#     first moments open its connections at once: on the client-TLS cluster 64 TLS handshakes (up to 130 ms each)
#     while requests queue at the rate, which alone made that cluster's p99 22-30x the others' (the p99 from 1 s into
#     the slices on: 1.02-1.06x). So the p99s leave out each slice's first BENCH_SLICE_SETTLE seconds, in every mode,
#     and the report shows the p99 of every request beside them.
#   - the nodes on CPUs of their own (BENCH_NODE_CPUS, taskset), wrk, oha and this script on the others
#     (BENCH_LOAD_CPUS): on a shared pair of cores a closed-model maximum paid for wrk's own TLS, and a client-TLS
#     cluster's lower maximum could not tell the node's cost from the load generator's. Around every measured window
#     the nodes' CPU (/proc, harness.load) gives their CPU per request, at the maximum and at the fixed rate.
# Writes docs/benchmarks/cluster-tls.json and cluster-tls.md: per round and mode, the throughput, and the p99 over
# every request of the mode's slices; each TLS cost against the targets (at most 15% less throughput, at most 1.2x
# p99), the p99 ratio over every request of every round and round by round.
#
# Warm-ups: each round's clusters are new, and the JDK's TLS code (SSLEngine, AES-GCM) takes the JIT longer than the
# plaintext path: in the 20 s after a 10 s warm-up, compilation was 15-20% of a TLS node's CPU samples (6% in
# plaintext); after a 40 s one it was 1.5% (4%), and TLS's PUT throughput was within 1% of plaintext's (29.1k and
# 29.3k req/s; 14-30% below it after 10 s, same build, single runs). So the PUT warm-up is at least 30 s (GET's half
# of it), for both modes, and goes on while the cluster's JIT still works (warm_up). The fixed-rate slices of an
# operation are preceded by 5 s at the same rate on each cluster, unrecorded: the first second of a new request shape (oha's keys and bodies) ran at 2-10x the
# p50 in both modes while the JIT caught up, and that one second held about half of a 30 s run's requests above p99.
# Every node has decided it starts a new cluster before any load (a node still deciding when writes arrive sees data
# on the others and rebuilds: seconds without reads, in an earlier round's warm-up).
#
# Environment: BENCH_ROUNDS=3   BENCH_DURATION=30   BENCH_WARMUP=30 (seconds)   BENCH_RATE_WARMUP=5
#   BENCH_SLICE_SETTLE=1 (seconds of each slice the p99 leaves out)   BENCH_JIT_STEP=5 BENCH_JIT_QUIET=0.15 BENCH_JIT_MAX=60 (the warm-up goes on in steps while the JIT works: warm_up)
#   BENCH_SLICES=3   BENCH_SLICE=10 (seconds)   BENCH_THREADS=3   BENCH_CONNECTIONS=64
#   BENCH_REFERENCE_RATE=2500 (req/s of the fixed-rate slices; 5000 without pinning)   BENCH_REPLICAS=2/3
#   BENCH_WARM_SPREAD=0.05 (the warm-up also ends when two steps' throughputs are this close: warm_up)
#   BENCH_NODE_CPUS=1 BENCH_LOAD_CPUS=0 (on 2 CPUs; taskset lists; both empty: no pinning)
#   BENCH_NODE_ARGS="--block-cache 1GiB"   BENCH_JAVA_OPTS   BENCH_CLUSTER_PORT=18100 (and the next eight; the
#   member ports are 10000 above)   BENCH_OUT=docs/benchmarks   BENCH_LABEL   BENCH_MODES="plain tls client"
. "$(dirname "$0")/lib.sh"

ROUNDS=${BENCH_ROUNDS:-3}
DURATION=${BENCH_DURATION:-30}
WARMUP=${BENCH_WARMUP:-30}
JIT_STEP=${BENCH_JIT_STEP:-5}
JIT_QUIET=${BENCH_JIT_QUIET:-0.15}
JIT_MAX=${BENCH_JIT_MAX:-60}
RATE_WARMUP=${BENCH_RATE_WARMUP:-5}
SLICE_SETTLE=${BENCH_SLICE_SETTLE:-1}
SLICES=${BENCH_SLICES:-3}
SLICE=${BENCH_SLICE:-10}
THREADS=${BENCH_THREADS:-3}
CONNS=${BENCH_CONNECTIONS:-64}
REPLICAS=${BENCH_REPLICAS:-2/3}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
PORT=${BENCH_CLUSTER_PORT:-18100}
NODE_ARGS=${BENCH_NODE_ARGS---block-cache 1GiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}
LABEL=${BENCH_LABEL:-}
WARM_SPREAD=${BENCH_WARM_SPREAD:-0.05}
# The nodes on CPUs of their own, the load generators (and this script) on the rest: wrk's and oha's TLS then cost the
# nodes nothing, and a node's CPU per request is its own. Both empty: no pinning (the nodes and the load share all).
if [ "$(nproc)" -ge 2 ]; then
  NODE_CPUS=${BENCH_NODE_CPUS-1-$(($(nproc) - 1))}
  LOAD_CPUS=${BENCH_LOAD_CPUS-0}
else
  NODE_CPUS=${BENCH_NODE_CPUS-}
  LOAD_CPUS=${BENCH_LOAD_CPUS-}
fi
# 5000 req/s was the fixed rate for nodes on both CPUs; on one CPU it queued (the nodes' CPU per request at the rate,
# 170-190 us, asks for 0.85-0.95 of it, and p99s of 0.1-3 s): pinned, half the rate
if [ -n "$NODE_CPUS" ]; then RATE=${BENCH_REFERENCE_RATE:-2500}; else RATE=${BENCH_REFERENCE_RATE:-5000}; fi
read -r -a MODES <<<"${BENCH_MODES:-plain tls client}"
[ "${MODES[0]}" = plain ] || die "BENCH_MODES must start with plain (each TLS cost is against it): ${MODES[*]}"
NODES=3

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-cluster
WRK=$("$DHT_ROOT/scripts/tool.sh" wrk)
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
PY=$("$DHT_ROOT/scripts/venv.sh")
command -v curl >/dev/null || die "curl is needed"
if [ -n "$NODE_CPUS$LOAD_CPUS" ]; then
  command -v taskset >/dev/null || die "taskset is needed to pin the nodes (BENCH_NODE_CPUS= BENCH_LOAD_CPUS= for none)"
  [ -n "$NODE_CPUS" ] && [ -n "$LOAD_CPUS" ] || die "BENCH_NODE_CPUS and BENCH_LOAD_CPUS: both or neither"
  NODE_LAUNCHER=(taskset -c "$NODE_CPUS")
fi
ports_free $(seq "$PORT" $((PORT + 3 * NODES - 1))) $(seq $((PORT + 10000)) $((PORT + 10000 + 3 * NODES - 1)))

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
# The client port's: a CA and the nodes' certificate for 127.0.0.1 (the load generators check it: oha with the CA)
"$DHT_ROOT/scripts/tls/client-certs.sh" "$WORK/client-tls" 2
CLIENT_TLS_ARGS=(--client-tls-cert "$WORK/client-tls/tls.crt" --client-tls-key "$WORK/client-tls/tls.key")
tls_ca="$WORK/client-tls/ca.crt" # cluster-lib.sh's status calls to the client-TLS nodes (tls_ports) trust it
declare -A tls_ports
for ((i = 2 * NODES; i < 3 * NODES; i++)); do tls_ports[$((PORT + i))]=1; done

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
  echo "jit_step=$JIT_STEP"
  echo "jit_quiet=$JIT_QUIET"
  echo "jit_max=$JIT_MAX"
  echo "flushed_before_rate=1"
  echo "rate_warmup=$RATE_WARMUP"
  echo "slice_settle=$SLICE_SETTLE"
  echo "slices=$SLICES"
  echo "slice=$SLICE"
  echo "threads=$THREADS"
  echo "connections=$CONNS"
  echo "reference_rate=$RATE"
  echo "replicas=$REPLICAS"
  echo "nodes=$NODES"
  echo "modes=$(IFS=,; echo "${MODES[*]}")"
  echo "client_base=tls" # the client-TLS cluster's member plane is in mutual TLS: its own cost is against "tls"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"; echo "scheduled_repair=off"
  echo "label=$LABEL"
  echo "warm_spread=$WARM_SPREAD"
  echo "node_cpus=$NODE_CPUS"
  echo "load_cpus=$LOAD_CPUS"
} > "$RAW/env.txt"
# this script and what it starts (wrk, oha, curl) on LOAD_CPUS, the nodes on theirs (NODE_LAUNCHER); after env.txt,
# whose nproc is the machine's
if [ -n "$LOAD_CPUS" ]; then taskset -p -c "$LOAD_CPUS" $$ > /dev/null; fi

# Three clusters of three nodes side by side, plaintext (nodes 0-2), member TLS (nodes 3-5) and client TLS (nodes
# 6-8); only one is loaded at a time
S="$DHT_ROOT/scripts/bench"
first_node() { # first_node MODE: the index of the cluster's node 0
  case $1 in tls) echo "$NODES" ;; client) echo $((2 * NODES)) ;; *) echo 0 ;; esac
}
members_of() { local i f; f=$(first_node "$1"); for ((i = f; i < f + NODES; i++)); do url "$i"; done | paste -sd,; }
cluster_ports() { local f; f=$(first_node "$1"); seq -s, $((PORT + f)) $((PORT + f + NODES - 1)); }
scheme() { [ "$1" = client ] && echo https || echo http; }
cluster_url() { echo "$(scheme "$1")://127.0.0.1:$((PORT + $(first_node "$1")))"; }
connect_to() { # connect_to MODE: oha's requests to the cluster's first port spread over its nodes
  local i f; f=$(first_node "$1")
  for ((i = 0; i < NODES; i++)); do echo "--connect-to"; echo "127.0.0.1:$((PORT + f)):127.0.0.1:$((PORT + f + i))"; done
}
cluster_nodes() { local f; f=$(first_node "$1"); seq "$f" $((f + NODES - 1)); }

# --repair-interval 0s: no scheduled anti-entropy round. A node's first one starts at a random moment of its first 10
# minutes (RepairService.firstDelay), inside a round of this bench, and hashes everything the maximum runs wrote: on
# this shared machine that falls in a random run of either cluster (in make bench-backup such a round raised the
# load's p99 per 5 s to 5-20 ms for 5-8 s, at random in the rounds of 56fd223). The bench measures the member plane.
start_cluster() { # start_cluster MODE TAG: three nodes, plaintext, member plane in TLS, or client port in TLS
  local mode=$1 tag=$2 i f extra=(--repair-interval 0s)
  f=$(first_node "$mode")
  case $mode in tls) extra+=("${TLS_ARGS[@]}") ;; client) extra+=("${TLS_ARGS[@]}" "${CLIENT_TLS_ARGS[@]}") ;; esac
  for ((i = f; i < f + NODES; i++)); do
    launch_node "$i" "$RAW/$tag-node$((i - f)).log" --cluster "$(members_of "$mode")" "${extra[@]}"
  done
}
await_cluster() { # await_cluster MODE TAG: every node answers and has decided it is part of a new cluster (no rebuild)
  local mode=$1 tag=$2 i f
  f=$(first_node "$mode")
  for ((i = f; i < f + NODES; i++)); do await_node "$i" "$RAW/$tag-node$((i - f)).log"; done
  await_rebuilt $(cluster_nodes "$mode")
}

wrk_run() { # wrk_run MODE NAME SECONDS SCRIPT [args...]
  local mode=$1 name=$2 secs=$3 script=$4; shift 4
  log "wrk $name (${secs}s)"
  BENCH_PORTS="$(cluster_ports "$mode")" BENCH_REPLICAS="$REPLICAS" \
    "$WRK" -t"$THREADS" -c"$CONNS" -d"${secs}s" --latency -s "$S/$script" "$(cluster_url "$mode")" -- "$@" \
    > "$RAW/wrk-$name.txt" 2>&1
}
oha_load() { # oha_load MODE OP: oha's arguments for the fixed-rate load of OP on the cluster of MODE
  local mode=$1 op=$2 base
  base=$(cluster_url "$mode")
  mapfile -t hops < <(connect_to "$mode")
  load=(-q "$RATE" --latency-correction -c "$CONNS" --no-tui "${hops[@]}")
  if [ "$mode" = client ]; then load+=(--cacert "$tls_ca"); fi
  if [ "$op" = put ]; then
    load+=(-m PUT -d 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789)
    load+=(--rand-regex-url "$base/v0/entity\\?id=o[0-9a-f]{16}&replicas=$REPLICAS")
  else
    load+=(-m GET --rand-regex-url "$base${get_regex[$mode]}")
  fi
}
oha_warmup() { # oha_warmup MODE OP TAG: RATE_WARMUP seconds at the rate, not recorded
  local load hops
  [ "$RATE_WARMUP" -gt 0 ] || return 0
  oha_load "$1" "$2"
  log "oha $3 warm-up at $RATE/s (${RATE_WARMUP}s, not recorded)"
  "$OHA" -z "${RATE_WARMUP}s" --output-format quiet "${load[@]}" > /dev/null 2>&1 || true
}
cluster_sum() { # cluster_sum MODE NAME FORMAT: the metric NAME summed over the cluster's nodes, printed with FORMAT
  local i values=()
  for i in $(cluster_nodes "$1"); do metric_value "$i" "$2"; values+=("${FIELD:-0}"); done
  awk -v f="$3" 'BEGIN { for (i = 1; i < ARGC; i++) s += ARGV[i]; printf f "\n", s }' "${values[@]}"
}
# cpu_sample MODE: "node CPU seconds so far (the cluster's three nodes), busy and total jiffies of LOAD_CPUS"
cpu_sample() {
  local pids=() i
  for i in $(cluster_nodes "$1"); do pids+=("${node_pids[i]}"); done
  PYTHONPATH="$S" "$PY" -m harness.load --cores "$LOAD_CPUS" "${pids[@]}"
}
# flushed_bytes MODE: table bytes the cluster's memtable flushes have written so far (all nodes)
flushed_bytes() { cluster_sum "$1" dht_rocksdb_flush_write_bytes_total %.0f; }
# jit_seconds MODE: seconds the cluster's JIT compilers have worked so far (all nodes)
jit_seconds() { cluster_sum "$1" jvm_compilation_time_seconds_total %.3f; }
oha_slice() { # oha_slice MODE OP NAME: one slice at the rate, every request into $RAW/oha-NAME.csv, CPU samples
  # around it into oha-NAME.cpu (cpu_sample before, after)
  local load hops before cpu
  oha_load "$1" "$2"
  log "oha $3 at $RATE/s (${SLICE}s)"
  before=$(flushed_bytes "$1")
  cpu=$(cpu_sample "$1")
  "$OHA" -z "${SLICE}s" --output-format csv -o "$RAW/oha-$3.csv" "${load[@]}" 2> "$RAW/oha-$3.err" \
    || log "oha $3 exited with $?"
  # whether a member flushed a memtable during the slice: the three replicas get the same writes, so they flush
  # together, about a core for a second on this machine, in either mode (the report marks those slices)
  echo "$cpu $(cpu_sample "$1")" > "$RAW/oha-$3.cpu"
  echo "$before $(flushed_bytes "$1")" > "$RAW/oha-$3.flush"
}

# warm_up MODE NAME SECONDS SCRIPT [args...]: wrk for SECONDS, then in JIT_STEP steps until the cluster has settled,
# at most JIT_MAX seconds more: settled when its compilers worked at most JIT_QUIET seconds in the last step, or when
# the last two steps' throughputs are within WARM_SPREAD of each other. A fixed warm-up left C2 compiling through the
# measured run in some rounds and not in others (13% of a TLS node's CPU samples 27 s into a 3000 PUT/s load, 8% of a
# plaintext one's): each round's JVMs are new, and the maximum measured what the JIT had done by then. The JIT alone
# did not settle the client-TLS cluster in 45 s more (0.9 s of compiling in each 5-s GET step) while its GET steps
# were within 3% of each other from the first on: what the maximum measures had settled; its compiling had not.
# Writes "seconds warmed, compile seconds in the last step, what settled it (jit, throughput, cap)" to
# $RAW/wrk-NAME.warm.
warm_up() {
  local mode=$1 name=$2 secs=$3 before after step=0 extra=0 last="" rps why=cap; shift 3
  before=$(jit_seconds "$mode")
  wrk_run "$mode" "$name" "$secs" "$@"
  after=$(jit_seconds "$mode")
  while [ "$extra" -lt "$JIT_MAX" ]; do
    if awk -v a="$before" -v b="$after" -v q="$JIT_QUIET" 'BEGIN { exit !(b - a <= q) }'; then why=jit; break; fi
    before=$after
    step=$((step + 1))
    wrk_run "$mode" "$name-$step" "$JIT_STEP" "$@"
    extra=$((extra + JIT_STEP))
    after=$(jit_seconds "$mode")
    rps=$(sed -n 's/^Requests\/sec: *//p' "$RAW/wrk-$name-$step.txt")
    if [ -n "$last" ] && [ -n "$rps" ] && awk -v a="$last" -v b="$rps" -v w="$WARM_SPREAD" \
        'BEGIN { exit !(a > 0 && b > 0 && (a > b ? a / b : b / a) <= 1 + w) }'; then
      why=throughput
      break
    fi
    last=$rps
  done
  if [ "$why" = cap ] && awk -v a="$before" -v b="$after" -v q="$JIT_QUIET" 'BEGIN { exit !(b - a <= q) }'; then
    why=jit
  fi
  echo "$((secs + extra)) $(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", b - a }') $why" \
    > "$RAW/wrk-$name.warm"
  log "warm-up $name: $((secs + extra)) s ($why), the JIT's last step $(cut -d' ' -f2 "$RAW/wrk-$name.warm") s"
}
# measured MODE NAME SECONDS SCRIPT [args...]: wrk_run in two consecutive halves of SECONDS (NAME, NAME-b), with the
# cluster's compile seconds before and after both, and CPU samples around each half (wrk-NAME.cpu, wrk-NAME-b.cpu:
# cpu_sample before, after). The halves are identical windows: how far apart their throughputs (and the nodes' CPU
# per request) are is the run's noise floor beside the ratio. PUT's second half writes keys of its own prefix (u).
measured() {
  local mode=$1 name=$2 secs=$3 script=$4 half before c0 c1; shift 4
  half=$(((secs + 1) / 2))
  before=$(jit_seconds "$mode")
  c0=$(cpu_sample "$mode")
  wrk_run "$mode" "$name" "$half" "$script" "$@"
  c1=$(cpu_sample "$mode")
  echo "$c0 $c1" > "$RAW/wrk-$name.cpu"
  if [ "$script" = wrk-cluster-put.lua ]; then set -- u; fi
  wrk_run "$mode" "$name-b" "$half" "$script" "$@"
  echo "$c1 $(cpu_sample "$mode")" > "$RAW/wrk-$name-b.cpu"
  echo "$before $(jit_seconds "$mode")" > "$RAW/wrk-$name.jit"
}

max_throughput() { # max_throughput N MODE: wrk PUT then GET on the cluster of MODE; sets get_regex[MODE]
  local n=$1 mode=$2 tag="r$1-$2" keys digits zeros
  warm_up "$mode" "$tag-warmup-put" "$WARMUP" wrk-cluster-put.lua w
  measured "$mode" "$tag-put" "$DURATION" wrk-cluster-put.lua t
  keys=$(sed -n 's/^KEYS_PER_THREAD //p' "$RAW/wrk-$tag-put.txt")
  [ -n "$keys" ] || die "the PUT run $tag reported no keys (see $RAW/wrk-$tag-put.txt)"
  keys=$((keys - CONNS))
  warm_up "$mode" "$tag-warmup-get" $(((WARMUP + 1) / 2)) wrk-cluster-get.lua "$THREADS" "$keys"
  measured "$mode" "$tag-get" "$DURATION" wrk-cluster-get.lua "$THREADS" "$keys"
  digits=${#keys}; digits=$((digits - 1)); [ "$digits" -ge 2 ] || die "too few keys written ($keys)"
  zeros=$(printf '0%.0s' $(seq $((10 - digits))))
  get_regex[$mode]="/v0/entity\\?id=t[0-$((THREADS - 1))]-${zeros}[1-9][0-9]{$((digits - 1))}&replicas=$REPLICAS"
}

declare -A get_regex
all_nodes() { local mode; for mode in "${MODES[@]}"; do cluster_nodes "$mode"; done; }
round() { # round N MODE...: every cluster on fresh data, in this order, and in the reverse order in even slices
  local n=$1 op s mode order; shift
  local modes=("$@") reversed=()
  for ((s = ${#modes[@]} - 1; s >= 0; s--)); do reversed+=("${modes[s]}"); done
  log "round $n: ${modes[*]}"
  for mode in "${modes[@]}"; do start_cluster "$mode" "r$n-$mode"; done
  for mode in "${modes[@]}"; do await_cluster "$mode" "r$n-$mode"; done
  for mode in "${modes[@]}"; do max_throughput "$n" "$mode"; done
  # the maximum-throughput runs leave memtables filled and a compaction backlog, of sizes that differ by round and
  # mode: the fixed-rate slices measure the member plane, not what remains of them. The three replicas of a key get
  # the same writes and flush together (about a core of the two for a second): with memtables as full as the maximum
  # runs left them, one cluster's slices drew flushes the other's did not (5 TLS slices against 2 in two runs).
  # Flushed first, 35 s at the rate (the warm-up and the PUT slices) fill a 64 MiB memtable about a third.
  flush_memtables $(all_nodes)
  await_compactions $(all_nodes)
  for op in put get; do
    for mode in "${modes[@]}"; do oha_warmup "$mode" "$op" "r$n-$mode-$op-rate"; done
    for ((s = 1; s <= SLICES; s++)); do
      if ((s % 2 == 1)); then order=("${modes[@]}"); else order=("${reversed[@]}"); fi
      for mode in "${order[@]}"; do oha_slice "$mode" "$op" "r$n-$mode-$op-rate-s$s"; done
    done
  done
  for mode in "${modes[@]}"; do
    for ((i = 0; i < NODES; i++)); do
      curl -s --cacert "$tls_ca" "$(scheme "$mode")://127.0.0.1:$((PORT + $(first_node "$mode") + i))/metrics" \
        > "$RAW/r$n-$mode-node$i-metrics.txt"
    done
  done
  stop_nodes
}

# The clusters' order turns every round (plain tls client, client tls plain, ...): whichever runs first meets the
# freshest machine.
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2 == 1)); then round "$r" "${MODES[@]}"
  else
    rev=(); for ((m = ${#MODES[@]} - 1; m >= 0; m--)); do rev+=("${MODES[m]}"); done
    round "$r" "${rev[@]}"
  fi
done
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"

"$PY" "$S/cluster-tls-report.py" "$RAW" "$OUT"
log "report: $OUT/cluster-tls.md (raw outputs in $RAW)"
