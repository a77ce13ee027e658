#!/usr/bin/env bash
# kube-binaries.sh [--bin-dir] [CMD ...] -> builds Kubernetes v1.34.4 binaries from Go modules (no registry or
# download site needed, only the Go module proxy) and prints the KUBE_API_TEST_DIR to use (with --bin-dir: the
# directory holding the binaries).
#
# Default CMDs: kube-apiserver kubectl etcd (what kube-api-test needs). Others the local cluster
# (scripts/k8s/up.sh) needs: kube-controller-manager kube-scheduler kubelet kube-proxy coredns crictl kube-router.
# Binaries land in $DHT_CACHE/kubeapitest/k8s/1.34.4-linux-amd64/, the layout kube-api-test reads.
# Cold: ~14 min on 2 cores (kube-apiserver dominates); cached: instant.
. "$(dirname "$0")/lib.sh"

K8S_VERSION=v1.34.4
STAGING_VERSION=v0.34.4          # every k8s.io staging module at the matching version
ETCD_VERSION=v3.6.4              # what k8s 1.34.4 pins
COREDNS_VERSION=v1.15.0          # cluster DNS of the local cluster
CRI_TOOLS_VERSION=v1.34.0        # crictl: the local cluster's teardown removes pods through the CRI
KUBE_ROUTER_VERSION=v2.1.0       # the local cluster's NetworkPolicy controller (policy only: --run-firewall)
GO_LINE=1.24.0                   # wrapper modules' go directive (>= k8s.io/kubernetes's)

API_TEST_DIR="$DHT_CACHE/kubeapitest"
OUT="$API_TEST_DIR/k8s/${K8S_VERSION#v}-linux-amd64"
WORK="$DHT_CACHE/kube-build"
PRINT=api-test-dir
if [ "${1:-}" = --bin-dir ]; then PRINT=bin-dir; shift; fi
CMDS=${*:-kube-apiserver kubectl etcd}

build_k8s_wrapper() {
  local w="$WORK/k8s-$K8S_VERSION" gomod c
  [ -f "$w/go.sum" ] && return 0
  mkdir -p "$w"
  gomod=$(cd "$WORK" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [ -f "$gomod" ] || die "could not download k8s.io/kubernetes@$K8S_VERSION"
  {
    printf 'module dhtk8swrap\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$GO_LINE" "$K8S_VERSION"
    # k8s.io/kubernetes replaces its staging modules with local paths; pin each to the published version.
    sed -n '/^replace (/,/^)/p' "$gomod" | awk '/=> \.\/staging/ {print $1}' | while read -r m; do
      if (cd "$WORK" && go mod download "$m@$STAGING_VERSION" >/dev/null 2>&1); then
        printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"
      else
        log "skipping $m (not on the module proxy; unused by the commands built here)"
      fi
    done
    echo ')'
  } > "$w/go.mod.new"
  mv "$w/go.mod.new" "$w/go.mod"
  printf '//go:build tools\n\npackage dhtk8swrap\n\nimport (\n' > "$w/tools.go"
  for c in kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet kube-proxy; do
    printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$c" >> "$w/tools.go"
  done
  echo ')' >> "$w/tools.go"
  (cd "$w" && go mod tidy >&2)
}

build_etcd_wrapper() {
  local w="$WORK/etcd-$ETCD_VERSION"
  [ -f "$w/go.sum" ] && return 0
  mkdir -p "$w"
  printf 'module dhtetcdwrap\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$GO_LINE" "$ETCD_VERSION" > "$w/go.mod"
  printf '//go:build tools\n\npackage dhtetcdwrap\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > "$w/tools.go"
  (cd "$w" && go mod tidy >&2)
}

build_all() {
  local c missing="" ldflags p minor start
  for c in $CMDS; do [ -x "$OUT/$c" ] || missing="$missing $c"; done
  [ -z "$missing" ] && return 0
  command -v go >/dev/null || die "go is needed to build$missing"
  mkdir -p "$OUT"
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  ldflags="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  for c in $missing; do
    start=$SECONDS
    log "building $c (cached afterwards in $OUT)"
    if [ "$c" = coredns ] || [ "$c" = crictl ] || [ "$c" = kube-router ]; then
      # None of these go.mods has replace directives: go install builds them as published.
      local pkg="github.com/coredns/coredns@$COREDNS_VERSION"
      [ "$c" = crictl ] && pkg="sigs.k8s.io/cri-tools/cmd/crictl@$CRI_TOOLS_VERSION"
      [ "$c" = kube-router ] && pkg="github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION"
      mkdir -p "$WORK/go-bin"
      (cd "$WORK" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOBIN="$WORK/go-bin" go install -ldflags "-s -w" "$pkg" >&2)
      mv "$WORK/go-bin/$c" "$OUT/$c.tmp"
    elif [ "$c" = etcd ]; then
      build_etcd_wrapper
      (cd "$WORK/etcd-$ETCD_VERSION" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3 >&2)
    else
      build_k8s_wrapper
      (cd "$WORK/k8s-$K8S_VERSION" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -ldflags "$ldflags" -o "$OUT/$c.tmp" "k8s.io/kubernetes/cmd/$c" >&2)
    fi
    mv "$OUT/$c.tmp" "$OUT/$c"
    log "built $c in $((SECONDS - start))s"
  done
}

with_lock kube-binaries build_all
if [ "$PRINT" = bin-dir ]; then echo "$OUT"; else echo "$API_TEST_DIR"; fi
