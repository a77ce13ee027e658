#!/usr/bin/env bash
# release-images.sh [VERSION] -> prints the directory holding the node, operator and load-runner images of a release
# listed in releases.tsv (docker-archive tarballs dht-<name>-<VERSION>.tar, as scripts/k8s/load-images.sh takes them)
# and its operator chart (chart/), built once per machine from the release's commit with that commit's own build
# and scripts/images.sh, and cached under $DHT_CACHE/releases/<commit>/. Without VERSION: the release before this
# build, as scripts/release-jar.sh picks it. The upgrade e2e step installs these and upgrades them to this build.
#
#   DIR=$(scripts/release-images.sh)      DIR=$(scripts/release-images.sh 0.1.0)
. "$(dirname "$0")/lib.sh"

read -r version commit < <(release_of "${1:-}") || true
[ -n "${commit:-}" ] || die "releases.tsv lists no release ${1:-before this build}"
dir="$DHT_CACHE/releases/$commit"

build() {
  [ -f "$dir/done" ] && return 0 # built by another process while this one waited for the lock
  local work
  mkdir -p "$DHT_CACHE/releases"
  work=$(mktemp -d "$DHT_CACHE/releases/.build-$commit.XXXXXX")
  # shellcheck disable=SC2064 # expand now: a failed build leaves nothing
  trap "rm -rf '$work'" EXIT
  log "building the images of $version ($commit) in $work"
  mkdir "$work/src"
  git -C "$DHT_ROOT" archive --format=tar "$commit" | tar -x -C "$work/src"
  local mvn=("$DHT_ROOT/scripts/mvn" -q -f "$work/src/pom.xml" package -Dmaven.test.skip=true)
  "${mvn[@]}" -o >&2 || "${mvn[@]}" >&2 || die "building $commit failed"
  IMAGE_TAG=$version IMAGES_OUT="$work/images" "$work/src/scripts/images.sh" >&2 || die "the images of $commit failed"
  rm -rf "$dir" && mkdir -p "$dir"
  mv "$work"/images/dht-*.tar "$dir/"
  cp -r "$work/src/charts/dht-operator" "$dir/chart"
  touch "$dir/done" # last: a directory with it is whole
}

[ -f "$dir/done" ] || with_lock "release-$commit" build
echo "$dir"
