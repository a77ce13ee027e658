#!/usr/bin/env bash
# make bench-backup: what a backup and a restore cost. Writes docs/benchmarks/backup.json and backup.md.
#
#   1. an S3-compatible store (versitygw, scripts/tool.sh) on loopback; three nodes (--replication-factor 3) backing
#      up to it, preloaded with BENCH_KEYS PUTs at 2/3 on ids drawn from 10^BENCH_KEY_DIGITS (oha, closed model);
#   2. a fixed-rate load (oha, open model, --latency-correction): PUTs of new keys and GETs of preloaded ids at 2/3,
#      BENCH_RATE req/s in all, spread over the three nodes, through everything below;
#   3. BENCH_LOAD_WARMUP seconds of load not measured, longer while the nodes are not steady yet (steady_load: their
#      JIT still compiles, or a flush or compaction of the preload still writes), BENCH_PHASE seconds of load alone
#      ("before"); then a backup (every member at once, at the node's default
#      --backup-rate unless BENCH_NODE_ARGS says otherwise) until every member is done ("during"), the manifest;
#      BENCH_PHASE seconds more ("after"); a second backup (what a scheduled one costs: warm JVMs, only the files
#      that are new are uploaded) until every member is done ("during 2nd backup"); then BENCH_PAIRS times a quiet
#      window as long as the first backup followed by a full backup (every file uploaded again): the paired windows,
#      on which the p99 target is judged (3c below); the load stops;
#   4. three fresh nodes (--restoring) restore the backup: every member its share until all have sent it, then
#      each loads what it received; the restore's time runs until every member serves;
#   5. the report: backup and restore MB/s (checkpoint bytes / wall time) and records/s, bytes uploaded, the
#      load's p50/p99/p99.9 before, during and after the backup; targets: restore >= 15 MB/s, p99 during <= 1.5x
#      the p99 before (judged on the paired windows: every request during the first and the full backups pooled
#      against every request of the quiet windows before them; the first backup's ratio alone is shown), and beside
#      it the same ratio for every window as long as the backup in "before" and "after"
#      (no backup in them: how far the ratio moves with nothing changed). Also the CPU (in cores) of the nodes (and
#      of their selector threads, which serve the requests), the object store and the load generators in each
#      phase: here they all share the machine, the store included, which a deployment does not (the store runs
#      under SCHED_IDLE with its objects in /dev/shm when there is room: BENCH_STORE_DIR puts them elsewhere).
#
# Environment (defaults give the committed figures):
#   BENCH_KEYS=3000000  BENCH_KEY_DIGITS=6  BENCH_RATE=1000  BENCH_LOAD_WARMUP=20 and BENCH_PHASE=60 seconds
#   (1M keys made a 10-s backup: a p99 over 5,000 requests per load, which moved 0.5x-1.5x with no backup at all;
#   3M make it about 53 s at the default --backup-rate, 4MiB; 26 s at 8MiB)  BENCH_STEADY_STEP=5 BENCH_JIT_QUIET=0.15 BENCH_STEADY_QUIET=3 BENCH_STEADY_MAX=90
#   (steady_load)
#   BENCH_TIMEOUT=900 s
#   BENCH_NODE_ARGS="--replication-factor 3 --block-cache 256MiB"   BENCH_JAVA_OPTS="-Xms512m -Xmx512m"
#   BENCH_OUT=docs/benchmarks   BENCH_LABEL free text   BENCH_PORT=18300 (nodes on it and the next five, the store
#   on the sixth after it)
#   BENCH_CPU_PROFILE=SECONDS (off by default): CPU profiles (collapsed stacks, the node's /v0/admin/profile) of node 0
#   during each backup and of node 3 during the restore, each for SECONDS, into the raw outputs (they cost CPU: not
#   for the figures)
#   BENCH_PAIRS=2 full backups after quiet windows (0: none, and the first backup alone is judged), BENCH_PAIR_GAP=10
#   seconds not measured after each backup
#   BENCH_ROUNDS=3: the whole run (fresh nodes, store and data) this many times, one after the other; the report
#   judges the medians of the rounds' figures and shows every round (one run's p99 ratio moved between 1.25x and 2x
#   with nothing changed: a p99 over a 10 s window of a shared 2-CPU machine)
. "$(dirname "$0")/lib.sh"

