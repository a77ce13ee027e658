#!/usr/bin/env bash
# bench-fetch.sh NAME [RUN] -> copies the artifacts of run RUN (default: the current one, status.runId) of the
# DhtBenchmark NAME out of its results volume into bench-results/<run-id>/, then renders its report
# (make bench-report RUNS=<run-id>), as `make bench` does locally. Cluster: $KUBECONFIG (make bench-fetch sets it
# from CLUSTER). Namespace: $NAMESPACE, default the kubeconfig context's.
#
# How: a short-lived pod of the load-runner image mounts the claim read-only and streams the run's directory as a
# tar (Python's tarfile: the image has no shell and no tar) through kubectl exec; the pod is deleted on exit.
# A ReadWriteOnce claim attaches to one node at a time: while a run's Job still runs, the pod may wait for it.
# BENCH_RESULTS_DIR (default bench-results) is where runs go; BENCH_FETCH_REPORT=0 skips the report.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"

NAME=${1:-}
RUN=${2:-}
[ -n "$NAME" ] || die "usage: make bench-fetch NAME=<benchmark> [RUN=<run id>] (kubectl get dhtbench lists them)"
KUBECTL=${KUBECTL:-$(scripts/kube-binaries.sh --bin-dir kubectl)/kubectl}
NS=${NAMESPACE:-$("$KUBECTL" config view --minify -o 'jsonpath={..namespace}' 2>/dev/null || true)}
NS=${NS:-default}
k() { "$KUBECTL" -n "$NS" "$@"; }

field() { k get dhtbenchmark "$NAME" -o "jsonpath=$1"; }
field '{.metadata.name}' >/dev/null 2>&1 || die "no DhtBenchmark '$NAME' in namespace $NS (kubectl get dhtbench -n $NS)"
RUN=${RUN:-$(field '{.status.runId}')}
[ -n "$RUN" ] || die "DhtBenchmark $NAME has no run yet (status: $(field '{.status.message}'))"
CLAIM=$(field '{.status.resultsClaim}')
CLAIM=${CLAIM:-$NAME-results}
RUNNER_IMAGE=$(k get job "$NAME-$RUN" -o 'jsonpath={.spec.template.spec.containers[0].image}' 2>/dev/null || true)
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
RUNNER_IMAGE=${RUNNER_IMAGE:-${IMAGE_PREFIX:-}dht-loadrunner:$TAG}
POD="$NAME-fetch-$$"
OUT="${BENCH_RESULTS_DIR:-bench-results}/$RUN"

cleanup() { k delete pod "$POD" --ignore-not-found --wait=false >/dev/null 2>&1 || true; }
trap cleanup EXIT
log "run $RUN of $NAME: reading claim $CLAIM through pod $POD ($RUNNER_IMAGE)"
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $POD
  labels: {app.kubernetes.io/name: dht, app.kubernetes.io/component: bench-fetch, dht.dev/benchmark-fetch: "$NAME"}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  enableServiceLinks: false
  securityContext: {runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: fetch
    image: $RUNNER_IMAGE
    imagePullPolicy: IfNotPresent
    command: ["python3", "-c", "import time; time.sleep(900)"]
    resources: {requests: {cpu: 10m, memory: 32Mi}, limits: {memory: 128Mi}}
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
    volumeMounts: [{name: results, mountPath: /results, readOnly: true}]
  volumes:
  - name: results
    persistentVolumeClaim: {claimName: $CLAIM, readOnly: true}
YAML
k wait --for=condition=Ready "pod/$POD" --timeout=180s >/dev/null \
  || die "pod $POD did not start in 180s: $(k get pod "$POD" -o 'jsonpath={.status.conditions[*].message}')"

SRC="/results/$NAME/$RUN"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-fetch.XXXXXX")
trap 'cleanup; rm -rf "$TMP"' EXIT
# shellcheck disable=SC2016
k exec "$POD" -- python3 -c '
import os, sys, tarfile
src = sys.argv[1]
if not os.path.isdir(src):
    sys.exit("no %s in the results volume: %s" % (src, ", ".join(sorted(os.listdir(os.path.dirname(src))))
                                                   if os.path.isdir(os.path.dirname(src)) else "empty"))
with tarfile.open(fileobj=sys.stdout.buffer, mode="w|gz") as t:
    t.add(src, arcname=".")
' "$SRC" > "$TMP/run.tgz" || die "could not read $SRC from claim $CLAIM"
rm -rf "$OUT"
mkdir -p "$OUT"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="data")' "$TMP/run.tgz" "$OUT" 2>/dev/null \
  || tar -xzf "$TMP/run.tgz" -C "$OUT"
log "copied $(find "$OUT" -type f | wc -l) files ($(du -sh "$OUT" | cut -f1)) into $OUT"

if [ "${BENCH_FETCH_REPORT:-1}" = 0 ]; then
  :
elif grep -q '^bench-report:' Makefile; then
  make --no-print-directory bench-report RUNS="$RUN"
else
  log "no make bench-report in this checkout yet: the figures are in $OUT/summary.json"
fi
