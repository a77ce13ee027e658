#!/usr/bin/env bash
# e2e.sh -> the user's story on a real Kubernetes cluster (make e2e): the cluster of $KUBECONFIG, which the
# Makefile points at the local cluster (make k8s-up) by default, at kind with CLUSTER=kind. The dht images
# must be in the cluster (make k8s-up / make kind-up load them).
#
#   1 helm install the operator (chart + CRD); its pod becomes ready
# Then three lanes at once, each on its own DhtCluster "dht" in its own namespace (most of a step's time is waiting
# for probes, drains and the kubelet, which the lanes overlap; issue 48):
#   lane A, $E2E_NAMESPACE (dht-e2e): the sample as users apply it, and every planned disruption
#   2 kubectl apply manifests/dhtcluster-sample.yaml and dhtuser-sample.yaml; the DhtCluster is Ready with 3/3
#     members, its client port serves TLS only, and the DhtUser's client certificate is issued
#   3 a Job writes 10,000 keys through the client Service at the default quorum; another reads every one back
#     through a single other member (its name in the headless Service). Like every Job of the run, both speak TLS
#     to the client port and authenticate with the DhtUser's certificate (no token)
#   4 a pod is deleted while a Job writes and another reads: every write is acknowledged (0 failed), many of them
#     after the deletion, every read is right, and every acknowledged key is readable afterwards
#   5 a settings change (jvm.heap) rolls the pods one at a time within a bound, every member then runs with the
#     new heap, and a reader and a writer Job at quorum on kept-alive connections see no failed request
#   evict: every member is evicted in turn through the eviction API while a Job writes and another reads; the
#     PodDisruptionBudget refuses a second eviction each time; 0 failed requests (scripts/e2e/step-evict.sh)
#   6 scale to 5, then back to 3 while a writer and a reader run: after each step every member is idle on the new
#     member list and every key of steps 3 and 4 reads back; then every key the writer got acknowledged (all of
#     them: 0 failed) reads back, and the reader read only right values
#   lane B, $E2E_NAMESPACE-b: the sample with the profiler, a low repair rate and the backup store set from the
#     start (so that no step below rolls the members for them), then
#   2b Ready with 3/3 members; 3b as 3
#   7 a DhtBenchmark runs and leaves its flamegraphs in the results volume
#  10 dht-1's volume and pod deleted under a writer: it shows Rebuilding, ends Up with the cluster Ready, and holds
#     every acknowledged key read from it alone (scripts/e2e/step-rebuild.sh)
#   9 back up "dht" under a writer, delete it, restore into 5 members, read back every key
#     (scripts/e2e/step-backup.sh)
#   attack: every attack of issue 21, many times, from another namespace, an unlabelled pod and a hostNetwork
#     pod: all refused; keys, topology and clocks unchanged, on the restored cluster (scripts/e2e/step-security.sh)
#   rotate: a certificate renewal and a CA replacement, of the member port and of the client port (its phases wait
#     spec.tls.client.reloadGrace, 120s here, for the clients), under a quorum writer over TLS that reloads its
#     CA bundle and certificate as the kubelet delivers them: 0 failed writes, no pod restarted
#   lane C, $E2E_NAMESPACE-c:
#   racks: a DhtCluster of 3 racks x 2 members pinned to the node's zone; every pod of one rack deleted at once under
#     a writer and a reader at quorum: 0 failed requests, every key reads back (scripts/e2e/step-racks.sh)
#   lane U, $E2E_NAMESPACE-u: before step 1 the previous release's chart and a cluster of it with 2,000 keys, step 1
#     upgrades the operator; after lane C, with a writer and a reader running, the cluster rolls to this build: 0
#     failed, 0 lost (scripts/e2e/step-upgrade.sh)
# and when both lanes are done
#   8 kubectl delete dht (both) + helm uninstall: nothing of ours is left but the retained PVCs
#
# One line per step (PASS / FAIL / NOT RUN), then "N passed, M failed, K not run". Every wait is bounded.
# Leaves the cluster as it found it (the namespaces and the CRD it made are removed at the end, and at the
# start if a previous run left them). Exit status 0 only if no step failed and every step not run was skipped
# on purpose (E2E_SKIP): a step that could not run proved nothing.
#
# Every value a Job writes is "<key>:<run>" with this run's id, and the readers accept only that value. A planned
# disruption (steps 4, 5, evict, 6) must fail no request of its writer and its reader (scripts/e2e/
# disruption-clients.sh): failures are counted by cause.
#
# Environment: E2E_NAMESPACE (dht-e2e), E2E_OPERATOR_NAMESPACE (dht-e2e-system), IMAGE_TAG, IMAGE_PREFIX,
# E2E_KEEP=1 (leave everything in place at the end, for a look), E2E_KEYS (10000), E2E_SKIP="6 7 evict" (steps
# not to run, while working on another; 1, 8 and a lane's first step always run when any step of that lane does,
# a lane whose steps are all skipped is not started, and a step that reads an earlier one's keys needs it). Every
# step's seconds go to the log and, when DHT_TIMINGS names a file, to that file (.ci/run's table).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e/step-evict.sh"
. "$(dirname "$0")/e2e/step-backup.sh"
. "$(dirname "$0")/e2e/step-rebuild.sh"
. "$(dirname "$0")/e2e/disruption-clients.sh"
. "$(dirname "$0")/e2e/step-security.sh"
. "$(dirname "$0")/e2e/step-racks.sh"
. "$(dirname "$0")/e2e/step-upgrade.sh"
cd "$DHT_ROOT"

NS=${E2E_NAMESPACE:-dht-e2e}
OP_NS=${E2E_OPERATOR_NAMESPACE:-dht-e2e-system}
RELEASE=dht-operator
SKIP=${E2E_SKIP:-}
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
PREFIX=${IMAGE_PREFIX:-}
RUNNER_IMAGE="${PREFIX}dht-loadrunner:$TAG"
KEYS=${E2E_KEYS:-10000}
SERVICE_URL="https://dht.$NS.svc:8080"
RUN_ID="e2e-$(date -u +%Y%m%dT%H%M%SZ)-$$"
# Step 4's writer: this many of its writes acknowledged after the deletion (and none failed).
STEP4_MIN_ACKED_AFTER=$(( ${E2E_KEYS:-10000} / 10 ))
member_url() { echo "https://dht-$1.dht-headless.$NS.svc:8080"; }

