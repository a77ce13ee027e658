#!/usr/bin/env bash
# release-jar.sh [VERSION] -> prints the path of the node jar of a release listed in releases.tsv, built once per
# machine from its commit by scripts/node-at.sh and cached under $DHT_CACHE/nodes/<commit>/ (a Maven run the first
# time, nothing after). Without VERSION: the newest release listed that is not this build's version (the pom's):
# the release before this one, which this one must upgrade from and roll back to (docs/upgrading.md).
#
#   JAR=$(scripts/release-jar.sh)          JAR=$(scripts/release-jar.sh 0.1.0)
. "$(dirname "$0")/lib.sh"

read -r version commit < <(release_of "${1:-}") || true
[ -n "${commit:-}" ] || die "releases.tsv lists no release ${1:-before this build}"
exec "$DHT_ROOT/scripts/node-at.sh" "$commit"
