#!/usr/bin/env bash
# make bench-cluster-tls (or make bench-cluster BENCH_MEMBER_TLS=both): what TLS costs a 3-node cluster at replicas=2/3,
# on the member plane (mutual TLS between the members) and on the client port (the load generators speak TLS to the
# coordinators), in the same run. Three clusters of the same commit run side by side on this host (BENCH_MODES), on
# fresh data each round: plaintext ("plain"), member TLS ("tls"), member TLS and client TLS ("client": as the operator
# runs a cluster by default; server TLS on the client port, asking for a client certificate: --client-tls-ca with
# --client-auth=optional). Member TLS is judged against plain, the client port's TLS against tls (the one difference
# between those two clusters), both together against plain (shown). Client certificates ("cert") are judged on the
# client-TLS cluster itself, against its own slices without one: at the fixed rate, each of its slices is a pair,
# oha presenting the read-write certificate of scripts/tls/client-certs.sh and oha presenting none, which goes first
# alternating with the order of the clusters, so both see the same warm-up, data and JIT (wrk cannot present a
# certificate, so there is no maximum-throughput run with one). A certificate is checked once, in its connection's
# handshake; the bench's requests come from loopback, which needs no credential, so those without a certificate are
# served as well (elsewhere --client-auth=optional wants a token from them: docs/security.md);
#   - maximum throughput: wrk (closed model), PUT then GET, one cluster after the other (which goes first alternates
#     by round), the others idle meanwhile; each measured run in two halves, two identical windows whose spread is the
#     noise floor beside the throughput ratio (the slices' spread is the p99's);
#   - latency at a fixed rate: oha (open model, --latency-correction), PUT then GET, in BENCH_SLICES slices of
#     BENCH_SLICE seconds per cluster (the client-TLS cluster: a slice without and one with a client certificate),
#     the clusters taking turns (ABCD, DCBA...: C and D the client-TLS cluster without and with one): a minute of the machine running slower
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
# Warm-ups: each round's clusters are new, and the JDK's TLS code (SSLEngine, AES-GCM; on the client port also the
# handshake's, EC point multiplication) takes the JIT longer than the plaintext path. A maximum run is one wrk process
# (BENCH_WARMUP seconds of warm-up, PUT; GET half of it; then BENCH_DURATION measured), its window taken from its own
# per-second counts (wrk-cluster-*.lua, BENCH_PER_SECOND): the load generator's connections, TLS handshakes included,
# are opened once, at its start, and the window sees none. A warm-up in separate wrk processes (the earlier design)
# opened 64 new TLS connections with each: the client-TLS cluster's JIT compiled 46.7 s (over its three nodes, on one
# CPU) during a 16-s measured PUT run after 40 s of warm-up steps. The report shows the compiling in the warm-up and
# in the window. The fixed-rate slices of an operation are preceded by 5 s at the same rate on each cluster,
# unrecorded: the first second of a new request shape (oha's keys and bodies) ran at 2-10x the p50 in both modes
# while the JIT caught up, and that one second held about half of a 30 s run's requests above p99.
# Every node has decided it starts a new cluster before any load (a node still deciding when writes arrive sees data
# on the others and rebuilds: seconds without reads, in an earlier round's warm-up).
#
# Environment: BENCH_ROUNDS=2   BENCH_DURATION=40   BENCH_WARMUP=60 (seconds; a round of three clusters takes about 13
#   minutes. A PUT maximum swings 3-4x second by second while three co-located members flush and compact on one CPU:
#   12-s windows after 30 s of warm-up had halves up to 71-81% apart, 40-s ones 16-41%)   BENCH_RATE_WARMUP=5
#   BENCH_SLICE_SETTLE=1 (seconds of each slice the p99 leaves out)
#   BENCH_SLICES=2   BENCH_SLICE=8 (seconds)   BENCH_THREADS=3   BENCH_CONNECTIONS=64
#   BENCH_REFERENCE_RATE=2500 (req/s of the fixed-rate slices; 5000 without pinning)   BENCH_REPLICAS=2/3
#   BENCH_NODE_CPUS=1 BENCH_LOAD_CPUS=0 (on 2 CPUs; taskset lists; both empty: no pinning)
#   BENCH_PROFILE=SECONDS (off by default): async-profiler on each cluster's first node during the fixed-rate slices
#     (the first slice cpu, the second alloc), collapsed stacks into the raw directory
#   BENCH_NODE_ARGS="--block-cache 1GiB"   BENCH_JAVA_OPTS   BENCH_CLUSTER_PORT=18100 (and the next eight; the
#   member ports are 10000 above)   BENCH_OUT=docs/benchmarks   BENCH_LABEL   BENCH_MODES="plain tls client"
. "$(dirname "$0")/lib.sh"