KUBECTL=${KUBECTL:-$("$DHT_ROOT/scripts/kube-binaries.sh" --bin-dir kubectl)/kubectl}
HELM=${HELM:-$("$DHT_ROOT/scripts/tool.sh" helm)}
k() { "$KUBECTL" "$@"; }
kn() { "$KUBECTL" -n "$NS" "$@"; }
command -v python3 >/dev/null || die "python3 is needed (it parses the Jobs' results)"
k version --request-timeout=10s >/dev/null 2>&1 || die "no cluster answers at the current kubeconfig (${KUBECONFIG:-~/.kube/config}): make k8s-up, or CLUSTER=kind make kind-up"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
START=$SECONDS
# Every step's result, one line each, from both lanes (each line is one append, whole).
RESULTS_FILE="$WORK/results"
: > "$RESULTS_FILE"
LANE=""
say() { printf '[e2e%s %4ss] %s\n' "${LANE:+ $LANE}" $((SECONDS - START)) "$*"; }
report() { # report STEP STATUS TEXT
  local line
  line=$(printf 'step %s %-7s %s' "$1" "$2" "$3")
  printf '%s\t%s\n' "$2$([ "$3" = "skipped (E2E_SKIP)" ] && echo /skipped)" "$line" >> "$RESULTS_FILE"
  say "$line"
}
# results -> every step's line, the counts, and 0 only if no step failed and every step not run was skipped on purpose
results() {
  local passed failed not_run skipped
  cut -f2- "$RESULTS_FILE"
  passed=$(grep -c '^PASS' "$RESULTS_FILE" || true); failed=$(grep -c '^FAIL' "$RESULTS_FILE" || true)
  not_run=$(grep -c '^NOT RUN' "$RESULTS_FILE" || true); skipped=$(grep -c '^NOT RUN/skipped' "$RESULTS_FILE" || true)
  echo "$passed passed, $failed failed, $not_run not run ($skipped of them skipped by E2E_SKIP) ($((SECONDS - START))s)"
  [ "$failed" -eq 0 ] && [ "$not_run" -eq "$skipped" ]
}

# ---------------------------------------------------------------------------------------------------------
# Helpers
dht_field() { kn get dht dht -o "jsonpath=$1" 2>/dev/null; }
release_level_is() { [ "$(dht_field '{.status.release} {.status.featureLevel}')" = "$1" ]; } # release_level_is "RELEASE LEVEL"
dht_is() { # dht_is PHASE READY -> the DhtCluster's phase and ready count, for the current generation
  [ "$(dht_field '{.status.phase}')" = "$1" ] && [ "$(dht_field '{.status.readyReplicas}')" = "$2" ] \
    && [ "$(dht_field '{.status.observedGeneration}')" = "$(dht_field '{.metadata.generation}')" ]
}

# run_job NAME SECONDS ARG... -> runs dhtcheck ARG... in a Job of the load-runner image, waits for it, puts its
# log in $WORK/NAME.log and its RESULT json in $WORK/NAME.json; 0 if the Job succeeded.
# Set before the call (start_job, finish_job, run_job):
#   JOB_NS=NAMESPACE       the Job's namespace (default $NS)
#   JOB_PROGRAM=FILE       another program of the image's /opt/dht/py than dhtcheck.py (e.g. dhtattack.py)
#   JOB_TOKEN=KEY|none     DHT_TOKEN from that key of Secret dht-auth, which must then have it, or no token; unset:
#                          the cluster's read-write token (spec.auth, on by default), none when the Secret is absent
#   JOB_MEMBER_TLS=SECRET  the Job reads a member port (mutual TLS, open to members only): the member Secret at
#                          /etc/member, on the host's network (which the NetworkPolicy does not filter; the
#                          certificate is the guard)
#   JOB_CLIENT=user|ca|none  how the Job meets the client port's TLS: user (default) the CA bundle (ConfigMap
#                          dht-client-ca.crt, or $JOB_CA_CONFIGMAP) and the DhtUser app's certificate (Secret
#                          app-dht-client), and no token
#                          unless JOB_TOKEN names one; ca the CA bundle only; none nothing (the attackers)
#   JOB_SECRET=NAME:DIR    another Secret of the Job's namespace mounted at DIR
jn() { "$KUBECTL" -n "${JOB_NS:-$NS}" "$@"; }
start_job() {
  local name=$1; shift
  local args="" a
  for a in "$@"; do args="$args, $(printf '%s' "$a" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')"; done
  local hostnet=false vols="" mounts="" token=""
  if [ -n "${JOB_MEMBER_TLS:-}" ]; then
    hostnet=true
    vols=", {name: member-tls, secret: {secretName: $JOB_MEMBER_TLS, defaultMode: 0440}}"
    mounts=", {name: member-tls, mountPath: /etc/member, readOnly: true}"
  fi
  local client=${JOB_CLIENT:-user} tls_env=""
  case $client in
    user|ca)
      vols="$vols, {name: client-ca, configMap: {name: ${JOB_CA_CONFIGMAP:-dht-client-ca.crt}, optional: true}}"
      mounts="$mounts, {name: client-ca, mountPath: /etc/dht/client-ca, readOnly: true}"
      tls_env="{name: DHT_CA, value: /etc/dht/client-ca/ca.crt}, " ;;
  esac
  if [ "$client" = user ]; then
    vols="$vols, {name: client, secret: {secretName: app-dht-client, defaultMode: 0440, optional: true}}"
    mounts="$mounts, {name: client, mountPath: /etc/dht/client, readOnly: true}"
    tls_env="$tls_env{name: DHT_CLIENT_CERT, value: /etc/dht/client/tls.crt}, {name: DHT_CLIENT_KEY, value: /etc/dht/client/tls.key}, "
  fi
  if [ -n "${JOB_SECRET:-}" ]; then
    vols="$vols, {name: extra, secret: {secretName: ${JOB_SECRET%%:*}, defaultMode: 0440}}"
    mounts="$mounts, {name: extra, mountPath: ${JOB_SECRET#*:}, readOnly: true}"
  fi
  case ${JOB_TOKEN:-} in
    "") [ "$client" = user ] || token="{name: DHT_TOKEN, valueFrom: {secretKeyRef: {name: dht-auth, key: read-write, optional: true}}}, " ;;
    none) ;;
    *) token="{name: DHT_TOKEN, valueFrom: {secretKeyRef: {name: dht-auth, key: $JOB_TOKEN}}}, " ;;
  esac
  jn delete job "$name" --ignore-not-found --wait=true >/dev/null 2>&1 || true
  jn apply -f - >/dev/null <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: $name, labels: {app.kubernetes.io/part-of: dht-e2e}}
