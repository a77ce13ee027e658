#!/usr/bin/env bash
# deploy.sh -> installs (or upgrades) the operator from charts/dht-operator into dht-system and applies
# manifests/dhtcluster-sample.yaml in the default namespace, on the cluster of $KUBECONFIG (make deploy).
# The images must be in the cluster (make k8s-up / make kind-up load them).
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"
KUBECTL=${KUBECTL:-$(scripts/kube-binaries.sh --bin-dir kubectl)/kubectl}
HELM=$(scripts/tool.sh helm)
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
# Helm installs the CRD only on the first install; an upgrade needs the current one applied first.
"$KUBECTL" apply --server-side -f crds/ >/dev/null
"$HELM" upgrade --install dht-operator charts/dht-operator -n dht-system --create-namespace \
  --set "image.repository=${IMAGE_PREFIX:-}dht-operator" --set "image.tag=$TAG" \
  --set "nodeImage.repository=${IMAGE_PREFIX:-}dht-node" --set "nodeImage.tag=$TAG" \
  --set "runnerImage.repository=${IMAGE_PREFIX:-}dht-loadrunner" --set "runnerImage.tag=$TAG" --wait --timeout 3m
"$KUBECTL" apply -f manifests/dhtcluster-sample.yaml
log "waiting for the DhtCluster 'dht' to be Ready (kubectl get dht -w to watch)"
"$KUBECTL" wait --for=jsonpath='{.status.phase}'=Ready dht/dht --timeout=5m
"$KUBECTL" get dht
