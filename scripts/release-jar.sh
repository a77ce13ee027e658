#!/usr/bin/env bash
# release-jar.sh [VERSION] -> prints the path of the node jar of a release listed in releases.tsv, built once per
# machine from its commit by scripts/node-at.sh and cached under $DHT_CACHE/nodes/<commit>/ (a Maven run the first
# time, nothing after). Without VERSION: the newest release listed that is not this build's version (the pom's):
# the release before this one, which this one must upgrade from and roll back to (docs/upgrading.md).
#
#   JAR=$(scripts/release-jar.sh)          JAR=$(scripts/release-jar.sh 0.1.0)
. "$(dirname "$0")/lib.sh"

releases="$DHT_ROOT/releases.tsv"
[ -f "$releases" ] || die "no $releases"
current=$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' "$DHT_ROOT/pom.xml")
version=${1:-$(grep -v '^#' "$releases" | awk -F'\t' -v cur="$current" 'NF >= 2 && $1 != cur { v = $1 } END { print v }')}
[ -n "$version" ] || die "releases.tsv lists no release before $current"
commit=$(grep -v '^#' "$releases" | awk -F'\t' -v v="$version" '$1 == v { print $2 }')
[ -n "$commit" ] || die "release $version is not in $releases"
exec "$DHT_ROOT/scripts/node-at.sh" "$commit"