ROUNDS=${BENCH_ROUNDS:-3}
if [ "$ROUNDS" -gt 1 ]; then
  OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
  ROUNDS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-backup-rounds.XXXXXX")
  dirs=()
  for ((r = 1; r <= ROUNDS; r++)); do
    log "round $r of $ROUNDS"
    BENCH_ROUNDS=1 BENCH_OUT="$ROUNDS_DIR/round-$r" "$0" || die "round $r failed"
    dirs+=("$ROUNDS_DIR/round-$r")
  done
  mkdir -p "$OUT"
  python3 "$DHT_ROOT/scripts/bench/backup-report.py" --rounds "$OUT" "${dirs[@]}"
  log "report: $OUT/backup.md (each round's report in $ROUNDS_DIR)"
  exit 0
fi

KEYS=${BENCH_KEYS:-3000000}
DIGITS=${BENCH_KEY_DIGITS:-6}
RATE=${BENCH_RATE:-1000}
PHASE=${BENCH_PHASE:-60}
WARMUP=${BENCH_LOAD_WARMUP:-20}
STEADY_STEP=${BENCH_STEADY_STEP:-5}
JIT_QUIET=${BENCH_JIT_QUIET:-0.15}
STEADY_MAX=${BENCH_STEADY_MAX:-90}
STEADY_QUIET=${BENCH_STEADY_QUIET:-3}
TIMEOUT=${BENCH_TIMEOUT:-900}
PORT=${BENCH_PORT:-18300}
S3_PORT=$((PORT + 6))
NODE_ARGS=${BENCH_NODE_ARGS---replication-factor 3 --block-cache 256MiB}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms512m -Xmx512m}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
LABEL=${BENCH_LABEL:-}
REPLICAS=2/3
PROFILE=${BENCH_CPU_PROFILE:-}
PAIRS=${BENCH_PAIRS:-2}
GAP=${BENCH_PAIR_GAP:-10}

. "$(dirname "$0")/bench/cluster-lib.sh"
node_java bench-backup
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
VERSITYGW=$("$DHT_ROOT/scripts/tool.sh" versitygw)
command -v python3 >/dev/null || die "python3 is needed for the report"
command -v curl >/dev/null || die "curl is needed"

ports_free $(seq "$PORT" "$S3_PORT")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-backup.XXXXXX")
RAW="$WORK/raw"
mkdir -p "$RAW" "$OUT" "$WORK/credentials"
s3_pid=
S3_SHM=
watch_pid=
cleanup() {
  stop_pids "$watch_pid" "${load_pids[@]}" "${node_pids[@]}" "$s3_pid"
  rm -rf "$WORK/data" "$WORK/s3" ${S3_SHM:+"$S3_SHM"}
}
trap cleanup EXIT

settle_load
read -r load1 load5 load15 _ < /proc/loadavg
{
  machine_env "$load1 $load5 $load15"
  echo "keys=$KEYS"; echo "rate=$RATE"; echo "phase=$PHASE"; echo "load_warmup=$WARMUP"; echo "replicas=$REPLICAS"
  echo "java_opts=$JAVA_OPTS"; echo "java_flags=${JAVA_FLAGS[*]}"; echo "node_args=$NODE_ARGS"; echo "label=$LABEL"; echo "scheduled_repair=off"
} > "$RAW/env.txt"

