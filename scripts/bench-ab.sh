#!/usr/bin/env bash
# make bench-ab BASE=<commit or release> [HEAD=<commit>]: this checkout's node (node/target/dht-node.jar, built by
# make; or HEAD's) against the node of BASE (scripts/node-at.sh: built once from that commit, cached) on this machine,
# in alternating rounds: one
# node (beside it the bare one-nio server and one-nio + RocksDB doing nothing else) and 3 members at 2/3 through
# one entry node; PUT and GET; wrk's closed-model throughput, oha's p99/p99.9 at a fixed rate, CPU per request.
# Each figure is judged better / worse / not separable here against the spread of identical windows of the same
# run. The scenario is scripts/bench/harness/ab.py; this script only finds what it needs.
# Writes $BENCH_OUT/<base>-vs-<head>.{md,json,svg} (docs/benchmarks/ab/). Each shape is a run of its own (servers,
# preload, warm-up, rounds), and one report covers them all: BENCH_LOCK=<file> holds that file's exclusive flock
# around each shape's run and releases it between them (a shared machine's benchmark lock: each hold stays short).
#
# Environment: BENCH_ROUNDS=3 BENCH_WINDOW=10 BENCH_WARMUP_WINDOW=4 (seconds) BENCH_SHAPES=single,cluster
#   BENCH_REFS=bare,rocks BENCH_LOCK (a lock file, see above)
#   BENCH_CASES=put-closed,get-closed,put-rate,get-rate
#   BENCH_PROFILE=cpu,alloc (profiles of one more PUT window per side; '' for none) BENCH_PORT=19400
#   BENCH_JAVA_OPTS (every server's JVM) BENCH_NODE_ARGS="--block-cache 1GiB" BENCH_OUT BENCH_WORK (raw outputs)
. "$(dirname "$0")/lib.sh"

BASE_REF=${1:?usage: bench-ab.sh BASE [HEAD] (commits, branches or tags; no HEAD: the build of this checkout)}
HEAD_REF=${2:-}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks/ab}
JAVA_OPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints}
NODE_ARGS=${BENCH_NODE_ARGS---block-cache 1GiB}

HEAD_JAR="$DHT_ROOT/node/target/dht-node.jar"
BENCH_JAR="$DHT_ROOT/bench/target/dht-bench.jar" # the reference servers, run with this checkout's node jar
for j in "$HEAD_JAR" "$BENCH_JAR"; do
  [ -f "$j" ] || die "$j is missing: run 'make bench-ab' (it builds the jars)"
done
REFS_JAR=$HEAD_JAR
BASE_JAR=$("$DHT_ROOT/scripts/node-at.sh" "$BASE_REF")
[ -z "$HEAD_REF" ] || HEAD_JAR=$("$DHT_ROOT/scripts/node-at.sh" "$HEAD_REF")
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
JAVA="$JAVA_HOME/bin/java"
WRK=$("$DHT_ROOT/scripts/tool.sh" wrk)
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
PY=$("$DHT_ROOT/scripts/venv.sh")

short() { git -C "$DHT_ROOT" rev-parse --short=7 "$1"; }
subject() { git -C "$DHT_ROOT" log -1 --format=%s "$1" | cut -c1-100 | tr '|' '/'; }
base=$(short "$BASE_REF^{commit}")
if [ -n "$HEAD_REF" ]; then
  head=$(short "$HEAD_REF^{commit}")
else
  head=$(short HEAD)
  [ -z "$(git -C "$DHT_ROOT" status --porcelain -- node pom.xml)" ] || head="$head-dirty"
fi
WORK=${BENCH_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-ab.XXXXXX")}

log "base $base ($BASE_JAR), head $head; raw outputs in $WORK"
run_shape() { # $1: one shape; its raw figures in $WORK/$1/ab.json
  settle_load
  PYTHONPATH="$DHT_ROOT/scripts/bench" "$PY" -m harness ab --raw-only \
    --base-jar "$BASE_JAR" --head-jar "$HEAD_JAR" --bench-jar "$BENCH_JAR" --refs-jar "$REFS_JAR" \
    --java "$JAVA" --java-flags "$(node_jdk_flags "$JAVA" | tr '\n' ' ')$JAVA_OPTS" --node-args "$NODE_ARGS" \
    --wrk "$WRK" --oha "$OHA" --scripts "$DHT_ROOT/scripts/bench" --work "$WORK/$1" --out "$OUT" \
    --name "$base-vs-$head" --rounds "${BENCH_ROUNDS:-3}" --window "${BENCH_WINDOW:-10}" \
    --warmup-window "${BENCH_WARMUP_WINDOW:-4}" --shapes "$1" --refs "${BENCH_REFS:-bare,rocks}" \
    --cases "${BENCH_CASES:-put-closed,get-closed,put-rate,get-rate}" \
    --profile "${BENCH_PROFILE-cpu,alloc}" --port "${BENCH_PORT:-19400}" \
    --meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" --meta "nproc=$(nproc)" \
    --meta "cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)" \
    --meta "java=$("$JAVA" -version 2>&1 | head -1)" --meta "base_ref=$BASE_REF" \
    --meta "base=$base" --meta "base_subject=$(subject "$base")" \
    --meta "head=$head" --meta "head_subject=$(subject "${HEAD_REF:-HEAD}")"
}
raws=()
IFS=, read -r -a shapes <<< "${BENCH_SHAPES:-single,cluster}"
for shape in "${shapes[@]}"; do
  if [ -n "${BENCH_LOCK:-}" ]; then
    exec {lock}>>"$BENCH_LOCK"
    log "$shape: waiting for the exclusive lock on $BENCH_LOCK"
    flock -x "$lock"
    log "$shape: lock taken"
    run_shape "$shape"
    exec {lock}>&-
    log "$shape: lock released"
  else
    run_shape "$shape"
  fi
  raws+=("$WORK/$shape/ab.json")
done
PYTHONPATH="$DHT_ROOT/scripts/bench" "$PY" -m harness report "${raws[@]}" "$OUT" "$base-vs-$head"
log "report: $OUT/$base-vs-$head.md"
