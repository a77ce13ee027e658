#!/usr/bin/env bash
# scripts/bench/scenario.sh NAME: runs the event scenario scripts/bench/scenarios/NAME.json on local nodes
# (scripts/bench/harness/scenario.py: the one launcher of make bench-pause, bench-repair, ...) and writes its
# report into BENCH_OUT (default docs/benchmarks). Every BENCH_<SETTING> the scenario lists overrides its default.
# This script only finds what the run needs: the node's jar, a JDK >= 21, oha and the reports' python.
. "$(dirname "$0")/../lib.sh"

name=${1:?usage: scenario.sh NAME}
[ -f "$DHT_ROOT/scripts/bench/scenarios/$name.json" ] || die "no scenario $name under scripts/bench/scenarios/"
JAR="$DHT_ROOT/node/target/dht-node.jar"
[ -f "$JAR" ] || die "$JAR is missing: run 'make bench-$name' (it builds the jar) or 'make build'"
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
OHA=$("$DHT_ROOT/scripts/tool.sh" oha)
PY=$("$DHT_ROOT/scripts/venv.sh") # python with the reports' plotting library (matplotlib), made before the run
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-$name.XXXXXX")

settle_load
PYTHONPATH="$DHT_ROOT/scripts/bench" "$PY" -m harness scenario "$name" --jar "$JAR" --java "$JAVA_HOME/bin/java" \
  --java-flags="$(node_jdk_flags "$JAVA_HOME/bin/java")" --oha "$OHA" --work "$WORK" \
  --out "${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}"
