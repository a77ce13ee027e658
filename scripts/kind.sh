#!/usr/bin/env bash
# kind.sh up|down|load -> the kind path of make kind-up / kind-down / kind-load: a kind cluster named
# $KIND_NAME (dht) from manifests/kind-config.yaml, its kubeconfig in ~/.cache/dht/kind/kubeconfig (what
# CLUSTER=kind targets use), and the images of build/images loaded with `kind load image-archive`.
# Everything after cluster creation and image loading is shared with the local cluster (make deploy, make e2e).
# kind needs Docker (or podman) and its node image (kindest/node) from a registry.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"

NAME=${KIND_NAME:-dht}
KUBECONFIG_FILE="$DHT_CACHE/kind/kubeconfig"
KIND=$(scripts/tool.sh kind)

load() {
  shopt -s nullglob
  local archives=(build/images/dht-*.tar) a
  [ ${#archives[@]} -gt 0 ] || die "no images in build/images: make images"
  for a in "${archives[@]}"; do
    log "loading $a into kind cluster $NAME"
    "$KIND" load image-archive --name "$NAME" "$a"
  done
}

case "${1:-}" in
  up)
    command -v docker >/dev/null || command -v podman >/dev/null || die "kind needs Docker or podman"
    mkdir -p "$(dirname "$KUBECONFIG_FILE")"
    if "$KIND" get clusters 2>/dev/null | grep -qx "$NAME"; then
      log "kind cluster $NAME exists"
      "$KIND" get kubeconfig --name "$NAME" > "$KUBECONFIG_FILE"
    else
      "$KIND" create cluster --name "$NAME" --config manifests/kind-config.yaml --kubeconfig "$KUBECONFIG_FILE" --wait 5m
    fi
    load
    log "ready: export KUBECONFIG=$KUBECONFIG_FILE"
    ;;
  load) load ;;
  down)
    "$KIND" delete cluster --name "$NAME"
    rm -f "$KUBECONFIG_FILE"
    ;;
  *) die "usage: kind.sh up|down|load" ;;
esac