ROUNDS=${BENCH_ROUNDS:-2}
DURATION=${BENCH_DURATION:-40}
WARMUP=${BENCH_WARMUP:-60}
RATE_WARMUP=${BENCH_RATE_WARMUP:-5}
SLICE_SETTLE=${BENCH_SLICE_SETTLE:-1}
SLICES=${BENCH_SLICES:-2}
SLICE=${BENCH_SLICE:-8}
THREADS=${BENCH_THREADS:-3}
CONNS=${BENCH_CONNECTIONS:-64}
REPLICAS=${BENCH_REPLICAS:-2/3}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
PORT=${BENCH_CLUSTER_PORT:-18100}
NODE_ARGS=${BENCH_NODE_ARGS---block-cache 1GiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}
LABEL=${BENCH_LABEL:-}
PROFILE=${BENCH_PROFILE:-}
profile_pid=""
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
# the fixed-rate slices' modes: with the client-TLS cluster, its slices with a client certificate ("cert") too
RATE_MODES=("${MODES[@]}")
[[ " ${MODES[*]} " == *" client "* ]] && RATE_MODES+=(cert)
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
tls_ca="$WORK/client-tls/ca.crt" # cluster-lib.sh's status calls to the client-TLS nodes (tls_ports) trust it
# and present the read-write client certificate (the client-TLS cluster asks for one: optional)
tls_cert="$WORK/client-tls/client.crt"
tls_key="$WORK/client-tls/client.key"
CLIENT_TLS_ARGS=(--client-tls-cert "$WORK/client-tls/tls.crt" --client-tls-key "$WORK/client-tls/tls.key"
  --client-tls-ca "$tls_ca" --client-auth optional)
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
  echo "warmup_in_window_run=1"
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
  echo "rate_modes=$(IFS=,; echo "${RATE_MODES[*]}")" # cert: the client-TLS cluster's slices with a certificate
  echo "client_auth=optional"
  echo "client_base=tls" # the client-TLS cluster's member plane is in mutual TLS: its own cost is against "tls"
  echo "java_opts=$JAVA_OPTS"
  echo "node_args=$NODE_ARGS"; echo "scheduled_repair=off"
  echo "label=$LABEL"
  echo "node_cpus=$NODE_CPUS"
  echo "load_cpus=$LOAD_CPUS"
} > "$RAW/env.txt"
# this script and what it starts (wrk, oha, curl) on LOAD_CPUS, the nodes on theirs (NODE_LAUNCHER); after env.txt,
# whose nproc is the machine's
if [ -n "$LOAD_CPUS" ]; then taskset -p -c "$LOAD_CPUS" $$ > /dev/null; fi

# Three clusters of three nodes side by side, plaintext (nodes 0-2), member TLS (nodes 3-5) and client TLS (nodes
# 6-8); only one is loaded at a time
S="$DHT_ROOT/scripts/bench"
first_node() { # first_node MODE: the index of the cluster's node 0 (cert: the client-TLS cluster's)
  case $1 in tls) echo "$NODES" ;; client | cert) echo $((2 * NODES)) ;; *) echo 0 ;; esac
}
members_of() { local i f; f=$(first_node "$1"); for ((i = f; i < f + NODES; i++)); do url "$i"; done | paste -sd,; }
cluster_ports() { local f; f=$(first_node "$1"); seq -s, $((PORT + f)) $((PORT + f + NODES - 1)); }
scheme() { case $1 in client | cert) echo https ;; *) echo http ;; esac; }
tls_curl=(--cacert "$tls_ca" --cert "$tls_cert" --key "$tls_key")
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
  case $mode in
    tls) extra+=("${TLS_ARGS[@]}") ;;
    client) extra+=("${TLS_ARGS[@]}" "${CLIENT_TLS_ARGS[@]}") ;;
  esac
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

