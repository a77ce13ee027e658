#!/usr/bin/env bash
# tool.sh NAME  -> prints the path of the pinned tool, installing it into the cache first if needed.
#
#   k6    go.k6.io/k6 v1.8.1                 (go install, ~1-3 min cold)
#   helm  helm.sh/helm/v3 v3.22.0            (go install, ~3 min cold)
#   kind  sigs.k8s.io/kind v0.33.0           (go install, seconds)
#   oha   oha 1.16.0                         (cargo install, ~9 min cold)
#   versitygw github.com/versity/versitygw v1.8.0  (go install, ~1-2 min cold): the S3-compatible object store
#                                            backups are tested against (stores objects as plain files)
#   wrk   Debian package wrk                 (apt-get)
#   libfaketime  Debian package libfaketime 0.9.10-2.1 (apt-get download, unpacked into the cache; prints the .so)
#
# Versions are pinned here and nowhere else. The cache lives in $DHT_CACHE/tools.
. "$(dirname "$0")/lib.sh"

K6_VERSION=v1.8.1
HELM_VERSION=v3.22.0
KIND_VERSION=v0.33.0
OHA_VERSION=1.16.0
VERSITYGW_VERSION=v1.8.0
FAKETIME_VERSION=0.9.10-2.1

name=${1:?usage: tool.sh k6|helm|kind|oha|wrk|versitygw|libfaketime}

go_tool() { # go_tool BIN MODULE@VERSION  [ldflags]
  local bin=$1 pkg=$2 ldflags=${3:-} dir="$DHT_CACHE/tools/$1-${2##*@}"
  if [ ! -x "$dir/$bin" ]; then
    command -v go >/dev/null || die "go is needed to install $bin ($pkg)"
    log "installing $pkg into $dir (cached afterwards)"
    mkdir -p "$dir.tmp"
    GOFLAGS=-buildvcs=false GOBIN="$dir.tmp" CGO_ENABLED=0 go install -ldflags "-s -w $ldflags" "$pkg" >&2
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir/$bin"
}

case "$name" in
  k6)   with_lock k6 go_tool k6 "go.k6.io/k6@$K6_VERSION" ;;
  helm) with_lock helm go_tool helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" \
          "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" ;;
  kind) with_lock kind go_tool kind "sigs.k8s.io/kind@$KIND_VERSION" ;;
  versitygw) with_lock versitygw go_tool versitygw "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" ;;
  oha)
    install_oha() {
      local dir="$DHT_CACHE/tools/oha-$OHA_VERSION"
      if [ ! -x "$dir/bin/oha" ]; then
        command -v cargo >/dev/null || die "cargo is needed to install oha (https://rustup.rs)"
        log "installing oha $OHA_VERSION with cargo into $dir (~9 min cold, cached afterwards)"
        cargo install oha --version "$OHA_VERSION" --locked --root "$dir.tmp" >&2
        rm -rf "$dir" && mv "$dir.tmp" "$dir"
      fi
      echo "$dir/bin/oha"
    }
    with_lock oha install_oha ;;
  wrk)
    if ! command -v wrk >/dev/null; then
      log "installing wrk from the Debian archive"
      if [ "$(id -u)" = 0 ]; then apt-get install -y -q wrk >&2 || { apt-get update -q >&2 && apt-get install -y -q wrk >&2; }
      else sudo apt-get install -y -q wrk >&2; fi
    fi
    command -v wrk ;;
  libfaketime)
    install_faketime() {
      local dir="$DHT_CACHE/tools/libfaketime-$FAKETIME_VERSION" so
      so=$dir/usr/lib/$(uname -m)-linux-gnu/faketime/libfaketime.so.1
      if [ ! -f "$so" ]; then
        log "fetching libfaketime $FAKETIME_VERSION from the Debian archive into $dir (cached afterwards)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        (cd "$dir.tmp" && { apt-get download -q "libfaketime=$FAKETIME_VERSION" >&2 2>/dev/null \
          || { apt-get update -q >&2 && apt-get download -q "libfaketime=$FAKETIME_VERSION" >&2; }; }) \
          || die "apt-get download libfaketime=$FAKETIME_VERSION failed"
        dpkg-deb -x "$dir.tmp"/libfaketime_*.deb "$dir.tmp" && rm -f "$dir.tmp"/*.deb
        rm -rf "$dir" && mv "$dir.tmp" "$dir"
      fi
      [ -f "$so" ] || die "libfaketime.so.1 not found in $dir"
      echo "$so"
    }
    with_lock libfaketime install_faketime ;;
  *) die "unknown tool '$name'" ;;
esac