spec:
  backoffLimit: 0
  template:
    metadata: {labels: {app.kubernetes.io/part-of: dht-e2e, job-name: $name}}
    spec:
      restartPolicy: Never
      enableServiceLinks: false
      automountServiceAccountToken: false
      hostNetwork: $hostnet
      dnsPolicy: $([ "$hostnet" = true ] && echo ClusterFirstWithHostNet || echo ClusterFirst)
      securityContext: {runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: {type: RuntimeDefault}}
      volumes: [{name: keys, configMap: {name: e2e-keys, optional: true}}$vols]
      containers:
      - name: check
        image: $RUNNER_IMAGE
        imagePullPolicy: IfNotPresent
        args: ["/opt/dht/py/${JOB_PROGRAM:-dhtcheck.py}"$args]
        env: [${token}${tls_env}{name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]
        resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {memory: 256Mi}}
        securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
        volumeMounts: [{name: keys, mountPath: /etc/e2e}$mounts]
EOF
}
job_done() { # 0 when the Job finished (either way)
  local s f
  s=$(jn get job "$1" -o jsonpath='{.status.succeeded}' 2>/dev/null)
  f=$(jn get job "$1" -o jsonpath='{.status.failed}' 2>/dev/null)
  [ "${s:-0}" -gt 0 ] || [ "${f:-0}" -gt 0 ]
}
finish_job() { # finish_job NAME SECONDS -> waits, collects the log and the RESULT line
  local name=$1 limit=$2
  if ! until_true "$limit" job_done "$name"; then
    jn logs "job/$name" > "$WORK/$name.log" 2>&1 || true
    echo '{"error": "the Job did not finish in '"$limit"'s"}' > "$WORK/$name.json"
    return 1
  fi
  jn logs "job/$name" > "$WORK/$name.log" 2>&1 || true
  sed -n 's/^RESULT //p' "$WORK/$name.log" | tail -1 > "$WORK/$name.json"
  [ -s "$WORK/$name.json" ] || echo '{"error": "no RESULT line in the log"}' > "$WORK/$name.json"
  [ "$(jn get job "$name" -o jsonpath='{.status.succeeded}' 2>/dev/null)" = 1 ]
}
run_job() { local name=$1 limit=$2; shift 2; start_job "$name" "$@"; finish_job "$name" "$limit"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$WORK/$1.json" "$2" 2>/dev/null; }
# acked_after NAME T -> how many writes of write Job NAME were acknowledged in the wall-clock seconds after time T
acked_after() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=float(sys.argv[2]); print(sum(n for s, n in d.get("acked_per_second", {}).items() if int(s) > t))' "$WORK/$1.json" "$2" 2>/dev/null || echo 0; }
summary() { # summary NAME -> a short text of a read/write/watch RESULT
  python3 - "$WORK/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if "error" in d:
    print(d["error"]); sys.exit()
c = d.get("command")
if c == "write":
    print(f"{d['acked']}/{d['written']} acknowledged in {d['seconds']}s" + (f", failures by cause {d['failures']}" if d['failures'] else ", none failed"))
elif c == "metric":
    print(f"{d['name']}: {sorted(set(d['values'].values()))}" + (f", problems: {d['problems']}" if d['problems'] else ""))
elif c == "idle":
    print(f"{d['idle']}/{d['members']} members idle in {d['seconds']}s" + (f", waiting: {d['waiting']}" if d['waiting'] else ""))
elif c in ("read", "watch"):
    n = d.get("keys", d.get("reads"))
    bad = {k: v for k, v in d["outcomes"].items() if k != "ok"}
    print(f"{d['ok']}/{n} {'reads' if c == 'watch' else 'keys'} ok in {d['seconds']}s" + (f", wrong: {bad}, e.g. {d['examples'][:3]}" if bad else "")
          + (f" ({d['retried']} failed reads asked again, e.g. {d['retried_examples'][:2]})" if d.get("retried") else ""))
else:
    print(json.dumps(d))
EOF
}
log_has() { kn logs "job/$1" 2>/dev/null | grep -q "$2"; }
pod_replaced() { [ "$(kn get pod "$1" -o jsonpath='{.metadata.uid}' 2>/dev/null)" != "$2" ]; }
scaled_down_to_3() { dht_is Ready 3 && ! kn get pod dht-3 >/dev/null 2>&1 && ! kn get pod dht-4 >/dev/null 2>&1; }
owned() { # what the operator made, in both lanes' namespaces
  local ns
  for ns in "$NS" "$NS_B" "$NS_C"; do
    k -n "$ns" get statefulset,service,configmap,poddisruptionbudget,serviceaccount,pod,secret,networkpolicy -l app.kubernetes.io/managed-by=dht-operator -o name 2>/dev/null | sed "s|^|$ns/|"
  done
}
user_issued() { [ -n "$(kn get secret app-dht-client -o jsonpath='{.data.tls\.crt}' 2>/dev/null)" ]; }
leftovers() {
  { owned
    k -n "$OP_NS" get deploy,pod,serviceaccount,service,role,rolebinding -l "app.kubernetes.io/instance=$RELEASE" -o name 2>/dev/null
    k get clusterrole,clusterrolebinding -l "app.kubernetes.io/instance=$RELEASE" -o name 2>/dev/null
  } | tr '\n' ' '
}
nothing_left() { [ -z "$(leftovers | tr -d ' ')" ]; }
acked_keys() { sed -n 's/^ACKED //p' "$WORK/$1.log" | tail -1; }
set_keys() { # set_keys STEP3 STEP4 [STEP6]: the key ranges the reader Jobs check, as a ConfigMap they mount
  kn create configmap e2e-keys --from-literal=step3="$1" --from-literal=step4="$2" --from-literal=step6="${3:-}" \
    --dry-run=client -o yaml | kn apply -f - >/dev/null
}

cleanup() {
  local ns
  for ns in "$NS" "$NS_B" "$NS_C"; do k -n "$ns" delete dht --all --ignore-not-found --wait=true --timeout=60s >/dev/null 2>&1 || true; done
  "$HELM" uninstall "$RELEASE" -n "$OP_NS" --wait --timeout 2m >/dev/null 2>&1 || true
  k delete namespace "$NS" "$NS_B" "$NS_C" "$NS_U" "$OP_NS" --ignore-not-found --wait=true --timeout=180s >/dev/null 2>&1 || true
  k delete crd dhtclusters.dht.dev dhtbenchmarks.dht.dev dhtbackups.dht.dev dhtbackupschedules.dht.dev dhtusers.dht.dev --ignore-not-found --wait=true --timeout=60s >/dev/null 2>&1 || true
}

# ---------------------------------------------------------------------------------------------------------
NS_B="${NS}-b"
NS_C="${NS}-c"
NS_U="${NS}-u"
say "cluster: $(k config current-context 2>/dev/null || echo '?'), images *:$TAG, namespaces $OP_NS, $NS (lane A), $NS_B (lane B) and $NS_C (lane C)"
if k get namespace "$NS" >/dev/null 2>&1 || k get namespace "$NS_B" >/dev/null 2>&1 || k get namespace "$NS_C" >/dev/null 2>&1 || k get namespace "$OP_NS" >/dev/null 2>&1 \
   || k get crd dhtclusters.dht.dev >/dev/null 2>&1; then
  say "removing what an earlier run left"
  cleanup
fi

step1() {
  # upgrade: over the previous release when lane U installed it (helm upgrades no CRD by itself)
  if ! k apply --server-side --force-conflicts -f charts/dht-operator/crds/ >/dev/null 2>"$WORK/helm.log" \
     || ! "$HELM" upgrade --install "$RELEASE" charts/dht-operator -n "$OP_NS" --create-namespace \
      --set "image.repository=${PREFIX}dht-operator" --set "image.tag=$TAG" \
      --set "nodeImage.repository=${PREFIX}dht-node" --set "nodeImage.tag=$TAG" \
      --set "runnerImage.repository=${PREFIX}dht-loadrunner" --set "runnerImage.tag=$TAG" \
      --wait --timeout 3m > "$WORK/helm.log" 2>&1; then
    report 1 FAIL "helm install: $(tail -1 "$WORK/helm.log")"; return 1
  fi
  if ! k -n "$OP_NS" rollout status deploy/$RELEASE --timeout=60s >/dev/null 2>&1 \
     || ! k get crd dhtclusters.dht.dev >/dev/null 2>&1; then
    report 1 FAIL "the operator is not ready or the CRD is missing"; return 1
  fi
  report 1 PASS "helm install: operator ready, CRD dhtclusters.dht.dev installed"
}

step2() {
  k create namespace "$NS" >/dev/null 2>&1 || true
  kn apply -f manifests/dhtcluster-sample.yaml >/dev/null || { report 2 FAIL "kubectl apply refused the sample"; return 1; }
  kn apply -f manifests/dhtuser-sample.yaml >/dev/null || { report 2 FAIL "kubectl apply refused the DhtUser sample"; return 1; }
  local t0=$SECONDS
  if ! until_true 300 dht_is Ready 3; then
    report 2 FAIL "not Ready 3/3 after 300s: phase $(dht_field '{.status.phase}'), ready $(dht_field '{.status.readyReplicas}')"; return 1
  fi
  # The operator asks each real member its release and feature level and raises the level once all run this one.
  local want_release want_level
  want_release=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
  want_level=$("$(find_java_home)/bin/java" -jar node/target/dht-node.jar --version | sed -n 's/.*levels up to \([0-9]*\).*/\1/p')
  if ! until_true 90 release_level_is "$want_release $want_level"; then
    report 2 FAIL "status.release/featureLevel '$(dht_field '{.status.release} {.status.featureLevel}')', want '$want_release $want_level'; members: $(dht_field '{.status.members[*].release}')"; return 1
  fi
  if [ "$(dht_field '{.status.tls.client.enabled}')" != true ] || ! until_true 60 user_issued; then
    report 2 FAIL "the client port has no TLS ($(dht_field '{.status.tls.client}')) or DhtUser app got no certificate ($(kn get dhtuser app -o jsonpath='{.status.message}' 2>&1))"; return 1
  fi
  local text="DhtCluster Ready with 3/3 members in $((SECONDS - t0))s ($(kn get dht dht --no-headers 2>/dev/null | tr -s ' ')), release $want_release at feature level $want_level, client port TLS only ($(dht_field '{.status.tls.client.clientAuth}') client certificates), DhtUser app's certificate issued"
  # Steps 4, 5, evict and 6 check that a disruption fails no request, not latency: at the sample's default deadline
  # for replica answers its members, beside three other lanes on 2 CPUs, answered a few requests 504 (6 of 12,065
  # writes in step 4, 1 of 415,243 reads in step 5, in two CI runs). The same 3 s as lanes B, C and U, one roll.
  t0=$SECONDS
  local revision; revision=$(kn get sts dht -o jsonpath='{.status.updateRevision}')
  kn patch dht dht --type merge -p '{"spec":{"server":{"requestTimeout":"3s"}}}' >/dev/null \
    || { report 2 FAIL "$text; kubectl patch refused spec.server.requestTimeout"; return 1; }
  sts_revision_moved() { [ "$(kn get sts dht -o jsonpath='{.status.updateRevision}')" != "$revision" ]; }
  until_true 120 sts_revision_moved \
    || { report 2 FAIL "$text; the StatefulSet did not take requestTimeout 3s within 120s"; return 1; }
  until_true 600 rebuild_rolled_out \
    || { report 2 FAIL "$text; the members did not roll to requestTimeout 3s in 600s: phase $(dht_field '{.status.phase}')"; return 1; }
  report 2 PASS "$text; rolled to a 3 s deadline for the disruption steps in $((SECONDS - t0))s"
}

STEP3_KEYS=""; STEP4_KEYS=""
step3() { # step3 [LABEL]: lane B runs it as 3b
  local label=${1:-3}
  if ! run_job e2e-write 300 write --target "$SERVICE_URL" --prefix s3 --count "$KEYS" --run "$RUN_ID"; then
    report "$label" FAIL "writer: $(summary e2e-write)"; return 1
  fi
  STEP3_KEYS=$(acked_keys e2e-write)
  set_keys "$STEP3_KEYS" ""
  if ! run_job e2e-read 300 read --target "$(member_url 2)" --prefix s3 --keys @/etc/e2e/step3 --run "$RUN_ID"; then
    report "$label" FAIL "wrote $(summary e2e-write); read through dht-2: $(summary e2e-read)"; return 1
  fi
  report "$label" PASS "wrote $(summary e2e-write) via the Service; read back through dht-2: $(summary e2e-read)"
}

step4() {
  local victim=dht-1 uid deleted_at acked written after reader=0
  start_reader e2e-watch-kill e2e-stop-s4 || { report 4 FAIL "the reader did not start"; return 1; }
  # The writer runs until the stop key (the reader's): through the deletion and the member's return, however slowly
  # a loaded machine gets there (a fixed count could end before the deletion).
  start_job e2e-write-kill write --target "$SERVICE_URL" --prefix s4 --count 1000000 --rate 300 --allow-failures \
    --stop-key e2e-stop-s4 --progress 500 --run "$RUN_ID"
  if ! until_true 120 log_has e2e-write-kill '^progress 1500'; then
    report 4 FAIL "the writer did not get going: $(kn logs job/e2e-write-kill --tail 3 2>&1 | tr '\n' ' ')"; return 1
  fi
  uid=$(kn get pod "$victim" -o jsonpath='{.metadata.uid}')
  deleted_at=$(date +%s.%N)
  kn delete pod "$victim" --wait=false >/dev/null
  say "deleted pod $victim while the writer was running"
  until_true 180 pod_replaced "$victim" "$uid" && until_true 240 dht_is Ready 3 || { report 4 FAIL "$victim did not come back: phase $(dht_field '{.status.phase}')"; return 1; }
  stop_reader e2e-watch-kill e2e-stop-s4 || reader=1
  finish_job e2e-write-kill 120 || { report 4 FAIL "writer: $(summary e2e-write-kill)"; return 1; }
  # Nothing acknowledged, or nothing after the deletion, would prove nothing about losing a member.
  acked=$(json e2e-write-kill "d['acked']"); written=$(json e2e-write-kill "d['written']")
  after=$(acked_after e2e-write-kill "$deleted_at")
  if [ "${acked:-0}" != "${written:-0}" ] || [ "${after:-0}" -lt "$STEP4_MIN_ACKED_AFTER" ] || [ $reader -ne 0 ]; then
    report 4 FAIL "writer: $(summary e2e-write-kill), $after acknowledged after the deletion (every write acknowledged and $STEP4_MIN_ACKED_AFTER of them after the deletion are needed); reader at quorum: $(summary e2e-watch-kill) (no failed read allowed)"
    return 1
  fi
  STEP4_KEYS=$(acked_keys e2e-write-kill)
  set_keys "$STEP3_KEYS" "$STEP4_KEYS"
  if ! run_job e2e-read-kill 300 read --target "$SERVICE_URL" --prefix s4 --keys @/etc/e2e/step4 --run "$RUN_ID"; then
    report 4 FAIL "writer: $(summary e2e-write-kill); reader: $(summary e2e-read-kill)"; return 1
  fi
  report 4 PASS "$victim deleted mid-write: $(summary e2e-write-kill), $after of them after the deletion; reader at quorum meanwhile: $(summary e2e-watch-kill); every acknowledged key read back: $(summary e2e-read-kill)"
}

# The new heap, well above the sample's 384Mi and within its 1Gi limit beside RocksDB.
HEAP=448Mi; HEAP_BYTES=$((448 * 1024 * 1024))
mebibytes() { python3 -c 'import re,sys; m=re.fullmatch(r"(\d+)Mi", sys.argv[1]); print(int(m.group(1)) << 20 if m else 0)' "$1"; }
step5() {
  local before after heap max_unready=0 n rolled=0 pods unready_seen=
  before=$(kn get pods -l app.kubernetes.io/instance=dht,app.kubernetes.io/component=node -o jsonpath='{.items[*].metadata.uid}')
  kn delete configmap e2e-stop --ignore-not-found >/dev/null 2>&1 || true
  start_job e2e-watch watch --target "$SERVICE_URL" --prefix s3 --keys @/etc/e2e/step3 --stop-key e2e-stop-s5 \
    --threads 4 --max-seconds 600 --run "$RUN_ID"
  until_true 120 log_has e2e-watch '^started' || { report 5 FAIL "the reader did not start"; return 1; }
  start_writer e2e-write-roll s5 e2e-stop-s5 || { report 5 FAIL "the writer did not get going"; return 1; }
  heap=$(dht_field '{.spec.jvm.heap}')
  kn patch dht dht --type merge -p '{"spec":{"jvm":{"heap":"'$HEAP'"}}}' >/dev/null
  say "jvm.heap $heap -> $HEAP: the pods roll"
  # Watch the roll: never more than one member unready at a time, and it ends with every pod replaced.
  local deadline=$((SECONDS + 600))
  while [ $SECONDS -lt $deadline ]; do
    # One listing per look: counting the unready pods in one and the missing ones in another counted a pod that
    # was deleted between the two twice (unready in the first, missing from the second)
    pods=$(kn get pods -l app.kubernetes.io/instance=dht,app.kubernetes.io/component=node \
          -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}') \
      || { sleep 1; continue; }
    n=$(( 3 - $(grep -o '=True' <<<"$pods" | wc -l) ))
    if [ "$n" -gt "$max_unready" ]; then max_unready=$n; unready_seen="$pods"; fi
    after=$(kn get pods -l app.kubernetes.io/instance=dht,app.kubernetes.io/component=node -o jsonpath='{.items[*].metadata.uid}')
    if dht_is Ready 3 && [ "$(kn get sts dht -o jsonpath='{.status.updatedReplicas}')" = 3 ] \
       && [ "$(kn get sts dht -o jsonpath='{.status.currentRevision}')" = "$(kn get sts dht -o jsonpath='{.status.updateRevision}')" ]; then
      rolled=1; break
    fi
    sleep 1
  done
  local replaced
  replaced=$(python3 -c 'import sys; a=set(sys.argv[1].split()); b=set(sys.argv[2].split()); print(len(b - a))' "$before" "$after")
  run_job e2e-stop 60 put --target "$SERVICE_URL" --key e2e-stop-s5 >/dev/null || true
  finish_job e2e-watch 120
  local ok=$? writer=0
  stop_writer e2e-write-roll e2e-stop-s5 || writer=1
  if [ $rolled -ne 1 ]; then report 5 FAIL "the roll did not finish in 600s ($replaced of 3 pods replaced, phase $(dht_field '{.status.phase}'))"; return 1; fi
  if [ "$replaced" != 3 ]; then report 5 FAIL "the roll did not replace the 3 pods ($replaced replaced)"; return 1; fi
  if [ "$max_unready" -gt 1 ]; then report 5 FAIL "$max_unready members were unready at once during the roll (pods: $unready_seen)"; return 1; fi
  if [ $ok -ne 0 ]; then report 5 FAIL "reader during the roll: $(summary e2e-watch)"; return 1; fi
  if [ $writer -ne 0 ]; then report 5 FAIL "writer during the roll: $(summary e2e-write-roll) (every write must be acknowledged)"; return 1; fi
  # The rolled members run with the new setting: each JVM's maximum heap, as it reports it. That is -Xmx less
  # what the collector keeps aside (the serial collector one survivor space), so it must lie above the old
  # setting and at most the new one.
  local old_bytes
  old_bytes=$(mebibytes "$heap")
  if ! run_job e2e-heap 120 metric --members "$(member_urls)" --name 'jvm_memory_max_bytes{area="heap"}' \
     || [ "$(json e2e-heap "len(d['values']) == 3 and all($old_bytes < v <= $HEAP_BYTES for v in d['values'].values())")" != True ]; then
    report 5 FAIL "the rolled members do not all run with the $HEAP heap (a maximum above the old $heap, $old_bytes bytes, and at most $HEAP_BYTES): $(summary e2e-heap)"; return 1
  fi
  report 5 PASS "jvm.heap changed: 3 pods replaced one at a time (at most $max_unready unready), each JVM now has a $HEAP heap; reader at quorum on kept-alive connections: $(summary e2e-watch); writer: $(summary e2e-write-roll)"
}

# The members' URLs as the status names them (http://, their names in the topology), as clients reach them: https://
member_urls() { dht_field '{.status.members[*].url}' | tr ' ' ',' | sed 's#http://#https://#g'; }
all_idle() { # all_idle NAME: every member in the status answers idle on that same member list (a Job)
  run_job "$1" 660 idle --members "$(member_urls)" --max-seconds 600
}

step6() {
  local t0=$SECONDS text ok=1
  set_keys "$STEP3_KEYS" "$STEP4_KEYS"
  # A writer runs through both steps: what it gets acknowledged while members change must be readable after.
  start_job e2e-write-scale write --target "$SERVICE_URL" --prefix s6 --count 1000000 --rate 100 --threads 4 \
    --allow-failures --stop-key e2e-stop-s6 --progress 500 --run "$RUN_ID"
  until_true 120 log_has e2e-write-scale '^progress 500' || { report 6 FAIL "the writer did not get going"; return 1; }
  start_reader e2e-watch-scale e2e-stop-s6 || { report 6 FAIL "the reader did not start"; return 1; }
  kn scale dht dht --replicas=5 >/dev/null || { report 6 FAIL "kubectl scale refused"; return 1; }
  if ! until_true 600 dht_is Ready 5; then report 6 FAIL "not Ready 5/5 after 600s: phase $(dht_field '{.status.phase}')"; return 1; fi
  all_idle e2e-idle-5 || ok=0
  text="3->5 Ready in $((SECONDS - t0))s, $(summary e2e-idle-5)"
  # the two reads at once: independent Jobs (a Job's start and end cost seconds of their own)
  start_job e2e-read-5a read --target "$(member_url 4)" --prefix s3 --keys @/etc/e2e/step3 --run "$RUN_ID"
  start_job e2e-read-5b read --target "$(member_url 4)" --prefix s4 --keys @/etc/e2e/step4 --run "$RUN_ID"
  finish_job e2e-read-5a 300 || ok=0
  finish_job e2e-read-5b 300 || ok=0
  text="$text; read through dht-4: $(summary e2e-read-5a) / $(summary e2e-read-5b)"
  t0=$SECONDS
  kn scale dht dht --replicas=3 >/dev/null
  if ! until_true 900 scaled_down_to_3; then
    report 6 FAIL "$text; not back to Ready 3/3 after 900s: phase $(dht_field '{.status.phase}')"; return 1
  fi
  all_idle e2e-idle-3 || ok=0
  text="$text; 5->3 Ready in $((SECONDS - t0))s, $(summary e2e-idle-3)"
  start_job e2e-read-3a read --target "$(member_url 0)" --prefix s3 --keys @/etc/e2e/step3 --run "$RUN_ID"
  start_job e2e-read-3b read --target "$(member_url 0)" --prefix s4 --keys @/etc/e2e/step4 --run "$RUN_ID"
  finish_job e2e-read-3a 300 || ok=0
  finish_job e2e-read-3b 300 || ok=0
  text="$text; read through dht-0: $(summary e2e-read-3a) / $(summary e2e-read-3b)"
  run_job e2e-stop-6 60 put --target "$SERVICE_URL" --key e2e-stop-s6 >/dev/null || true
  finish_job e2e-write-scale 120 || true
  stop_reader e2e-watch-scale e2e-stop-s6 || ok=0
  set_keys "$STEP3_KEYS" "$STEP4_KEYS" "$(acked_keys e2e-write-scale)"
  run_job e2e-read-6 300 read --target "$SERVICE_URL" --prefix s6 --keys @/etc/e2e/step6 --run "$RUN_ID" || ok=0
  text="$text; writer during both steps: $(summary e2e-write-scale), read back: $(summary e2e-read-6); reader at quorum meanwhile: $(summary e2e-watch-scale)"
  # Nothing acknowledged proves nothing; a scale is a planned disruption: no write may fail.
  [ "$(json e2e-write-scale "d['acked']")" -gt 0 ] 2>/dev/null || ok=0
  [ "$(json e2e-write-scale "d['failed']")" = 0 ] || { ok=0; text="$text (a planned disruption must fail no write)"; }
  if [ $ok -ne 1 ]; then report 6 FAIL "$text"; return 1; fi
  report 6 PASS "$text"
}

step7() {
  if ! k get crd dhtbenchmarks.dht.dev >/dev/null 2>&1; then
    report 7 FAIL "no DhtBenchmark resource (CRD dhtbenchmarks.dht.dev) in this operator"; return 1
  fi
  if [ ! -x scripts/e2e/benchmark-step.sh ]; then
    report 7 FAIL "scripts/e2e/benchmark-step.sh is missing or not executable"; return 1
  fi
  local out
  if out=$(E2E_NAMESPACE=$NS KUBECTL=$KUBECTL scripts/e2e/benchmark-step.sh 2>&1); then
    report 7 PASS "$(echo "$out" | tail -1)"
  else
    report 7 FAIL "$(echo "$out" | tail -1)"
  fi
}

step8() {
  local left ns
  for ns in "$NS" "$NS_B" "$NS_C"; do
    # a DhtUser's Secret goes with it; a user may outlive its cluster (a failed step 9 deleted "dht" in lane B)
    k -n "$ns" delete dhtuser --all --wait=true --timeout=60s >/dev/null 2>&1 || true
    k -n "$ns" get dht dht >/dev/null 2>&1 || continue
    k -n "$ns" delete dht dht --wait=true --timeout=120s >/dev/null 2>&1 || { report 8 FAIL "kubectl delete dht did not finish in $ns"; return 1; }
  done
  "$HELM" uninstall "$RELEASE" -n "$OP_NS" --wait --timeout 2m >/dev/null 2>&1 || { report 8 FAIL "helm uninstall failed"; return 1; }
  # Garbage collection and pod termination take a moment: wait (bounded) until nothing of ours is left.
  until_true 120 nothing_left || true
  left=$(leftovers)
  local pvcs
  pvcs=$(for ns in "$NS" "$NS_B" "$NS_C"; do k -n "$ns" get pvc -o name 2>/dev/null | sed "s|^|$ns/|"; done | tr '\n' ' ')
  if [ -n "${left// /}" ]; then report 8 FAIL "left behind: $left"; return 1; fi
  report 8 PASS "deleted and uninstalled: nothing left but the retained PVCs (${pvcs:-none})"
}

# A failed step leaves what it saw for a look, taken at once (later steps change the cluster): objects,
# events, the Jobs' results and every log still there, under build/e2e/<time>/step-N/.
ART="$DHT_ROOT/build/e2e/$(date -u +%Y%m%dT%H%M%SZ)"
collect() {
  local dir="$ART/step-$1" ns pod
  mkdir -p "$dir"
  cp "$WORK"/*.log "$WORK"/*.json "$WORK"/*.txt "$dir/" 2>/dev/null || true
  for ns in "$OP_NS" "$NS"; do
    k -n "$ns" get all,pvc,configmap,dht -o wide > "$dir/$ns-objects.txt" 2>&1 || true
    k -n "$ns" get events --sort-by=.lastTimestamp > "$dir/$ns-events.txt" 2>&1 || true
    for pod in $(k -n "$ns" get pods -o name 2>/dev/null); do
      k -n "$ns" logs "$pod" --all-containers > "$dir/$ns-${pod#pod/}.log" 2>&1 || true
      k -n "$ns" logs "$pod" --all-containers --previous > "$dir/$ns-${pod#pod/}.previous.log" 2>/dev/null \
        || rm -f "$dir/$ns-${pod#pod/}.previous.log"
    done
  done
  kn describe dht dht > "$dir/dht-describe.txt" 2>&1 || true
}

# ---------------------------------------------------------------------------------------------------------
# Lane B's cluster: the sample with what its steps would otherwise roll the members for (the profiler sidecar of
# step 7, the rebuild's repair rate of step 10, the backup store of step 9: those steps apply their setting again,
# a no-op), and a quarter of the sample's CPU request (the Jobs ask 50m each too), so that both lanes' clusters (up to 5 members each) and their Jobs
# fit the 2 CPUs a single-node cluster offers.
step2b() {
  local spec='"resources":{"requests":{"cpu":"50m","memory":"1Gi"},"limits":{"memory":"1Gi"}}'
  spec="$spec,\"server\":{\"requestTimeout\":\"3s\"}"  # 50m members beside three lanes answer late at times
  spec="$spec,\"profiler\":{\"enabled\":true},\"repair\":{\"rate\":\"$REBUILD_REPAIR_RATE\"}"
  k create namespace "$NS" >/dev/null 2>&1 || true
  if backup_prepare; then spec="$spec,\"backup\":$(backup_spec)"; fi
  k patch --local -f manifests/dhtcluster-sample.yaml --type merge -p "{\"spec\":{$spec}}" -o json \
    | kn apply -f - >/dev/null || { report 2b FAIL "kubectl apply refused the sample with lane B's settings"; return 1; }
  kn apply -f manifests/dhtuser-sample.yaml >/dev/null || { report 2b FAIL "kubectl apply refused the DhtUser sample"; return 1; }
  local t0=$SECONDS
  if ! until_true 300 dht_is Ready 3; then
    report 2b FAIL "not Ready 3/3 after 300s: phase $(dht_field '{.status.phase}'), ready $(dht_field '{.status.readyReplicas}')"; return 1
  fi
  until_true 60 user_issued || { report 2b FAIL "DhtUser app got no certificate ($(kn get dhtuser app -o jsonpath='{.status.message}' 2>&1))"; return 1; }
  report 2b PASS "a second DhtCluster (the sample with $spec) Ready with 3/3 members in $((SECONDS - t0))s"
}
step3b() { step3 3b; }

# Every step's seconds: in the log, and as a row of $DHT_TIMINGS (.ci/run's table) when it is set (issue 48).
step_time() { # step_time STEP SECONDS EXIT
  say "[time] e2e step $1: $2 s"
  [ -z "${DHT_TIMINGS:-}" ] || printf 'e2e step %s\t%s\t\t%s\n' "$1" "$2" "$3" >> "$DHT_TIMINGS"
}
step_fn() { case $1 in evict|attack|rotate|racks|upgrade) echo "step_$1" ;; *) echo "step$1" ;; esac; }
ready_any() { [ "$(dht_field '{.status.phase}')" = Ready ] && [ "$(dht_field '{.status.observedGeneration}')" = "$(dht_field '{.metadata.generation}')" ]; }
# run_lane STEP... -> runs the steps in order on this lane's cluster ($NS). The first step makes the cluster: when it
# fails nothing later runs; after another failure the rest run only if the cluster is Ready again.
run_lane() {
  local chain_ok=1 first=$1 s t0 rc
  for s in "$@"; do
    if [ $chain_ok -eq 0 ]; then report "$s" "NOT RUN" "an earlier step failed"; continue; fi
    if [[ " $SKIP " == *" $s "* ]] && [ "$s" != "$first" ]; then report "$s" "NOT RUN" "skipped (E2E_SKIP)"; continue; fi
    if [ "$s" = 5 ] || [ "$s" = 6 ] || [ "$s" = evict ]; then
      [ -n "${STEP3_KEYS:-}" ] || { report "$s" FAIL "cannot run: it reads step 3's keys and there are none"; continue; }
      [ "$s" != 6 ] || [ -n "${STEP4_KEYS:-}" ] || { report "$s" FAIL "cannot run: it reads step 4's keys and there are none"; continue; }
    fi
    t0=$SECONDS; rc=0
    "$(step_fn "$s")" || rc=$?
    step_time "$s" $((SECONDS - t0)) $rc
    if [ $rc -ne 0 ]; then
      collect "$s"
      if [ "$s" = "$first" ] || ! ready_any; then chain_ok=0; fi
    fi
  done
}
lane_wanted() { local s; for s in "$@"; do [[ " $SKIP " == *" $s "* ]] || return 0; done; return 1; }

# Two lanes at once after the operator is installed, each on its own DhtCluster in its own namespace: lane A the
# planned disruptions on the sample as users apply it, lane B the rest. Most of a step's time is waiting (probes,
# drains, a kubelet's sync), so the lanes overlap it; each step still runs alone on its own cluster.
LANE_A="2 3 4 5 evict 6"
LANE_B="2b 3b 7 10 9 attack rotate"
LANE_C="racks"
LANE_U="upgrade"
! lane_wanted $LANE_U || NS=$NS_U upgrade_previous || say "upgrade: ${UPGRADE_ERROR:-}"
installed=0
t0=$SECONDS; rc=0; step1 || rc=$?; step_time 1 $((SECONDS - t0)) $rc
if [ $rc -ne 0 ]; then
  collect 1
  for s in $LANE_A $LANE_B $LANE_C $LANE_U; do report "$s" "NOT RUN" "step 1 failed"; done
else
  installed=1
  lane_b_pid=""
  # shellcheck disable=SC2086
  if lane_wanted ${LANE_B#2b 3b }; then
    ( NS=$NS_B; SERVICE_URL="https://dht.$NS.svc:8080"; WORK="$WORK/b"; mkdir -p "$WORK"; LANE=B
      run_lane $LANE_B ) &
    lane_b_pid=$!
  else
    for s in $LANE_B; do report "$s" "NOT RUN" "skipped (E2E_SKIP)"; done
  fi
  # lane U after lane C: the roll and its clients must not share the 2 CPUs with the start of three other clusters
  ( if lane_wanted $LANE_C; then
      # rk's Jobs trust its client CA and present its DhtUser's certificate (step-racks.sh)
      ( NS=$NS_C; WORK="$WORK/c"; mkdir -p "$WORK"; LANE=C; JOB_CA_CONFIGMAP=rk-client-ca.crt; k create namespace "$NS" >/dev/null 2>&1 || true
        run_lane $LANE_C )
    else
      for s in $LANE_C; do report "$s" "NOT RUN" "skipped (E2E_SKIP)"; done
    fi
    if lane_wanted $LANE_U; then (NS=$NS_U; LANE=U; run_lane $LANE_U); else report upgrade "NOT RUN" "skipped (E2E_SKIP)"; fi ) &
  lane_cu_pid=$!
  # shellcheck disable=SC2086
  if lane_wanted ${LANE_A#2 }; then (LANE=A; run_lane $LANE_A); else for s in $LANE_A; do report "$s" "NOT RUN" "skipped (E2E_SKIP)"; done; fi
  [ -z "$lane_b_pid" ] || wait "$lane_b_pid" || true
  wait "$lane_cu_pid" || true
fi
if [ $installed -eq 1 ]; then
  t0=$SECONDS; rc=0; step8 || rc=$?; step_time 8 $((SECONDS - t0)) $rc
  [ $rc -eq 0 ] || collect 8
fi

if [ -d "$ART" ]; then say "diagnostics of the failed steps: $ART"; fi

if [ "${E2E_KEEP:-0}" = 1 ]; then
  say "E2E_KEEP=1: leaving namespaces $OP_NS, $NS, $NS_B and $NS_C in place"
else
  cleanup
fi
echo
results