# --- the store ------------------------------------------------------------------------------------------------
ACCESS=bench-$(openssl rand -hex 4); SECRET=$(openssl rand -hex 16)
printf '%s' "$ACCESS" > "$WORK/credentials/access-key-id"
printf '%s' "$SECRET" > "$WORK/credentials/secret-access-key"
# A deployment's object store runs on other machines. Here it shares the nodes' CPUs and disk: it runs under
# SCHED_IDLE (chrt --idle; nice 19 where chrt is missing), as the node's backup threads do, so that a request
# thread waking up preempts it at once (under nice 19 alone it may wait for the store's time slice to end), and keeps
# its objects in memory when /dev/shm has room (BENCH_STORE_DIR to choose), so that what the load pays
# during a backup is the backup's, not the store's disk writes beside the nodes' WAL.
S3_DIR=${BENCH_STORE_DIR:-}
if [ -z "$S3_DIR" ]; then
  S3_DIR=$WORK/s3
  shm_free=$(df -k --output=avail /dev/shm 2>/dev/null | tail -1 || echo 0)
  if [ "${shm_free:-0}" -gt $((4 << 20)) ]; then S3_SHM=$(mktemp -d /dev/shm/dht-bench-backup-s3.XXXXXX); S3_DIR=$S3_SHM; fi
fi
echo "store_dir=$S3_DIR" >> "$RAW/env.txt"
mkdir -p "$S3_DIR"
LOWER=(nice -n 19)
command -v chrt >/dev/null && LOWER=(chrt --idle 0 nice -n 19)
echo "store_priority=${LOWER[*]}" >> "$RAW/env.txt"
ROOT_ACCESS_KEY=$ACCESS ROOT_SECRET_KEY=$SECRET "${LOWER[@]}" "$VERSITYGW" --port "127.0.0.1:$S3_PORT" posix "$S3_DIR" \
  > "$RAW/versitygw.log" 2>&1 &
s3_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$S3_PORT/" && break; sleep 0.1; done
curl -sf -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ACCESS:$SECRET" -X PUT \
  -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
  "http://127.0.0.1:$S3_PORT/bench" || die "could not create the bucket (log: $RAW/versitygw.log)"
BACKUP_ARGS=(--backup-endpoint "http://127.0.0.1:$S3_PORT" --backup-bucket bench --backup-credentials "$WORK/credentials")

