#!/usr/bin/env bash
# benchmark-step.sh -> make e2e's step 7 (scripts/e2e.sh calls it with E2E_NAMESPACE and KUBECTL): on the e2e
# DhtCluster "dht", a DhtBenchmark runs and leaves its figures in its status and its flamegraphs in its results
# volume; then one runs on the oha engine.
#   1 enable spec.profiler on "dht" (the members get the profiler sidecar: a rolling update), wait until Ready
#   2 apply a short DhtBenchmark: one tape (put-unique), 20 s at 50 req/s, a 5 s cpu capture of every member
#   3 wait (bounded) for Succeeded; check the status: the tape's rate, no errors, one flamegraph per member
#   4 copy the run out of the volume (scripts/bench-fetch.sh, without the report) and check the files are there
#   5 a second, short DhtBenchmark with spec.engine oha (put-unique, 10 s at OHA_RATE req/s, no captures):
#     Succeeded with the rate, no errors, at most 5% dropped, and oha's own outputs and engine in its volume
# The last line printed is the result; exit status 0 on pass. On success the DhtBenchmark is deleted (its Job and
# volume go with it); on failure it stays for make e2e's diagnostics. The profiler stays enabled.
. "$(dirname "$0")/../lib.sh"
cd "$DHT_ROOT"

NS=${E2E_NAMESPACE:-dht-e2e}
KUBECTL=${KUBECTL:-$(scripts/kube-binaries.sh --bin-dir kubectl)/kubectl}
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
RUNNER_IMAGE="${IMAGE_PREFIX:-}dht-loadrunner:$TAG"
BENCH=e2e-bench
RATE=50
OHA_BENCH=e2e-bench-oha
OHA_RATE=300
kn() { "$KUBECTL" -n "$NS" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }
trap 'echo "FAIL: benchmark-step.sh stopped at line $LINENO (exit $?)"' ERR
until_true() { # until_true SECONDS CMD...
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 2
  done
}
dht_field() { kn get dht dht -o "jsonpath=$1" 2>/dev/null || true; }
cluster_ready_with_sidecars() {
  [ "$(dht_field '{.status.phase}')" = Ready ] && [ "$(dht_field '{.status.readyReplicas}')" = 3 ] \
    && [ "$(dht_field '{.status.observedGeneration}')" = "$(dht_field '{.metadata.generation}')" ] \
    && [ "$(kn get sts dht -o jsonpath='{.status.updatedReplicas}')" = 3 ] \
    && [ "$(kn get sts dht -o jsonpath='{.status.currentRevision}')" = "$(kn get sts dht -o jsonpath='{.status.updateRevision}')" ] \
    && [ "$(kn get pods -l app.kubernetes.io/instance=dht,app.kubernetes.io/component=node \
          -o jsonpath='{range .items[*]}{.spec.containers[*].name}{"\n"}{end}' | grep -c profiler)" = 3 ]
}
bench_field() { kn get dhtbenchmark "$BENCH" -o "jsonpath=$1" 2>/dev/null || true; }
bench_finished() { case "$(bench_field '{.status.phase}')" in Succeeded|Failed) return 0 ;; *) return 1 ;; esac; }
# run_benchmark NAME WHAT: applies the DhtBenchmark on stdin as NAME (deleting an earlier one first), waits
# (bounded) until it finished; sets BENCH, RUN and T (its start). Fails unless it Succeeded.
run_benchmark() {
  BENCH=$1
  kn delete dhtbenchmark "$BENCH" --ignore-not-found --wait=true >/dev/null 2>&1 || true
  kn apply -f - >/dev/null || fail "kubectl apply refused the $2"
  T=$SECONDS
  until_true 420 bench_finished \
    || fail "$2 $BENCH not finished after 420s: phase $(bench_field '{.status.phase}'): $(bench_field '{.status.message}')"
  RUN=$(bench_field '{.status.runId}')
  [ "$(bench_field '{.status.phase}')" = Succeeded ] || fail "$2 $BENCH run $RUN $(bench_field '{.status.phase}'): $(bench_field '{.status.message}')"
}
at_least_80pct() { # at_least_80pct MEASURED ASKED
  python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 0.8 * float(sys.argv[2]) else 1)' "${1:-0}" "$2"
}
fetch_run() { # copies run RUN of BENCH out of its volume into $FETCHED/$RUN (without the report)
  NAMESPACE=$NS KUBECTL=$KUBECTL BENCH_RESULTS_DIR=$FETCHED BENCH_FETCH_REPORT=0 scripts/bench-fetch.sh "$BENCH" "$RUN" >&2
}

t0=$SECONDS
kn patch dht dht --type merge -p '{"spec":{"profiler":{"enabled":true}}}' >/dev/null || fail "kubectl patch dht refused"
until_true 600 cluster_ready_with_sidecars \
  || fail "the members did not come back Ready with the profiler sidecar in 600s: phase $(dht_field '{.status.phase}')"
log "profiler enabled: 3/3 members Ready with the sidecar after $((SECONDS - t0))s"

