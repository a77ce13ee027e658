#!/usr/bin/env bash
# down.sh -> stops the local cluster (make k8s-down) and removes what it made on this host: every process,
# pod sandbox, mount, network interface, iptables chain and the cluster's state (etcd, volumes, containerd's
# images). Kept for a fast next start: the binaries, certificates and base images under ~/.cache/dht.
# Harmless when nothing runs. Prints what it checked at the end and fails if something is left.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "needs root: run it with sudo"
KUBE_BIN_DIR=$("$DHT_ROOT/scripts/kube-binaries.sh" --bin-dir kube-apiserver kubectl etcd kube-proxy crictl 2>/dev/null) || KUBE_BIN_DIR=""

stop() { # stop NAME [SECONDS] -> SIGTERM, then SIGKILL after SECONDS (the process group: setsid made one)
  local name=$1 grace=${2:-20} pid deadline
  running "$name" || { rm -f "$K8S_PIDS/$name.pid"; return 0; }
  pid=$(cat "$K8S_PIDS/$name.pid")
  log "stopping $name ($pid)"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not stop in ${grace}s: killing it"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$K8S_PIDS/$name.pid"
}

# Nothing may recreate pods while they are removed.
for c in provisioner kube-router coredns kube-scheduler kube-controller-manager kubelet; do stop "$c"; done
. "$DHT_ROOT/scripts/k8s/s3.sh"
s3_stop

# Pods: through the CRI, so that every sandbox's network is torn down by its CNI plugins.
if [ -S "$CONTAINERD_SOCK" ] && [ -n "$KUBE_BIN_DIR" ] && [ -x "$KUBE_BIN_DIR/crictl" ]; then
  crictl() { "$KUBE_BIN_DIR/crictl" --runtime-endpoint "unix://$CONTAINERD_SOCK" --timeout 30s "$@"; }
  if pods=$(crictl pods -q 2>/dev/null) && [ -n "$pods" ]; then
    # shellcheck disable=SC2086
    log "removing $(echo "$pods" | wc -l) pod sandboxes"
    crictl stopp $pods >/dev/null 2>&1 || true
    crictl rmp -f $pods >/dev/null 2>&1 || true
  fi
fi
stop kube-proxy
stop containerd 30
# Shims whose containerd is gone (containerd's own, in its state dir).
pkill -KILL -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" 2>/dev/null || true
stop kube-apiserver 30
stop etcd

# Rules: kube-proxy's own cleanup, then what the kubelet and the CNI plugins add.
if [ -n "$KUBE_BIN_DIR" ] && [ -x "$KUBE_BIN_DIR/kube-proxy" ]; then
  "$KUBE_BIN_DIR/kube-proxy" --cleanup >/dev/null 2>&1 || true
fi
remove_chains() { # remove_chains IPTABLES TABLE: jumps into KUBE-*/CNI-* chains, then the chains themselves
  local ipt=$1 table=$2 rule chain
  $ipt -t "$table" -S 2>/dev/null | awk '/^-A [A-Z]+ .*-j (KUBE|CNI)-/' | sed 's/^-A/-D/' | while read -r rule; do
    eval "$ipt -t $table $rule" 2>/dev/null || true
  done
  for chain in $($ipt -t "$table" -S 2>/dev/null | awk '/^-N (KUBE|CNI)-/ {print $2}'); do
    $ipt -t "$table" -F "$chain" 2>/dev/null || true
  done
  for chain in $($ipt -t "$table" -S 2>/dev/null | awk '/^-N (KUBE|CNI)-/ {print $2}'); do
    $ipt -t "$table" -X "$chain" 2>/dev/null || true
  done
}
for ipt in iptables ip6tables; do
  command -v $ipt >/dev/null || continue
  for table in filter nat mangle; do remove_chains "$ipt" "$table"; done
done

# kube-router's ipsets (now that no rule refers to them).
if command -v ipset >/dev/null; then
  for set in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|kube-router)' || true); do ipset destroy "$set" 2>/dev/null || true; done
fi
rm -f "$K8S_DIR/netpol-checked"

# Mounts under the cluster's directories (pod volumes, overlay snapshots, sandbox shm, netns), deepest first.
umount_under() {
  local prefix=$1
  local m
  for m in $(awk -v p="$prefix" '$2 == p || index($2, p "/") == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}
umount_under "$KUBELET_ROOT"
umount_under "$CONTAINERD_ROOT"
umount_under "$K8S_RUN"
# Network namespaces the CRI left (only ours: containerd names them cni-<uuid> under /var/run/netns).
for ns in $(ip netns list 2>/dev/null | awk '/^cni-/ {print $1}' || true); do
  if ip netns pids "$ns" 2>/dev/null | grep -q .; then continue; fi
  ip netns delete "$ns" 2>/dev/null || true
done
if ip link show "$CNI_BRIDGE" >/dev/null 2>&1; then ip link delete "$CNI_BRIDGE"; fi
rm -rf "/var/lib/cni/networks/$CNI_NETWORK" "/var/lib/cni/results"/"$CNI_NETWORK"-* 2>/dev/null || true

# State: the cluster itself goes; certificates and built helpers stay for the next start.
rm -rf "$K8S_DIR/etcd" "$K8S_DIR/volumes" "$CONTAINERD_ROOT" "$KUBELET_ROOT" "$K8S_DIR/kubelet-certs" \
       "$K8S_DIR/apiserver-certs" "$K8S_DIR/kcm-certs" "$K8S_RUN"

# What is left?
left=()
for c in $COMPONENTS; do running "$c" && left+=("process $c"); done
if pgrep -f "containerd-shim-runc-v2 .*$K8S_RUN" >/dev/null 2>&1; then left+=("containerd shims"); fi
if [ -n "$(awk -v a="$KUBELET_ROOT" -v b="$CONTAINERD_ROOT" -v c="$K8S_RUN" \
      'index($2, a) == 1 || index($2, b) == 1 || index($2, c) == 1 {print $2}' /proc/mounts)" ]; then left+=("mounts"); fi
if ip link show "$CNI_BRIDGE" >/dev/null 2>&1; then left+=("interface $CNI_BRIDGE"); fi
if ip -o link show type veth 2>/dev/null | grep -q "master $CNI_BRIDGE"; then left+=("veth interfaces"); fi
if [ -n "$(iptables -S 2>/dev/null | awk '/^-N (KUBE|CNI)-/'; iptables -t nat -S 2>/dev/null | awk '/^-N (KUBE|CNI)-/')" ]; then
  left+=("iptables chains"); fi
if command -v ipset >/dev/null && ipset list -n 2>/dev/null | grep -qE '^(KUBE-|kube-router)'; then left+=("ipsets"); fi
if [ ${#left[@]} -gt 0 ]; then die "left behind: ${left[*]}"; fi
log "stopped: no process, mount, interface or iptables chain of the local cluster is left"
