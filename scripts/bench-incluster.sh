#!/usr/bin/env bash
# bench-incluster.sh -> make bench-incluster: DhtBenchmarks on the cluster of $KUBECONFIG (the images loaded: make
# k8s-up), written to docs/benchmarks/:
#   incluster/           the five tapes with the oha engine at BENCH_RATE (2000) req/s, BENCH_DURATION (60s) each,
#                        cpu flamegraphs of every member; its report.md names the engine of every figure
#   incluster-headroom/  get-uniform at BENCH_HEADROOM_RATE (5000) req/s for BENCH_DURATION, once with k6 and once
#                        with oha, side by side: what each engine sent, dropped and measured at a rate k6 cannot
#                        hold on this machine (at 15000 neither holds it: the 3 members on 2 cores serve less)
# BENCH_PARTS ("tapes headroom") runs one of the two alone.
# It installs the operator (helm, release dht-operator in dht-system, as make deploy) and a DhtCluster "dht" with
# the profiler in namespace $BENCH_NAMESPACE (dht-bench), waits (bounded) for each run, copies each run out of its
# volume (scripts/bench-fetch.sh) and renders the reports, then deletes the namespace (BENCH_KEEP=1 keeps it).
# Run it on a quiet machine: the cluster, the load runner and the nodes share its cores.
#
# A short check of the whole path: BENCH_DURATION=10s BENCH_RATE=200 BENCH_HEADROOM_RATE=2000 BENCH_OUT=/tmp/x.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"

NS=${BENCH_NAMESPACE:-dht-bench}
RATE=${BENCH_RATE:-2000}
HEADROOM_RATE=${BENCH_HEADROOM_RATE:-5000}
PARTS=${BENCH_PARTS:-tapes headroom}
DURATION=${BENCH_DURATION:-60s}
PREFILL=${BENCH_KEYS:-20000}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
KUBECTL=${KUBECTL:-$(scripts/kube-binaries.sh --bin-dir kubectl)/kubectl}
HELM=$(scripts/tool.sh helm)
PY=$(scripts/venv.sh)
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
kn() { "$KUBECTL" -n "$NS" "$@"; }
"$KUBECTL" version --request-timeout=10s >/dev/null 2>&1 || die "no cluster answers at ${KUBECONFIG:-~/.kube/config}: make k8s-up"
[[ "$PARTS" =~ ^\ *(tapes|headroom)(\ +(tapes|headroom))*\ *$ ]] || die "BENCH_PARTS is 'tapes', 'headroom' or both, not '$PARTS'"
[[ "$DURATION" =~ ^[1-9][0-9]*(s|m)$ ]] || die "BENCH_DURATION is whole seconds or minutes, e.g. 60s"
seconds=${DURATION%?}; [ "${DURATION: -1}" = m ] && seconds=$((seconds * 60))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-incluster.XXXXXX")
cleanup() {
  rm -rf "$WORK"
  if [ "${BENCH_KEEP:-0}" != 1 ]; then
    kn delete dhtbenchmark --all --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1 || true
    kn delete dht --all --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1 || true
    "$KUBECTL" delete namespace "$NS" --ignore-not-found --wait=true --timeout=180s >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

log "operator: helm upgrade --install into dht-system (images *:$TAG)"
"$KUBECTL" apply --server-side -f crds/ >/dev/null
"$HELM" upgrade --install dht-operator charts/dht-operator -n dht-system --create-namespace \
  --set "image.repository=${IMAGE_PREFIX:-}dht-operator" --set "image.tag=$TAG" \
  --set "nodeImage.repository=${IMAGE_PREFIX:-}dht-node" --set "nodeImage.tag=$TAG" \
  --set "runnerImage.repository=${IMAGE_PREFIX:-}dht-loadrunner" --set "runnerImage.tag=$TAG" \
  --wait --timeout 3m >/dev/null
"$KUBECTL" create namespace "$NS" >/dev/null 2>&1 || true
kn apply -f manifests/dhtcluster-sample.yaml >/dev/null
kn patch dht dht --type merge -p '{"spec":{"profiler":{"enabled":true}}}' >/dev/null
log "waiting for DhtCluster $NS/dht: Ready 3/3 with the profiler sidecar"
ready() {
  [ "$(kn get dht dht -o jsonpath='{.status.phase}')" = Ready ] \
    && [ "$(kn get dht dht -o jsonpath='{.status.observedGeneration}')" = "$(kn get dht dht -o jsonpath='{.metadata.generation}')" ] \
    && [ "$(kn get sts dht -o jsonpath='{.status.updatedReplicas}')" = 3 ] \
    && [ "$(kn get sts dht -o jsonpath='{.status.readyReplicas}')" = 3 ]
}
for _ in $(seq 600); do ready 2>/dev/null && break; sleep 1; done
ready || die "DhtCluster $NS/dht not Ready within 10 minutes: $(kn get dht dht --no-headers 2>&1)"

# bench NAME ENGINE TAPES RATE -> runs a DhtBenchmark to its end, copies it out; prints its run id
bench() {
  local name=$1 engine=$2 tapes=$3 rate=$4 limit phase run
  kn delete dhtbenchmark "$name" --ignore-not-found --wait=true >/dev/null 2>&1 || true
  kn apply -f - >/dev/null <<YAML
apiVersion: dht.dev/v1alpha1
kind: DhtBenchmark
metadata: {name: $name}
spec:
  cluster: dht
  engine: $engine
  tapes: [$tapes]
  profile: const
  rate: $rate
  duration: $DURATION
  prefill: $PREFILL
  profiler: {events: [cpu], duration: $(( seconds / 3 > 1 ? seconds / 3 : 1 ))s}
  image: ${IMAGE_PREFIX:-}dht-loadrunner:$TAG
YAML
  limit=$(( (seconds + 240) * $(echo "$tapes" | tr ',' '\n' | wc -l) + 600 ))
  log "DhtBenchmark $name: $engine, $tapes at $rate req/s, $DURATION each (waiting up to ${limit}s)"
  for _ in $(seq "$limit"); do
    phase=$(kn get dhtbenchmark "$name" -o jsonpath='{.status.phase}' 2>/dev/null || true)
    case "$phase" in Succeeded|Failed) break ;; esac
    sleep 1
  done
  run=$(kn get dhtbenchmark "$name" -o jsonpath='{.status.runId}')
  [ "$phase" = Succeeded ] || die "DhtBenchmark $name run $run: ${phase:-not finished}: $(kn get dhtbenchmark "$name" -o jsonpath='{.status.message}')"
  NAMESPACE=$NS KUBECTL=$KUBECTL BENCH_RESULTS_DIR="$WORK/results" BENCH_FETCH_REPORT=0 scripts/bench-fetch.sh "$name" "$run" >&2
  echo "$run"
}