run_benchmark "$BENCH" DhtBenchmark <<YAML
apiVersion: dht.dev/v1alpha1
kind: DhtBenchmark
metadata: {name: $BENCH}
spec:
  cluster: dht
  tapes: [put-unique]
  profile: const
  rate: $RATE
  duration: 20s
  prefill: 100
  profiler: {events: [cpu], duration: 5s}
  image: $RUNNER_IMAGE
YAML
TAPE=$(bench_field '{.status.tapes[0].tape}')
RPS=$(bench_field '{.status.tapes[0].rps}')
P99=$(bench_field '{.status.tapes[0].p99Ms}')
ERRORS=$(bench_field '{.status.tapes[0].errors}')
FLAMES=$(bench_field '{.status.flamegraphs}')
FIGURES="$TAPE ${RPS} req/s, p99 ${P99} ms, ${ERRORS} errors, $FLAMES flamegraph(s), in $((SECONDS - T))s"
[ "$TAPE" = put-unique ] || fail "run $RUN: status.tapes[0] is '$TAPE', not put-unique"
at_least_80pct "$RPS" "$RATE" || fail "run $RUN: $FIGURES: below 80% of the $RATE req/s asked"
[ "${ERRORS:-x}" = 0 ] || fail "run $RUN: $FIGURES"
[ -n "$P99" ] || fail "run $RUN: no p99 in the status: $FIGURES"
[ "$FLAMES" = 3 ] || fail "run $RUN: $FIGURES, expected 3 (one per member): $(bench_field '{.status.message}')"

FETCHED=$(mktemp -d "${TMPDIR:-/tmp}/dht-e2e-bench.XXXXXX")
trap 'rm -rf "$FETCHED"' EXIT
fetch_run || fail "run $RUN: $FIGURES; scripts/bench-fetch.sh could not copy it out of the volume"
for f in summary.json put-unique.series.csv dht-0-put-unique-cpu.html dht-1-put-unique-cpu.html dht-2-put-unique-cpu.html; do
  [ -s "$FETCHED/$RUN/$f" ] || fail "run $RUN: $FIGURES; $f is missing from the volume (it has: $(ls "$FETCHED/$RUN" | tr '\n' ' '))"
done
grep -q '<html' "$FETCHED/$RUN/dht-0-put-unique-cpu.html" || fail "run $RUN: dht-0-put-unique-cpu.html is not a flamegraph"

kn delete dhtbenchmark "$BENCH" --wait=false >/dev/null 2>&1 || true
DONE="DhtBenchmark run $RUN Succeeded: $FIGURES; summary.json and dht-{0,1,2}-put-unique-cpu.html in its volume"

# The open-model engine: oha at a fixed rate, its figures in the same status.
run_benchmark "$OHA_BENCH" "oha DhtBenchmark" <<YAML
apiVersion: dht.dev/v1alpha1
kind: DhtBenchmark
metadata: {name: $OHA_BENCH}
spec:
  cluster: dht
  engine: oha
  tapes: [put-unique]
  profile: const
  rate: $OHA_RATE
  duration: 10s
  profiler: {events: []}
  image: $RUNNER_IMAGE
YAML
ORPS=$(bench_field '{.status.tapes[0].rps}')
OP99=$(bench_field '{.status.tapes[0].p99Ms}')
OERR=$(bench_field '{.status.tapes[0].errors}')
ODROP=$(bench_field '{.status.tapes[0].dropped}')
OFIG="oha put-unique ${ORPS} req/s, p99 ${OP99} ms, ${OERR} errors, ${ODROP} dropped, in $((SECONDS - T))s"
at_least_80pct "$ORPS" "$OHA_RATE" || fail "oha run $RUN: $OFIG: below 80% of the $OHA_RATE req/s asked"
# dropped: asked for and not sent before the end of the 10 s. Members beside the other lanes' restarts stall for
# seconds at times (a run at 300/s with a p99 of 3.4 s dropped 49 of 3,000): this checks the engine, not the members
[ "${OERR:-x}" = 0 ] && [ "${ODROP:-x}" -le $((OHA_RATE * 10 * 5 / 100)) ] && [ -n "$OP99" ] || fail "oha run $RUN: $OFIG"
fetch_run || fail "oha run $RUN: $OFIG; scripts/bench-fetch.sh could not copy it out of the volume"
python3 - "$FETCHED/$RUN" <<'PY' || fail "oha run $RUN: $OFIG; its files are not an oha run's (see above)"
import glob, json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
assert s["params"]["engine"] == "oha" and s["tapes"]["put-unique"]["engine"] == "oha", s["params"]
assert "oha" in s["tools"], s["tools"]
assert glob.glob(os.path.join(d, "raw", "put-unique-put-unique-t0.step00.db")), os.listdir(os.path.join(d, "raw"))
assert os.path.getsize(os.path.join(d, "put-unique.series.csv")) > 0
PY
kn delete dhtbenchmark "$OHA_BENCH" --wait=false >/dev/null 2>&1 || true
echo "$DONE; engine oha: $OFIG"