# --- the nodes ------------------------------------------------------------------------------------------------
list() { local i out=""; for i in "$@"; do out="$out${out:+,}$(url "$i")"; done; echo "$out"; }
# --repair-interval 0s: no scheduled anti-entropy round (one on request only). A node's first round starts at a
# random moment of its first 10 minutes (RepairService.firstDelay), which is this whole bench: in the rounds of
# 56fd223 it hashed the 3M keys for 5-8 s inside "before" (rounds 2 and 3: the load's p99 per 5 s rose to 5-20 ms) or
# at the backup's start (round 1), so each round measured wherever the repair fell. The bench measures the backup.
start_node() { # start_node I MEMBERS EXTRA...
  local i=$1 members=$2; shift 2
  launch_node "$i" "$WORK/node$i.log" --cluster "$members" --self "$(url "$i")" --repair-interval 0s \
    "${BACKUP_ARGS[@]}" "$@"
  await_node "$i" "$WORK/node$i.log"
}
post() { curl -sf -X POST -H 'Content-Type: application/json' --data "$2" "$1"; }
profile() { # profile I NAME: a CPU profile of node I in the background (BENCH_CPU_PROFILE seconds), if asked for
  [ -n "$PROFILE" ] || return 0
  curl -s -o "$RAW/profile-$2.txt" "$(url "$1")/v0/admin/profile?event=cpu&duration=${PROFILE}s&format=collapsed&interval=1ms" &
}
cpu_sample() { # cpu_sample NAME: CPU ticks (user + system) so far of the nodes, the object store and the load
  local i t pid
  {
    for i in 0 1 2; do echo "node$i=$(awk '{print $14 + $15}' "/proc/${node_pids[i]}/stat")"; done
    # the one-nio selector threads, which serve and answer the requests: the same load costing them more CPU during a
    # backup is the request path itself slowed (per-thread sampling, docs/operations.md "Measured cost"). One awk over
    # every thread's stat: a process or two per thread cost 0.15 s of CPU per node at each mark, inside the phase it
    # starts. cat, not awk, opens the files: a thread that ended since the glob is skipped, not fatal (mawk stops).
    # (utime and stime are the 12th and 13th fields after the thread's name.)
    { cat "/proc/${node_pids[0]}"/task/*/stat "/proc/${node_pids[1]}"/task/*/stat \
        "/proc/${node_pids[2]}"/task/*/stat 2> /dev/null || true; } |
      awk 'substr($0, index($0, "(") + 1, 12) == "dht-selector" {
             split(substr($0, index($0, ") ") + 2), f, " "); t += f[12] + f[13] }
           END { print "selectors=" t + 0 }'
    echo "store=$(awk '{print $14 + $15}' "/proc/$s3_pid/stat")"
    t=0
    for pid in "${load_pids[@]}"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
    echo "load=$t"
    echo "clk_tck=$(getconf CLK_TCK)"
  } > "$RAW/cpu-$1.txt"
}
# node_work: what the three nodes did beside requests so far: WORK_JIT (seconds their JIT compilers worked) and
# WORK_BYTES (table bytes their flushes and compactions wrote). curl, not http_request: bash reads a socket a byte
# at a time, and three 25 KB /metrics pages took 0.57 s of a core at each mark, inside the phase it starts; curl 0.1 s.
node_work() {
  local out
  out=$(for i in 0 1 2; do curl -s --max-time 10 "$(url "$i")/metrics" || true; done | awk '
    $1 == "jvm_compilation_time_seconds_total" { jit += $2 }
    $1 == "dht_rocksdb_flush_write_bytes_total" || $1 == "dht_rocksdb_compaction_write_bytes_total" { bytes += $2 }
    END { printf "%.3f %.0f\n", jit, bytes }')
  read -r WORK_JIT WORK_BYTES <<< "$out"
}
work_sample() { node_work; printf 'jit=%s\nwritten=%s\n' "$WORK_JIT" "$WORK_BYTES" > "$RAW/work-$1.txt"; } # work_sample NAME
# steady_load: the load's warm-up goes on in STEADY_STEP steps until STEADY_QUIET steps in a row were quiet: the
# nodes' JIT compiled at most JIT_QUIET s in each and their flushes and compactions wrote nothing (at most STEADY_MAX s
# more). With 3M keys the preload's compactions ran on after its pending bytes read 0 (await_compactions) and the GET
# path was still compiling: "before" had the nodes 0.08-0.14 cores busier than "after" and a p99 1.2-2.3x after's,
# which flattered the ratio over it. One quiet step was not proof: in a round after d082cbf the JIT paused for one
# step and then compiled 0.059 s per second through "before" (0.004 after).
steady_load() {
  local extra=0 quiet=0 jit bytes
  node_work; jit=$WORK_JIT; bytes=$WORK_BYTES
  while [ "$extra" -lt "$STEADY_MAX" ]; do
    sleep "$STEADY_STEP"
    extra=$((extra + STEADY_STEP))
    node_work
    if awk -v a="$jit" -v b="$WORK_JIT" -v q="$JIT_QUIET" 'BEGIN { exit !(b - a <= q) }' \
        && [ "$WORK_BYTES" = "$bytes" ]; then
      quiet=$((quiet + 1))
      [ "$quiet" -ge "$STEADY_QUIET" ] && break
    else
      quiet=0
    fi
    jit=$WORK_JIT; bytes=$WORK_BYTES
  done
  echo "steady_wait=$extra" >> "$RAW/env.txt"
  echo "steady_quiet_steps=$quiet" >> "$RAW/env.txt"; echo "steady_quiet_wanted=$STEADY_QUIET" >> "$RAW/env.txt"
  log "the load ran $((WARMUP + extra)) s before \"before\" ($extra s more; $quiet quiet steps in a row at the end)"
}
await_phase() { # await_phase PATH ID PHASE NODES...: until each node's PATH reports job ID in PHASE (fails on "failed")
  local path=$1 id=$2 phase=$3 deadline=$((SECONDS + TIMEOUT)) i s p all; shift 3
  while [ $SECONDS -lt $deadline ]; do
    all=1
    for i in "$@"; do
      http_request GET $((PORT + i)) "$path" || true # no process per poll: see http_request
      p=
      body_field '"id":"([^"]*)"'
      [ "$FIELD" = "$id" ] && body_field '"phase":"([a-z]*)"' && p=$FIELD
      [ "$p" = failed ] && die "node $i failed: $HTTP_BODY"
      [ "$p" = "$phase" ] || all=0
    done
    [ $all = 1 ] && return 0
    sleep 0.5
  done
  die "$id not $phase within ${TIMEOUT}s on $*"
}

# backup_all ID T0: every member backs up ID from start point T0 (ms), until all are done
backup_all() {
  local i
  for i in 0 1 2; do post "$(url "$i")/v0/admin/backup" "{\"id\":\"$1\",\"t0\":$2,\"member\":$i}" > /dev/null \
    || die "node $i refused backup $1"; done
  await_phase /v0/admin/backup "$1" done 0 1 2
}

for i in 0 1 2; do start_node "$i" "$(list 0 1 2)"; done
await_rebuilt 0 1 2 # every node has decided the cluster is new before the preload writes

# The members' backup status, polled every 0.5 s from their start to the load's end, as the operator polls every
# member's admin endpoints all along (its repair poll; await_phase polls too while a backup runs). Without it the
# first admin requests of a node's life came with the first backup, and the JIT dropped the request path it had
# compiled without them and compiled it again (JFR, node 0: DhtServer.handleRequest and HttpSession.processHttpBuffer
# deoptimized at the admin dispatch, then 0.35 s of C2 for the two in the backup's first seconds): a node's start,
# measured as the backup's cost. (One process: http_request starts none.)
watch_nodes() {
  local i
  while :; do
    for i in 0 1 2; do http_request GET $((PORT + i)) /v0/admin/backup || true; done
    sleep 0.5
  done
}
watch_nodes &
watch_pid=$!

# --- 1. preload -----------------------------------------------------------------------------------------------
value=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
connect_to=()
for i in 0 1 2; do connect_to+=(--connect-to "127.0.0.1:$PORT:127.0.0.1:$((PORT + i))"); done
log "preloading $KEYS PUTs at $REPLICAS"
"$OHA" -n "$KEYS" -c 48 --no-tui --output-format json "${connect_to[@]}" -m PUT -d "$value" \
  --rand-regex-url "$(url 0)/v0/entity\\?id=k[0-9]{$DIGITS}&replicas=$REPLICAS" > "$RAW/oha-preload.json" \
  2> "$RAW/oha-preload.err" || die "preload failed (see $RAW/oha-preload.err)"
await_compactions 0 1 2 # the preload's compactions end first: "before" measures the load, not the preload

# --- 2. the fixed-rate load -----------------------------------------------------------------------------------
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
cpu_sample load_start
# the load's own warm-up (the GET path's first compiles: the preload only wrote) is not "before": that p99 was 1.3-2x
# the steady one, and flattered every ratio over it
sleep "$WARMUP"
steady_load
mark before_start
cpu_sample before_start
work_sample before_start
sleep "$PHASE"

# --- 3. the backup under the load ---------------------------------------------------------------------------------
t0=$(now_ms)
mark backup_start
cpu_sample backup_start
work_sample backup_start
profile 0 backup
backup_all bench "$t0"
mark backup_done
cpu_sample backup_done
work_sample backup_done
post "$(url 0)/v0/admin/backup/finish" '{"id":"bench","members":3}' > "$RAW/backup-manifest.json" \
  || die "finish failed"
for i in 0 1 2; do curl -s "$(url "$i")/v0/admin/backup" > "$RAW/backup-node$i.json"; done
sleep "$PHASE"

# --- 3b. a second backup under the same load: what a scheduled one costs (warm JVMs; it uploads only new files) ---
t1=$(now_ms)
mark backup2_start
cpu_sample backup2_start
work_sample backup2_start
profile 0 backup2
backup_all bench-2 "$t1"
mark backup2_done
cpu_sample backup2_done
work_sample backup2_done
post "$(url 0)/v0/admin/backup/finish" '{"id":"bench-2","members":3}' > "$RAW/backup2-manifest.json" \
  || die "finish of the second backup failed"
for i in 0 1 2; do curl -s "$(url "$i")/v0/admin/backup" > "$RAW/backup2-node$i.json"; done

# --- 3c. paired windows: the judged ratio, with more requests than one backup has --------------------------------
# One backup's p99 moved 0.43x-2.66x over "before" in the windows of the same run with no backup in them (the rounds
# of dddb7f0): a p99 of some 13,000 requests on a shared 2-CPU machine. So the same backup is made PAIRS times more,
# each after a quiet window as long as the first backup, and each pair's windows sit next to each other (a drift of
# the machine over minutes lands in both). Each is a full one: the store's files are set aside first, so that every
# file is uploaded again, as in the first backup (the content names the nodes remember are reused: no file is read
# for its name again, which the first backup did at 4x the upload rate). GAP seconds after each backup are not
# measured: what a backup leaves behind is in neither window. The originals come back before the restore.
if [ "$PAIRS" -gt 0 ]; then
  files_dir=$S3_DIR/bench/files
  [ -d "$files_dir" ] || die "no $files_dir: the store keeps its objects elsewhere than this bench expects"
  first_s=$(awk -F= '$1 == "backup_start" { a = $2 } $1 == "backup_done" { b = $2 } END { print int((b - a + 999) / 1000) }' \
    "$RAW/timeline.txt")
  echo "pairs=$PAIRS" >> "$RAW/env.txt"; echo "pair_gap=$GAP" >> "$RAW/env.txt"; echo "pair_quiet_s=$first_s" >> "$RAW/env.txt"
  mv "$files_dir" "$S3_DIR/kept-files" # a rename: the store reads its directory on every request
  for ((k = 1; k <= PAIRS; k++)); do
    rm -rf "$files_dir" # the previous full backup's files
    sleep "$GAP"
    mark "quiet${k}_start"
    cpu_sample "quiet${k}_start"
    sleep "$first_s"
    tk=$(now_ms)
    mark "full${k}_start"
    cpu_sample "full${k}_start"
    backup_all "full-$k" "$tk"
    mark "full${k}_done"
    cpu_sample "full${k}_done"
    curl -s "$(url 0)/v0/admin/backup" > "$RAW/full$k-node0.json"
  done
  rm -rf "$files_dir"
  mv "$S3_DIR/kept-files" "$files_dir"
fi
sleep 5
mark load_end
stop_load
stop_pids "$watch_pid"
watch_pid=
for i in 0 1 2; do stop_node "$i"; done

# --- 4. the restore into three fresh nodes ------------------------------------------------------------------------
for i in 3 4 5; do start_node "$i" "$(list 3 4 5)" --restoring true; done
mark restore_start
profile 3 restore
for i in 3 4 5; do post "$(url "$i")/v0/admin/restore" "{\"id\":\"bench\",\"share\":$((i - 3)),\"shares\":3}" \
  > /dev/null || die "node $i refused the restore"; done
await_phase /v0/admin/restore bench streamed 3 4 5
mark restore_streamed
for i in 3 4 5; do post "$(url "$i")/v0/admin/restore/finish" '{"id":"bench"}' > /dev/null; done
await_phase /v0/admin/restore bench done 3 4 5
mark restore_done
for i in 3 4 5; do curl -s "$(url "$i")/v0/admin/restore" > "$RAW/restore-node$i.json"; done
curl -s -o /dev/null -w '%{http_code}' "$(url 3)/v0/entity?id=w" > "$RAW/restored-get-status.txt" || true
for i in 0 1 2 3 4 5; do cp "$WORK/node$i.log" "$RAW/" 2>/dev/null || true; done
read -r load1 load5 load15 _ < /proc/loadavg
echo "load_after=$load1 $load5 $load15" >> "$RAW/env.txt"

python3 "$DHT_ROOT/scripts/bench/backup-report.py" "$RAW" "$OUT"
log "report: $OUT/backup.md (raw outputs in $RAW)"
