#!/usr/bin/env bash
# load-images.sh [ARCHIVE ...] -> imports the dht images (default: build/images/dht-*.tar, written by
# make images) into the local cluster's containerd, where pods with imagePullPolicy IfNotPresent find them.
# An archive whose image is already there with the same content is skipped.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "needs root (the local cluster's containerd socket)"
ctr_() { ctr --address "$CONTAINERD_SOCK" -n k8s.io "$@"; }
ctr_ version >/dev/null 2>&1 || die "the local cluster's containerd is not running: make k8s-up"

archives=("$@")
if [ ${#archives[@]} -eq 0 ]; then
  shopt -s nullglob
  archives=("$DHT_ROOT"/build/images/dht-*.tar)
  [ ${#archives[@]} -gt 0 ] || { log "no images in build/images (make images builds them): nothing to import"; exit 0; }
fi
for archive in "${archives[@]}"; do
  # The config digest names the image's content; containerd lists it as the image's config.
  config=$(tar -xOf "$archive" manifest.json | sed -n 's/.*"Config":"\([0-9a-f]*\)\.json".*/\1/p')
  ref=$(tar -xOf "$archive" manifest.json | sed -n 's/.*"RepoTags":\["\([^"]*\)".*/\1/p')
  if [ -n "$config" ] && ctr_ images ls "name==$ref" 2>/dev/null | grep -q . \
     && [ "$(ctr_ content get "$(ctr_ images ls "name==$ref" | awk 'NR == 2 {print $3}')" 2>/dev/null \
            | sed -n 's/.*"config":{[^}]*"digest":"sha256:\([0-9a-f]*\)".*/\1/p')" = "$config" ]; then
    log "$ref is up to date"
    continue
  fi
  log "importing $ref"
  ctr_ images import "$archive" >/dev/null
done
