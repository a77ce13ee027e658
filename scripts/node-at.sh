#!/usr/bin/env bash
# node-at.sh REF -> prints the path of the node jar (dht-node.jar) built from the git commit or tag REF, and nothing
# else on stdout. The jar is built once per commit, from `git archive` of that commit (never the working tree: a
# dirty checkout cannot leak into it) with scripts/mvn, tests skipped, offline first (the local Maven repository of
# a machine that built the project has every plugin and dependency), and cached under
# $DHT_CACHE/nodes/<full commit id>/. Used by `make bench-ab` (the base of an A/B) and by tests that run an earlier
# release's node (upgrades).
#
#   JAR=$(scripts/node-at.sh 9e02ae4)      JAR=$(scripts/node-at.sh v0.1.0)
. "$(dirname "$0")/lib.sh"

ref=${1:?usage: node-at.sh REF (a commit id, branch or tag)}
commit=$(git -C "$DHT_ROOT" rev-parse --verify --quiet "$ref^{commit}") || {
  # a shallow clone (CI's, say) may lack it: ask the remote for that one commit
  git -C "$DHT_ROOT" fetch -q --depth=1 origin "$ref" >&2 2>/dev/null || true
  commit=$(git -C "$DHT_ROOT" rev-parse --verify --quiet "$ref^{commit}") \
    || die "'$ref' is no commit of $DHT_ROOT, and the remote 'origin' did not give it (git fetch origin $ref)"
}
dir="$DHT_CACHE/nodes/$commit"
jar="$dir/dht-node.jar"

build() {
  [ -f "$jar" ] && return 0 # built by another process while this one waited for the lock
  local work
  mkdir -p "$DHT_CACHE/nodes"
  work=$(mktemp -d "$DHT_CACHE/nodes/.build-$commit.XXXXXX")
  # shellcheck disable=SC2064 # expand now. EXIT of with_lock's subshell: a failed build leaves nothing either
  trap "rm -rf '$work'" EXIT
  log "building the node of $commit ($(git -C "$DHT_ROOT" log -1 --format='%cs %s' "$commit" | cut -c1-60)) in $work"
  mkdir "$work/src"
  git -C "$DHT_ROOT" archive --format=tar "$commit" | tar -x -C "$work/src"
  [ -f "$work/src/node/pom.xml" ] || die "$commit has no node/pom.xml"
  local mvn=("$DHT_ROOT/scripts/mvn" -q -f "$work/src/pom.xml" -pl node -am package -Dmaven.test.skip=true)
  if ! "${mvn[@]}" -o >&2; then
    log "the offline build failed; trying again with the Maven repository"
    "${mvn[@]}" >&2 || die "building the node of $commit failed"
  fi
  [ -f "$work/src/node/target/dht-node.jar" ] || die "the build of $commit made no node/target/dht-node.jar"
  mkdir -p "$dir"
  cp "$work/src/node/target/dht-node.jar" "$dir/dht-node.jar.tmp"
  git -C "$DHT_ROOT" log -1 --format='%H %cI %s' "$commit" > "$dir/commit.txt"
  mv "$dir/dht-node.jar.tmp" "$jar" # last: a jar in the cache is always whole
}

[ -f "$jar" ] || with_lock "node-$commit" build
echo "$jar"
