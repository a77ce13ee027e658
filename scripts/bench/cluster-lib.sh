# shellcheck shell=bash
# Shared by the shell benchmark that still starts local nodes itself (bench-cluster-tls; the others are scenarios of
# scripts/bench/harness). Source it after scripts/lib.sh: `. "$(dirname "$0")/bench/cluster-lib.sh"`.
# Node I listens on PORT+I, keeps its data in $WORK/data/nodeI and has its pid in node_pids[I].

node_pids=()

# node_java TARGET: the node's jar and a JDK >= 21: sets JAR, JAVA and JAVA_FLAGS (with $JAVA_OPTS); TARGET is
# the make target that builds the jar, named when it is missing.
node_java() {
  JAR="$DHT_ROOT/node/target/dht-node.jar"
  [ -f "$JAR" ] || die "$JAR is missing: run 'make $1' (it builds the jar) or 'make build'"
  JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
  JAVA="$JAVA_HOME/bin/java"
  mapfile -t JAVA_FLAGS < <(node_jdk_flags "$JAVA")
  # shellcheck disable=SC2206
  JAVA_FLAGS+=($JAVA_OPTS)
}

ports_free() { # ports_free PORT...: dies if one of them answers already
  local p
  for p in "$@"; do
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$p/"; then die "port $p is in use"; fi
  done
}

url() { echo "http://127.0.0.1:$((PORT + $1))"; }

# launch_node I LOG ARGS...: node I in the background (ARGS, then $NODE_ARGS), its output appended to LOG; through
# the command of the array NODE_LAUNCHER when set (bench-cluster-tls: taskset, the nodes on CPUs of their own)
launch_node() {
  local i=$1 log=$2; shift 2
  # shellcheck disable=SC2086
  "${NODE_LAUNCHER[@]}" "$JAVA" "${JAVA_FLAGS[@]}" -jar "$JAR" --port "$((PORT + i))" --data-dir "$WORK/data/node$i" "$@" $NODE_ARGS \
    >> "$log" 2>&1 &
  node_pids[i]=$!
}
await_node() { await_http "$((PORT + $1))" /v0/status "${node_pids[$1]}" "$2"; } # await_node I LOG

stop_pids() { # stop_pids PID...: TERM to each (empty ones skipped), then wait for each
  local pid
  for pid in "$@"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
}

# http_request METHOD PORT PATH: the answer's body of http://127.0.0.1:PORT/PATH into HTTP_BODY (empty on failure),
# without starting a process: bash's /dev/tcp. Status polls run while a backup, a repair or a rebuild does, in the
# very window the load is measured: a poll that forked curl and a subshell per match (about 30 processes a second for
# three nodes at 0.5 s) raised a 1000 req/s load's p99 from 0.8-1.0 ms to 1.7-2.5 ms on 2 cores, by itself (and a
# python3 per poll before it cost more); the load must not pay for the watching.
# A port in tls_ports (bench-cluster-tls's client-TLS clusters, outside their measured windows) is asked with curl
# over TLS, trusting the CA file tls_ca, presenting the client certificate tls_cert (key tls_key) if one is set.
http_request() {
  local line body=""
  HTTP_BODY=""
  if [ -n "${tls_ports[$2]:-}" ]; then
    HTTP_BODY=$(curl -s --max-time 10 --cacert "$tls_ca" ${tls_cert:+--cert "$tls_cert" --key "$tls_key"} -X "$1" \
      "https://127.0.0.1:$2$3" | tr -d '\n') || return 1
    [ -n "$HTTP_BODY" ] || return 1
    return 0
  fi
  { exec {HTTP_FD}<>"/dev/tcp/127.0.0.1/$2"; } 2>/dev/null || return 1
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' "$1" "$3" >&"$HTTP_FD"
  while IFS= read -r -t 10 line <&"$HTTP_FD" && [ "${line%$'\r'}" != "" ]; do :; done
  while IFS= read -r -t 10 line <&"$HTTP_FD" || [ -n "$line" ]; do body+=$line; done
  exec {HTTP_FD}<&-
  HTTP_BODY=$body
}
# body_field REGEX: the first group of REGEX in HTTP_BODY into FIELD (empty if absent), without a subshell
body_field() {
  FIELD=""
  if [[ $HTTP_BODY =~ $1 ]]; then FIELD=${BASH_REMATCH[1]}; fi
}
# metric_value I NAME: node I's sample of the unlabelled metric NAME into FIELD (empty if absent). http_request joins
# the lines, so the sample is NAME, a space and a number, wherever it starts.
metric_value() {
  http_request GET $((PORT + $1)) /metrics || true
  body_field "$2 (-?[0-9][0-9.eE+-]*)"
}
# flush_memtables NODE...: each node writes its memtables out (POST /v0/admin/flush answers once they are on disk)
flush_memtables() {
  local i
  for i in "$@"; do
    http_request POST $((PORT + i)) /v0/admin/flush || die "node $i: POST /v0/admin/flush got no answer"
    [[ $HTTP_BODY == *'"flushed":true'* ]] || die "node $i: POST /v0/admin/flush answered '$HTTP_BODY'"
  done
}
rebuild_state() { # rebuild_state I: node I's rebuild state (deciding, rebuilding, ready) into FIELD
  http_request GET $((PORT + $1)) /v0/admin/repair || true
  body_field '"rebuild":\{"state":"([a-z-]*)"'
}
# await_rebuilt NODE...: up to 60 s until every node's rebuild state is "ready". A node of a new cluster still
# deciding when writes arrive sees data on the others and rebuilds (seconds without reads): wait before loading.
await_rebuilt() {
  local i
  for i in "$@"; do
    for _ in $(seq 120); do
      rebuild_state "$i"
      [ "$FIELD" = ready ] && break
      sleep 0.5
    done
    [ "$FIELD" = ready ] || die "node $i did not decide in 60 s (rebuild state '$FIELD')"
  done
}
now_ms() { date +%s%3N; }

# machine_env "LOAD1 LOAD5 LOAD15": the first lines of env.txt, the machine and the build measured
machine_env() {
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load_before=$1"
  echo "nproc=$(nproc)"
  echo "cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
  echo "java=$("$JAVA" -version 2>&1 | head -1)"
  echo "commit=$(git -C "$DHT_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "dirty=$(git -C "$DHT_ROOT" status --porcelain -- node scripts 2>/dev/null | wc -l)"
}

# await_compactions NODE...: up to 2 minutes until no node reports pending compaction bytes, so that a phase
# measured after a preload measures the load, not the preload's flushes and compactions
await_compactions() {
  local i pending start polls=0
  start=$(now_ms)
  for _ in $(seq 240); do
    pending=0
    for i in "$@"; do
      metric_value "$i" dht_rocksdb_pending_compaction_bytes
      if [ -n "$FIELD" ] && [[ ! $FIELD =~ ^(-.*|0(\.0*)?)$ ]]; then pending=1; fi # -1: no figure
    done
    [ "$pending" -eq 0 ] && break
    polls=$((polls + 1))
    sleep 0.5
  done
  [ "$polls" -eq 0 ] || log "waited $(( ($(now_ms) - start) / 1000 )) s for compactions to end"
}
