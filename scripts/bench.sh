#!/usr/bin/env bash
# make bench: the five tapes (k6/*.js) against a local 3-node cluster, with cpu and alloc flamegraphs of every node
# during each tape's steady part. Writes bench-results/<run-id>/ (summary.json, <tape>.series.csv,
# <node>-<tape>-<event>.html, report.md and its plots, node<i>.log, raw/) and points bench-results/latest at it. The
# nodes are started and stopped by the harness (python -m harness nodes: scripts/bench/harness/nodes.py, the launcher
# of every local benchmark), the tapes run by scripts/bench/runner (python3 -m runner run --help).
#
# Environment (defaults: about 5 minutes in all):
#   BENCH_DURATION=45s   per tape                     BENCH_RATE=1000   req/s (const), the final rate (ramp)
#   BENCH_TAPES          comma- or space-separated (default: put-unique put-overwrite get-uniform get-recent mixed)
#   BENCH_PROFILE=const  or ramp (from 1 req/s up to BENCH_RATE over BENCH_DURATION; reports the saturation
#                        point: p99 above BENCH_SAT_P99_MS=10 or errors above 1%, 3 s in a row)
#   BENCH_ENGINE=k6      or oha: the same tapes sent by oha at a fixed rate with --latency-correction (coordinated
#                        omission corrected; rates k6 cannot hold); its ramp is a staircase of 3 s steps
#   BENCH_EVENTS=cpu,alloc  profiler events (add lock, wall; empty: no flamegraphs)
#   BENCH_REPLICAS=2/3   BENCH_KEYS=20000 pre-filled   BENCH_VALUE_SIZE=100   BENCH_SEED=1
#   BENCH_NODES=3        BENCH_PORT=8080 (the nodes use it and the next ones)
#   BENCH_NODE_ARGS      options of every node          BENCH_JAVA_OPTS   JVM options of every node
#   BENCH_RESULTS=bench-results   BENCH_RUN_ID (default: UTC date-time)   BENCH_LABEL  free text for the report
#   BENCH_KEEP_DATA=1    keep the nodes' data directory (<run>/data; removed by default)
. "$(dirname "$0")/lib.sh"

DURATION=${BENCH_DURATION:-45s}
RATE=${BENCH_RATE:-1000}
TAPES=$(echo "${BENCH_TAPES:-put-unique put-overwrite get-uniform get-recent mixed}" | tr ' ' ',' | tr -s ',')
PROFILE=${BENCH_PROFILE:-const}
ENGINE=${BENCH_ENGINE:-k6}
EVENTS=${BENCH_EVENTS-cpu,alloc}
REPLICAS=${BENCH_REPLICAS:-2/3}
KEYS=${BENCH_KEYS:-20000}
VALUE_SIZE=${BENCH_VALUE_SIZE:-100}
SEED=${BENCH_SEED:-1}
SAT_P99_MS=${BENCH_SAT_P99_MS:-10}
NODES=${BENCH_NODES:-3}
PORT=${BENCH_PORT:-8080}
NODE_ARGS=${BENCH_NODE_ARGS:-}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms512m -Xmx512m -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints}
RESULTS=${BENCH_RESULTS:-$DHT_ROOT/bench-results}
RUN_ID=${BENCH_RUN_ID:-$(date -u +%Y%m%d-%H%M%S)}
LABEL=${BENCH_LABEL:-}

case "$PROFILE" in const|ramp) ;; *) die "BENCH_PROFILE must be const or ramp, not '$PROFILE'" ;; esac
case "$ENGINE" in k6|oha) ;; *) die "BENCH_ENGINE must be k6 or oha, not '$ENGINE'" ;; esac
[[ "$RUN_ID" =~ ^[A-Za-z0-9._-]+$ ]] || die "BENCH_RUN_ID may hold letters, digits, '.', '_' and '-' only"
JAR="$DHT_ROOT/node/target/dht-node.jar"
[ -f "$JAR" ] || die "$JAR is missing: run 'make bench' (it builds the jar) or 'make build'"
command -v python3 >/dev/null || die "python3 is needed to run the tapes"
K6=$("$DHT_ROOT/scripts/tool.sh" k6)  # the pre-fill runs on k6 with either engine
OHA=oha
if [ "$ENGINE" = oha ]; then OHA=$("$DHT_ROOT/scripts/tool.sh" oha); fi
PY=$("$DHT_ROOT/scripts/venv.sh")  # the harness and the report (plots: matplotlib); made before the run
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"

targets=()
for ((i = 0; i < NODES; i++)); do targets+=("http://127.0.0.1:$((PORT + i))"); done

RUN="$RESULTS/$RUN_ID"
[ -e "$RUN" ] && die "$RUN exists already: choose another BENCH_RUN_ID"
mkdir -p "$RUN"

# The harness (scripts/bench/harness: python -m harness nodes) starts the cluster, runs the tapes once every node
# serves, and stops the nodes when the runner ends, however it ends. It runs in the background and the script waits
# for it, so that Ctrl-C or SIGTERM reach this trap at once: SIGTERM to the harness, which passes it to the runner
# (which stops k6 or oha and the captures and still writes its summary), then stops the nodes.
bench_pid=
stop_bench() {
  if [ -n "$bench_pid" ] && kill -0 "$bench_pid" 2>/dev/null; then
    kill -TERM "$bench_pid" 2>/dev/null || true
    wait "$bench_pid" 2>/dev/null || true
  fi
  bench_pid=
}
trap 'stop_bench; exit 130' INT
trap 'stop_bench; exit 143' TERM

log "run $RUN_ID: $NODES nodes on ports $PORT.., tapes $TAPES, $PROFILE $RATE req/s, $DURATION per tape ($ENGINE)"
keep=()
if [ "${BENCH_KEEP_DATA:-0}" = 1 ]; then keep=(--keep-data); fi
status=0
PYTHONPATH="$DHT_ROOT/scripts/bench" "$PY" -m harness nodes --count "$NODES" --port "$PORT" --jar "$JAR" \
  --java "$JAVA_HOME/bin/java" --java-flags="$(node_jdk_flags "$JAVA_HOME/bin/java")" --java-opts="$JAVA_OPTS" \
  --node-args="$NODE_ARGS" --work "$RUN" "${keep[@]}" -- \
  python3 -m runner run \
  --targets "$(IFS=,; echo "${targets[*]}")" --out "$RUN" --run-id "$RUN_ID" --tapes "$TAPES" \
  --profile "$PROFILE" --rate "$RATE" --duration "$DURATION" --replicas "$REPLICAS" --keys "$KEYS" \
  --value-size "$VALUE_SIZE" --seed "$SEED" --events "$EVENTS" --sat-p99-ms "$SAT_P99_MS" --k6 "$K6" \
  --engine "$ENGINE" --oha "$OHA" \
  --meta "java=$("$JAVA_HOME/bin/java" -version 2>&1 | head -1)" --meta "nodes=$NODES" \
  --meta "node_args=$NODE_ARGS" --meta "java_opts=$JAVA_OPTS" --meta "label=$LABEL" &
bench_pid=$!
wait "$bench_pid" || status=$?
bench_pid=

if [ -f "$RUN/summary.json" ]; then
  ln -sfn "$RUN_ID" "$RESULTS/latest"
  "$PY" "$DHT_ROOT/scripts/bench/report.py" "$RUN" >/dev/null || status=1
  log "results in $RUN (bench-results/latest): report.md, summary.json, flamegraphs"
fi
exit "$status"
