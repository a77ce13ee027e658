#!/usr/bin/env bash
# scripts/bench/scenario.sh NAME: runs the scenario scripts/bench/scenarios/NAME.json on local nodes
# (scripts/bench/harness/scenario.py: the one launcher of make bench-node, bench-pause, bench-backup, ...) and writes
# its report into BENCH_OUT (default docs/benchmarks). Every BENCH_<SETTING> the scenario lists overrides its default.
# This script only finds what the run needs: the node's jar, a JDK >= 21, oha, the tools the scenario's "tools" names
# (wrk, k6, versitygw, the bench jar of the reference servers) and the reports' python.
. "$(dirname "$0")/../lib.sh"

name=${1:?usage: scenario.sh NAME}
file="$DHT_ROOT/scripts/bench/scenarios/$name.json"
[ -f "$file" ] || die "no scenario $name under scripts/bench/scenarios/"
JAR="$DHT_ROOT/node/target/dht-node.jar"
[ -f "$JAR" ] || die "$JAR is missing: run 'make bench-$name' (it builds the jar) or 'make build'"
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
PY=$("$DHT_ROOT/scripts/venv.sh") # python with the reports' plotting library (matplotlib), made before the run
tools=(--oha "$("$DHT_ROOT/scripts/tool.sh" oha)")
for tool in $("$PY" -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1])).get("tools", [])))' "$file"); do
  case "$tool" in
    bench_jar)
      tools+=(--bench-jar "$DHT_ROOT/bench/target/dht-bench.jar")
      [ -f "${tools[-1]}" ] || die "${tools[-1]} is missing: run 'make bench-$name' (it builds the jars)" ;;
    *) tools+=("--$tool" "$("$DHT_ROOT/scripts/tool.sh" "$tool")") ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-$name.XXXXXX")

settle_load
PYTHONPATH="$DHT_ROOT/scripts/bench" "$PY" -m harness scenario "$name" --jar "$JAR" --java "$JAVA_HOME/bin/java" \
  --java-flags="$(node_jdk_flags "$JAVA_HOME/bin/java")" "${tools[@]}" --work "$WORK" \
  --out "${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}"