oha_load() { # oha_load MODE OP: oha's arguments for the fixed-rate load of OP on the cluster of MODE
  local mode=$1 op=$2 base
  base=$(cluster_url "$mode")
  mapfile -t hops < <(connect_to "$mode")
  load=(-q "$RATE" --latency-correction -c "$CONNS" --no-tui "${hops[@]}")
  case $mode in
    client) load+=(--cacert "$tls_ca") ;; # asked for a certificate, presents none
    cert) load+=("${tls_curl[@]}") ;;
  esac
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
profile() { # profile MODE SLICE NAME: with BENCH_PROFILE, the cluster's first node profiled in the background during
  # the slice (slice 1: cpu, slice 2: alloc; async-profiler via the node's /v0/admin/profile) into profile-NAME-EVENT.txt
  local event
  [ -n "$PROFILE" ] || return 0
  case $2 in 1) event=cpu ;; 2) event=alloc ;; *) return 0 ;; esac
  curl -s "${tls_curl[@]}" -o "$RAW/profile-$3-$event.txt" \
    "$(cluster_url "$1")/v0/admin/profile?event=$event&duration=${PROFILE}s&format=collapsed&interval=1ms" &
  profile_pid=$!
}
oha_slice() { # oha_slice MODE OP NAME: one slice at the rate, every request into $RAW/oha-NAME.csv, CPU samples
  # around it into oha-NAME.cpu (cpu_sample before, after)
  local load hops before cpu
  oha_load "$1" "$2"
  log "oha $3 at $RATE/s (${SLICE}s)"
  echo "$3" >> "$RAW/slices.order" # the order run: the report checks the certificate's slices are paired
  before=$(flushed_bytes "$1")
  cpu=$(cpu_sample "$1")
  "$OHA" -z "${SLICE}s" --output-format csv -o "$RAW/oha-$3.csv" "${load[@]}" 2> "$RAW/oha-$3.err" \
    || log "oha $3 exited with $?"
  # whether a member flushed a memtable during the slice: the three replicas get the same writes, so they flush
  # together, about a core for a second on this machine, in either mode (the report marks those slices)
  echo "$cpu $(cpu_sample "$1")" > "$RAW/oha-$3.cpu"
  echo "$before $(flushed_bytes "$1")" > "$RAW/oha-$3.flush"
}

