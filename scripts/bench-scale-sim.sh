#!/usr/bin/env bash
# Scale by simulation (issue 55): what grows with the cluster, for 3, 10, 100 and 1,000 members with and without
# racks, on the node's own placement, move plan, repair ranges and topology code, and the operator's reconcile of
# DhtClusters of 100 and 1,000 members against a real kube-apiserver + etcd with simulated members. Writes
# docs/benchmarks/scale-sim.md, scale-sim.json and scale-sim-operator.json. Nothing is stored: data sizes are key
# counts. Run each part on a quiet machine; each stays under 10 minutes here:
#
#   scripts/bench-scale-sim.sh sim        the node's code paths and one real node process per size (about 2-3
#                                         minutes); reads scale-sim-operator.json
#   scripts/bench-scale-sim.sh operator   the operator at 100 and 1,000 members (SIZES=100 for one)
#   scripts/bench-scale-sim.sh            both, the operator first
#
# DHT_BENCH_OUT=/tmp/x writes elsewhere than docs/benchmarks; extra arguments after the part go to ScaleSim
# (e.g. --sizes 3,10 --round-ms 5 for a quick look).
. "$(dirname "$0")/lib.sh"
JAVA_HOME=$(find_java_home) || exec "$(dirname "$0")/java-home.sh"
cd "$DHT_ROOT"

part=${1:-all}
[ $# -gt 0 ] && shift
out=${DHT_BENCH_OUT:-docs/benchmarks}
mkdir -p "$out"
operator_json=$(cd "$out" && pwd)/scale-sim-operator.json

if [ "$part" = operator ] || [ "$part" = all ]; then
  log "operator: reconciles of ${SIZES:-100,1000} members against kube-api-test -> $operator_json"
  # the operator's tests find the API server binaries here (built by scripts/kube-binaries.sh if missing)
  KUBE_API_TEST_DIR="$DHT_CACHE/kubeapitest" scripts/mvn -q -pl operator -am verify -Dit.test=ReconcileScaleSim \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false \
    -Ddht.scaleSim.sizes="${SIZES:-100,1000}" -Ddht.scaleSim.out="$operator_json"
fi

if [ "$part" = sim ] || [ "$part" = all ]; then
  jar=node/target/dht-node.jar
  bench_jar=bench/target/dht-bench.jar
  if [ ! -f "$jar" ] || [ ! -f "$bench_jar" ] \
      || [ -n "$(find node/src/main bench/src/main -newer "$bench_jar" -type f -print -quit)" ]; then
    log "building $bench_jar"
    scripts/mvn -q -pl bench -am package -DskipTests
  fi
  log "writing $out/scale-sim.md and scale-sim.json"
  # the plots' python (matplotlib), made before the run so that its first-time install is not timed
  PY=$("$DHT_ROOT/scripts/venv.sh")
  "$JAVA_HOME/bin/java" -Xms2g -Xmx6g -cp "$bench_jar:$jar" dev.dht.bench.scale.ScaleSim --out "$out" \
    --operator "$operator_json" --node-jar "$jar" --node-flags "$(node_jdk_flags "$JAVA_HOME/bin/java")" "$@"
  "$PY" scripts/bench/scale-sim-plots.py "$out/scale-sim.json" "$out/scale-sim-members.svg"
fi
