#!/usr/bin/env bash
# netpol-check.sh -> proves that the local cluster enforces NetworkPolicies (make k8s-up runs it once per start of
# kube-router), and fails loudly if not: a policy that nothing enforces would let every later test pass for the
# wrong reason.
#
#   1 a server pod and a client pod (the load-runner image: Python) in namespace dht-netpol-check
#   2 the client reaches the server (else the check itself proves nothing: pod networking is broken)
#   3 a deny-all ingress policy on the server: the client must no longer get through
#   4 a policy that admits the client's label: the client gets through again (selectors are evaluated, not just
#     "deny everything")
# Every wait is bounded; the namespace is removed at the end, also on failure.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

NS=dht-netpol-check
KUBE_BIN_DIR=${KUBE_BIN_DIR:-$("$DHT_ROOT/scripts/kube-binaries.sh" --bin-dir kubectl)}
runner_image() { # the load-runner image make images built (the one with python3)
  local a
  for a in "$DHT_ROOT"/build/images/dht-loadrunner-*.tar; do
    [ -f "$a" ] && tar -xOf "$a" manifest.json | sed -n 's/.*"RepoTags":\["\([^"]*\)".*/\1/p' && return 0
  done
  return 1
}
IMAGE=${NETPOL_CHECK_IMAGE:-$(runner_image)} || die "no load-runner image in build/images (make images builds it): the check needs its python3"
k() { kctl -n "$NS" "$@"; }
fail() { log "error: NetworkPolicies are NOT enforced: $*"; log "kube-router's log: $K8S_LOGS/kube-router.log"; tail -5 "$K8S_LOGS/kube-router.log" >&2 || true; exit 1; }
trap 'kctl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true' EXIT

kctl delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null
kctl create namespace "$NS" >/dev/null
pod() { # pod NAME PYTHON-PROGRAM
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  enableServiceLinks: false
  automountServiceAccountToken: false
  securityContext: {runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: main
    image: $IMAGE
    imagePullPolicy: IfNotPresent
    command: ["python3", "-c", "$2"]
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
---
YAML
}
{ pod server "import http.server as h; h.HTTPServer(('', 8080), h.SimpleHTTPRequestHandler).serve_forever()"
  pod client "import time; time.sleep(900)"; } | k apply -f - >/dev/null
k wait --for=condition=Ready pod/server pod/client --timeout=120s >/dev/null || die "the check's pods did not start in 120s"
IP=$(k get pod server -o jsonpath='{.status.podIP}')
reaches() { # one TCP connection and an HTTP answer from the server, within 3 s
  k exec client -- python3 -c "import socket; s = socket.create_connection(('$IP', 8080), timeout=3); s.settimeout(3); s.sendall(b'GET / HTTP/1.0\r\n\r\n'); assert s.recv(12).startswith(b'HTTP/')" >/dev/null 2>&1
}
blocked() { ! reaches; }

until_true 30 reaches || die "the client pod cannot reach the server pod even without a policy: pod networking is broken, the check proves nothing"
k apply -f - >/dev/null <<'YAML'
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all}
spec: {podSelector: {matchLabels: {app: server}}, policyTypes: [Ingress]}
YAML
t0=$SECONDS
until_true 60 blocked || fail "a deny-all ingress policy on the server pod did not stop the client pod in 60s"
# Blocked must stay blocked (not a one-off lost packet).
for _ in 1 2 3; do reaches && fail "the deny-all policy blocked the client once, then let it through"; done
blocked_after=$((SECONDS - t0))
k apply -f - >/dev/null <<'YAML'
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-client}
spec:
  podSelector: {matchLabels: {app: server}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {app: client}}}], ports: [{port: 8080, protocol: TCP}]}]
YAML
until_true 60 reaches || fail "a policy admitting the client's label did not let it through in 60s (deny-all works, selectors do not)"
log "NetworkPolicies are enforced: a deny-all policy blocked the probe pod (in ${blocked_after}s), a policy admitting its label let it through again"