# mark FILE MODE: a line "wall time, the cluster's compile seconds, cpu_sample" into FILE
mark() {
  local jit t
  jit=$(jit_seconds "$2")
  t=$(date +%s.%N)
  echo "$t $jit $(cpu_sample "$2")" >> "$1"
}
# sleep_until T: until wall time T (seconds since the epoch)
sleep_until() {
  local left
  left=$(awk -v t="$1" -v n="$(date +%s.%N)" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')
  sleep "$left"
}
# window_run MODE NAME WARM SECONDS SCRIPT [args...]: one wrk process of WARM + SECONDS (+ 4) seconds; marks (mark)
# into wrk-NAME.marks at its start, after WARM seconds and at the two halves' ends of SECONDS. The report counts the
# requests of each half from wrk's per-second lines between the marks: the halves are identical windows, and how far
# apart their throughputs (and the nodes' CPU per request) are is the run's noise floor beside the ratio.
window_run() {
  local mode=$1 name=$2 warm=$3 secs=$4 script=$5 half t0 t pid; shift 5
  half=$(((secs + 1) / 2))
  rm -f "$RAW/wrk-$name.marks"
  mark "$RAW/wrk-$name.marks" "$mode"
  t0=$(date +%s.%N)
  log "wrk $name (${warm}s warm-up, ${secs}s measured, one process)"
  BENCH_PER_SECOND=1 BENCH_PORTS="$(cluster_ports "$mode")" BENCH_REPLICAS="$REPLICAS" \
    "$WRK" -t"$THREADS" -c"$CONNS" -d"$((warm + 2 * half + 4))s" --latency -s "$S/$script" "$(cluster_url "$mode")" \
    -- "$@" > "$RAW/wrk-$name.txt" 2>&1 &
  pid=$!
  for t in "$warm" $((warm + half)) $((warm + 2 * half)); do
    sleep_until "$(awk -v a="$t0" -v b="$t" 'BEGIN { printf "%.3f", a + b }')"
    mark "$RAW/wrk-$name.marks" "$mode"
  done
  wait "$pid" || die "wrk $name failed (see $RAW/wrk-$name.txt)"
}

max_throughput() { # max_throughput N MODE: wrk PUT then GET on the cluster of MODE; sets get_regex[MODE]
  local n=$1 mode=$2 tag="r$1-$2" keys
  window_run "$mode" "$tag-put" "$WARMUP" "$DURATION" wrk-cluster-put.lua t
  keys=$(sed -n 's/^KEYS_PER_THREAD //p' "$RAW/wrk-$tag-put.txt")
  [ -n "$keys" ] || die "the PUT run $tag reported no keys (see $RAW/wrk-$tag-put.txt)"
  keys=$((keys - CONNS))
  window_run "$mode" "$tag-get" $(((WARMUP + 1) / 2)) "$DURATION" wrk-cluster-get.lua "$THREADS" "$keys"
  get_regex[$mode]=$(key_regex t "$keys" "$THREADS")
}
# key_regex PREFIX KEYS THREADS: oha's URL pattern for keys PREFIX<thread>-<n> (n zero-padded to 10 digits) that
# exist: n from the smallest number of as many digits as KEYS - 1 up to it, over the threads
key_regex() {
  local digits zeros
  digits=${#2}; digits=$((digits - 1)); [ "$digits" -ge 2 ] || die "too few keys written ($2)"
  zeros=$(printf '0%.0s' $(seq $((10 - digits))))
  echo "/v0/entity\\?id=$1[0-$(($3 - 1))]-${zeros}[1-9][0-9]{$((digits - 1))}&replicas=$REPLICAS"
}
declare -A get_regex
all_nodes() { local mode; for mode in "${MODES[@]}"; do cluster_nodes "$mode"; done; }
round() { # round N MODE...: every cluster on fresh data, in this order, and in the reverse order in even slices
  local n=$1 op s mode order; shift
  local modes=("$@")
  log "round $n: ${modes[*]}"
  # one cluster after the other: twelve JVMs starting at once on the nodes' one CPU took more than await_http's 60 s
  for mode in "${modes[@]}"; do start_cluster "$mode" "r$n-$mode"; await_cluster "$mode" "r$n-$mode"; done
  for mode in "${modes[@]}"; do max_throughput "$n" "$mode"; done
  if [ -n "${get_regex[client]:-}" ]; then get_regex[cert]=${get_regex[client]}; fi # the same cluster and keys
  # the fixed-rate slices' order: the client-TLS cluster's pair of slices (without, with a certificate) in its place
  local rate_modes=() rate_reversed=()
  for mode in "${modes[@]}"; do
    rate_modes+=("$mode")
    if [ "$mode" = client ]; then rate_modes+=(cert); fi
  done
  for ((s = ${#rate_modes[@]} - 1; s >= 0; s--)); do rate_reversed+=("${rate_modes[s]}"); done
  # the maximum-throughput runs leave memtables filled and a compaction backlog, of sizes that differ by round and
  # mode: the fixed-rate slices measure the member plane, not what remains of them. The three replicas of a key get
  # the same writes and flush together (about a core of the two for a second): with memtables as full as the maximum
  # runs left them, one cluster's slices drew flushes the other's did not (5 TLS slices against 2 in two runs).
  # Flushed first, 35 s at the rate (the warm-up and the PUT slices) fill a 64 MiB memtable about a third.
  flush_memtables $(all_nodes)
  await_compactions $(all_nodes)
  for op in put get; do
    for mode in "${rate_modes[@]}"; do oha_warmup "$mode" "$op" "r$n-$mode-$op-rate"; done
    for ((s = 1; s <= SLICES; s++)); do
      if ((s % 2 == 1)); then order=("${rate_modes[@]}"); else order=("${rate_reversed[@]}"); fi
      for mode in "${order[@]}"; do
        profile "$mode" "$s" "r$n-$mode-$op-rate-s$s"
        oha_slice "$mode" "$op" "r$n-$mode-$op-rate-s$s"
        if [ -n "$profile_pid" ]; then wait "$profile_pid" || true; profile_pid=""; fi # the profile's answer
      done
    done
  done
  for mode in "${modes[@]}"; do
    for ((i = 0; i < NODES; i++)); do
      curl -s "${tls_curl[@]}" "$(scheme "$mode")://127.0.0.1:$((PORT + $(first_node "$mode") + i))/metrics" \
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
