#!/usr/bin/env bash
# Runs a local dht cluster without Kubernetes: N nodes (default 3) on ports 8080.., data under ./data/node<i>,
# every log line prefixed with its node. Any node coordinates any request: keys are placed on the ring of the
# members and replicated (default replicas=2/3 for 3 nodes), with read repair and hinted handoff between them.
# Ctrl-C (or SIGTERM) stops every node gracefully and waits for them.
#
#   scripts/run-local.sh                 # what `make run` does (after building the jar)
#   DHT_NODES=1 scripts/run-local.sh     # one node
#   DHT_TLS=1 scripts/run-local.sh       # make run TLS=1: the client ports take TLS only
#
# Environment: DHT_NODES (3), DHT_BASE_PORT (8080), DHT_RUN_DATA (./data), DHT_JAVA_OPTS (extra JVM options),
# DHT_NODE_ARGS (extra node options for every node, e.g. "--replication-factor 2"), DHT_TLS=1 (TLS on the client
# ports, with a CA, the nodes' certificate and a read-write client certificate made once under $DHT_RUN_DATA/tls by
# scripts/tls/client-certs.sh; client certificates optional, so a client on this machine needs only the CA: a
# loopback peer has every right, docs/security.md).
. "$(dirname "$0")/lib.sh"

JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found (looked at \$JAVA_HOME and /usr/lib/jvm); install one"
JAVA="$JAVA_HOME/bin/java"
JAR="$DHT_ROOT/node/target/dht-node.jar"
[ -f "$JAR" ] || die "$JAR is missing: build it with 'make build' (or use 'make run', which builds it)"

NODES=${DHT_NODES:-3}
BASE_PORT=${DHT_BASE_PORT:-8080}
DATA=${DHT_RUN_DATA:-$DHT_ROOT/data}

spec=$(java_spec "$JAVA")
mapfile -t JAVA_FLAGS < <(node_jdk_flags "$JAVA")
# shellcheck disable=SC2206
JAVA_FLAGS+=(${DHT_JAVA_OPTS:-})

scheme=http
tls_args=()
curl_tls=()
if [ "${DHT_TLS:-0}" = 1 ]; then
  TLS=$DATA/tls
  if [ ! -s "$TLS/client.key" ]; then "$DHT_ROOT/scripts/tls/client-certs.sh" "$TLS"; fi
  scheme=https
  tls_args=(--client-tls-cert "$TLS/tls.crt" --client-tls-key "$TLS/tls.key" --client-tls-ca "$TLS/ca.crt"
    --client-auth optional)
  curl_tls=(--cacert "$TLS/ca.crt")
fi
# This script's own calls present the client certificate too, so they work with --client-auth required.
own_tls=("${curl_tls[@]}")
[ "$scheme" = http ] || own_tls+=(--cert "$TLS/client.crt" --key "$TLS/client.key")

members=()
for ((i = 0; i < NODES; i++)); do members+=("http://localhost:$((BASE_PORT + i))"); done
cluster=$(IFS=,; echo "${members[*]}")

# Ctrl-C reaches the whole foreground process group. The nodes and their log prefixers ignore it (background
# jobs of a script do); this script catches it and sends each node SIGTERM, the graceful stop.
pids=()
stop() {
  trap - INT TERM
  log "stopping ${#pids[@]} nodes"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  local status=0 pid
  for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
  log "all nodes stopped"
  exit "$status"
}
trap stop INT TERM

log "starting $NODES nodes: $cluster (data in $DATA, JDK $spec)"
for ((i = 0; i < NODES; i++)); do
  port=$((BASE_PORT + i))
  mkdir -p "$DATA/node$i"
  # shellcheck disable=SC2086
  "$JAVA" "${JAVA_FLAGS[@]}" -jar "$JAR" --port "$port" --data-dir "$DATA/node$i" --cluster "$cluster" \
    "${tls_args[@]}" ${DHT_NODE_ARGS:-} \
    > >(trap '' INT; exec sed -u "s/^/[node$i] /") 2>&1 &
  pids+=($!)
done

# Readiness: every node answers /v0/status (gives up early if a node exits).
for ((i = 0; i < NODES; i++)); do
  port=$((BASE_PORT + i))
  for _ in $(seq 300); do
    curl -fs "${own_tls[@]}" -o /dev/null "$scheme://localhost:$port/v0/status" && break
    kill -0 "${pids[$i]}" 2>/dev/null || { log "node$i exited during start"; stop; }
    sleep 0.1
  done
done
# Every node runs this build, so raise the cluster's feature level to the highest it has, as the operator does once
# every member runs one release (docs/upgrading.md); a new data directory starts at level 1, which a 0.1.0 member reads.
for ((i = 0; i < NODES; i++)); do
  url="$scheme://localhost:$((BASE_PORT + i))/v0/admin/feature-level"
  max=$(curl -fs "${own_tls[@]}" "$url" | sed -n 's/.*"maxFeatureLevel":\([0-9]*\).*/\1/p')
  [ -n "$max" ] && curl -fs "${own_tls[@]}" -o /dev/null -X POST -d "{\"level\": $max}" "$url" \
    || log "node$i: could not raise the feature level (it stays at its data directory's)"
done
c="curl${curl_tls[*]:+ ${curl_tls[*]}}"
log "ready: try  $c -X PUT -d hello '$scheme://localhost:$BASE_PORT/v0/entity?id=k1'  and read it back from"
log "       another node: $c '$scheme://localhost:$((BASE_PORT + NODES - 1))/v0/entity?id=k1&replicas=$((NODES / 2 + 1))/$NODES'  (Ctrl-C stops)"
if [ "$scheme" = https ]; then
  log "       from another host, with the client certificate: --cert $TLS/client.crt --key $TLS/client.key"
fi

# Wait for Ctrl-C; if a node dies on its own, stop the others too.
while true; do
  wait -n "${pids[@]}" || true
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then log "a node exited; stopping the rest"; stop; fi
  done
done
