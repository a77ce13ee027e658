#!/usr/bin/env bash
# Measures placement and rewrites docs/benchmarks/ring.md and ring.json: how evenly the consistent-hash ring spreads
# 1M keys over 3..10 nodes for several vnode counts, what moves when a node joins, what a ring costs (memory, build,
# lookup ns), and the same for rendezvous hashing. Spread and movement are deterministic; lookup times are not
# (the report records the load average). Takes a minute or two.
#
# Usage: scripts/bench-ring.sh [SpreadReport options]   e.g. --keys 100000 --vnodes 256,1024 for a quick look
#        DHT_BENCH_OUT=/tmp/ring scripts/bench-ring.sh  writes elsewhere than docs/benchmarks
. "$(dirname "$0")/lib.sh"
JAVA_HOME=$(find_java_home) || exec "$(dirname "$0")/java-home.sh"
cd "$DHT_ROOT"

jar=node/target/dht-node.jar
bench_jar=bench/target/dht-bench.jar # SpreadReport: benchmark code is not in the node's jar
if [ ! -f "$jar" ] || [ ! -f "$bench_jar" ] \
    || [ -n "$(find node/src/main bench/src/main -newer "$bench_jar" -type f -print -quit)" ]; then
  log "building $bench_jar"
  scripts/mvn -q -pl bench -am package -DskipTests
fi

out=${DHT_BENCH_OUT:-docs/benchmarks}
log "writing $out/ring.md and $out/ring.json"
exec "$JAVA_HOME/bin/java" -Xms1g -Xmx1g -cp "$bench_jar:$jar" dev.dht.bench.ring.SpreadReport --out "$out" "$@"
