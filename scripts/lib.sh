# Shared helpers for the project's scripts. Source it: `. "$(dirname "$0")/lib.sh"`.
# Everything heavy (tool binaries, Kubernetes test binaries) is cached under $DHT_CACHE so that a
# second run costs seconds; delete that directory to start from cold.
set -euo pipefail

DHT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DHT_CACHE=${DHT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dht}
mkdir -p "$DHT_CACHE"

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Run "$@" while holding an exclusive lock named $1, so that parallel make jobs or test JVMs
# do not build the same cached artefact twice. Usage: with_lock NAME cmd args...
with_lock() {
  local name=$1; shift
  mkdir -p "$DHT_CACHE/locks"
  (
    flock 9
    "$@"
  ) 9>"$DHT_CACHE/locks/$name.lock"
}

# until_true SECONDS CMD... -> 0 once CMD succeeds (its output discarded), 1 at the deadline; tries every second.
until_true() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 1
  done
}

# Prints the specification version (21, 25, ...) of the java binary JAVA.
# release_of [VERSION] -> "VERSION COMMIT" of a release listed in releases.tsv; without VERSION the newest one that
# is not this build's version (the previous release). Prints nothing when there is none.
release_of() {
  local current
  current=$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' "$DHT_ROOT/pom.xml")
  grep -v '^#' "$DHT_ROOT/releases.tsv" | awk -F'\t' -v cur="$current" -v want="${1:-}" \
    'NF >= 2 && (want == "" ? $1 != cur : $1 == want) { v = $1; c = $2 } END { if (v != "") print v, c }'
}

java_spec() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

# Prints, one per line, the flags the node's JVM needs on the JDK of the java binary JAVA: JDK 23+ warns when
# one-nio touches sun.misc.Unsafe memory methods (JEP 471), so that is allowed explicitly there; nothing before.
# (Native access is enabled by the jar's manifest.) Used by make run, the benchmarks and the images.
node_jdk_flags() {
  local v
  v=$(java_spec "$1")
  if [ "${v%%.*}" -ge 23 ] 2>/dev/null; then echo "--sun-misc-unsafe-memory-access=allow"; fi
}

# Prints JAVA_HOME of a JDK >= 21 (the build's language level). Prefers $JAVA_HOME when it
# qualifies, then any JDK under /usr/lib/jvm, newest first.
find_java_home() {
  local c v
  for c in "${JAVA_HOME:-}" $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV) /opt/java/openjdk; do
    c=${c%/}
    [ -n "$c" ] && [ -x "$c/bin/javac" ] || continue
    v=$(java_spec "$c/bin/java")
    if [ -n "$v" ] && [ "${v%%.*}" -ge 21 ] 2>/dev/null; then
      echo "$c"; return 0
    fi
  done
  return 1
}

# Benchmarks start right after `make` built what they measure, and that build is still in the 1-minute load
# average they record (and that reports judge "busy" by). Wait, up to BENCH_SETTLE seconds (90), for it to
# fall below 1 so that the load recorded is the machine's, not the build's.
settle_load() {
  local limit=${BENCH_SETTLE:-90} waited=0 load1
  read -r load1 _ < /proc/loadavg
  while awk -v l="$load1" 'BEGIN { exit !(l >= 1.0) }' && [ "$waited" -lt "$limit" ]; do
    sleep 5; waited=$((waited + 5))
    read -r load1 _ < /proc/loadavg
  done
  [ "$waited" -eq 0 ] || log "waited ${waited}s for the 1-minute load to settle (now $load1)"
}
