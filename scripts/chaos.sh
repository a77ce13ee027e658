#!/usr/bin/env bash
# chaos.sh [run|check DIR|cleanup]: fault injection against a local cluster with a history checker (docs/chaos.md).
# Runs as root (network namespaces, nftables rules, tmpfs mounts; re-runs itself with sudo otherwise). Sets up
# what it needs: nftables (Debian, if missing), libfaketime (scripts/tool.sh), the Python venv (scripts/venv.sh).
#
#   CHAOS_DURATION=10m CHAOS_SEED=42 CHAOS_NEMESIS=partition,crash scripts/chaos.sh
#
# Bounded: the run is stopped (SIGTERM, then SIGKILL a minute later) 20 minutes after its CHAOS_DURATION; its
# guardian process removes every namespace, mount, rule and node process however it ends.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || die "needs root (network namespaces, nftables, tmpfs mounts) and there is no sudo"
  exec sudo --preserve-env=CHAOS_DURATION,CHAOS_SEED,CHAOS_NEMESIS,CHAOS_NODES,CHAOS_RF,CHAOS_KEYS,CHAOS_RATE,CHAOS_CLIENTS,CHAOS_OUT,DHT_CACHE_DIR \
    env PATH="$PATH" HOME="$HOME" "$0" "$@"
fi
if ! command -v nft >/dev/null; then
  log "installing nftables from the Debian archive (partitions are nftables rules inside the run's namespaces)"
  apt-get install -y -q nftables >&2 || { apt-get update -q >&2 && apt-get install -y -q nftables >&2; }
fi
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
export DHT_JAVA="$JAVA_HOME/bin/java"
export DHT_NODE_JAR=${DHT_NODE_JAR:-$DHT_ROOT/node/target/dht-node.jar}
export CHAOS_OUT=${CHAOS_OUT:-$DHT_ROOT/chaos-results}
export DHT_CACHE_DIR=$DHT_CACHE
PY=$("$DHT_ROOT/scripts/venv.sh")
cmd=${1:-run}
if [ "$cmd" = run ]; then
  export DHT_FAKETIME=${DHT_FAKETIME:-$("$DHT_ROOT/scripts/tool.sh" libfaketime)}
  duration=$(PYTHONPATH="$DHT_ROOT/scripts" "$PY" -c 'import os; from chaos.__main__ import _seconds; print(int(_seconds(os.environ.get("CHAOS_DURATION", "300"))))')
  cd "$DHT_ROOT/scripts"
  exec timeout --foreground --kill-after=60 $((duration + 1200)) "$PY" -m chaos run
fi
if [ "$cmd" = check ] && [ $# -ge 2 ]; then
  set -- check "$(realpath -- "$2")"   # the run's directory as given, before the cd below
fi
cd "$DHT_ROOT/scripts"
exec "$PY" -m chaos "$@"
