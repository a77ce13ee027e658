#!/usr/bin/env bash
# operator-run.sh -> runs the dht operator from its jar against the cluster of the current kubeconfig
# (kind, minikube, a real cluster). Applies the CRDs first when kubectl is on the PATH.
# Settings: DHT_OPERATOR_* variables (java -jar operator/target/dht-operator.jar --help lists them).
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"
JAR=operator/target/dht-operator.jar
[ -f "$JAR" ] || die "$JAR is missing: build it with 'scripts/mvn -pl operator -am package -DskipTests' (make operator-run does)"
if command -v kubectl >/dev/null; then
  context=$(kubectl config current-context 2>/dev/null) \
    || die "no current kubeconfig context: point KUBECONFIG at a cluster (e.g. kind create cluster --config manifests/kind-config.yaml)"
  log "applying crds/ (DhtCluster, DhtBenchmark) to context $context"
  kubectl apply --server-side -f crds/ >&2 \
    || die "could not apply the CRD to context $context (is the cluster up? can you create CRDs?)"
else
  log "kubectl not found: apply crds/ to the cluster yourself (the operator stops at start without both CRDs)"
fi
JAVA_HOME=$(find_java_home) || die "a JDK >= 21 is needed"
exec "$JAVA_HOME/bin/java" -jar "$JAR" "$@"