tapes_run=""
if [[ " $PARTS " == *" tapes "* ]]; then tapes_run=$(bench tapes oha "put-unique,put-overwrite,get-uniform,get-recent,mixed" "$RATE"); fi
k6_run="" oha_run=""
if [[ " $PARTS " == *" headroom "* ]]; then
  k6_run=$(bench headroom-k6 k6 get-uniform "$HEADROOM_RATE")
  oha_run=$(bench headroom-oha oha get-uniform "$HEADROOM_RATE")
fi

publish() { # publish RUN-DIR DEST: the report and what it links to; raw outputs stay out of the repository
  rm -rf "$2"; mkdir -p "$2"
  (cd "$1" && find . -maxdepth 1 -type f \( -name '*.md' -o -name '*.svg' -o -name '*.json' -o -name '*.csv' -o -name '*.html' \) \
    -exec cp {} "$2/" \;)
}
if [ -n "$tapes_run" ]; then
  "$PY" scripts/bench/report.py "$WORK/results/$tapes_run" >/dev/null
  publish "$WORK/results/$tapes_run" "$OUT/incluster"
  log "wrote $OUT/incluster/report.md"
fi
if [ -n "$k6_run" ]; then
  "$PY" scripts/bench/report.py --results "$WORK/results" "$k6_run" "$oha_run" >/dev/null
  publish "$WORK/results/compare-$k6_run-vs-$oha_run" "$OUT/incluster-headroom"
  for r in "$k6_run" "$oha_run"; do cp "$WORK/results/$r/summary.json" "$OUT/incluster-headroom/$r.summary.json"; done
  log "wrote $OUT/incluster-headroom/report.md"
fi
